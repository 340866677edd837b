package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/emulatortest"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// interrupted runs sunset with args against srv, cancelling it (as Ctrl-C does) once the
// emulator has answered half the requests of a full scan (fullRequests) more than it had:
// an event, never a timer.
func interrupted(t *testing.T, srv *emulatortest.Watched, fullRequests int, args ...string) *testRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	half := srv.HoldWhen(emulatortest.Requests(srv.Stats().Total + fullRequests/2))
	defer half.Release()
	go func() {
		<-half.Reached()
		cancel()
	}()
	return (&testRun{env: demoEnv()}).exec(ctx, args...)
}

// readPlanDir reads a plan directory's plan and snapshot.
func readPlanDir(t *testing.T, dir string) (*migrate.Plan, *inventory.Snapshot) {
	t.Helper()
	return readPlanJSON(t, filepath.Join(dir, planFile)), readStreamFile(t, filepath.Join(dir, planSnapshotFile)).Snapshot
}

// unreadZones are the zones a plan marks as not read whole, by id, with their names.
func unreadZones(p *migrate.Plan) map[string]string {
	out := map[string]string{}
	for _, u := range p.Unread {
		if u.Scope == migrate.ScopeZone {
			out[u.ID] = u.Name
		}
	}
	return out
}

// TestInterruptedScanPlanIsMarked interrupts `scan --plan-dir --snapshot-out` halfway: it
// exits 4, its plan is marked incomplete with the zones (and accounts) its snapshot holds
// errors for, and its stderr ends with the command that continues it. verify and apply
// refuse the plan (exit 2, no request) naming those zones; with --partial, apply carries
// out only the zones read whole, names the others as skipped and exits 4, and its journal
// resumed goes on skipping them without the flag; verify --partial verifies the rest. The
// command printed continues the scan and writes the plan whole.
func TestInterruptedScanPlanIsMarked(t *testing.T) {
	srv, base := startWatchedEmulator(t, emulator.Options{Seed: seed.Generate(16, 11), AsOf: day(t, "2025-02-01")})
	dir := t.TempDir()
	if r := runSunset(t, demoEnv(), scanArgs(base, filepath.Join(dir, "full.json"))...); r.code != ExitOK {
		t.Fatalf("full scan: exit %d\n%s", r.code, r.stderr)
	}
	planDir, snapOut := filepath.Join(dir, "plan"), filepath.Join(dir, "snap.jsonl")
	r := interrupted(t, srv, srv.Stats().Total, scanArgs(base, filepath.Join(dir, "part.json"), "--snapshot-out", snapOut, "--plan-dir", planDir)...)
	if r.code != ExitIncomplete {
		t.Fatalf("interrupted scan: exit %d\n%s", r.code, r.stderr)
	}
	p, snap := readPlanDir(t, planDir)
	unread := unreadZones(p)
	if !p.Incomplete || len(unread) == 0 || len(unread) == len(snap.Zones) {
		t.Fatalf("plan incomplete %v, %d of %d zones unread: want marked, some zones read whole", p.Incomplete, len(unread), len(snap.Zones))
	}
	if !slices.EqualFunc(p.Unread, migrate.UnreadOf(snap), func(a, b migrate.Unread) bool { return a.ID == b.ID && slices.Equal(a.Parts, b.Parts) }) {
		t.Errorf("the plan's marks %+v are not its snapshot's errors %+v", p.Unread, migrate.UnreadOf(snap))
	}
	hint := lastLine(r.stderr)
	const lead = "sunset: to continue where it stopped and write the same outputs: sunset scan --resume " // then snapOut
	for _, want := range []string{lead + snapOut + " ", " --api-url " + base + " ", " --format json:" + filepath.Join(dir, "part.json"), " --plan-dir " + planDir} {
		if !strings.Contains(hint, want) {
			t.Errorf("the last stderr line lacks %q:\n%s", want, r.stderr)
		}
	}
	var aZone string
	for _, name := range unread {
		aZone = name
	}

	total := srv.Stats().Total
	for _, args := range [][]string{{"verify", planDir}, {"apply", planDir, "--api-url", base}, {"apply", planDir, "--api-url", base, "--yes"}} {
		r := runSunset(t, demoEnv(), args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, "the plan comes from an incomplete scan (not read whole: ") ||
			!strings.Contains(r.stderr, "zone "+aZone) || !strings.Contains(r.stderr, "sunset scan --resume SNAPSHOT") || !strings.Contains(r.stderr, "--partial") {
			t.Errorf("%v: exit %d, want %d naming the zones not read whole and the ways out:\n%s", args, r.code, ExitUsage, r.stderr)
		}
	}
	if n := srv.Stats().Total - total; n != 0 {
		t.Fatalf("the refusals sent %d requests", n)
	}

	journal := filepath.Join(dir, "apply.journal")
	before := len(srv.Requests())
	r = runSunset(t, demoEnv(), "apply", planDir, "--api-url", base, "--rps", "0", "--as-of", "2025-02-01", "--partial", "--yes", "--journal", journal)
	if r.code != ExitIncomplete || !strings.Contains(r.stdout, "zone "+aZone+": skipped: the scan did not read ") || srv.Stats().Writes == 0 {
		t.Fatalf("apply --partial: exit %d, %d writes; want %d, some, %s skipped\n%s%s", r.code, srv.Stats().Writes, ExitIncomplete, aZone, r.stdout, r.stderr)
	}
	for _, req := range srv.Requests()[before:] {
		for id, name := range unread {
			if strings.Contains(req.Path, id) {
				t.Errorf("apply --partial sent %s %s to zone %s, not read whole", req.Method, req.Path, name)
			}
		}
	}
	resumed := filepath.Join(dir, "resumed.json")
	r = runSunset(t, demoEnv(), "apply", "--resume", journal, "--api-url", base, "--rps", "0", "--yes", "--format", "text", "--format", "json:"+resumed)
	if r.code != ExitIncomplete || !strings.Contains(r.stdout, "zone "+aZone+": skipped: ") {
		t.Errorf("resume of the --partial journal: exit %d, want %d skipping %s\n%s%s", r.code, ExitIncomplete, aZone, r.stdout, r.stderr)
	}
	if data, err := os.ReadFile(resumed); err != nil || !strings.Contains(string(data), `"skipped": [`) || !strings.Contains(string(data), `"name": "`+aZone+`"`) {
		t.Errorf("apply --format json lists no skipped zone %s (%v):\n%.800s", aZone, err, data)
	}
	if r := runSunset(t, demoEnv(), "verify", planDir, "--partial"); r.code != ExitIncomplete || !strings.Contains(r.stderr, "sunset: zone "+aZone+": skipped: ") {
		t.Errorf("verify --partial: exit %d, want %d naming %s skipped\n%s", r.code, ExitIncomplete, aZone, r.stderr)
	}

	resume := strings.Fields(strings.TrimPrefix(hint, "sunset: to continue where it stopped and write the same outputs: sunset "))
	if r := runSunset(t, demoEnv(), resume...); r.code != ExitOK || !strings.Contains(r.stderr, "resumed ") {
		t.Fatalf("the printed command %v: exit %d\n%s", resume, r.code, r.stderr)
	}
	if p, _ := readPlanDir(t, planDir); p.Incomplete || len(p.Unread) > 0 {
		t.Errorf("the plan after the printed command is still marked: %v %+v", p.Incomplete, p.Unread)
	}
}

// TestInterruptedPlanSaysHowToContinue: `sunset plan` interrupted writes its --snapshot-out
// as a stream that `scan --resume` continues, and ends with the command that does it (with
// --plan-dir and no gate); without --snapshot-out, it says how to make the next run
// resumable.
func TestInterruptedPlanSaysHowToContinue(t *testing.T) {
	srv, base := startWatchedEmulator(t, emulator.Options{Seed: seed.Generate(12, 7), AsOf: day(t, "2025-02-01")})
	dir := t.TempDir()
	if r := runSunset(t, demoEnv(), scanArgs(base, filepath.Join(dir, "full.json"))...); r.code != ExitOK {
		t.Fatalf("full scan: exit %d\n%s", r.code, r.stderr)
	}
	full := srv.Stats().Total
	planDir, snapOut := filepath.Join(dir, "plan"), filepath.Join(dir, "snap.jsonl")
	args := []string{"plan", "--api-url", base, "--rps", "0", "--retries", "0", "--workers", "2", "--as-of", "2025-02-01", "--plan-dir", planDir}
	r := interrupted(t, srv, full, append(args, "--snapshot-out", snapOut)...)
	hint := lastLine(r.stderr)
	if !strings.HasSuffix(hint, " --plan-dir "+planDir+" --fail-on none") || !strings.Contains(hint, "sunset scan --resume "+snapOut+" ") {
		t.Fatalf("the last stderr line is not the command that continues the plan:\n%s", r.stderr)
	}
	if p, _ := readPlanDir(t, planDir); !p.Incomplete {
		t.Error("the interrupted plan is not marked incomplete")
	}
	if st := readStreamFile(t, snapOut); st.Header.Format == "" {
		t.Error("plan's --snapshot-out is not a stream: scan --resume cannot continue it")
	}
	resume := strings.Fields(hint[strings.Index(hint, "sunset scan ")+len("sunset "):])
	if r := runSunset(t, demoEnv(), resume...); r.code != ExitOK {
		t.Fatalf("the printed command %v: exit %d\n%s", resume, r.code, r.stderr)
	}
	if p, _ := readPlanDir(t, planDir); p.Incomplete {
		t.Error("the plan after the printed command is still marked incomplete")
	}

	r = interrupted(t, srv, full, append(args, "--plan-dir", filepath.Join(dir, "plan2"))...)
	if want := "sunset: nothing was saved to continue from: run it again with --snapshot-out FILE to make it resumable (sunset help resume)"; lastLine(r.stderr) != want {
		t.Errorf("without --snapshot-out, the last stderr line is not %q:\n%s", want, r.stderr)
	}
}

// TestFailedZonePlanIsMarked: a scan in which every request about one zone fails (the
// emulator's fault injection) writes a plan marked incomplete with that zone alone, by scan
// --plan-dir and by plan alike; verify refuses it naming the zone.
func TestFailedZonePlanIsMarked(t *testing.T) {
	const failing = "shop.example"
	_, base := startEmulator(t, emulator.Options{AsOf: day(t, "2025-02-01"), Faults: emulator.FaultSpec{Zones: []string{failing}}})
	dir := t.TempDir()
	for _, args := range [][]string{
		{"scan", "--fail-on", "none", "--format", "json:" + filepath.Join(dir, "r.json"), "--plan-dir", filepath.Join(dir, "scan")},
		{"plan", "--plan-dir", filepath.Join(dir, "plan")},
	} {
		planDir := args[len(args)-1]
		r := runSunset(t, demoEnv(), append(args, "--api-url", base, "--rps", "0", "--retries", "0", "--as-of", "2025-02-01")...)
		if r.code == ExitUsage || r.code == ExitFatal {
			t.Fatalf("%s: exit %d\n%s", args[0], r.code, r.stderr)
		}
		p, _ := readPlanDir(t, planDir)
		if len(p.Unread) != 1 || p.Unread[0].Name != failing || len(p.Unread[0].Parts) == 0 || !p.Incomplete {
			t.Errorf("%s: incomplete %v, unread %+v; want %s alone", args[0], p.Incomplete, p.Unread, failing)
		}
		if r := runSunset(t, demoEnv(), "verify", planDir); r.code != ExitUsage || !strings.Contains(r.stderr, "not read whole: zone "+failing+")") {
			t.Errorf("verify %s: exit %d, want %d naming %s\n%s", args[0], r.code, ExitUsage, failing, r.stderr)
		}
	}
}

// TestShellWord: a word of the printed resume command is as it is when no shell reads it
// otherwise, else single-quoted so that it reaches sunset as it was given.
func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/plan-1/snap.jsonl": "/tmp/plan-1/snap.jsonl",
		"json:out/r.json":        "json:out/r.json",
		"*.example.com":          "'*.example.com'",
		"my plan":                "'my plan'",
		"it's":                   `'it'\''s'`,
		"":                       "''",
	} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %s, want %s", in, got, want)
		}
	}
}
