package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// appliedJournal applies the demo plan with --keep-old through a journal and returns the
// emulator, its base URL and the journal.
func appliedJournal(t *testing.T) (*emulator.Server, string, string) {
	t.Helper()
	srv, base := startEmulator(t, emulator.Options{AsOf: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)})
	journal := filepath.Join(t.TempDir(), "apply.journal")
	r := runSunset(t, demoEnv(), "apply", "--api-url", base, "--rps", "0", "--as-of", "2026-11-24", "--yes", "--keep-old", "--journal", journal)
	if r.code != ExitOK {
		t.Fatalf("apply: exit %d\n%s", r.code, r.stderr)
	}
	return srv, base, journal
}

// TestApplyJournalBoundToItsAPI: a journal resumed or rolled back against another API is
// refused (exit 2) naming both URLs, before any request to either.
func TestApplyJournalBoundToItsAPI(t *testing.T) {
	srv, base, journal := appliedJournal(t)
	other, otherBase := startEmulator(t, emulator.Options{AsOf: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)})
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"resume", []string{"--resume", journal, "--yes"}},
		{"rollback", []string{"--rollback", journal, "--yes"}},
		{"resume dry run", []string{"--resume", journal}},
		{"rollback dry run", []string{"--rollback", journal}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			total := srv.Stats().Total
			r := runSunset(t, demoEnv(), append([]string{"apply", "--api-url", otherBase, "--rps", "0"}, tc.args...)...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, base) || !strings.Contains(r.stderr, otherBase) {
				t.Fatalf("exit %d, want %d naming %s and %s:\n%s", r.code, ExitUsage, base, otherBase, r.stderr)
			}
			if n := other.Stats().Total + srv.Stats().Total - total; n != 0 {
				t.Fatalf("%d requests sent", n)
			}
		})
	}
}

// TestApplyJournalOneWriter: while a run holds the journal, a resume or rollback of it
// exits 3 naming the holder and sends nothing; once released, the journal loads and resumes.
func TestApplyJournalOneWriter(t *testing.T) {
	srv, base, journal := appliedJournal(t)
	holder, _, err := apply.AppendJournal(journal)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"resume", []string{"--resume", journal, "--yes"}},
		{"rollback", []string{"--rollback", journal, "--yes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			total := srv.Stats().Total
			r := runSunset(t, demoEnv(), append([]string{"apply", "--api-url", base, "--rps", "0"}, tc.args...)...)
			want := fmt.Sprintf("journal %s is in use by pid %d on host ", journal, os.Getpid())
			if r.code != ExitFatal || !strings.Contains(r.stderr, want) {
				t.Fatalf("exit %d, want %d saying %q:\n%s", r.code, ExitFatal, want, r.stderr)
			}
			if n := srv.Stats().Total - total; n != 0 {
				t.Fatalf("%d requests sent", n)
			}
		})
	}
	if err := holder.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := apply.LoadJournal(journal); err != nil {
		t.Fatalf("after the refused writers: %v", err)
	}
	r := runSunset(t, demoEnv(), "apply", "--api-url", base, "--rps", "0", "--resume", journal, "--yes")
	if r.code != ExitOK {
		t.Fatalf("resume once released: exit %d\n%s", r.code, r.stderr)
	}
}

// TestApplyJournalBoundToItsAccounts: a resume whose credentials do not reach an account of
// the journal's plan is refused (exit 2) naming it, before any write.
func TestApplyJournalBoundToItsAccounts(t *testing.T) {
	srv, base, journal := appliedJournal(t)
	l, err := apply.LoadJournal(journal)
	if err != nil {
		t.Fatal(err)
	}
	p := *l.Plan
	p.Accounts = append(append([]migrate.AccountPlan{}, p.Accounts...), migrate.AccountPlan{AccountID: "0000ghost"})
	snap := *l.Snapshot // the account in the snapshot too, so that the plan itself holds
	snap.Accounts = append(append([]inventory.AccountInventory{}, snap.Accounts...), inventory.AccountInventory{Account: inventory.Account{ID: "0000ghost"}})
	ghost := filepath.Join(t.TempDir(), "ghost.journal")
	j, err := apply.CreateJournal(ghost, &p, &snap, base)
	if err != nil {
		t.Fatal(err)
	}
	_ = j.Close()
	writes := srv.Stats().Writes
	r := runSunset(t, demoEnv(), "apply", "--api-url", base, "--rps", "0", "--resume", ghost, "--yes")
	if r.code != ExitUsage || !strings.Contains(r.stderr, "do not reach account 0000ghost") {
		t.Fatalf("exit %d, want %d naming account 0000ghost:\n%s", r.code, ExitUsage, r.stderr)
	}
	if n := srv.Stats().Writes - writes; n != 0 {
		t.Fatalf("%d writes sent", n)
	}
}

// TestApplyLeavesNoLockFile: an apply and a resume of its journal each remove
// JOURNAL.lock when they end.
func TestApplyLeavesNoLockFile(t *testing.T) {
	_, base, journal := appliedJournal(t)
	if _, err := os.Lstat(apply.LockPath(journal)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("after the apply: %s is there (%v)", apply.LockPath(journal), err)
	}
	r := runSunset(t, demoEnv(), "apply", "--api-url", base, "--rps", "0", "--resume", journal, "--yes")
	if r.code != ExitOK {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Lstat(apply.LockPath(journal)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("after the resume: %s is there (%v)", apply.LockPath(journal), err)
	}
}
