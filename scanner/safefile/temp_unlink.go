//go:build !linux && !windows

package safefile

import "os"

// openUnnamed creates a file in dir and unlinks it at once: it stays usable through its
// descriptor, and the system frees it when the last one closes, however the process ends.
func openUnnamed(dir, pattern string) (*os.File, error) { return createUnlinked(dir, pattern) }
