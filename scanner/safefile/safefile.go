// Package safefile reads and writes the files sunset is pointed at without trusting what is
// at the path. A checked-out repository is attacker-controlled input: a pull request can turn
// .gitignore into a link to /dev/zero, a FIFO, or a link to a file elsewhere.
//
// Reads (ReadFile, ReadFileNoFollow) take only regular files, up to a size bound. The file is
// opened non-blocking and checked with fstat after opening, so a FIFO never blocks, a device
// is never read, and the checked file is the one read (no race between a stat and the open).
// ReadFileNoFollow also refuses a symbolic link at the final path: files found inside a
// checked tree (.gitignore, .git/info/exclude, .sunset.yaml) are read only when they are
// what they claim to be, as git itself does.
//
// Writes (Create, MkdirNoFollow) never follow a symbolic link at the final path: a link there
// is refused with an error naming it (it is not replaced). Refusing rather than replacing
// keeps a user's deliberate device output (/dev/null) working and tells a CI job that its
// tree holds a link where sunset writes. Directories given to sunset may sit below links
// (the user chose them); the final directory sunset writes into must be a real directory.
//
// Errors name the file and say what to do.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrRefused is wrapped by every error about a file that is not what sunset accepts (not a
// regular file, a symbolic link, too large).
var ErrRefused = errors.New("refused")

// RefusedError is a file sunset does not read or write: Path says which, Reason why and
// what to do. It matches ErrRefused with errors.Is.
type RefusedError struct {
	Path, Reason string
}

func (e *RefusedError) Error() string { return e.Path + ": " + e.Reason }

// Is makes errors.Is(err, ErrRefused) true.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// refused is a refusal naming the file.
func refused(path, format string, args ...any) error {
	return &RefusedError{Path: path, Reason: fmt.Sprintf(format, args...)}
}

// ReadFile reads the regular file at path (symbolic links followed), at most limit bytes.
// FIFOs, devices, sockets and directories are refused without blocking; a file over limit is
// refused without being read to its end.
func ReadFile(path string, limit int64) ([]byte, error) {
	return read(path, limit, false)
}

// ReadFileNoFollow is ReadFile for a file inside a tree sunset checks: a symbolic link at the
// final path is refused (not followed).
func ReadFileNoFollow(path string, limit int64) ([]byte, error) {
	return read(path, limit, true)
}

func read(path string, limit int64, noFollow bool) ([]byte, error) {
	f, err := open(path, limit, noFollow)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read-only
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	return data, nil
}

// Open opens the regular file at path (symbolic links followed) for reading, refusing what
// ReadFile refuses; reading past limit bytes fails with a refusal naming the file, so a
// decoder streaming from it never reads more (the file may grow after it was opened).
func Open(path string, limit int64) (io.ReadCloser, error) {
	return open(path, limit, false)
}

func open(path string, limit int64, noFollow bool) (*bounded, error) {
	flags := os.O_RDONLY | nonBlock
	if noFollow {
		if info, err := os.Lstat(path); err == nil && info.Mode()&fs.ModeSymlink != 0 {
			return nil, refused(path, "is a symbolic link; sunset reads it only as a regular file (replace the link with the file)")
		}
		flags |= noFollowFlag
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		if noFollow && errors.Is(err, syscall.ELOOP) {
			return nil, refused(path, "is a symbolic link; sunset reads it only as a regular file (replace the link with the file)")
		}
		return nil, err
	}
	info, err := f.Stat()
	switch {
	case err != nil:
	case !info.Mode().IsRegular():
		err = refused(path, "is %s, not a regular file; give a regular file", Describe(info.Mode()))
	case info.Size() > limit:
		err = refused(path, "%d bytes is over the %d-byte limit", info.Size(), limit)
	}
	if err != nil {
		_ = f.Close() // read-only; err says why
		return nil, err
	}
	return &bounded{f: f, path: path, limit: limit, left: limit}, nil
}

// bounded reads a file up to limit bytes; one byte more is an error.
type bounded struct {
	f           *os.File
	path        string
	limit, left int64
}

func (b *bounded) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// Reached the bound: anything further means the file is over it.
		var one [1]byte
		if n, _ := b.f.Read(one[:]); n > 0 {
			return 0, refused(b.path, "is over the %d-byte limit", b.limit)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.f.Read(p)
	b.left -= int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		err = fmt.Errorf("%s: %w", b.path, err)
	}
	return n, err
}

func (b *bounded) Close() error { return b.f.Close() }

// CheckRegular reports an error naming path when the file there (links followed) is not a
// regular file; a path that does not exist is passed through as the Stat error.
func CheckRegular(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return refused(path, "is %s, not a regular file; give a regular file", Describe(info.Mode()))
	}
	return nil
}

// Describe names a file mode that is not a regular file's for messages ("a FIFO", "a
// symbolic link").
func Describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// Create opens path for writing, truncating a regular file or creating it (mode 0o644), and
// never through a symbolic link at path: a link there is refused. A directory is refused.
// Other existing files (/dev/null, a FIFO the user made) are written as they are.
func Create(path string) (*os.File, error) {
	if info, err := os.Lstat(path); err == nil {
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			return nil, refused(path, "is a symbolic link; sunset does not write through links (remove it or choose another output path)")
		case info.IsDir():
			return nil, refused(path, "is a directory; give a file path")
		}
	}
	// O_NOFOLLOW closes the window between the Lstat and the open; no O_TRUNC, so that a
	// file swapped in meanwhile is checked before anything in it is lost.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|noFollowFlag, 0o644)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, refused(path, "is a symbolic link; sunset does not write through links (remove it or choose another output path)")
		}
		return nil, err
	}
	info, err := f.Stat()
	if err == nil && info.Mode().IsRegular() {
		err = f.Truncate(0)
	}
	if err != nil {
		_ = f.Close() // the error that matters is err
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// WriteFile writes data to path through Create (no symbolic link at path).
func WriteFile(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close() // the write error is the one to report
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// NotLink returns a refusal naming path when a symbolic link is there; nil when anything else
// is, or nothing. Use it before acting inside a directory sunset did not just create.
func NotLink(path string) error {
	if info, err := os.Lstat(path); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return refused(path, "is a symbolic link; sunset does not write into linked directories (remove it or choose another directory)")
	}
	return nil
}

// MkdirNoFollow creates the directory dir (and its parents, 0o755) and checks that dir
// itself is a directory and not a symbolic link to one, so files written into it stay where
// the caller put them. Parents may be links.
func MkdirNoFollow(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return refused(dir, "is a symbolic link; sunset does not write into linked directories (remove it or choose another directory)")
	case !info.IsDir():
		return refused(dir, "is not a directory")
	}
	return nil
}

// OpenFile opens path with flag (os.O_CREATE, os.O_APPEND, ...) and perm, never through a
// symbolic link at path, and only when what it opened is a regular file: for files sunset
// keeps open to write (a journal, its lock). With os.O_CREATE|os.O_EXCL a link at path is
// refused too, as the file exists.
func OpenFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if info, err := os.Lstat(path); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return nil, refused(path, "is a symbolic link; sunset does not write through links (remove it or choose another path)")
	}
	// O_NOFOLLOW closes the window between the Lstat and the open where it exists.
	f, err := os.OpenFile(path, flag|noFollowFlag, perm)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, refused(path, "is a symbolic link; sunset does not write through links (remove it or choose another path)")
		}
		return nil, err
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = refused(path, "is %s, not a regular file; give a regular file", Describe(info.Mode()))
	}
	if err != nil {
		_ = f.Close() // the error that matters is err
		return nil, err
	}
	return f, nil
}
