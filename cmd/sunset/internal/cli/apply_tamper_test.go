package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
)

// TestApplyRefusesAnEditedPlan: a plan.json edited to pause another zone's firewall rule
// is refused whole (exit 2), naming the step, and no request reaches the API, dry run or
// not.
func TestApplyRefusesAnEditedPlan(t *testing.T) {
	snapPath, dir := planDemo(t, "--no-verify")
	planPath := filepath.Join(dir, "plan.json")
	data, err := os.ReadFile(planPath)
	if err != nil {
		t.Fatal(err)
	}
	p := readPlanJSON(t, planPath)
	var ours, theirs string
	for _, z := range p.Zones {
		for _, st := range z.Steps {
			if st.Kind == "firewall-rule.delete" {
				if ours == "" {
					ours = st.Path
				} else if !strings.HasPrefix(st.Path, ours[:strings.Index(ours, "/firewall")]) {
					theirs = st.Path
				}
			}
		}
	}
	if theirs == "" {
		t.Fatal("the demo plan deletes firewall rules in fewer than two zones")
	}
	edited := strings.Replace(string(data), `"path": "`+ours+`"`, `"path": "`+theirs+`"`, 1)
	if edited == string(data) {
		t.Fatal("the edit changed nothing")
	}
	if err := os.WriteFile(planPath, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	srv, api := startEmulator(t, emulator.Options{})
	for _, yes := range []bool{false, true} {
		args := []string{"apply", "--plan-in", planPath, "--snapshot", snapPath, "--api-url", api, "--rps", "0", "--journal", filepath.Join(t.TempDir(), "j")}
		if yes {
			args = append(args, "--yes")
		}
		r := runSunset(t, demoEnv(), args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, "firewall-rule.pause:") || !strings.Contains(r.stderr, "not this zone") {
			t.Fatalf("--yes %t: exit %d, want %d naming the step\n%s%s", yes, r.code, ExitUsage, r.stdout, r.stderr)
		}
	}
	if n := srv.Stats().Total; n != 0 {
		t.Fatalf("%d requests reached the API", n)
	}
}
