//go:build !windows

package safefile

import (
	"errors"
	"syscall"
)

// isFull reports whether err is the system's want of space: a full filesystem (ENOSPC) or
// quota (EDQUOT).
func isFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
