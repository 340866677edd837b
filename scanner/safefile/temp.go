package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"syscall"
)

// RemoveTemp closes f, a temporary file sunset made (os.CreateTemp), and removes it: both
// are tried whatever the other does, and their failures are returned together.
func RemoveTemp(f *os.File) error {
	return errors.Join(f.Close(), os.Remove(f.Name()))
}

// Temp is a temporary file a run writes and reads back (a spill): its findings, its plan.
// It has no name in its directory from the moment it is opened (openUnnamed: O_TMPFILE, or
// created and unlinked at once; deleted on close on Windows), so the system frees it when
// the process ends however it ends, SIGKILL included. It is appended to, never written in
// the middle. Its write failures are *TempError.
type Temp struct {
	f      *os.File
	dir    string
	size   int64 // bytes written: what it holds in dir until Close
	closed bool
}

// tempOpen and tempHeld are how many Temps the process has open and what they hold;
// tempLimit, when positive, is the space they may take before a write fails as on a full
// filesystem (LimitTemp).
var tempOpen, tempHeld, tempLimit atomic.Int64

// TempInUse is how many temporary files (Temp) the process has open and the bytes written
// to them: what it holds in temporary directories, which no listing of them shows.
func TempInUse() (files int, bytes int64) {
	return int(tempOpen.Load()), tempHeld.Load()
}

// NewTemp opens a Temp in dir ("" is the system's temporary directory, $TMPDIR on Unix).
// pattern is os.CreateTemp's: the name it has while being unlinked, where it has one.
func NewTemp(dir, pattern string) (*Temp, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	f, err := openUnnamed(dir, pattern)
	if err != nil {
		return nil, err
	}
	tempOpen.Add(1)
	return &Temp{f: f, dir: dir}, nil
}

// createUnlinked is os.CreateTemp and the removal of the name at once: where O_TMPFILE is
// missing, a kill can leave the file only between the two calls.
func createUnlinked(dir, pattern string) (*os.File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		return nil, errors.Join(err, f.Close())
	}
	return f, nil
}

// Write appends p. Past LimitTemp's limit it writes what fits and fails with ENOSPC.
func (t *Temp) Write(p []byte) (int, error) {
	q := p
	if limit := tempLimit.Load(); limit > 0 {
		q = p[:min(int64(len(p)), max(0, limit-tempHeld.Load()))]
	}
	n, err := t.f.Write(q)
	t.size += int64(n)
	held := tempHeld.Add(int64(n))
	if err == nil && n < len(p) {
		err = &os.PathError{Op: "write", Path: t.f.Name(), Err: syscall.ENOSPC}
	}
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err // TempError names the directory: the file has no name
		}
		return n, &TempError{Dir: t.dir, Held: held, Err: err}
	}
	return n, nil
}

// Read reads from the current offset (see Seek).
func (t *Temp) Read(p []byte) (int, error) { return t.f.Read(p) }

// ReadAt reads len(p) bytes at off.
func (t *Temp) ReadAt(p []byte, off int64) (int, error) { return t.f.ReadAt(p, off) }

// Seek sets the offset Read reads from and Write appends at (io.SeekEnd before writing
// again).
func (t *Temp) Seek(off int64, whence int) (int64, error) { return t.f.Seek(off, whence) }

// Close closes the file, which frees its space: it has no name to remove.
func (t *Temp) Close() error {
	if !t.closed {
		t.closed = true
		tempOpen.Add(-1)
		tempHeld.Add(-t.size)
	}
	return t.f.Close()
}

var _ io.ReadWriteSeeker = (*Temp)(nil)

// TempError is a failed write to a Temp.
type TempError struct {
	Dir  string // the directory the file is in
	Held int64  // what the process's temporary files held when the write failed
	Err  error  // the system's error
}

func (e *TempError) Error() string {
	return fmt.Sprintf("writing a temporary file in %s: %v", e.Dir, e.Err)
}

func (e *TempError) Unwrap() error { return e.Err }

// Full reports whether the write failed for want of space: the filesystem is full, or the
// user's quota on it.
func (e *TempError) Full() bool { return isFull(e.Err) }

// TempFull is the *TempError in err's chain when it is one of want of space.
func TempFull(err error) (*TempError, bool) {
	var te *TempError
	if errors.As(err, &te) && te.Full() {
		return te, true
	}
	return nil, false
}

// LimitTemp makes writes to temporary files (Temp) fail as on a full filesystem (ENOSPC)
// once the process's would hold more than n bytes, and returns what lifts the limit: what
// a test of a full $TMPDIR sets, as mounting a small filesystem needs root.
func LimitTemp(n int64) (restore func()) {
	old := tempLimit.Swap(n)
	return func() { tempLimit.Store(old) }
}
