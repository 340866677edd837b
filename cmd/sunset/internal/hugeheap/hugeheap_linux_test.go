//go:build linux

package hugeheap

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestAdviseHugeHeapTouchesNothing holds the two things the huge-page advice rests on: the
// block is allocated without being written (a Go release that zeroed it would turn the
// advice into 16,384 page faults of its own), and the kernel records the advice on the
// block's memory (VmFlags hg in /proc/self/smaps) where it has transparent huge pages. The
// faults are not counted under the race detector, which writes a shadow of the block.
func TestAdviseHugeHeapTouchesNothing(t *testing.T) {
	const n = 64 << 20
	before := minorFaults(t)
	addr, size := adviseHugeHeap(n)
	faults := minorFaults(t) - before
	if size < n {
		t.Fatalf("block of %d bytes, want at least %d", size, n)
	}
	// A few hundred faults are the runtime's own (span metadata, the collection); the block
	// is 16,384 pages.
	if faults > 2048 && !raceBuild { // the race detector shadows the block: a check does not advise under it
		t.Errorf("advising a %d MiB block took %d page faults: the block was written", n>>20, faults)
	}
	if _, err := os.Stat(thpModeFile); err != nil {
		t.Skipf("no transparent huge pages on this kernel (%v): the advice is refused, as intended", err)
	}
	flags := vmFlagsAt(t, addr)
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("memory at %#x has VmFlags %q, want hg (MADV_HUGEPAGE)", addr, flags)
	}
}

// TestHugePagesWanted: only where the kernel gives huge pages on request, not against
// GODEBUG=disablethp=1, not under the race detector.
func TestHugePagesWanted(t *testing.T) {
	madvise, always := []byte("always [madvise] never\n"), []byte("[always] madvise never\n")
	for _, c := range []struct {
		godebug string
		mode    []byte
		race    bool
		want    bool
	}{
		{"", madvise, false, true},
		{"madvdontneed=1", madvise, false, true},
		{"", always, false, false},
		{"", []byte("always madvise [never]\n"), false, false},
		{"", nil, false, false}, // no such file: no transparent huge pages
		{"disablethp=1", madvise, false, false},
		{"madvdontneed=1,disablethp=1", madvise, false, false},
		{"disablethp=0", madvise, false, true},
		{"", madvise, true, false},
	} {
		if got := hugePagesWanted(c.godebug, c.mode, c.race); got != c.want {
			t.Errorf("hugePagesWanted(%q, %q, %v) = %v, want %v", c.godebug, c.mode, c.race, got, c.want)
		}
	}
}

func minorFaults(t *testing.T) int64 {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return ru.Minflt
}

// vmFlagsAt returns the VmFlags line of the mapping of /proc/self/smaps holding addr.
func vmFlagsAt(t *testing.T, addr uintptr) string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer func() { _ = f.Close() }() // read-only
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, " ") {
			in = lo <= addr && addr < hi
			continue
		}
		if flags, ok := strings.CutPrefix(line, "VmFlags:"); ok && in {
			return strings.TrimSpace(flags)
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return ""
}
