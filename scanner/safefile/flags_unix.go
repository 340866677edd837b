//go:build unix

package safefile

import "syscall"

// nonBlock opens a FIFO without waiting for a writer; noFollowFlag fails the open on a link.
const (
	nonBlock     = syscall.O_NONBLOCK
	noFollowFlag = syscall.O_NOFOLLOW
)
