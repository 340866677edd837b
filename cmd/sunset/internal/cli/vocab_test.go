package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanDirectoryIsAllVerifyAndApplyNeed: `sunset plan --plan-dir DIR` writes the snapshot
// beside the plan, so `sunset verify DIR` and `sunset apply DIR` need nothing else, and
// --plan-dir DIR says the same as the argument.
func TestPlanDirectoryIsAllVerifyAndApplyNeed(t *testing.T) {
	snap := writeDemoSnapshot(t)
	dir := filepath.Join(t.TempDir(), "plan")
	if r := runSunset(t, nil, "plan", "--snapshot", snap, "--as-of", "2025-02-01", "--plan-dir", dir); r.code != ExitOK {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	for _, name := range []string{"plan.json", "plan.md", "snapshot.json", "terraform"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("the plan directory lacks %s", name)
		}
	}
	verified := runSunset(t, nil, "verify", dir)
	if verified.code != ExitOK || !strings.Contains(verified.stdout, "Verified on ") || !strings.HasPrefix(verified.stderr, "sunset: next: sunset apply "+dir+" ") {
		t.Fatalf("verify DIR: exit %d\n%s%s", verified.code, verified.stdout, verified.stderr)
	}
	if r := runSunset(t, nil, "verify", "--plan-dir", dir); r.code != ExitOK || r.stdout != verified.stdout {
		t.Errorf("verify --plan-dir DIR differs from verify DIR: exit %d\n%s", r.code, r.stderr)
	}
	applied := runSunset(t, nil, "apply", dir)
	if applied.code != ExitOK || !strings.Contains(applied.stdout, "Dry run: nothing sent.") {
		t.Fatalf("apply DIR: exit %d\n%s%s", applied.code, applied.stdout, applied.stderr)
	}
	for _, bad := range [][]string{
		{"apply", dir, "--snapshot", snap},
		{"verify", dir, "--plan-dir", dir},
		{"verify", dir, dir},
		{"apply", filepath.Join(dir, "plan.json")},
	} {
		if r := runSunset(t, nil, bad...); r.code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", bad, r.code, ExitUsage)
		}
	}
}

// TestOldSpellingsStillWork: last release's spellings keep working for one release, each with
// one deprecation line on stderr naming its replacement.
func TestOldSpellingsStillWork(t *testing.T) {
	snap := writeDemoSnapshot(t)
	tmp := t.TempDir()
	old, dir := filepath.Join(tmp, "old"), filepath.Join(tmp, "new")
	if r := runSunset(t, nil, "plan", "--snapshot", snap, "--as-of", "2025-02-01", "--plan-dir", dir); r.code != ExitOK {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	report := filepath.Join(tmp, "r.json")
	for _, tc := range []struct {
		args []string
		line string
		code int
	}{
		{[]string{"plan", "--snapshot", snap, "--out-dir", old}, "--out-dir is deprecated and goes in the next release: use --plan-dir", ExitOK},
		{[]string{"scan", "--snapshot", snap, "--fail-on", "none", "--plan", old, "--format", "json:" + report}, "--plan is deprecated and goes in the next release: use --plan-dir", ExitOK},
		{[]string{"verify", "--plan-in", filepath.Join(dir, "plan.json"), "--snapshot", snap}, "--plan-in FILE with --snapshot FILE is deprecated and goes in the next release: use the plan directory: sunset verify DIR", ExitOK},
		{[]string{"apply", "--plan-in", filepath.Join(dir, "plan.json"), "--snapshot", snap}, "use the plan directory: sunset apply DIR", ExitOK},
		{[]string{"report", report, "--plan", filepath.Join(dir, "plan.json"), "--format", "json:" + filepath.Join(tmp, "r2.json")}, "--plan FILE is deprecated and goes in the next release: use --plan-dir DIR", ExitOK},
		{[]string{"translate", "--plan", "pro", "ssl"}, "--plan is deprecated and goes in the next release: use --zone-plan", ExitOK},
		{[]string{"scan", "--snapshot", snap, "--plan", old, "--plan-dir", dir}, "--plan is the old spelling of --plan-dir: give one", ExitUsage},
	} {
		r := runSunset(t, nil, tc.args...)
		if r.code != tc.code || strings.Count(r.stderr, tc.line) != 1 {
			t.Errorf("%v: exit %d (want %d), stderr lacks %q once:\n%s", tc.args, r.code, tc.code, tc.line, r.stderr)
		}
	}
}

// TestFormatGrammarEverywhere: verify and apply take --format FORMAT[:PATH], repeatable, as
// scan, check and report do; an unknown format names the command's own.
func TestFormatGrammarEverywhere(t *testing.T) {
	snap := writeDemoSnapshot(t)
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "plan")
	if r := runSunset(t, nil, "plan", "--snapshot", snap, "--as-of", "2025-02-01", "--plan-dir", dir); r.code != ExitOK {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	for _, cmd := range []string{"verify", "apply"} {
		path := filepath.Join(tmp, cmd+".json")
		r := runSunset(t, nil, cmd, dir, "--format", "json:"+path, "--format", map[string]string{"verify": "table", "apply": "text"}[cmd])
		if r.code != ExitOK || r.stdout == "" {
			t.Fatalf("%s: exit %d, stdout %q\n%s", cmd, r.code, r.stdout, r.stderr)
		}
		var doc map[string]any
		if data, err := os.ReadFile(path); err != nil || json.Unmarshal(data, &doc) != nil {
			t.Errorf("%s --format json:PATH wrote no JSON document: %v", cmd, err)
		}
		if r := runSunset(t, nil, cmd, dir, "--format", "sarif"); r.code != ExitUsage || !strings.Contains(r.stderr, `unknown format "sarif"`) {
			t.Errorf("%s --format sarif: exit %d\n%s", cmd, r.code, r.stderr)
		}
	}
}
