package safefile

import (
	"errors"
	"fmt"
	"io"
)

// TooLargeError refuses a file over a read's limit; Size is what the file holds (at least
// Limit+1 when it grew while being read).
type TooLargeError struct {
	Path        string
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: %d bytes is over the %d-byte limit", e.Path, e.Size, e.Limit)
}

// Is makes a TooLargeError a refusal (errors.Is(err, ErrRefused)).
func (e *TooLargeError) Is(target error) bool { return target == ErrRefused }

// ReadFileInto reads the regular file at path as ReadFileNoFollow does (noFollow) or as
// ReadFile does, into buf when it is large enough, and returns the bytes read (which may be
// buf's array). A repository walk reads thousands of small files: one open, one stat and
// reads sized by the stat, into a buffer it reuses, cost a fraction of a general read. A file
// over limit is a *TooLargeError, read no further than the stat.
func ReadFileInto(path string, limit int64, noFollow bool, buf []byte) ([]byte, error) {
	return readInto(path, limit, noFollow, buf)
}

// readAllInto reads r to its end into buf, growing it past its capacity; more than limit
// bytes is a *TooLargeError.
func readAllInto(r io.Reader, path string, limit int64, buf []byte) ([]byte, error) {
	buf = buf[:cap(buf)]
	n := 0
	for {
		if n == len(buf) {
			if int64(n) > limit {
				return nil, &TooLargeError{Path: path, Size: int64(n), Limit: limit}
			}
			buf = append(buf, 0)
			buf = buf[:cap(buf)]
		}
		m, err := r.Read(buf[n:])
		n += m
		if errors.Is(err, io.EOF) || (m == 0 && err == nil) {
			if int64(n) > limit {
				return nil, &TooLargeError{Path: path, Size: int64(n), Limit: limit}
			}
			return buf[:n], nil
		}
		if err != nil {
			return nil, err
		}
	}
}
