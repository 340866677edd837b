package cli

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
)

// keptOld applies the demo with --keep-old through a journal (extra flags added) and returns
// the run, the emulator, its base URL and the journal.
func keptOld(t *testing.T, extra ...string) (*testRun, *emulator.Server, string, string) {
	t.Helper()
	srv, base := startEmulator(t, emulator.Options{AsOf: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)})
	journal := filepath.Join(t.TempDir(), "apply.journal")
	args := append([]string{"apply", "--api-url", base, "--rps", "0", "--as-of", "2026-11-24", "--yes", "--keep-old", "--journal", journal}, extra...)
	r := runSunset(t, demoEnv(), args...)
	if r.code != ExitOK {
		t.Fatalf("apply: exit %d\n%s", r.code, r.stderr)
	}
	return r, srv, base, journal
}

// TestApplySummaryKeepOld: after --keep-old the summary says what was created and paused,
// that nothing was deleted, that the scopes holding old objects are partial (not done), and
// that a rescan still reports the findings of the old objects kept and of the manual steps;
// the JSON says the same in its summary.
func TestApplySummaryKeepOld(t *testing.T) {
	r, _, _, _ := keptOld(t)
	for _, want := range []string{
		`(?m)^Applied: 22 created, 1 changed, 41 paused, 0 deleted; 0 found done already, 76 held back\.$`,
		`(?m)^Scopes: 2 done, 7 partial, 0 stopped\.$`,
		`(?m)^Partial is not done: old objects are kept \(--keep-old`,
		`(?m)^Left by hand: 21 manual steps \(sunset never runs them\):$`,
		`(?m)^      8  stop using a deprecated zone setting \(zone-setting\.stop\)$`,
		`(?m)^A rescan will report 71 findings \(48 errors, 23 notices\): 21 for the manual steps, 49 for the old objects kept by --keep-old, 1 on the rules the apply creates\. The gate \(--fail-on warning\) will fail on 48 of them\.$`,
	} {
		if !regexp.MustCompile(want).MatchString(r.stdout) {
			t.Errorf("stdout does not match %s:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "9 scopes done") {
		t.Errorf("partial scopes counted as done:\n%s", r.stdout)
	}
	j, _, _, _ := keptOld(t, "--format", "json")
	var out struct {
		Summary apply.Summary `json:"summary"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &out); err != nil {
		t.Fatal(err)
	}
	s := out.Summary
	if s.Created != 22 || s.Paused != 41 || s.Deleted != 0 || s.Held != 76 || s.Scopes != (apply.ScopeCounts{Done: 2, Partial: 7}) ||
		s.ManualSteps != 21 || s.Left.Total != 71 || s.Left.KeptOld != 49 || s.Left.BySeverity["error"] != 48 {
		t.Errorf("JSON summary %+v", s)
	}
}

// TestApplySummaryLeftAfterAnApply: the findings an apply says a rescan will report are
// the ones the rescan reports, with their severity (the custom rule it creates disabled,
// naming cf.threat_score, among them), and the gate says the same.
func TestApplySummaryLeftAfterAnApply(t *testing.T) {
	_, base := startEmulator(t, emulator.Options{AsOf: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)})
	r := runSunset(t, demoEnv(), "apply", "--api-url", base, "--rps", "0", "--as-of", "2026-11-24", "--yes", "--journal", filepath.Join(t.TempDir(), "j"))
	want := `(?m)^A rescan will report 21 findings \(21 notices\): 20 for the manual steps, 1 on the rules the apply creates\. The gate \(--fail-on warning\) will pass\.$`
	if r.code != ExitOK || !regexp.MustCompile(want).MatchString(r.stdout) {
		t.Fatalf("exit %d, stdout does not match %s:\n%s", r.code, want, r.stdout)
	}
	rescan := runSunset(t, demoEnv(), "scan", "--api-url", base, "--rps", "0", "--as-of", "2026-11-24")
	if rescan.code != ExitOK || !strings.Contains(rescan.stderr, "sunset: 21 findings (0 errors, 0 warnings, 21 notices)") {
		t.Fatalf("the rescan exits %d, the apply said 21 notices and the gate passes:\n%s", rescan.code, rescan.stderr)
	}
}

// TestRollbackDryRunPrintsTheUndo: the rollback's dry run prints the DELETEs and writes
// the rollback sends, none of the apply's own requests, and the count it then sends.
func TestRollbackDryRunPrintsTheUndo(t *testing.T) {
	_, srv, base, journal := keptOld(t)
	dry := runSunset(t, demoEnv(), "apply", "--api-url", base, "--rps", "0", "--rollback", journal)
	if dry.code != ExitOK {
		t.Fatalf("rollback dry run: exit %d\n%s", dry.code, dry.stderr)
	}
	for _, bad := range []string{"POST ", "/entrypoint"} {
		if strings.Contains(dry.stdout, bad) {
			t.Errorf("the rollback dry run lists the apply's requests (%q):\n%s", bad, dry.stdout)
		}
	}
	undo := regexp.MustCompile(`(?m)^  (DELETE|PUT|PATCH) /\S+  \(undoes \S+\): \S`)
	if n := len(undo.FindAllString(dry.stdout, -1)); n != 22+42 {
		t.Errorf("%d requests listed, want the 22 deletes and 42 restores:\n%s", n, dry.stdout)
	}
	m := regexp.MustCompile(`(?m)^The rollback would send (\d+) requests, unpaced`).FindStringSubmatch(dry.stdout)
	if m == nil {
		t.Fatalf("no estimate:\n%s", dry.stdout)
	}
	estimate, _ := strconv.Atoi(m[1])
	total := srv.Stats().Total
	if r := runSunset(t, demoEnv(), "apply", "--api-url", base, "--rps", "0", "--rollback", journal, "--yes"); r.code != ExitOK {
		t.Fatalf("rollback: exit %d\n%s", r.code, r.stderr)
	}
	if sent := srv.Stats().Total - total; sent != estimate {
		t.Errorf("the rollback sent %d requests, the dry run said %d", sent, estimate)
	}
}

// TestApplyTotalsStoppedScope: a run with a stopped scope and one an interruption never
// started says so, and blames the findings left on them apart from the manual steps'.
func TestApplyTotalsStoppedScope(t *testing.T) {
	var out strings.Builder
	v := &applyView{run: &applyRun{}, journal: "j.jsonl", sum: apply.Summary{
		Created: 3, Deleted: 2, Paused: 1,
		Scopes: apply.ScopeCounts{Done: 6, Stopped: 1, NotStarted: 2},
		Left:   apply.FindingsLeft{Total: 12, Manual: 4, NotReached: 8, BySeverity: map[string]int{"error": 8, "notice": 4}},
	}}
	v.writeApplyTotals(&out)
	want := "\nApplied: 3 created, 0 changed, 1 paused, 2 deleted; 0 found done already, 0 held back.\n" +
		"Scopes: 6 done, 0 partial, 1 stopped, 2 not started.\n" +
		"A rescan will report 12 findings (8 errors, 4 notices): 4 for the manual steps, 8 for steps of stopped or unstarted scopes. The gate (--fail-on warning) will fail on 8 of them.\n" +
		"Exit 4: 3 scopes did not finish (each stopped at its last safe step, said above); `sunset apply --resume j.jsonl --yes` goes on from there.\n"
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}
