//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCheckDeepFileIsIncomplete: a valid export holding a firewall rule beside an array
// nested 501 levels deep was a parse notice and exit 0; it is now exit 4 (text checks ran),
// unless the file is excluded.
func TestCheckDeepFileIsIncomplete(t *testing.T) {
	deep := strings.Repeat("[", 501) + strings.Repeat("]", 501)
	dir := checkRepo(t, map[string]string{
		"export.json": `{"result":[{"id":"r1","action":"block","filter":{"id":"f1","expression":"ip.src eq 192.0.2.1"}}],"deep":` + deep + `}`,
		"README":      "the export beside it\n", // so that the run without the export still checks a file
	})
	r := runSunset(t, nil, "check", "--as-of", "2025-07-01", "--fail-on", "none", dir)
	if r.code != ExitIncomplete || !strings.Contains(r.stderr+r.stdout, "export.json") {
		t.Errorf("deep export: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runSunset(t, nil, "check", "--as-of", "2025-07-01", "--fail-on", "none", "--exclude", "*.json", dir); r.code != ExitOK {
		t.Errorf("excluded: exit %d\n%s", r.code, r.stderr)
	}
}

// TestInputsAreBoundedRegularFiles: every file a flag names is read only when it is a
// regular file (a device or FIFO is refused at once, by name), and .sunset.yaml in the
// checked tree is never read through a link.
func TestInputsAreBoundedRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	repoDir := checkRepo(t, map[string]string{"a.sh": "echo\n"})
	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(repoDir, ".sunset.yaml")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		name string
	}{
		{[]string{"scan", "--api-token-file", "/dev/zero", "--api-url", "http://127.0.0.1:1/client/v4"}, ExitUsage, "/dev/zero"},
		{[]string{"rules", "--catalog", fifo}, ExitUsage, fifo},
		{[]string{"report", fifo, "--format", "json"}, ExitUsage, fifo},
		{[]string{"translate", "--rules", "/dev/zero"}, ExitUsage, "/dev/zero"},
		{[]string{"check", "--config", fifo, repoDir}, ExitUsage, fifo},
		{[]string{"check", "--fail-on", "none", "--baseline", "/dev/zero", checkRepo(t, map[string]string{"a.sh": "echo\n"})}, ExitUsage, "/dev/zero"},
		{[]string{"check", "--fail-on", "none", repoDir}, ExitUsage, ".sunset.yaml"},
		{[]string{"check", "--fail-on", "none", "--format", "json", "--config", empty, "/dev/zero"}, ExitIncomplete, "/dev/zero"},
		{[]string{"plan", "--snapshot", fifo}, ExitUsage, fifo},
	}
	for _, c := range cases {
		r := runSunset(t, nil, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr+r.stdout, c.name) {
			t.Errorf("%v: exit %d (want %d), output naming %s:\n%s%s", c.args, r.code, c.code, c.name, r.stdout, r.stderr)
		}
	}
}

// TestOutputsNotWrittenThroughLinks: a checked-out tree holding links where sunset writes
// (a report, the baseline, the plan's terraform directory) makes the run fail (exit 3) and
// leaves the link targets as they were.
func TestOutputsNotWrittenThroughLinks(t *testing.T) {
	elsewhere := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(elsewhere, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := checkRepo(t, map[string]string{"a.sh": "curl \"$API/zones/$Z/filters\"\n"})
	for _, name := range []string{"sunset.sarif", ".sunset-baseline.json"} {
		if err := os.Symlink(elsewhere, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	r := runSunset(t, nil, "check", "--as-of", "2025-07-01", "--format", "sarif:"+filepath.Join(dir, "sunset.sarif"), dir)
	if r.code != ExitFatal || !strings.Contains(r.stderr, "symbolic link") {
		t.Errorf("report through a link: exit %d\n%s", r.code, r.stderr)
	}
	r = runSunset(t, nil, "check", "--as-of", "2025-07-01", "--write-baseline", filepath.Join(dir, ".sunset-baseline.json"), dir)
	if r.code != ExitFatal || !strings.Contains(r.stderr, "symbolic link") {
		t.Errorf("baseline through a link: exit %d\n%s", r.code, r.stderr)
	}
	if data, _ := os.ReadFile(elsewhere); string(data) != "keep" {
		t.Fatalf("link target written: %q", data)
	}
	snap := writeDemoSnapshot(t)
	outside := t.TempDir()
	plan := filepath.Join(t.TempDir(), "plan")
	if err := os.Mkdir(plan, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(plan, "terraform")); err != nil {
		t.Fatal(err)
	}
	r = runSunset(t, nil, "plan", "--snapshot", snap, "--as-of", "2024-05-01", "--out-dir", plan)
	if r.code != ExitFatal || !strings.Contains(r.stderr, "symbolic link") {
		t.Errorf("plan into a linked terraform/: exit %d\n%s", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written through the link: %v", entries)
	}
	snapLink := filepath.Join(dir, "snap.json")
	if err := os.Symlink(elsewhere, snapLink); err != nil {
		t.Fatal(err)
	}
	if err := writeSnapshot(snapLink, nil); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("snapshot through a link: %v", err)
	}
}
