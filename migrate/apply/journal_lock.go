package apply

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/sunsetscan/sunset/scanner/safefile"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// LockPath is the sidecar file whose lock makes one run at a time the writer of a journal.
// The holder removes it when it ends (release). A run that opened the file just before it
// was removed may lock the removed file: it checks, once locked, that the file it holds is
// the one at LockPath, and starts again otherwise (lockJournal), so two runs never hold
// two different files.
func LockPath(journal string) string { return journal + ".lock" }

// lockAttempts bounds how often lockJournal starts again after a holder removed the file
// between its open and its lock: each time another run held the lock and ended meanwhile.
const lockAttempts = 8

// Holder is what the run holding a journal's lock wrote into the lock file.
type Holder struct {
	PID   int    `json:"pid"`
	Host  string `json:"host"`
	Since string `json:"since"`
}

// LockError is a journal lock that could not be taken: another run holds it (Holder set,
// when it could be read), or the lock file could not be opened or locked (Err).
type LockError struct {
	Journal string
	Holder  *Holder
	Err     error
}

func (e *LockError) Error() string {
	j := textsafe.Sanitize(e.Journal)
	switch {
	case e.Err != nil:
		return fmt.Sprintf("journal %s: cannot lock %s: %v (sunset locks it so that one run at a time writes the journal)", j, textsafe.Sanitize(LockPath(e.Journal)), e.Err)
	case e.Holder == nil:
		return fmt.Sprintf("journal %s is in use by another sunset (its lock file %s does not say which yet); wait for it to end and run again", j, textsafe.Sanitize(LockPath(e.Journal)))
	}
	h := e.Holder
	return fmt.Sprintf("journal %s is in use by pid %d on host %s since %s; wait for it to end, or if that process is gone, "+
		"its lock outlived it (a network file system?): make sure no sunset runs with this journal, copy the journal to a local disk and run again on the copy",
		j, h.PID, textsafe.Sanitize(h.Host), textsafe.Sanitize(h.Since))
}

// Unwrap returns the cause of a lock that could not be taken for another reason than a holder.
func (e *LockError) Unwrap() error { return e.Err }

// journalLock is a held journal lock; closing its file releases it.
type journalLock struct {
	f    *os.File
	path string
}

// lockJournal takes the journal's lock without waiting and writes this run into it.
func lockJournal(journal string) (*journalLock, error) {
	for range lockAttempts {
		f, err := lockFile(journal)
		if f == nil || err != nil {
			return nil, err
		}
		if same, err := isLockPath(f, journal); err != nil || !same {
			_ = f.Close() // a removed file: its lock guards nothing
			if err != nil {
				return nil, &LockError{Journal: journal, Err: err}
			}
			continue
		}
		host, _ := os.Hostname()
		line, _ := json.Marshal(Holder{PID: os.Getpid(), Host: host, Since: time.Now().UTC().Format(time.RFC3339)})
		if err = f.Truncate(0); err == nil {
			_, err = f.WriteAt(append(line, '\n'), 0)
		}
		if err != nil {
			_ = f.Close() // releases the lock; err says why
			return nil, &LockError{Journal: journal, Err: err}
		}
		return &journalLock{f: f, path: LockPath(journal)}, nil
	}
	return nil, &LockError{Journal: journal, Err: fmt.Errorf("the lock file was removed under this run %d times", lockAttempts)}
}

// lockFile opens the journal's lock file and locks it without waiting: the file locked, or
// a LockError naming the holder.
func lockFile(journal string) (*os.File, error) {
	f, err := safefile.OpenFile(LockPath(journal), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, &LockError{Journal: journal, Err: err}
	}
	held, err := tryLock(f)
	if err != nil || held {
		h := readHolder(f)
		_ = f.Close() // read only so far; closing keeps the other run's lock
		if err != nil {
			return nil, &LockError{Journal: journal, Err: err}
		}
		return nil, &LockError{Journal: journal, Holder: h}
	}
	return f, nil
}

// isLockPath reports whether f is the file at the journal's LockPath now (not one a holder
// removed after this run opened it).
func isLockPath(f *os.File, journal string) (bool, error) {
	held, err := f.Stat()
	if err != nil {
		return false, err
	}
	there, err := os.Lstat(LockPath(journal))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(held, there), nil
}

// readHolder reads the holder's line; nil when it is not there (yet) or not one.
func readHolder(f *os.File) *Holder {
	data, err := io.ReadAll(io.LimitReader(io.NewSectionReader(f, 0, 4096), 4096))
	if err != nil {
		return nil
	}
	var h Holder
	if json.Unmarshal(data, &h) != nil || h.PID == 0 {
		return nil
	}
	return &h
}

// release removes the lock file and gives the lock up (closing the file does). The file is
// removed while locked, and only when it is still the one held: a run waiting on it then
// finds it gone (isLockPath) and makes a new one.
func (l *journalLock) release() error {
	if l == nil {
		return nil
	}
	var err error
	if there, serr := os.Lstat(l.path); serr == nil {
		if held, herr := l.f.Stat(); herr == nil && os.SameFile(held, there) {
			err = os.Remove(l.path)
		}
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}
