//go:build !unix

package safefile

// Without these flags the Lstat checks and the fstat after opening still apply.
const (
	nonBlock     = 0
	noFollowFlag = 0
)
