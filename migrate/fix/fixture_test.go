package fix

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/repo"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// fixedCopy copies testdata/NAME into a temporary directory, runs fix there with opts and
// writes its changes; it returns the directory and the result.
func fixedCopy(t *testing.T, name string, opts Options) (string, *Result) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", name))); err != nil {
		t.Fatal(err)
	}
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
	files := tfFilesUnder(t, dir)
	if len(files) == 0 {
		t.Fatalf("no .tf files in %s", dir)
	}
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, diags := hclsyntax.ParseConfig(src, p, hcl.InitialPos); diags.HasErrors() {
			t.Errorf("%s does not parse: %v\n%s", p, diags, src)
		}
	}
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

// checkNewTypes checks that every resource type the fix adds to testdata/NAME (rewritten in
// dir) is a type of the target provider: the reduced schemas of v4.52.8 and v5.22.0 that
// migrate/terraform's tests use.
func checkNewTypes(t *testing.T, name, dir string, target terraform.Provider) {
	t.Helper()
	file := map[terraform.Provider]string{terraform.ProviderV4: "provider-v4.52.8.json", terraform.ProviderV5: "provider-v5.22.0.json"}[target]
	data, err := os.ReadFile(filepath.Join("..", "terraform", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Types []string `json:"resource_types"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	before := resourceTypes(t, filepath.Join("testdata", name))
	for typ := range resourceTypes(t, dir) {
		if !before[typ] && !slices.Contains(schema.Types, typ) {
			t.Errorf("the fix writes %s, which provider %s does not have", typ, target)
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
