package safefile

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openUnnamed opens a file that never has a name in dir (O_TMPFILE): nothing is left there
// whenever the process ends. Filesystems without it (and kernels before 3.11) refuse it;
// the file is then created and unlinked at once.
func openUnnamed(dir, pattern string) (*os.File, error) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return createUnlinked(dir, pattern)
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir, pattern)), nil
}
