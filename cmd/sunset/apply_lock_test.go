//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/cmd/sunset/internal/cli"
	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/emulatortest"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// TestSecondWriterOfAJournalRefused runs a second `sunset apply --resume --yes` of a journal
// while the apply writing it runs: the second exits 3 naming the first's pid, sending
// nothing; the journal, with the first killed mid-run, still loads and resumes to the end.
func TestSecondWriterOfAJournalRefused(t *testing.T) {
	t.Parallel() // overlaps the other tests that wait on sunset processes
	api, srv := serveEmulator(t, emulator.Options{
		AsOf: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC), Seed: seed.Demo(), Token: seed.DemoToken, Rand: 5,
	})
	journal := filepath.Join(t.TempDir(), "j.jsonl")
	// The event: the first run's first write. Its answer is held, so the first run is
	// still running, holding the journal, until the test kills it.
	firstWrite := srv.HoldWhen(emulatortest.Writes(1))
	defer firstWrite.Release()
	first := startSunset(t, api, applyArgs(journal)...)
	select {
	case <-firstWrite.Reached():
	case <-first.done:
		t.Fatalf("the first apply ended before writing:\n%s", first.stderr.String())
	}
	holder := []byte(fmt.Sprintf(`"pid":%d,`, first.cmd.Process.Pid))
	if data, _ := os.ReadFile(apply.LockPath(journal)); !bytes.Contains(data, holder) {
		t.Fatalf("the first apply writes without holding the journal's lock: %q", data)
	}
	// The first run listed the accounts before its first write; a second listing would be
	// the second run's binding check, which comes after the lock.
	listed := srv.Stats().ByRoute["GET /accounts"]
	second := startSunset(t, api, "apply", "--resume", journal, "--yes", "--rps", "0")
	code := second.waitExit(t)
	relisted := srv.Stats().ByRoute["GET /accounts"] - listed
	if first.exited() {
		t.Fatalf("the first apply ended while its write was held:\n%s", first.stderr.String())
	}
	want := fmt.Sprintf("journal %s is in use by pid %d on host ", journal, first.cmd.Process.Pid)
	if code != cli.ExitFatal || !bytes.Contains(second.stderr.Bytes(), []byte(want)) {
		t.Fatalf("second writer: exit %d, want %d saying %q:\n%s", code, cli.ExitFatal, want, second.stderr.String())
	}
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-first.done
	firstWrite.Release()
	if relisted != 0 {
		t.Fatalf("the second writer listed the accounts %d times: it went past the lock", relisted)
	}
	if _, err := apply.LoadJournal(journal); err != nil {
		t.Fatalf("after two writers: %v", err)
	}
	r := startSunset(t, api, "apply", "--resume", journal, "--yes", "--rps", "0", "--retries", "0")
	if code := r.waitExit(t); code != cli.ExitOK {
		t.Fatalf("resume after the kill: exit %d\n%s", code, r.stderr.String())
	}
}
