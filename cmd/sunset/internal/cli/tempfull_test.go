package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/safefile"
)

// resumeLine is how a stopped scan's last line on stderr introduces its resume command.
const resumeLine = "sunset: to continue where it stopped and write the same outputs: "

// TestScanStopsWhenTmpdirFills: a scan with --plan-dir whose findings spill after every
// zone, when its temporary files fill $TMPDIR halfway (safefile.LimitTemp, as a filesystem
// that size would), stops reading, ends its snapshot stream marked incomplete with the zones
// read, writes no report or plan, names $TMPDIR and about the space the scan needs, and
// exits 4 with the resume command last; that command, once there is room, writes the same
// report as a scan that had room all along, and no temporary file stays open.
func TestScanStopsWhenTmpdirFills(t *testing.T) {
	defer func(n int) { findingSpillAfter = n }(findingSpillAfter)
	findingSpillAfter = 1
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	env := demoEnv()
	env["TMPDIR"] = tmp
	_, base := startEmulator(t, emulator.Options{Seed: seed.Generate(40, 11)})
	dir := t.TempDir()
	scan := func(name string, extra ...string) *testRun {
		args := scanArgs(base, filepath.Join(dir, name+".json"), append([]string{"--plan-dir", filepath.Join(dir, name)}, extra...)...)
		return runSunset(t, env, args...)
	}
	openBefore, heldBefore := safefile.TempInUse()
	if r := scan("full"); r.code != ExitOK {
		t.Fatalf("scan with room: exit %d\n%s", r.code, r.stderr)
	}
	// Half of what the plan and the zones take: the scan fills it while it reads.
	half := (fileSize(t, filepath.Join(dir, "full", "plan.json")) + fileSize(t, filepath.Join(dir, "full", planSnapshotFile))) / 2
	snap := filepath.Join(dir, "part.jsonl")
	restore := safefile.LimitTemp(heldBefore + half)
	r := scan("part", "--snapshot-out", snap)
	restore()
	if r.code != ExitIncomplete {
		t.Fatalf("scan filling $TMPDIR: exit %d, want %d\n%s", r.code, ExitIncomplete, r.stderr)
	}
	for _, want := range []string{"no space left in $TMPDIR (" + tmp + ")", "the whole scan needs more than ", "No report or plan was written"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
		}
	}
	for _, out := range []string{"part.json", "part"} {
		if _, err := os.Stat(filepath.Join(dir, out)); err == nil {
			t.Errorf("%s written from temporary files that lost part of the scan", out)
		}
	}
	st := readStreamFile(t, snap)
	if !st.Ended || !st.Snapshot.Incomplete || len(st.Complete) == 0 || len(st.Complete) == len(st.Snapshot.Zones) {
		t.Fatalf("snapshot stream: ended %v, incomplete %v, %d of %d zones complete: want a stream ended incomplete, with some zones", st.Ended, st.Snapshot.Incomplete, len(st.Complete), len(st.Snapshot.Zones))
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	cmd, ok := strings.CutPrefix(lines[len(lines)-1], resumeLine+"sunset ")
	if !ok || !strings.Contains(cmd, "--resume "+snap) {
		t.Fatalf("the last line is not the resume command:\n%s", r.stderr)
	}
	resumed := runSunset(t, env, strings.Fields(cmd)...)
	if resumed.code != ExitOK {
		t.Fatalf("resume once there is room: exit %d\n%s", resumed.code, resumed.stderr)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "full.json"))
	b, _ := os.ReadFile(filepath.Join(dir, "part.json"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Error("the resumed scan's JSON report differs from the scan that had room")
	}
	if open, _ := safefile.TempInUse(); open > openBefore {
		t.Errorf("%d temporary files left open", open-openBefore)
	}
}

// fileSize is the size of the file at path.
func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
