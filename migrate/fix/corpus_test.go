package fix

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/sunsetscan/sunset/migrate/internal/tfschema"
	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner/repo"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// TestCorpusRepos runs fix on the Terraform of the public repositories in the corpus
// (SUNSET_CORPUS): code nobody on this project wrote. For each repository and target it
// must not fail, every file it writes must parse, every block it writes must be valid for
// the target's schema (writtenBlockErrors), a second run must change nothing, and
// every finding of a rule it handles that `sunset check` still reports afterwards must be in
// a file fix names with the reason. It logs, per rule, the findings before and after.
func TestCorpusRepos(t *testing.T) {
	root := os.Getenv("SUNSET_CORPUS")
	if root == "" {
		t.Skip("SUNSET_CORPUS is not set: the corpus of public repositories (../shared/realworld) is not used")
	}
	repos, err := filepath.Glob(filepath.Join(root, "repos*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	before, after := map[terraform.Provider]map[string]int{}, map[terraform.Provider]map[string]int{}
	for _, r := range repos {
		if !hasTerraform(r) {
			continue
		}
		for _, target := range []terraform.Provider{terraform.ProviderV5, terraform.ProviderV4} {
			b, a := corpusRepo(t, r, target)
			before[target], after[target] = addCounts(before[target], b), addCounts(after[target], a)
		}
	}
	v5b, v5a := before[terraform.ProviderV5], after[terraform.ProviderV5]
	for _, k := range slices.Sorted(maps.Keys(v5b)) {
		t.Logf("%-28s %3d findings before, %3d after (--target v5)", k, v5b[k], v5a[k])
	}
	// Done when at most a tenth of what fix handles is left, each with its reason, with the
	// default target; provider v4 leaves no more, but for what it has no resource for.
	total := func(m map[string]int, but string) (n int) {
		for k, v := range m {
			if k != but {
				n += v
			}
		}
		return n
	}
	b5, a5 := total(v5b, ""), total(v5a, "")
	a4, a4x := total(after[terraform.ProviderV4], ""), total(after[terraform.ProviderV4], string(vocab.ZoneSettingsBulk))
	t.Logf("--target v5: %d of %d findings left (%.1f%%); --target v4: %d left, %d of them %s (v4 has no resource per setting)",
		a5, b5, 100*float64(a5)/float64(max(b5, 1)), a4, a4-a4x, vocab.ZoneSettingsBulk)
	if a5*10 > b5 {
		t.Errorf("--target v5 leaves %d of %d findings: more than a tenth", a5, b5)
	}
	if a4x > a5 {
		t.Errorf("--target v4 leaves %d findings besides %s, --target v5 %d in all", a4x, vocab.ZoneSettingsBulk, a5)
	}
}

// addCounts adds the counts of b to a (nil for none yet).
func addCounts(a, b map[string]int) map[string]int {
	if a == nil {
		a = map[string]int{}
	}
	for k, v := range b {
		a[k] += v
	}
	return a
}

func hasTerraform(dir string) bool {
	found := false
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".tf") {
			found = true
		}
		return nil
	})
	return found
}

// corpusRepo fixes a copy of one repository and returns the handled findings before and
// after, by rule.
func corpusRepo(t *testing.T, src string, target terraform.Provider) (before, after map[string]int) {
	t.Helper()
	dir := t.TempDir()
	copyTree(t, src, dir)
	before = handledFindings(t, dir)
	res, err := Run(Options{Root: dir, Target: target})
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(src), err)
	}
	if err := res.Write(); err != nil {
		t.Fatalf("%s: %v", filepath.Base(src), err)
	}
	for _, f := range res.Files {
		if strings.HasSuffix(f.Path, ".tf") {
			parseAll(t, filepath.Dir(f.Abs))
		}
	}
	for _, e := range writtenBlockErrors(t, res, target) {
		t.Errorf("%s (%s): %s", filepath.Base(src), target, e)
	}
	again, err := Run(Options{Root: dir, Target: target})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := again.Diff(); d != "" {
		t.Errorf("%s (%s): a second run changes the files again:\n%s", filepath.Base(src), target, d)
	}
	leftSaidInPlace(t, dir, res) // every leftover commented where it stands
	explained := map[string][]string{}
	for _, p := range append(append([]Problem{}, res.Left...), res.Problems...) {
		path := filepath.Join(dir, filepath.FromSlash(p.Path))
		explained[path] = append(explained[path], p.String())
	}
	after = map[string]int{}
	for key, n := range handledFindingsAt(t, dir) {
		rule, path, _ := strings.Cut(key, "\x00")
		after[rule] += n
		if len(explained[path]) == 0 {
			t.Errorf("%s (%s): check still finds %s in %s, and fix does not say why", filepath.Base(src), target, rule, path)
		} else {
			t.Logf("left in %s (%s): %d %s; fix says: %s", filepath.Base(src), target, n, rule, strings.Join(explained[path], " | "))
		}
	}
	return before, after
}

func handledFindings(t *testing.T, dir string) map[string]int {
	out := map[string]int{}
	for key, n := range handledFindingsAt(t, dir) {
		rule, _, _ := strings.Cut(key, "\x00")
		out[rule] += n
	}
	return out
}

// handledFindingsAt counts check's findings of the handled rules in .tf files, by rule and
// file ("rule\x00path").
func handledFindingsAt(t *testing.T, dir string) map[string]int {
	t.Helper()
	res, err := repo.Check(context.Background(), repo.Options{Paths: []string{dir}, AsOf: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC), Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, f := range res.Findings {
		if slices.Contains(Handled, f.RuleID) && strings.HasSuffix(f.Location.Path, ".tf") {
			out[fmt.Sprintf("%s\x00%s", f.RuleID, f.Location.Path)]++
		}
	}
	return out
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// writtenBlockErrors checks every resource block fix wrote or changed (one not in the file
// as it was, word for word) against the target's reduced schema (v5.22.0 or v4.52.8),
// references to attributes included. A block fix edited in place keeps its own syntax, v4's
// or v5's, and the summary says so: such a block passes when fix added no error to it for
// the target or for the other provider (the user's own block may be for an older release).
func writtenBlockErrors(t *testing.T, res *Result, target terraform.Provider) []string {
	t.Helper()
	schemas := targetSchemas()
	other := map[terraform.Provider]terraform.Provider{terraform.ProviderV5: terraform.ProviderV4, terraform.ProviderV4: terraform.ProviderV5}[target]
	var out []string
	for _, f := range res.Files {
		if !strings.HasSuffix(f.Path, ".tf") {
			continue
		}
		before, was := map[string]bool{}, map[string]*hclsyntax.Block{}
		for _, b := range resourceBlocks(f.Old, f.Path) {
			before[blockText(f.Old, b)] = true
			was[b.Labels[0]+"."+b.Labels[1]] = b
		}
		for _, b := range resourceBlocks(f.New, f.Path) {
			if before[blockText(f.New, b)] {
				continue
			}
			errs := schemas[target].CheckResource(b)
			if old := was[b.Labels[0]+"."+b.Labels[1]]; old != nil && len(errs) > 0 &&
				(noNewErrors(schemas[target], old, b) || noNewErrors(schemas[other], old, b)) {
				errs = nil // edited in place, in the syntax it was written in
			}
			for _, e := range errs {
				out = append(out, e.Error())
			}
		}
	}
	return out
}

// errPosition is where an error says it is (file, line): not what it says.
var errPosition = regexp.MustCompile(`^[^:]*:\d+: |line \d+ `)

// noNewErrors reports whether the schema finds nothing in the block now that it did not
// find in it before.
func noNewErrors(s *tfschema.Schema, before, now *hclsyntax.Block) bool {
	had := map[string]bool{}
	for _, e := range s.CheckResource(before) {
		had[errPosition.ReplaceAllString(e.Error(), "")] = true
	}
	for _, e := range s.CheckResource(now) {
		if !had[errPosition.ReplaceAllString(e.Error(), "")] {
			return false
		}
	}
	return true
}

// resourceBlocks are the resource blocks of src (none when it does not parse: parseAll says so).
func resourceBlocks(src []byte, path string) []*hclsyntax.Block {
	f, diags := hclsyntax.ParseConfig(src, path, hcl.InitialPos)
	if diags.HasErrors() {
		return nil
	}
	var out []*hclsyntax.Block
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		if b.Type == "resource" && len(b.Labels) == 2 {
			out = append(out, b)
		}
	}
	return out
}

// blockText is a block's source, its spacing made uniform.
func blockText(src []byte, b *hclsyntax.Block) string {
	r := b.Range()
	return strings.Join(strings.Fields(string(src[r.Start.Byte:r.End.Byte])), " ")
}
