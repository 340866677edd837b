//go:build unix

package safefile

import (
	"errors"
	"io"
	"io/fs"
	"syscall"
)

// readInto is ReadFileInto on raw system calls: os.File would also register each file with
// the runtime's poller (opened non-blocking, so that a FIFO never blocks the open), a
// system call per file that a walk of 20,000 files pays for nothing.
func readInto(path string, limit int64, noFollow bool, buf []byte) ([]byte, error) {
	flags := syscall.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	if noFollow {
		flags |= syscall.O_NOFOLLOW
	}
	fd, err := openRetry(path, flags)
	if err != nil {
		if noFollow && errors.Is(err, syscall.ELOOP) {
			return nil, refused(path, "is a symbolic link; sunset reads it only as a regular file (replace the link with the file)")
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer func() { _ = syscall.Close(fd) }() // read-only
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, refused(path, "is %s, not a regular file; give a regular file", Describe(rawMode(uint32(st.Mode))))
	}
	if st.Size > limit {
		return nil, &TooLargeError{Path: path, Size: st.Size, Limit: limit}
	}
	if need := int(st.Size) + 1; cap(buf) < need {
		buf = make([]byte, 0, need)
	}
	// Read to the size the stat gave: one more read would only find the end, a system call
	// a file that a walk of thousands pays for nothing (real-code tree, 8,949 reads -> 4,480;
	// 1-4% of check's wall time). A file that grows meanwhile is read as it was at the stat.
	// A size of 0 is not trusted (files of /proc and some FUSE mounts say 0 and hold text).
	var r io.Reader = fdReader(fd)
	if st.Size > 0 {
		r = io.LimitReader(r, st.Size)
	}
	return readAllInto(r, path, limit, buf)
}

func openRetry(path string, flags int) (int, error) {
	for {
		fd, err := syscall.Open(path, flags, 0)
		if !errors.Is(err, syscall.EINTR) {
			return fd, err
		}
	}
}

// fdReader reads a file descriptor, retrying interrupted reads.
type fdReader int

func (r fdReader) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(r), p)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// rawMode turns the file type bits of a stat into the fs.FileMode Describe names (Stat_t's
// Mode is a uint16 on darwin and the BSDs, a uint32 on Linux).
func rawMode(m uint32) fs.FileMode {
	switch m & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return fs.ModeDir
	case syscall.S_IFIFO:
		return fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		return fs.ModeSocket
	case syscall.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}
