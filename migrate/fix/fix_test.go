package fix

import (
	"context"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/sunsetscan/sunset/migrate/internal/tfschema"
	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner/repo"
)

var update = flag.Bool("update", false, "rewrite the golden diffs in testdata/golden")

// fixtures are the repositories under testdata, each a shape fix rewrites.
var fixtures = []string{"literal", "nopriority", "foreach", "count", "module", "vardriven", "merge", "merge5", "templates", "crossmodule", "inline5"}

// rewrittenRules are the check rules a fix settles: a fixed repository has none of them.
var rewrittenRules = map[string]bool{"firewall-rules": true, "filters": true, "geoip-field-names": true}

// copyFixture copies testdata/name into a temporary directory.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dst := t.TempDir()
	copyTree(t, filepath.Join("testdata", name), dst)
	return dst
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./migrate/fix -update writes it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (go test ./migrate/fix -update rewrites it; review the diff):\n%s", name, got)
	}
}

// TestFixtures: every fixture, for both targets, rewrites as its golden diff says; the result
// parses, is written as shown, is fixed (a second run changes nothing) and `sunset check`
// finds none of the rewritten usages in it.
func TestFixtures(t *testing.T) {
	for _, name := range fixtures {
		for _, target := range []terraform.Provider{terraform.ProviderV5, terraform.ProviderV4} {
			t.Run(name+"/"+string(target), func(t *testing.T) {
				dir := copyFixture(t, name)
				res, err := Run(Options{Root: dir, Target: target})
				if err != nil {
					t.Fatal(err)
				}
				diff, err := res.Diff()
				if err != nil {
					t.Fatal(err)
				}
				golden(t, name+"."+string(target)+".diff", diff+summaryText(res))
				if len(res.Rewrites) == 0 {
					t.Fatal("nothing rewritten")
				}
				if err := res.Write(); err != nil {
					t.Fatal(err)
				}
				parseAll(t, dir)
				checkSchemas(t, res, target)
				again, err := Run(Options{Root: dir, Target: target})
				if err != nil {
					t.Fatal(err)
				}
				if d, _ := again.Diff(); d != "" {
					t.Errorf("a second run changes the files again:\n%s", d)
				}
				noRewrittenFindings(t, dir)
			})
		}
	}
}

// summaryText is what the goldens hold besides the diff: rewrites, proofs, what was left.
func summaryText(res *Result) string {
	var b strings.Builder
	b.WriteString("\n== summary\n")
	for _, rw := range res.Rewrites {
		b.WriteString(rw.File + ": " + strings.Join(rw.Old, ", ") + " -> " + rw.New + " (zone " + rw.Zone + ")\n    " + rw.Proven + "\n")
		for _, n := range rw.Notes {
			b.WriteString("    " + n + "\n")
		}
	}
	for _, p := range res.Left {
		b.WriteString("left: " + p.String() + "\n")
	}
	for _, s := range res.StateSteps {
		b.WriteString("state: " + s + "\n")
	}
	return b.String()
}

// parseAll parses every .tf file under dir.
func parseAll(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".tf") {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, diags := hclsyntax.ParseConfig(src, p, hcl.InitialPos); diags.HasErrors() {
			t.Errorf("%s does not parse after the fix: %s\n%s", p, diags.Error(), src)
		}
		return nil
	})
}

// noRewrittenFindings runs the checker on dir: none of the usages fix rewrites is left.
func noRewrittenFindings(t *testing.T, dir string) {
	t.Helper()
	res, err := repo.Check(context.Background(), repo.Options{Paths: []string{dir}, AsOf: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if rewrittenRules[string(f.RuleID)] && !keptOnPurpose(f.Location.Path, f.Location.StartLine) {
			t.Errorf("check still finds %s at %s:%d after the fix", f.RuleID, f.Location.Path, f.Location.StartLine)
		}
	}
}

// keptOnPurpose reports whether the finding is in a block fix left with a comment.
func keptOnPurpose(path string, line int) bool {
	src, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	lines := strings.Split(string(src), "\n")
	for i := min(line-1, len(lines)-1); i >= 0; i-- {
		if strings.HasPrefix(lines[i], "# sunset fix:") && strings.Contains(lines[i], "not rewritten") {
			return true
		}
		if strings.HasPrefix(lines[i], "}") {
			return false
		}
	}
	return false
}

// writtenTypes are the resource types fix writes; each written block of them must be valid
// for the provider whose syntax it is in: the target's, or, for a ruleset fix merged into,
// its own (a rules attribute is provider v5's, rules blocks v4's).
var writtenTypes = map[string]bool{typeRuleset: true}

// checkSchemas checks the blocks of the written types in every changed file against the
// provider's reduced schema (v5.22.0 or v4.52.8).
func checkSchemas(t *testing.T, res *Result, target terraform.Provider) {
	t.Helper()
	schemas := map[terraform.Provider]*tfschema.Schema{}
	for p, v := range map[terraform.Provider]string{terraform.ProviderV5: "5.22.0", terraform.ProviderV4: "4.52.8"} {
		s, err := tfschema.Load(v)
		if err != nil {
			t.Fatal(err)
		}
		schemas[p] = s
	}
	for _, f := range res.Files {
		if !strings.HasSuffix(f.Path, ".tf") {
			continue
		}
		file, diags := hclsyntax.ParseConfig(f.New, f.Path, hcl.InitialPos)
		if diags.HasErrors() {
			continue // parseAll reports it
		}
		for _, b := range file.Body.(*hclsyntax.Body).Blocks {
			if b.Type != "resource" || len(b.Labels) != 2 || !writtenTypes[b.Labels[0]] {
				continue
			}
			p := target
			if _, attr := b.Body.Attributes["rules"]; attr {
				p = terraform.ProviderV5
			} else if len(b.Body.Blocks) > 0 {
				p = terraform.ProviderV4
			}
			for _, err := range schemas[p].CheckResource(b) {
				t.Errorf("%s: %s.%s against provider %s: %v", f.Path, b.Labels[0], b.Labels[1], p, err)
			}
		}
	}
}
