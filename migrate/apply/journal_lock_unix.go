//go:build unix

package apply

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on f without waiting: held reports another holder. The
// system releases it when the holder's file is closed, by Close or by its process's end.
func tryLock(f *os.File) (held bool, err error) {
	raw, err := f.SyscallConn()
	if err != nil {
		return false, err
	}
	var lockErr error
	if err := raw.Control(func(fd uintptr) {
		lockErr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
	}); err != nil {
		return false, err
	}
	if errors.Is(lockErr, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, lockErr
}
