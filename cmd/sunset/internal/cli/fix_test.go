package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixRepo is a small Terraform repository with one firewall rule to rewrite, and a file
// that does not parse.
func fixRepo(t *testing.T, broken bool) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"main.tf": `variable "zone_id" {
  default = "0da42c8d2132a9ddaf714f9e7c920711"
}

resource "cloudflare_filter" "bots" {
  zone_id    = var.zone_id
  expression = "(http.user_agent contains \"BadBot\")"
}

resource "cloudflare_firewall_rule" "bots" {
  zone_id   = var.zone_id
  filter_id = cloudflare_filter.bots.id
  action    = "block"
}
`}
	if broken {
		files["broken.tf"] = "resource \"cloudflare_filter\" \"x\" {\n  expression = \n"
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestFixShowsThenWrites: the default shows the diff and changes nothing; --check fails
// while there is something to fix; --write writes it (keeping the file's mode); then
// --check passes and the run says there is nothing to rewrite.
func TestFixShowsThenWrites(t *testing.T) {
	dir := fixRepo(t, false)
	before := readFile(t, filepath.Join(dir, "main.tf"))
	r := runSunset(t, nil, "fix", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "+resource \"cloudflare_ruleset\" \"custom_rules\"") || !strings.Contains(r.stderr, "run again with --write") {
		t.Fatalf("exit %d, want 0 with the diff and the hint:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if readFile(t, filepath.Join(dir, "main.tf")) != before {
		t.Fatal("fix without --write changed the file")
	}
	if r := runSunset(t, nil, "fix", "--check", dir); r.code != ExitFindings {
		t.Fatalf("--check: exit %d, want %d:\n%s", r.code, ExitFindings, r.stderr)
	}
	if r := runSunset(t, nil, "fix", "--write", "--target", "v4", dir); r.code != 0 || !strings.Contains(r.stderr, "sunset: wrote 1 file: ") {
		t.Fatalf("--write: exit %d:\n%s", r.code, r.stderr)
	}
	after := readFile(t, filepath.Join(dir, "main.tf"))
	if !strings.Contains(after, "removed {") || strings.Contains(after, `resource "cloudflare_firewall_rule"`) {
		t.Fatalf("written file:\n%s", after)
	}
	if info, _ := os.Stat(filepath.Join(dir, "main.tf")); info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after the write, want 0600 as before", info.Mode().Perm())
	}
	r = runSunset(t, nil, "fix", "--check", "--target", "v4", dir)
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "Nothing to rewrite") {
		t.Fatalf("--check on the fixed repository: exit %d, want 0 and no diff:\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestFixEndsWithItsFilesAndNext: as scan, plan, verify and apply do, fix ends with the
// files it wrote and the command to run next: the same rewrite with --write after a diff
// (or a failed --check), terraform plan once written for provider v4, the state clean-up
// script it wrote for provider v5.
func TestFixEndsWithItsFilesAndNext(t *testing.T) {
	dir := fixRepo(t, false)
	main := filepath.Join(dir, "main.tf")
	for _, c := range []struct {
		args        []string
		wrote, next string
	}{
		{[]string{"fix", "--target", "v4", dir}, "", "sunset: next: sunset fix --write --target v4 " + dir + " # write them"},
		{[]string{"fix", "--check", "--zone-plan", "var.zone_id=pro", dir}, "", "sunset: next: sunset fix --write --zone-plan var.zone_id=pro " + dir + " # write them"},
		{[]string{"fix", "--write", "--target", "v4", dir}, "sunset: wrote 1 file: " + main + "\n", "sunset: next: terraform plan # in each root module: "},
	} {
		r := runSunset(t, nil, c.args...)
		if !strings.Contains(r.stderr, c.wrote) || !strings.HasPrefix(lastLine(r.stderr), c.next) {
			t.Errorf("%v: exit %d, stderr ends %q, want %q then %q", c.args, r.code, lastLine(r.stderr), c.wrote, c.next)
		}
	}
	v5 := fixRepo(t, false)
	r := runSunset(t, nil, "fix", "--write", v5)
	script := filepath.Join(v5, "sunset-state-cleanup.sh")
	if !strings.Contains(r.stderr, "sunset: wrote 2 files: "+filepath.Join(v5, "main.tf")+", "+script+"\n") ||
		!strings.HasPrefix(lastLine(r.stderr), "sunset: next: cd "+v5+" && sh sunset-state-cleanup.sh # ") {
		t.Errorf("--write for v5: exit %d, stderr ends:\n%s", r.code, r.stderr)
	}
	if r := runSunset(t, nil, "fix", "--write", v5); strings.Contains(r.stderr, "sunset: next:") || lastLine(r.stderr) != "Nothing to rewrite." {
		t.Errorf("a fixed repository: stderr ends %q, want %q and no next command", lastLine(r.stderr), "Nothing to rewrite.")
	}
}

// TestFixReportsUnparsableFiles: a file that does not parse is named with its line and left
// as it is, the rest is fixed, and the run is incomplete (exit 4).
func TestFixReportsUnparsableFiles(t *testing.T) {
	dir := fixRepo(t, true)
	r := runSunset(t, nil, "fix", "--write", dir)
	if r.code != ExitIncomplete || !strings.Contains(r.stderr, "broken.tf:2: does not parse") {
		t.Fatalf("exit %d, want %d naming broken.tf:2:\n%s", r.code, ExitIncomplete, r.stderr)
	}
	if strings.Contains(readFile(t, filepath.Join(dir, "main.tf")), `resource "cloudflare_firewall_rule"`) {
		t.Error("the parsable file was not fixed")
	}
	if readFile(t, filepath.Join(dir, "broken.tf")) != "resource \"cloudflare_filter\" \"x\" {\n  expression = \n" {
		t.Error("the file that does not parse was changed")
	}
}

// TestFixJSONAndFlags: --format json holds the rewrites and the diff; bad flags are usage
// errors that say what is wanted.
func TestFixJSONAndFlags(t *testing.T) {
	dir := fixRepo(t, false)
	r := runSunset(t, nil, "fix", "--format", "json", "--zone-plan", "0da42c8d2132a9ddaf714f9e7c920711=free", dir)
	var out struct {
		Rewrites []struct {
			New, Plan, Proven string
			Verified          bool
		}
		Diff string
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 {
		t.Fatalf("exit %d, %v:\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if len(out.Rewrites) != 1 || out.Rewrites[0].Plan != "free" || !out.Rewrites[0].Verified || !strings.Contains(out.Diff, "cloudflare_ruleset") {
		t.Errorf("json: %+v", out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"fix", "--target", "v3", dir}, "want v5 or v4"},
		{[]string{"fix", "--zone-plan", "example.com", dir}, "NAME=LEVEL"},
		{[]string{"fix", "--zone-plan", "example.com=gold", dir}, "zone-plan"},
		{[]string{"fix", filepath.Join(dir, "missing")}, "no such file"},
	} {
		if r := runSunset(t, nil, tc.args...); r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, want %d saying %q:\n%s", tc.args, r.code, ExitUsage, tc.want, r.stderr)
		}
	}
}
