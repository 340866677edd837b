package apply

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sunsetscan/sunset/scanner/safefile"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// LockPath is the sidecar file whose lock makes one run at a time the writer of a journal.
// It stays after the run: deleting it could let two runs lock two different files.
func LockPath(journal string) string { return journal + ".lock" }

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
type journalLock struct{ f *os.File }

// lockJournal takes the journal's lock without waiting and writes this run into it.
func lockJournal(journal string) (*journalLock, error) {
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
	host, _ := os.Hostname()
	line, _ := json.Marshal(Holder{PID: os.Getpid(), Host: host, Since: time.Now().UTC().Format(time.RFC3339)})
	if err = f.Truncate(0); err == nil {
		_, err = f.WriteAt(append(line, '\n'), 0)
	}
	if err != nil {
		_ = f.Close() // releases the lock; err says why
		return nil, &LockError{Journal: journal, Err: err}
	}
	return &journalLock{f: f}, nil
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

// release gives the lock up (closing the file does; the file stays).
func (l *journalLock) release() error {
	if l == nil {
		return nil
	}
	return l.f.Close()
}
