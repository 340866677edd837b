package repo

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner"
)

func TestSuppressionStyles(t *testing.T) {
	c := NewChecker(nil, asOf)
	call := `curl "$API/zones/$Z/filters"`
	cases := []struct {
		name, file, src string
		suppressed      bool
		notes           []string // messages of sunset-suppression findings, by substring
	}{
		{"hash line before", "a.sh", "# sunset:ignore filters moving in Q3\n" + call, true, nil},
		{"slash trailing", "a.go", call + " // sunset:ignore filters moving in Q3", true, nil},
		{"block comment", "a.js", "/* sunset:ignore filters moving in Q3 */\n" + call, true, nil},
		{"html comment", "a.md", "<!-- sunset:ignore filters documented example -->\n\n" + call, true, nil},
		{"stacked", "a.sh", "# sunset:ignore firewall-rules other\n# sunset:ignore filters moving\n" + call, true, nil},
		{"several ids", "a.sh", "# sunset:ignore firewall-rules,filters moving\n" + call, true, nil},
		{"all", "a.sh", "# sunset:ignore all moving\n" + call, true, nil},
		{"other rule", "a.sh", "# sunset:ignore firewall-rules moving\n" + call, false, nil},
		{"not the next line", "a.sh", "# sunset:ignore filters moving\necho hi\n" + call, false, nil},
		{"no reason", "a.sh", "# sunset:ignore filters\n" + call, true, []string{"gives no reason"}},
		{"until ahead", "a.sh", "# sunset:ignore filters until=2025-12-31 moving\n" + call, true, nil},
		{"until is the day", "a.sh", "# sunset:ignore filters until=2025-07-01 moving\n" + call, true, nil},
		{"expired", "a.sh", "# sunset:ignore filters until=2025-06-30 moving\n" + call, false, []string{"expired on 2025-06-30"}},
		{"bad date", "a.sh", "# sunset:ignore filters until=soon moving\n" + call, false, []string{"is not a date"}},
		{"unknown rule", "a.sh", "# sunset:ignore filtres,filters typo\n" + call, true, []string{"unknown rule id filtres"}},
		{"empty", "a.sh", "# sunset:ignore\n" + call, false, []string{"names no rule"}},
		{"prose", "a.md", "Use sunset:ignore filters to silence\n" + call, false, nil},
		{"block in terraform", "a.tf", "# sunset:ignore srv-data-fields migrating\nresource \"cloudflare_record\" \"r\" {\n  type = \"SRV\"\n  data {\n    service = \"_x\"\n  }\n}\n", true, nil},
		{"object in yaml", "a.yaml", "# sunset:ignore srv-data-fields migrating\n- type: SRV\n  data:\n    service: _x\n", true, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := c.CheckFile(tc.file, KindOf(tc.file), []byte(tc.src)).Findings
			var target *scanner.Finding
			var notes []string
			for i := range fs {
				if fs[i].RuleID == RuleSuppression {
					notes = append(notes, fs[i].Message)
					if fs[i].Severity != scanner.SeverityNotice {
						t.Errorf("suppression finding severity %s", fs[i].Severity)
					}
				} else if target == nil {
					target = &fs[i]
				}
			}
			if target == nil {
				t.Fatalf("no finding: %+v", fs)
			}
			if target.Suppressed != tc.suppressed {
				t.Errorf("suppressed = %v (%q), want %v", target.Suppressed, target.SuppressedBy, tc.suppressed)
			}
			if len(notes) != len(tc.notes) {
				t.Fatalf("suppression findings %q, want %q", notes, tc.notes)
			}
			for i, n := range tc.notes {
				if !strings.Contains(notes[i], n) {
					t.Errorf("note %q does not say %q", notes[i], n)
				}
			}
		})
	}
}

// TestGitignoreMatchesGit compares the matcher with git itself on the same tree.
func TestGitignoreMatchesGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed: the differential gitignore test needs it")
	}
	dir := t.TempDir()
	files := []string{
		"a.log", "keep.log", "src/a.log", "src/b.txt", "build/out.txt", "sub/build/out.txt",
		"docs/x.md", "docs/api/y.md", "deep/a/b/c.tmp", "deep/keep.tmp", "root.txt", "sub/root.txt",
		"x/y/z/target.bin", "name with space.txt", "lit#hash.txt", "[br].txt", "only/dir/f", "only/file",
		"sub/.gitignore-scope/f.cfg", "sub/local.cfg", "local.cfg", "nested/dir/file.go", "nested/dir/file.gox",
	}
	write := func(p, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		write(filepath.Join(dir, f), "x")
	}
	write(filepath.Join(dir, ".gitignore"), strings.Join([]string{
		"# comment", "*.log", "!keep.log", "/build/", "docs/**/*.md", "!docs/x.md", "deep/**/*.tmp",
		"/root.txt", "**/z/target.bin", "name\\ with\\ space.txt", "\\#hash.txt", "lit#hash.txt", "\\[br\\].txt",
		"only/dir/", "nested/**/*.go", "",
	}, "\n"))
	write(filepath.Join(dir, "sub", ".gitignore"), "*.cfg\n!local.cfg\n")
	if out, err := exec.Command(git, "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	cmd := exec.Command(git, "-C", dir, "ls-files", "--others", "--exclude-standard")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	// One path a line (a name may hold spaces); git quotes names it escapes.
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" && !strings.HasSuffix(l, ".gitignore") {
			want = append(want, strings.Trim(l, "\""))
		}
	}
	var got []string
	w := &walker{
		ctx: t.Context(), gitignore: true,
		file: func(f walkFile) {
			rel := strings.TrimPrefix(f.display, filepath.ToSlash(dir)+"/")
			if !strings.HasSuffix(rel, ".gitignore") {
				got = append(got, rel)
			}
		},
		fail: func(p, what, msg string) { t.Errorf("%s: %s", p, msg) },
		skip: func(string, string) {},
	}
	w.root(dir)
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("walk and git disagree\nwalk: %q\ngit:  %q", got, want)
	}
}
