package terraform

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

func demoPlan(t *testing.T) *migrate.Plan {
	t.Helper()
	asOf := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	snap := seed.Demo()
	res := scanner.ScanSnapshot(snap, nil, scanner.Options{AsOf: asOf})
	return migrate.Build(snap, res, migrate.Options{AsOf: asOf})
}

// TestFilesParseAndAreFormatted: every file parses with hcl/v2 and is what terraform fmt
// (hclwrite.Format) would leave unchanged; the blocks a Terraform user adopts are there.
func TestFilesParseAndAreFormatted(t *testing.T) {
	p := demoPlan(t)
	files, err := Files(p)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for name, src := range files {
		f, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatalf("%s does not parse: %s", name, diags.Error())
		}
		if got := hclwrite.Format(src); !bytes.Equal(got, src) {
			t.Errorf("%s is not fmt clean", name)
		}
		for _, b := range f.Body.(*hclsyntax.Body).Blocks {
			key := b.Type
			if len(b.Labels) > 0 {
				key += " " + b.Labels[0]
			}
			counts[key]++
		}
	}
	for key, min := range map[string]int{
		"terraform": 1, "resource cloudflare_ruleset": 10, "resource cloudflare_zone_dns_settings": 6,
		"resource cloudflare_account_dns_settings": 3, "import": 10, "removed": 40,
	} {
		if counts[key] < min {
			t.Errorf("%d %q blocks, want at least %d (all: %v)", counts[key], key, min, counts)
		}
	}
	if _, ok := files["versions.tf"]; !ok {
		t.Error("no versions.tf")
	}
}

// TestRulesRoundTrip: the rules written to HCL evaluate back to the plan's rules, whatever
// the expression holds (quotes, backslashes, ${ and %{ sequences, HTML, non-ASCII).
func TestRulesRoundTrip(t *testing.T) {
	tricky := []string{
		`http.request.uri.path eq "/a\"b\\c"`,
		`http.request.uri.query contains "${var.x}" or http.request.uri.query contains "%{if}"`,
		`http.user_agent contains "<script>alert(1)</script>"`,
		`http.host eq "bücher.example" and ip.src in {192.0.2.0/24}`,
	}
	var rules []json.RawMessage
	for i, e := range tricky {
		rules = append(rules, json.RawMessage(`{"action":"block","expression":`+quoteJSON(e)+`,"description":"rule `+string(rune('a'+i))+` | `+"`x`"+`","enabled":true,"id":"x","version":"2","last_updated":"t","ratelimit":{"period":60,"characteristics":["cf.colo.id","ip.src"]}}`))
	}
	p := &migrate.Plan{SchemaVersion: 1, Zones: []migrate.ZonePlan{{
		ZoneID: "z1", ZoneName: "a-b.example",
		Targets: []migrate.Target{{Phase: migrate.PhaseCustomRules, Name: "default", Rules: rules}},
	}}}
	files, err := Files(p)
	if err != nil {
		t.Fatal(err)
	}
	src := files["zone_a-b_example.tf"]
	f, diags := hclsyntax.ParseConfig(src, "z.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("does not parse: %s\n%s", diags.Error(), src)
	}
	var got cty.Value
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		if b.Type == "resource" {
			v, d := b.Body.Attributes["rules"].Expr.Value(nil)
			if d.HasErrors() {
				t.Fatal(d.Error())
			}
			got = v
		}
	}
	if got.LengthInt() != len(tricky) {
		t.Fatalf("%d rules back, want %d", got.LengthInt(), len(tricky))
	}
	for i, e := range tricky {
		r := got.Index(cty.NumberIntVal(int64(i)))
		if s := r.GetAttr("expression").AsString(); s != e {
			t.Errorf("rule %d expression %q, want %q", i, s, e)
		}
		for _, computed := range []string{"id", "version", "last_updated"} {
			if r.Type().HasAttribute(computed) {
				t.Errorf("rule %d carries the computed member %s", i, computed)
			}
		}
		if n, _ := r.GetAttr("ratelimit").GetAttr("period").AsBigFloat().Int64(); n != 60 {
			t.Errorf("rule %d period %d", i, n)
		}
	}
}

func quoteJSON(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestWriteRemovesStaleGeneratedFiles: a zone that left the plan loses its generated file;
// files the user wrote stay.
func TestWriteRemovesStaleGeneratedFiles(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "zone_gone_example.tf")
	mine := filepath.Join(dir, "main.tf")
	os.WriteFile(stale, []byte(generatedMark+" old\n"), 0o644)
	os.WriteFile(mine, []byte("# mine\n"), 0o644)
	if err := Write(dir, &migrate.Plan{SchemaVersion: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("stale generated file kept")
	}
	if _, err := os.Stat(mine); err != nil {
		t.Error("user file removed")
	}
	if _, err := os.Stat(filepath.Join(dir, "versions.tf")); err != nil {
		t.Error("versions.tf not written")
	}
}

// TestNames: resource and file names are valid identifiers and unique.
func TestNames(t *testing.T) {
	n := newNamer()
	a, b := n.name("zone_a.b_custom"), n.name("zone_a-b_custom")
	if a == b || strings.ContainsAny(a, ".") {
		t.Fatalf("names %q %q", a, b)
	}
	if c := n.name("zone_a.b_custom"); c == a {
		t.Fatalf("duplicate name %q", c)
	}
	if s := sanitize("1abc"); s[0] != '_' {
		t.Fatalf("sanitize 1abc = %q", s)
	}
}
