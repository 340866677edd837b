package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// TestDemoPlanIsVerified: `sunset demo --plan DIR` (and scan --plan, the same code) verifies
// the plan it writes as `sunset plan` does, saying so on stderr; --no-verify skips it.
func TestDemoPlanIsVerified(t *testing.T) {
	for _, noVerify := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "plan")
		args := []string{"demo", "--report", "", "--html", "", "--format", "json:" + filepath.Join(t.TempDir(), "r.json"), "--plan", dir}
		if noVerify {
			args = append(args, "--no-verify")
		}
		r := runSunset(t, nil, args...)
		if r.code != ExitOK {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
		said := strings.Contains(r.stderr, "Verified on ")
		for _, z := range readPlanJSON(t, filepath.Join(dir, "plan.json")).Zones {
			if verified := z.Verification != nil; verified == noVerify {
				t.Errorf("--no-verify %v: zone %s verified %v", noVerify, z.ZoneName, verified)
			} else if verified && !z.Verification.Same() {
				t.Errorf("zone %s: the demo's plan decides otherwise: %+v", z.ZoneName, z.Verification)
			}
		}
		if said == noVerify {
			t.Errorf("--no-verify %v: stderr says verified %v:\n%s", noVerify, said, r.stderr)
		}
	}
}

// TestScanVerifiesOnlyWhatItWrites: a scan verifies the plan only when something it writes
// shows the verification (plan.md under --plan, the HTML report), names the zones that decide
// otherwise and what shows them, and never points at a plan.md it did not write.
func TestScanVerifiesOnlyWhatItWrites(t *testing.T) {
	snapPath := filepath.Join(t.TempDir(), "snap.json")
	if err := writeSnapshot(snapPath, seed.Generate(12, 4)); err != nil { // zone api-02 decides otherwise
		t.Fatal(err)
	}
	dir := t.TempDir()
	scan := func(args ...string) *testRun {
		t.Helper()
		r := runSunset(t, nil, append([]string{"scan", "--snapshot", snapPath, "--as-of", "2025-02-01", "--fail-on", "none"}, args...)...)
		if r.code != ExitOK {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
		return r
	}
	for _, args := range [][]string{{"--format", "json:" + filepath.Join(dir, "r.json")}, {"--format", "markdown:" + filepath.Join(dir, "r.md")}} {
		if r := scan(args...); strings.Contains(r.stderr, "Verified") || strings.Contains(r.stderr, "plan.md") {
			t.Errorf("%v writes no verification, yet stderr says:\n%s", args, r.stderr)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "r.md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(md), "plan.md") {
		t.Errorf("the Markdown report points at plan files the scan did not write")
	}
	html := filepath.Join(dir, "r.html")
	want := "1 of 12 zones decide otherwise (0 without a declared reason): api-02.example; the html report at " + html + " shows each zone's verification."
	if r := scan("--format", "html:"+html); !strings.Contains(r.stderr, want) {
		t.Errorf("with an HTML report, stderr:\n%s\nwant %q", r.stderr, want)
	}
	planDir := filepath.Join(dir, "plan")
	want = "api-02.example; " + filepath.Join(planDir, "plan.md") + " shows each zone's verification."
	if r := scan("--plan", planDir, "--format", "json:"+filepath.Join(dir, "r2.json")); !strings.Contains(r.stderr, want) {
		t.Errorf("with --plan, stderr:\n%s\nwant %q", r.stderr, want)
	}
}
