package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
)

// TestOutputsCheckedBeforeScan: every output of a scan (--format FORMAT:PATH, --snapshot-out,
// --plan) is checked before the first request; a path that cannot be written ends the run
// with exit 3 and a message naming it, and the emulator received nothing.
func TestOutputsCheckedBeforeScan(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-dir", "x.json")
	link := filepath.Join(dir, "link.sarif")
	if err := os.Symlink(filepath.Join(dir, "target"), link); err != nil {
		t.Fatal(err)
	}
	aFile := filepath.Join(dir, "a-file")
	if err := os.WriteFile(aFile, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	linkedPlan := filepath.Join(dir, "plan")
	if err := os.Mkdir(linkedPlan, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, filepath.Join(linkedPlan, "terraform")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string // in the message: the flag and path
	}{
		{[]string{"--format", "json:" + missing}, "--format json:" + missing},
		{[]string{"--format", "table", "--format", "sarif:" + link}, "symbolic link"},
		{[]string{"--format", "json:" + dir}, dir + " is a directory"},
		{[]string{"--snapshot-out", missing}, "--snapshot-out " + missing},
		{[]string{"--plan", aFile}, aFile + " is not a directory"},
		{[]string{"--plan", linkedPlan}, filepath.Join(linkedPlan, "terraform") + " is a symbolic link"},
	}
	for _, c := range cases {
		srv, base := startEmulator(t, emulator.Options{AsOf: time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)})
		args := append([]string{"scan", "--api-url", base, "--rps", "0"}, c.args...)
		r := runSunset(t, demoEnv(), args...)
		if r.code != ExitFatal || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, want %d and a message with %q:\n%s", c.args, r.code, ExitFatal, c.want, r.stderr)
		}
		if n := srv.Stats().Total; n != 0 {
			t.Errorf("%v: the emulator got %d requests before the output was refused", c.args, n)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "target")); err == nil {
		t.Error("the link's target was created")
	}
}

// TestOutputsCheckedBeforeDemoAndCheck: the demo checks --report before its emulator serves
// anything, and check checks --write-baseline and its --format files before reading a file
// (the repository below holds a finding, so a check that read it would say so).
func TestOutputsCheckedBeforeDemoAndCheck(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone", "out.json")
	r := runSunset(t, nil, "demo", "--report", missing, "--html", "")
	if r.code != ExitFatal || !strings.Contains(r.stderr, "--report "+missing) || strings.Contains(r.stderr, "findings") {
		t.Errorf("demo --report %s: exit %d\n%s", missing, r.code, r.stderr)
	}
	repoDir := checkRepo(t, map[string]string{"a.sh": "curl \"$API/zones/$Z/filters\"\n"})
	for _, args := range [][]string{
		{"--write-baseline", missing},
		{"--format", "junit:" + missing},
	} {
		r := runSunset(t, nil, append(append([]string{"check", "--as-of", "2025-07-01"}, args...), repoDir)...)
		if r.code != ExitFatal || !strings.Contains(r.stderr, missing) || strings.Contains(r.stdout, "filters") {
			t.Errorf("check %v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
}

// TestOutputsCheckLeavesNothing: checking writable outputs leaves no file behind, and an
// existing report file is kept as it is until the run writes it.
func TestOutputsCheckLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.json")
	if err := os.WriteFile(existing, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	outs := []output{{name: "--format json:" + existing, path: existing}, {name: "--plan", path: filepath.Join(dir, "new", "plan"), dir: true}}
	if err := checkOutputs(outs); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the check left entries behind: %v", entries)
	}
	if data, _ := os.ReadFile(existing); string(data) != "old" {
		t.Errorf("the existing file was changed: %q", data)
	}
}
