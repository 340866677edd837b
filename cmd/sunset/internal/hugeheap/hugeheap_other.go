//go:build !linux

package hugeheap

// prefer does nothing but on Linux, whose kernel gives a heap huge pages on request (see
// hugeheap_linux.go).
func prefer(func(string) string) {}
