package fix

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner/repo"
)

// TestCorpusRepos runs fix on the Terraform of the public repositories in the corpus
// (SUNSET_CORPUS): code nobody on this project wrote. For each repository and target it
// must not fail, every file it writes must parse, a second run must change nothing, and
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
	before, after := map[string]int{}, map[string]int{}
	for _, r := range repos {
		if !hasTerraform(r) {
			continue
		}
		for _, target := range []terraform.Provider{terraform.ProviderV5, terraform.ProviderV4} {
			b, a := corpusRepo(t, r, target)
			if target == terraform.ProviderV5 {
				for k, v := range b {
					before[k] += v
				}
				for k, v := range a {
					after[k] += v
				}
			}
		}
	}
	rules := make([]string, 0, len(before))
	for k := range before {
		rules = append(rules, k)
	}
	sort.Strings(rules)
	for _, k := range rules {
		t.Logf("%-28s %3d findings before, %3d after (--target v5)", k, before[k], after[k])
	}
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
	again, err := Run(Options{Root: dir, Target: target})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := again.Diff(); d != "" {
		t.Errorf("%s (%s): a second run changes the files again:\n%s", filepath.Base(src), target, d)
	}
	explained := map[string]bool{}
	for _, p := range append(append([]Problem{}, res.Left...), res.Problems...) {
		explained[filepath.Join(dir, filepath.FromSlash(p.Path))] = true
	}
	after = map[string]int{}
	for key, n := range handledFindingsAt(t, dir) {
		rule, path, _ := strings.Cut(key, "\x00")
		after[rule] += n
		if !explained[path] {
			t.Errorf("%s (%s): check still finds %s in %s, and fix does not say why", filepath.Base(src), target, rule, path)
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
