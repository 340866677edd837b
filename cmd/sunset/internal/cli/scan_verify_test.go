package cli

import (
	"path/filepath"
	"strings"
	"testing"
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
