//go:build !linux

package cli

// preferHugePages does nothing but on Linux, whose kernel gives a heap huge pages on
// request (see hugepages_linux.go).
func preferHugePages(func(string) string) {}
