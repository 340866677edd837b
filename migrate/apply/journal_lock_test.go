//go:build unix

package apply

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestJournalLockFileRemovedWhenReleased: a run that ends leaves no JOURNAL.lock behind,
// and a run that opened the lock file just before its holder removed it does not take the
// removed file for the lock: it locks a new one, which a third run then finds held.
func TestJournalLockFileRemovedWhenReleased(t *testing.T) {
	journal := filepath.Join(t.TempDir(), "j.jsonl")
	first, err := lockJournal(journal)
	if err != nil {
		t.Fatal(err)
	}
	// A second run's open, made before the first run ends.
	stale, err := os.Open(LockPath(journal))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stale.Close() }()
	if err := first.release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(LockPath(journal)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the lock file stays after the run released it: %v", err)
	}
	if same, err := isLockPath(stale, journal); err != nil || same {
		t.Fatalf("a removed lock file passes for the journal's lock: same %v, err %v", same, err)
	}
	second, err := lockJournal(journal)
	if err != nil {
		t.Fatal(err)
	}
	if same, err := isLockPath(second.f, journal); err != nil || !same {
		t.Fatalf("the second run does not hold the file at %s: same %v, err %v", LockPath(journal), same, err)
	}
	var lockErr *LockError
	if _, err := lockJournal(journal); !errors.As(err, &lockErr) || lockErr.Holder == nil || lockErr.Holder.PID != os.Getpid() {
		t.Fatalf("a third run while the second holds the lock: %v", err)
	}
	if err := second.release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(LockPath(journal)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the lock file stays after the second run: %v", err)
	}
}
