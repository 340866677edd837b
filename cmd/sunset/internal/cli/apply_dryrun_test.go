package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// appliedPlanDir plans the demo account into a plan directory (read live, so it records the
// emulator's URL), applies it whole with --yes through a journal, and returns the emulator,
// its base URL, the plan directory and the journal.
func appliedPlanDir(t *testing.T) (*emulator.Server, string, string, string) {
	t.Helper()
	srv, base := startEmulator(t, emulator.Options{AsOf: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)})
	tmp := t.TempDir()
	dir, journal := filepath.Join(tmp, "plan"), filepath.Join(tmp, "apply.journal")
	if r := runSunset(t, demoEnv(), "plan", "--api-url", base, "--rps", "0", "--as-of", "2026-11-24", "--plan-dir", dir, "--no-verify"); r.code != ExitOK {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	if r := runSunset(t, demoEnv(), "apply", dir, "--rps", "0", "--as-of", "2026-11-24", "--yes", "--journal", journal); r.code != ExitOK {
		t.Fatalf("apply: exit %d\n%s", r.code, r.stderr)
	}
	return srv, base, dir, journal
}

// TestApplyAgainGoesOnFromItsJournal: once a plan directory was applied, its dry run reads
// the journal and, with credentials, reads back in the account what the journal did, and
// says "No changes" (no request estimate, no "--yes" to run); --yes then goes on from the
// journal and writes nothing, instead of refusing the existing journal. A journal of another
// plan is refused with --yes saying what to do.
func TestApplyAgainGoesOnFromItsJournal(t *testing.T) {
	srv, _, dir, journal := appliedPlanDir(t)
	writes, reads := srv.Stats().Writes, srv.Stats().Total
	dry := runSunset(t, demoEnv(), "apply", dir, "--rps", "0", "--as-of", "2026-11-24", "--journal", journal)
	if dry.code != ExitOK || !strings.Contains(dry.stdout, "\nNo changes: the journal "+journal+" did every step of this plan (") ||
		!strings.Contains(dry.stdout, "and the account shows them (read back with ") || strings.Contains(dry.stdout, "would send") {
		t.Fatalf("dry run after the apply: exit %d\n%s%s", dry.code, dry.stdout, dry.stderr)
	}
	if srv.Stats().Total == reads {
		t.Errorf("the dry run did not read the account back")
	}
	if want := "sunset: next: sunset scan"; !strings.HasPrefix(lastLine(dry.stderr), want) {
		t.Errorf("the dry run ends %q, want %q", lastLine(dry.stderr), want)
	}
	again := runSunset(t, demoEnv(), "apply", dir, "--rps", "0", "--as-of", "2026-11-24", "--yes", "--journal", journal)
	if again.code != ExitOK || !strings.Contains(again.stdout, "Applied: 0 created, 0 changed, 0 paused, 0 deleted;") ||
		!strings.Contains(again.stderr, "sunset: journal "+journal+" holds this plan: going on from it") {
		t.Fatalf("--yes again: exit %d\n%s%s", again.code, again.stdout, again.stderr)
	}
	if n := srv.Stats().Writes - writes; n != 0 {
		t.Errorf("applying the applied plan again wrote %d times", n)
	}
	other := runSunset(t, demoEnv(), "apply", "--snapshot", writeDemoSnapshot(t), "--api-url", "http://127.0.0.1:9/client/v4", "--as-of", "2026-11-24", "--yes", "--journal", journal)
	want := "journal " + journal + " exists and holds another plan: resume that one (sunset apply --resume " + journal + " --yes), or give this plan its own journal (--journal FILE)"
	if other.code != ExitFatal || !strings.Contains(other.stderr, want) {
		t.Errorf("another plan with the journal: exit %d, want %d saying %q:\n%s", other.code, ExitFatal, want, other.stderr)
	}
}

// TestResumeDryRunOfAFinishedJournal: --resume's dry run of a journal that did every step
// says nothing is left, with no request estimate, and where the manual steps left are
// listed: beside the plan the journal applied, or in this command's JSON.
func TestResumeDryRunOfAFinishedJournal(t *testing.T) {
	_, base, _, journal := appliedPlanDir(t)
	r := runSunset(t, demoEnv(), "apply", "--resume", journal, "--api-url", base, "--rps", "0", "--as-of", "2026-11-24")
	if r.code != ExitOK || !strings.Contains(r.stdout, "\nNo changes: the journal ") || strings.Contains(r.stdout, "The apply would send") ||
		strings.Contains(r.stdout, "Dry run:") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	manual := "  Each one, with what to do: the plan.md of the plan directory journal " + journal + " applied (the steps marked \"!\"), or `sunset apply --resume " + journal + " --format json` (scopes[].manual).\n"
	next := regexp.MustCompile(`^sunset: next: sunset scan # what is left: \d+ manual steps, the plan\.md of the plan directory applied lists them$`)
	if !strings.Contains(r.stdout, manual) || !next.MatchString(lastLine(r.stderr)) {
		t.Errorf("where the manual steps are: want %q and a last line matching %s:\n%s%s", manual, next, r.stdout, r.stderr)
	}
	// Without credentials the account is not read, and the dry run says so.
	r = runSunset(t, nil, "apply", "--resume", journal, "--api-url", base, "--rps", "0", "--as-of", "2026-11-24")
	if r.code != ExitOK || !strings.Contains(r.stdout, "the account was not read (no credentials)") {
		t.Fatalf("without credentials: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestApplyDryRunSaysWhatCannotBeUndone: before --yes the dry run says how many deletions
// cannot be undone, by kind, and how to keep a way back (--keep-old); with --keep-old, that
// nothing is deleted.
func TestApplyDryRunSaysWhatCannotBeUndone(t *testing.T) {
	_, dir := planDemo(t, "--no-verify")
	r := runSunset(t, nil, "apply", dir, "--rps", "0")
	deletions := regexp.MustCompile(`(?m)^(\d+) deletions cannot be undone \((\d+ \w[^)]*)\): a rollback stops at them`).FindStringSubmatch(r.stdout)
	if r.code != ExitOK || deletions == nil || !strings.Contains(r.stdout, "\nTo keep a way back, add --keep-old: ") {
		t.Fatalf("exit %d\n%s", r.code, r.stdout)
	}
	if n := regexp.MustCompile(`(?m)^  DELETE `).FindAllString(r.stdout, -1); len(n) == 0 {
		t.Errorf("no DELETE listed:\n%s", r.stdout)
	}
	kept := runSunset(t, nil, "apply", dir, "--rps", "0", "--keep-old")
	if !strings.Contains(kept.stdout, "\nNothing is deleted (--keep-old): a rollback can undo every step; "+deletions[1]+" deletions wait for ") ||
		strings.Contains(kept.stdout, "cannot be undone") {
		t.Errorf("--keep-old:\n%s", kept.stdout)
	}
}

// TestRollbackEndsWithWhyItStopped: the rollback of a whole apply stops in the zones whose
// old objects the apply deleted; each zone's line says what it undid and where it stopped,
// its last lines say so and what its exit 4 means, its dry run too, and it ends with the
// next command.
func TestRollbackEndsWithWhyItStopped(t *testing.T) {
	_, base, _, journal := appliedPlanDir(t)
	stops := regexp.MustCompile(`(?m)^\d+ scopes? (would stop|stopped) at a deletion the apply made \(\d+ of them before undoing anything\): a deletion cannot be undone`)
	dry := runSunset(t, demoEnv(), "apply", "--rollback", journal, "--api-url", base, "--rps", "0")
	if !stops.MatchString(dry.stdout) || !strings.Contains(dry.stdout, "\nExit 4 (as the rollback's will be): ") {
		t.Errorf("rollback dry run: exit %d\n%s", dry.code, dry.stdout)
	}
	r := runSunset(t, demoEnv(), "apply", "--rollback", journal, "--api-url", base, "--rps", "0", "--yes")
	if r.code != ExitIncomplete || !stops.MatchString(r.stdout) || !strings.HasPrefix(lastLine(r.stdout), "Exit 4: ") {
		t.Fatalf("rollback: exit %d\n%s", r.code, r.stdout)
	}
	// Each scope says what it undid and where it stopped, never "last safe step: none"
	// (a rollback keeps no safe step), nor its stop's step twice.
	scope := regexp.MustCompile(`(?m)^zone \S+: undid \d+ steps?, then stopped at (\S+): the apply deleted it, and a deletion cannot be undone$`)
	if !scope.MatchString(r.stdout) || strings.Contains(r.stdout, "last safe step") {
		t.Errorf("the rollback's scopes do not say what they undid and where they stopped:\n%s", r.stdout)
	}
	if want := "sunset: next: sunset scan"; !strings.HasPrefix(lastLine(r.stderr), want) {
		t.Errorf("the rollback ends %q, want %q", lastLine(r.stderr), want)
	}
}

// TestApplyDryRunListsItsRequests: the dry run lists the requests the apply sends, a bulk
// call as one line with its count of steps; --format json gives each request with the
// steps behind it, as many requests and steps as the text says.
func TestApplyDryRunListsItsRequests(t *testing.T) {
	_, dir := planDemo(t, "--no-verify")
	text := runSunset(t, nil, "apply", dir, "--rps", "0")
	bulk := regexp.MustCompile(`(?m)^  (PUT|DELETE) /zones/[0-9a-f]{32}/(firewall/rules|filters)  \(\w[^:]*: (\d+) steps in one call\)$`).FindAllStringSubmatch(text.stdout, -1)
	listed := regexp.MustCompile(`(?m)^  (GET|POST|PUT|PATCH|DELETE) /`).FindAllString(text.stdout, -1)
	if text.code != ExitOK || len(bulk) == 0 {
		t.Fatalf("no bulk call as one line: exit %d\n%s", text.code, text.stdout)
	}
	js := runSunset(t, nil, "apply", dir, "--rps", "0", "--format", "json")
	var out struct {
		Scopes []struct {
			Name     string `json:"name"`
			Requests []struct {
				Method, Path string
				Steps        []string
			} `json:"requests"`
			Steps []apply.StepResult `json:"steps"`
		} `json:"scopes"`
	}
	if err := json.Unmarshal([]byte(js.stdout), &out); err != nil {
		t.Fatal(err)
	}
	requests, steps, would := 0, 0, 0
	for _, sc := range out.Scopes {
		requests += len(sc.Requests)
		for _, st := range sc.Steps {
			if st.Outcome == apply.OutcomeWould {
				would++
			}
		}
		for _, rq := range sc.Requests {
			if len(rq.Steps) == 0 || rq.Method == "" || rq.Path == "" {
				t.Errorf("%s: a request without its steps: %+v", sc.Name, rq)
			}
			steps += len(rq.Steps)
		}
	}
	if requests != len(listed) || steps != would {
		t.Errorf("JSON: %d requests for %d steps; the text lists %d requests, %d steps would be sent", requests, steps, len(listed), would)
	}
	if m := regexp.MustCompile(`(?m)^Dry run: nothing sent\. 9 scopes: (\d+) requests for (\d+) steps;`).FindStringSubmatch(text.stdout); m == nil ||
		m[1] != strconv.Itoa(requests) || m[2] != strconv.Itoa(steps) {
		t.Errorf("totals %v, want %d requests for %d steps:\n%s", m, requests, steps, text.stdout)
	}
}

// TestApplyDryRunAtScale: above 20 scopes the dry run lists the 10 with the most requests,
// how many more there are and the file beside the journal that lists every scope's
// requests, then its totals.
func TestApplyDryRunAtScale(t *testing.T) {
	snap := writeSnapshotFile(t, seed.Generate(30, 1))
	dir := filepath.Join(t.TempDir(), "plan")
	if r := runSunset(t, nil, "plan", "--snapshot", snap, "--as-of", "2026-11-24", "--plan-dir", dir, "--no-verify"); r.code != ExitOK {
		t.Fatalf("plan: exit %d\n%s", r.code, r.stderr)
	}
	journal := filepath.Join(t.TempDir(), "big.journal")
	r := runSunset(t, nil, "apply", dir, "--rps", "0", "--as-of", "2026-11-24", "--journal", journal)
	full := strings.TrimSuffix(journal, ".journal") + ".dry-run.txt"
	head := "The scopes with the most requests (of 31 scopes; each one's lines in " + full + "):\n"
	if r.code != ExitOK || !strings.HasPrefix(r.stdout, head) {
		t.Fatalf("exit %d, want stdout to begin %q:\n%s", r.code, head, r.stdout)
	}
	if n := len(regexp.MustCompile(`(?m)^  zone \S+: \d+ requests? for \d+ steps?`).FindAllString(r.stdout, -1)); n != briefTop {
		t.Errorf("%d scopes listed, want %d:\n%s", n, briefTop, r.stdout)
	}
	if !regexp.MustCompile(`(?m)^  and \d+ more$`).MatchString(r.stdout) || strings.Count(r.stdout, "\n") > 40 {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(regexp.MustCompile(`(?m)^(zone|account) .+: (\d+ requests? for|nothing to send)`).FindAllString(string(data), -1)); n != 31 {
		t.Errorf("%s lists %d scopes, want 31", full, n)
	}
	if !strings.Contains(r.stderr, "sunset: wrote "+full+" (every scope's lines)\n") {
		t.Errorf("stderr does not name %s:\n%s", full, r.stderr)
	}
}

// TestRollbackDryRunCountsInWords: one step is "1 step", one scope "1 scope", and counts
// have their thousands.
func TestRollbackDryRunCountsInWords(t *testing.T) {
	var out strings.Builder
	writeRollbackDryRun(&out, &apply.ScopeResult{Scope: "zone", Name: "a.example", Steps: []apply.StepResult{{ID: "x", Method: "DELETE", Path: "/p", Outcome: apply.OutcomeWould}}})
	if !strings.HasPrefix(out.String(), "zone a.example: the rollback would undo 1 step\n") {
		t.Errorf("%q", out.String())
	}
	out.Reset()
	v := &applyView{run: &applyRun{rollback: true}, res: &apply.Result{Rollback: true},
		sum: apply.Summary{Deleted: 1, Restored: 1200, Scopes: apply.ScopeCounts{Done: 1}}}
	v.writeRollbackTotals(&out)
	if want := "\nRolled back: 1 deleted (what the apply created), 1,200 restored (as they were before it); 1 scope done, 0 stopped.\n"; out.String() != want {
		t.Errorf("rollback totals %q, want %q", out.String(), want)
	}
}

// TestScanPlanDirAtScaleIsBrief: a scan writing the plan of more than 20 zones prints, on
// stderr, the 10 zones with the most to do, how many more there are and where every one is
// (plan.md), not a line per zone.
func TestScanPlanDirAtScaleIsBrief(t *testing.T) {
	_, base := startEmulator(t, emulator.Options{AsOf: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), Seed: seed.Generate(30, 1)})
	dir := filepath.Join(t.TempDir(), "plan")
	r := runSunset(t, demoEnv(), "scan", "--api-url", base, "--rps", "0", "--as-of", "2026-11-24", "--fail-on", "none", "--plan-dir", dir,
		"--format", "json:"+filepath.Join(t.TempDir(), "r.json"))
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	want := "The 10 zones and accounts with the most to do (of 31; every one in " + filepath.Join(dir, "plan.md") + "):\n"
	zones := regexp.MustCompile(`(?m)^ *zone \S+: \d+ to create`).FindAllString(r.stderr, -1)
	if !strings.Contains(r.stderr, want) || len(zones) != briefTop || !strings.Contains(r.stderr, "\n  and 21 more\n") {
		t.Errorf("want %q, %d zone lines and the rest counted:\n%s", want, briefTop, r.stderr)
	}
	if !strings.Contains(r.stderr, "sunset: next: sunset verify "+dir) {
		t.Errorf("no next command:\n%s", r.stderr)
	}
}

// TestEveryCommandEndsWithItsFilesAndNext: scan (its dry run too), plan, verify, apply (dry
// run and --yes) end with where their files went and the command to run next.
func TestEveryCommandEndsWithItsFilesAndNext(t *testing.T) {
	_, base := startEmulator(t, emulator.Options{AsOf: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)})
	tmp := t.TempDir()
	dir, snap, journal := filepath.Join(tmp, "plan"), filepath.Join(tmp, "snap.json"), filepath.Join(tmp, "j.journal")
	live := []string{"--api-url", base, "--rps", "0", "--as-of", "2026-11-24"}
	// The dry run's next is the scan it priced, with its flags, keeping the snapshot and plan.
	priced := runSunset(t, demoEnv(), append([]string{"scan", "--dry-run", "--zone", "shop.example"}, live...)...)
	if last := lastLine(priced.stderr); priced.code != ExitOK || !strings.HasPrefix(last, "sunset: next: sunset scan ") || strings.Contains(last, "--dry-run") ||
		!strings.Contains(last, " --zone shop.example ") || !strings.Contains(last, " --rps 0 ") ||
		!strings.HasSuffix(last, " --snapshot-out snap.jsonl --plan-dir plan/ # the scan priced here: its snapshot kept, its plan written") {
		t.Errorf("scan --dry-run: exit %d, stderr ends %q", priced.code, last)
	}
	// An API given by SUNSET_API_URL stays there, out of the command.
	t.Setenv("SUNSET_API_URL", base)
	env := demoEnv()
	env["SUNSET_API_URL"] = base
	if r := runSunset(t, env, "scan", "--dry-run", "--rps", "0"); r.code != ExitOK || lastLine(r.stderr) != "sunset: next: sunset scan --rps 0 --snapshot-out snap.jsonl --plan-dir plan/ # the scan priced here: its snapshot kept, its plan written" {
		t.Errorf("scan --dry-run with SUNSET_API_URL: exit %d, stderr ends %q", r.code, lastLine(r.stderr))
	}
	if err := os.Unsetenv("SUNSET_API_URL"); err != nil { // t.Setenv restores it after the test
		t.Fatal(err)
	}
	for _, c := range []struct {
		args        []string
		wrote, next string
	}{
		{append([]string{"scan", "--fail-on", "none", "--snapshot-out", snap, "--plan-dir", dir}, live...),
			"sunset: wrote " + snap + " (snapshot), " + dir + " (plan.json, plan.md, terraform/, snapshot.json)\n", "sunset: next: sunset verify " + dir},
		{[]string{"plan", "--snapshot", snap, "--as-of", "2026-11-24", "--plan-dir", dir}, "", "sunset: next: sunset verify " + dir},
		{[]string{"verify", dir}, "", "sunset: next: sunset apply " + dir},
		{append([]string{"apply", dir, "--journal", journal}, live...), "", "sunset: next: sunset apply " + dir + " --journal " + journal + " --yes"},
		{append([]string{"apply", dir, "--journal", journal, "--yes"}, live...), "sunset: wrote " + journal + " (the journal: --resume, --rollback)\n", "sunset: next: sunset scan"},
	} {
		r := runSunset(t, demoEnv(), c.args...)
		if r.code != ExitOK {
			t.Fatalf("%v: exit %d\n%s", c.args, r.code, r.stderr)
		}
		ending := r.stderr
		if c.args[0] == "scan" {
			ending = strings.TrimSuffix(ending, lastLine(ending)+"\n") // the summary line stays last
		}
		if !strings.Contains(ending, c.wrote) || !strings.HasPrefix(lastLine(ending), c.next) {
			t.Errorf("%s: stderr ends %q, want %q then %q", c.args[0], lastLine(ending), c.wrote, c.next)
		}
	}
}
