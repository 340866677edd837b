package fix

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/sunsetscan/sunset/migrate/internal/tfschema"
	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/repo"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// fixedCopy copies testdata/NAME into a temporary directory, runs fix there with opts and
// writes its changes; it returns the directory and the result.
func fixedCopy(t *testing.T, name string, opts Options) (string, *Result) {
	t.Helper()
	dir := copyFixture(t, name)
	opts.Root = dir
	res, err := Run(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, fc := range res.Files {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(fc.Path)), fc.New, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, res
}

// checkFixed checks a rewritten directory: every .tf file parses, a second run changes
// nothing, and sunset check reports rule only on the resources fix left (want of them).
func checkFixed(t *testing.T, dir string, opts Options, rule vocab.RuleID, want int) {
	t.Helper()
	if len(tfFilesUnder(t, dir)) == 0 {
		t.Fatalf("no .tf files in %s", dir)
	}
	parseAll(t, dir)
	opts.Root = dir
	again, err := Run(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, fc := range again.Files {
		t.Errorf("second run changes %s:\n%s", fc.Path, fc.New)
	}
	if got := ruleFindings(t, dir, rule); len(got) != want {
		t.Errorf("sunset check reports %s %d times after the fix, want %d: %v", rule, len(got), want, got)
	}
}

// ruleFindings are the findings of rule that sunset check reports on dir.
func ruleFindings(t *testing.T, dir string, rule vocab.RuleID) []string {
	t.Helper()
	res, err := repo.Check(context.Background(), repo.Options{Paths: []string{dir}, AsOf: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range res.Findings {
		if f.RuleID == rule {
			out = append(out, findingText(f))
		}
	}
	return out
}

func findingText(f scanner.Finding) string {
	s := f.Title + " " + f.Resource.Name
	if f.Location != nil {
		s = f.Location.Path + ": " + s
	}
	return s
}

// leftFor are the Left messages of the resources named.
func leftFor(res *Result, addr string) []string {
	var out []string
	for _, p := range res.Left {
		if len(p.Message) >= len(addr) && p.Message[:len(addr)] == addr {
			out = append(out, p.Message)
		}
	}
	return out
}

func rewriteOf(res *Result, newAddr string) (Rewrite, bool) {
	i := slices.IndexFunc(res.Rewrites, func(r Rewrite) bool { return r.New == newAddr })
	if i < 0 {
		return Rewrite{}, false
	}
	return res.Rewrites[i], true
}

// checkedTypes are the resource types fix writes or edits besides firewall rules: each
// block of them in a rewritten fixture is checked against the provider's reduced schema.
var checkedTypes = map[string]bool{typeRuleset: true, "cloudflare_tunnel": true, "cloudflare_zero_trust_tunnel_cloudflared": true,
	"cloudflare_access_application": true, "cloudflare_zero_trust_access_application": true, typeSettingsOverride: true,
	"cloudflare_zone_setting": true, typeUniversalSSL: true, "cloudflare_load_balancer_pool": true, "cloudflare_record": true, "cloudflare_dns_record": true}

// checkNewTypes checks testdata/NAME rewritten in dir against the target provider's reduced
// schema (v5.22.0 or v4.52.8): every resource type the fix adds is one of the provider's,
// and every block of the checkedTypes is valid for the target, or, for a block the fix
// edits in place, for the provider whose syntax it was written in.
func checkNewTypes(t *testing.T, name, dir string, target terraform.Provider) {
	t.Helper()
	schemas := map[terraform.Provider]*tfschema.Schema{}
	for p, v := range map[terraform.Provider]string{terraform.ProviderV5: "5.22.0", terraform.ProviderV4: "4.52.8"} {
		s, err := tfschema.Load(v)
		if err != nil {
			t.Fatal(err)
		}
		schemas[p] = s
	}
	other := map[terraform.Provider]terraform.Provider{terraform.ProviderV5: terraform.ProviderV4, terraform.ProviderV4: terraform.ProviderV5}[target]
	before := resourceTypes(t, filepath.Join("testdata", name))
	for _, p := range tfFilesUnder(t, dir) {
		src := mustRead(t, p)
		f, diags := hclsyntax.ParseConfig(src, p, hcl.InitialPos)
		if diags.HasErrors() {
			continue // checkFixed reports it
		}
		for _, b := range f.Body.(*hclsyntax.Body).Blocks {
			if b.Type != "resource" || len(b.Labels) != 2 {
				continue
			}
			typ := b.Labels[0]
			if !before[typ] && !schemas[target].HasType(typ) {
				t.Errorf("the fix writes %s, which provider %s does not have", typ, target)
			}
			if !checkedTypes[typ] {
				continue
			}
			// A block the fix edits keeps its own syntax, v4's or v5's (the provider's
			// upgrade tool moves the rest); one it writes is in the target's.
			errs := schemas[target].CheckResource(b)
			if len(errs) > 0 && before[typ] && schemas[other].HasType(typ) && len(schemas[other].CheckResource(b)) == 0 {
				errs = nil
			}
			for _, err := range errs {
				t.Errorf("%s: %s.%s against provider %s: %v", p, typ, b.Labels[1], target, err)
			}
		}
	}
}

// resourceTypes are the resource types the .tf files of dir declare.
func resourceTypes(t *testing.T, dir string) map[string]bool {
	t.Helper()
	files := tfFilesUnder(t, dir)
	out := map[string]bool{}
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, diags := hclsyntax.ParseConfig(src, p, hcl.InitialPos)
		if diags.HasErrors() {
			continue // checkFixed reports it
		}
		for _, b := range f.Body.(*hclsyntax.Body).Blocks {
			if b.Type == "resource" && len(b.Labels) == 2 {
				out[b.Labels[0]] = true
			}
		}
	}
	return out
}

// tfFilesUnder are the .tf files at or under dir.
func tfFilesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".tf") {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFixturesOnV4: every fixture rewritten for provider v4 is valid for v4.52.8 where fix
// writes it, reported by check as for v5, and a second run changes nothing.
func TestFixturesOnV4(t *testing.T) {
	for _, c := range []struct {
		name string
		rule vocab.RuleID
		left int
	}{
		{"ratelimit/pro", vocab.RateLimitingV1, 2}, {"ratelimit/modules", vocab.RateLimitingV1, 0},
		{"settings/zones", "zone-setting-mobile-redirect", 0}, {"waf/shop", "waf-managed-rules-v1", 3},
		{"records/v4", "srv-data-fields", 3}, {"renames", "access-bookmarks-api", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := Options{Target: terraform.ProviderV4}
			dir, res := fixedCopy(t, c.name, opts)
			if len(res.Rewrites) == 0 {
				t.Fatalf("nothing rewritten: %v", res.Left)
			}
			checkNewTypes(t, c.name, dir, opts.Target)
			checkFixed(t, dir, opts, c.rule, c.left)
		})
	}
}
