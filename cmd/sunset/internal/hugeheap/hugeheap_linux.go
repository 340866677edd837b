//go:build linux

package hugeheap

import (
	"bytes"
	"os"
	"runtime"
	"strings"
	"syscall"
	"unsafe"
)

// thpModeFile says how the kernel gives transparent huge pages: always, only to memory that
// asks for them (madvise: the default of Debian and Ubuntu), or never; the one in force is
// in brackets.
const thpModeFile = "/sys/kernel/mm/transparent_hugepage/enabled"

// hugeHeapBytes is the part of the heap that asks for huge pages: more than a check of a
// repository uses (about 50 MB on the real-code tree); a heap that grows past it grows on
// the kernel's small pages, as before.
const hugeHeapBytes = 64 << 20

// prefer asks the kernel to back the heap's next hugeHeapBytes with transparent huge
// pages, where hugePagesWanted says so. On the real-code tree a check took 6,500 page faults
// without, 2,200 with (most of those left are the binary's and the runtime's own), and ran
// about 20% faster.
func prefer(getenv func(string) string) {
	mode, _ := os.ReadFile(thpModeFile)
	if hugePagesWanted(getenv("GODEBUG"), mode, raceBuild) {
		adviseHugeHeap(hugeHeapBytes)
	}
}

// hugePagesWanted reports whether to advise: the kernel gives huge pages only on request
// (mode, thpModeFile's text; with always the heap has them already, with never it cannot);
// GODEBUG does not hold disablethp=1, Go's own switch to keep the heap off huge pages; and
// the binary is not built with the race detector, which shadows every allocation (the
// block would be 8,000 faults of its own).
func hugePagesWanted(godebug string, mode []byte, race bool) bool {
	return bytes.Contains(mode, []byte("[madvise]")) && !strings.Contains(","+godebug+",", ",disablethp=1,") && !race
}

// adviseHugeHeap grows the heap by a block of n bytes that nothing touches, advises the
// kernel to back the block with huge pages, and frees it: the heap takes the memory it
// allocates next from the block, and each 2 MiB of it becomes one fault instead of 512. It
// returns the block's address and length, for the tests.
func adviseHugeHeap(n int) (uintptr, int) {
	addr, size := adviseBlock(n)
	runtime.GC() // frees the block, which nothing refers to once adviseBlock has returned
	return addr, size
}

// adviseBlock allocates the block and advises it. strings.Builder.Grow allocates without
// zeroing: a zeroed block would be n bytes of faults on small pages.
func adviseBlock(n int) (uintptr, int) {
	var b strings.Builder
	b.Grow(n)
	b.WriteByte(0)
	block := unsafe.Slice(unsafe.StringData(b.String()), b.Cap())
	_ = syscall.Madvise(block, syscall.MADV_HUGEPAGE) // refused (no huge pages): as before
	return uintptr(unsafe.Pointer(&block[0])), len(block)
}
