package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkRepo writes files into a temporary directory and returns it.
func checkRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCheckTestRepository(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	r := runSunset(t, nil, "check", "--as-of", "2025-07-01", "--format", "json:"+out, "../../../../testdata/repo")
	if r.code != ExitFindings {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	rep := readReportFile(t, out)
	if rep.Source.Kind != "files" || rep.Summary.FilesScanned < 15 || rep.Summary.FindingsTotal < 60 {
		t.Errorf("summary %+v source %+v", rep.Summary, rep.Source)
	}
	for _, f := range rep.Findings.Slice() {
		if f.Suppressed || f.Location == nil || f.Location.StartLine == 0 {
			t.Errorf("finding %+v: suppressed ones are hidden by default and every one has a line", f)
		}
	}
	if !strings.Contains(r.stderr, "suppressed finding(s) not shown") {
		t.Errorf("stderr %q", r.stderr)
	}
}

func TestCheckExitCodesAndConfig(t *testing.T) {
	dir := checkRepo(t, map[string]string{
		"a.sh":         "curl \"$API/zones/$Z/filters\"\n",
		"b.sh":         "curl \"$API/zones/$Z/settings\"\n", // zone-settings-bulk: a warning in 2025
		".sunset.yaml": "rules:\n  severity:\n    filters: notice\n",
	})
	if r := runSunset(t, nil, "check", "--as-of", "2025-07-01", "--fail-on", "error", dir); r.code != ExitOK {
		t.Errorf("severity override from the discovered config: exit %d (%s)", r.code, r.stderr)
	}
	if r := runSunset(t, nil, "check", "--as-of", "2025-07-01", dir); r.code != ExitFindings {
		t.Errorf("default gate warning: exit %d", r.code)
	}
	if r := runSunset(t, nil, "check", "--as-of", "2025-07-01", "--fail-on", "none", "--max-file-size", "10", dir); r.code != ExitIncomplete {
		t.Errorf("unreadable files: exit %d", r.code)
	}
	if r := runSunset(t, nil, "check", "--as-of", "2025-07-01", "--max-file-size", "32", dir); r.code != ExitIncomplete {
		t.Errorf("findings and an unread file: exit %d, want 4 (incomplete wins over findings)", r.code)
	}
	r := runSunset(t, nil, "check", "--print-config", "--exclude", "b.sh", dir)
	if r.code != ExitOK || !strings.Contains(r.stdout, "filters: notice") || !strings.Contains(r.stdout, "- b.sh") || !strings.Contains(r.stdout, ".sunset.yaml and flags") {
		t.Errorf("print-config: %d %s %s", r.code, r.stdout, r.stderr)
	}
	bad := checkRepo(t, map[string]string{".sunset.yaml": "rules:\n  disable: [no-such-rule]\n"})
	if r := runSunset(t, nil, "check", bad); r.code != ExitUsage || !strings.Contains(r.stderr, "no-such-rule") {
		t.Errorf("bad config: %d %s", r.code, r.stderr)
	}
	for _, args := range [][]string{{"check", "/no/such/dir"}, {"check", dir, "--format", "xml"}, {"check", "--stdin-type", "cobol", "-"}, {"check", "--baseline", "/no/such/file", dir}} {
		if r := runSunset(t, nil, args...); r.code != ExitUsage {
			t.Errorf("%v: exit %d, want 2 (%s)", args, r.code, r.stderr)
		}
	}
}

func TestCheckBaselineRoundTrip(t *testing.T) {
	dir := checkRepo(t, map[string]string{"a.sh": "curl \"$API/zones/$Z/filters\"\ncurl \"$API/zones/$Z/rate_limits\"\n"})
	base := filepath.Join(t.TempDir(), "baseline.json")
	if r := runSunset(t, nil, "check", "--as-of", "2025-07-01", "--write-baseline", base, dir); r.code != ExitOK {
		t.Fatalf("write-baseline: exit %d (%s)", r.code, r.stderr)
	}
	// Lines move, one call is fixed, one is added: only the new one counts; the fixed one is stale.
	if err := os.WriteFile(filepath.Join(dir, "a.sh"), []byte("\n\ncurl \"$API/zones/$Z/filters\"\ncurl \"$API/organizations/$O/roles\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	r := runSunset(t, nil, "check", "--as-of", "2025-07-01", "--baseline", base, "--show-suppressed", "--format", "json:"+out, dir)
	if r.code != ExitFindings || !strings.Contains(r.stderr, "stale entry rate-limiting-v1") {
		t.Fatalf("exit %d stderr %s", r.code, r.stderr)
	}
	rep := readReportFile(t, out)
	if len(rep.Findings.Slice()) != 2 || rep.Summary.FindingsTotal != 1 || rep.Summary.Suppressed != 1 {
		t.Fatalf("%+v", rep.Summary)
	}
	for _, f := range rep.Findings.Slice() {
		if (f.RuleID == "filters") != (f.Suppressed && f.SuppressedBy == "baseline") {
			t.Errorf("%s suppressed=%v by %q", f.RuleID, f.Suppressed, f.SuppressedBy)
		}
	}
}

func TestCheckStdin(t *testing.T) {
	run := func(in string, args ...string) *testRun {
		r := &testRun{}
		var out, errOut syncBuffer
		s := r.streams(&out, &errOut)
		s.In = strings.NewReader(in)
		r.code = Run(context.Background(), append([]string{"sunset", "check", "--as-of", "2025-07-01", "--format", "tsv"}, args...), s)
		r.stdout, r.stderr = out.String(), errOut.String()
		return r
	}
	r := run(`resource "cloudflare_rate_limit" "x" {}`, "--stdin-type", "terraform", "--stdin-name", "infra/main.tf", "-")
	if r.code != ExitFindings || !strings.Contains(r.stdout, "rate-limiting-v1") || !strings.Contains(r.stdout, "infra/main.tf") {
		t.Errorf("%d %q %q", r.code, r.stdout, r.stderr)
	}
	if r := run("echo nothing here\n", "-"); r.code != ExitOK {
		t.Errorf("clean stdin: exit %d %s", r.code, r.stderr)
	}
}

// TestCheckGateSeesScriptsWithNUL: a folder whose only file is a script holding a NUL byte
// fails the gate on the call it makes (exit 1), not "0 files checked"; a binary that may
// be run as a script makes the run incomplete (exit 4, naming it); a plain binary is listed
// as not checked.
func TestCheckGateSeesScriptsWithNUL(t *testing.T) {
	call := "curl \"$API/zones/$Z/filters\"\n"
	noise := strings.Repeat("\x00\x01\x02\x03\x04\x05", 40)
	tests := []struct {
		name  string
		files map[string]string
		code  int
		err   string
	}{
		{"a NUL in a script", map[string]string{"deploy.sh": "#!/bin/bash\n\x00" + call}, ExitFindings, ""},
		{"a blob in bin/", map[string]string{"bin/deploy": noise + call}, ExitIncomplete, "bin/deploy"},
		{"a PNG", map[string]string{"logo.png": "\x89PNG\r\n\x1a\n" + noise, "README": "hello\n"}, ExitOK, "1 file not read: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := checkRepo(t, tt.files)
			r := runSunset(t, nil, "check", "--as-of", "2025-07-01", "--fail-on", "notice", dir)
			if r.code != tt.code || !strings.Contains(r.stderr+r.stdout, tt.err) {
				t.Fatalf("exit %d, want %d with %q\n%s%s", r.code, tt.code, tt.err, r.stdout, r.stderr)
			}
		})
	}
}

// TestCheckNothingToCheckFails: a gate pointed at a folder with nothing sunset checks (empty,
// only binaries, only its own .sunset.yaml) does not pass: the run is incomplete (exit 4)
// and says so; .sunset.yaml is never counted as a checked file.
func TestCheckNothingToCheckFails(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"empty":             {},
		"only .sunset.yaml": {".sunset.yaml": "rules:\n  disable: [filters]\n"},
		"only a binary":     {"logo.png": "\x89PNG\r\n\x1a\n" + strings.Repeat("\x00\x01\x02\x03", 64)},
	} {
		t.Run(name, func(t *testing.T) {
			dir := checkRepo(t, files)
			r := runSunset(t, nil, "check", "--as-of", "2025-07-01", dir)
			if r.code != ExitIncomplete || !strings.Contains(r.stdout+r.stderr, "no file to check here") {
				t.Fatalf("exit %d, want %d saying there was nothing to check\n%s%s", r.code, ExitIncomplete, r.stdout, r.stderr)
			}
		})
	}
	dir := checkRepo(t, map[string]string{".sunset.yaml": "rules:\n  disable: [filters]\n", "a.sh": "echo hello\n"})
	if r := runSunset(t, nil, "check", "--as-of", "2025-07-01", "--format", "json:"+filepath.Join(t.TempDir(), "r.json"), dir); r.code != ExitOK {
		t.Fatalf("a clean file: exit %d\n%s", r.code, r.stderr)
	}
}

// TestCheckBlamesTheFlagOrTheFile: a bad --fail-on or --max-file-size is reported as the
// flag; the same bad value in .sunset.yaml as the configuration file.
func TestCheckBlamesTheFlagOrTheFile(t *testing.T) {
	dir := checkRepo(t, map[string]string{"a.sh": "echo\n"})
	for _, tc := range []struct{ args []string }{{[]string{"--fail-on", "high"}}, {[]string{"--max-file-size", "lots"}}} {
		r := runSunset(t, nil, append(append([]string{"check"}, tc.args...), dir)...)
		if r.code != ExitUsage || !strings.HasPrefix(r.stderr, "sunset: "+tc.args[0]+": ") {
			t.Errorf("%v: exit %d\n%s", tc.args, r.code, r.stderr)
		}
	}
	dir = checkRepo(t, map[string]string{"a.sh": "echo\n", ".sunset.yaml": "fail_on: high\n"})
	if r := runSunset(t, nil, "check", dir); r.code != ExitUsage || !strings.Contains(r.stderr, ".sunset.yaml: fail_on") {
		t.Errorf(".sunset.yaml: exit %d\n%s", r.code, r.stderr)
	}
}

// TestCheckInterruptedIsIncomplete: a check stopped by a signal (its context cancelled) exits 4,
// as an interrupted scan does, so CI tells it from a check with findings (1).
func TestCheckInterruptedIsIncomplete(t *testing.T) {
	dir := checkRepo(t, map[string]string{"a.sh": "curl \"$API/zones/$Z/firewall/rules\"\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := (&testRun{}).exec(ctx, "check", "--as-of", "2025-07-01", dir)
	if r.code != ExitIncomplete || !strings.Contains(r.stderr, "check interrupted") {
		t.Errorf("exit %d, want %d saying the check was interrupted:\n%s", r.code, ExitIncomplete, r.stderr)
	}
}
