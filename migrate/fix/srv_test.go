package fix

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/sunsetscan/sunset/migrate/internal/tfschema"
	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// validInput checks every resource block of testdata/NAME against the reduced schema of the
// provider version the fixture claims: a fixture is configuration that provider takes.
func validInput(t *testing.T, name, version string) {
	t.Helper()
	s, err := tfschema.Load(version)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range tfFilesUnder(t, filepath.Join("testdata", name)) {
		f, diags := hclsyntax.ParseConfig(mustRead(t, p), p, hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatalf("%s: %s", p, diags.Error())
		}
		for _, b := range f.Body.(*hclsyntax.Body).Blocks {
			if b.Type != "resource" || len(b.Labels) != 2 {
				continue
			}
			for _, err := range s.CheckResource(b) {
				t.Errorf("fixture %s: %s.%s is not valid for provider %s: %v", p, b.Labels[0], b.Labels[1], version, err)
			}
		}
	}
}

// unexplainedAfter is what `sunset fix --check` fails on in dir besides a change to make:
// the usages check reports that no `# sunset fix:` comment explains.
func unexplainedAfter(t *testing.T, dir string) []string {
	t.Helper()
	got, err := (&Result{}).Unexplained(context.Background(), dir, []string{dir}, time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range got {
		out = append(out, findingText(f))
	}
	return out
}

// A record whose type is a variable may be SRV, as check says: its fields go, the known
// ones compared with the name first (a conflict stays, with its comment), those from the
// module's callers "not proven". Nothing is left unexplained for fix --check.
func TestSRVTypeNotLiteral(t *testing.T) {
	validInput(t, "records/typevar", "4.52.8")
	opts := Options{Target: terraform.ProviderV5}
	dir, res := fixedCopy(t, "records/typevar", opts)
	checkNewTypes(t, "records/typevar", dir, opts.Target)
	rw, ok := rewriteOf(res, "cloudflare_record.service")
	if !ok || len(rw.Old) != 3 || !strings.HasPrefix(rw.Proven, "not proven") || !strings.Contains(rw.Proven, "var.service_type") ||
		!strings.Contains(strings.Join(rw.Notes, "\n"), "type is var.type, not a literal") {
		t.Errorf("service: rewrite %+v, left %v", rw, res.Left)
	}
	if rw, ok := rewriteOf(res, "cloudflare_record.sip"); !ok || len(rw.Old) != 3 || !strings.HasPrefix(rw.Proven, "nothing to prove") {
		t.Errorf("sip: rewrite %+v, left %v", rw, res.Left)
	}
	if l := leftFor(res, "cloudflare_record.xmpp"); len(l) != 1 || !strings.Contains(l[0], "compose _xmpp-server._tcp") {
		t.Errorf("xmpp left = %v", res.Left)
	}
	src := string(mustRead(t, filepath.Join(dir, "main.tf")))
	if strings.Contains(src, "var.service_protocol") || !strings.Contains(src, "  data {\n    priority = 10\n    weight   = 5\n    port     = var.service_port\n") {
		t.Errorf("rewritten file:\n%s", src)
	}
	checkFixed(t, dir, opts, vocab.SRVDataFields, 3) // xmpp's three fields stay
	if got := unexplainedAfter(t, dir); len(got) != 0 {
		t.Errorf("fix --check would fail on %v", got)
	}
}

// Generic record data from a collection, NAPTR fields beside SRV ones: proto and name go,
// service becomes null for SRV records only (NAPTR records keep theirs), and check no longer
// reports it.
func TestSRVGenericDataKeepsNAPTRService(t *testing.T) {
	validInput(t, "records/generic", "4.52.8")
	opts := Options{Target: terraform.ProviderV5}
	dir, res := fixedCopy(t, "records/generic", opts)
	checkNewTypes(t, "records/generic", dir, opts.Target)
	if rw, ok := rewriteOf(res, "cloudflare_record.all"); !ok || len(rw.Old) != 3 || !strings.Contains(rw.Proven, "var.records") {
		t.Errorf("rewrite %+v, left %v", rw, res.Left)
	}
	src := string(mustRead(t, filepath.Join(dir, "main.tf")))
	want := `      service     = lookup(each.value, "type", "CNAME") == "SRV" ? null : try(data.value.service, null)`
	if !strings.Contains(src, want) || strings.Contains(src, "data.value.proto") || strings.Contains(src, "data.value.name") {
		t.Errorf("rewritten file lacks %q, or keeps proto or name:\n%s", want, src)
	}
	checkFixed(t, dir, opts, vocab.SRVDataFields, 0)
}

// SRV records from a collection the repository holds: each instance's fields are compared
// with its name, and they go, proven.
func TestSRVCollectionInstances(t *testing.T) {
	validInput(t, "records/collection", "4.52.8")
	opts := Options{Target: terraform.ProviderV4}
	dir, res := fixedCopy(t, "records/collection", opts)
	if rw, ok := rewriteOf(res, "cloudflare_record.services"); !ok || len(rw.Old) != 3 || !strings.HasPrefix(rw.Proven, "nothing to prove") {
		t.Errorf("rewrite %+v, left %v", rw, res.Left)
	}
	checkFixed(t, dir, opts, vocab.SRVDataFields, 0)

	// One instance whose fields compose another name than its own: left, naming it.
	conflict := copyFixture(t, "records/collection")
	main := filepath.Join(conflict, "main.tf")
	if err := os.WriteFile(main, []byte(strings.Replace(string(mustRead(t, main)), `service = "_ldap"`, `service = "_ldaps"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := Run(Options{Root: conflict, Target: terraform.ProviderV4})
	if err != nil {
		t.Fatal(err)
	}
	if l := leftFor(res, "cloudflare_record.services"); len(l) != 1 || !strings.Contains(l[0], `instance cloudflare_record.services["ldap"]: data.service/proto/name compose _ldaps._tcp`) {
		t.Errorf("left = %v", res.Left)
	}
}

// TestSRVRecordKeptInItsOwnSyntax: under --target v5 a v4 cloudflare_record loses its SRV
// fields and stays a v4 block (tf-migrate moves it with the rest): its references are v4's
// and are not reported as names provider v5 lacks.
func TestSRVRecordKeptInItsOwnSyntax(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"main.tf": `data "cloudflare_zone" "main" {
  name = "example.org"
}

resource "cloudflare_record" "edge" {
  zone_id = data.cloudflare_zone.main.id
  name    = "edge"
  value   = "edge.example.net"
  type    = "CNAME"
}

resource "cloudflare_record" "srv" {
  zone_id = data.cloudflare_zone.main.id
  name    = "_minecraft._tcp"
  type    = "SRV"

  data {
    service  = "_minecraft"
    proto    = "_tcp"
    name     = "example.org"
    priority = 20
    weight   = 10
    port     = 25565
    target   = cloudflare_record.edge.hostname
  }
}
`})
	res, err := Run(Options{Root: dir, Target: terraform.ProviderV5})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rewriteOf(res, "cloudflare_record.srv"); !ok || len(res.Left) > 0 {
		t.Errorf("rewrites %+v, left %v: want the SRV fields dropped and nothing left", res.Rewrites, res.Left)
	}
}
