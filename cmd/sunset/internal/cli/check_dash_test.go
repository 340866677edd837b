package cli

import (
	"os"
	"strings"
	"testing"
)

// TestCheckPathAfterDoubleDash: after --, a path that starts with a dash is a path, checked
// like any other (flags elsewhere on the line are moved ahead of the paths).
func TestCheckPathAfterDoubleDash(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("-rules.tf", []byte("resource \"cloudflare_firewall_rule\" \"x\" {\n  zone_id = \"z\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runSunset(t, nil, "check", "--format", "tsv", "--", "-rules.tf")
	if r.code != ExitFindings || !strings.Contains(r.stdout, "-rules.tf") {
		t.Fatalf("exit %d, want %d with a finding in -rules.tf:\n%s%s", r.code, ExitFindings, r.stdout, r.stderr)
	}
}
