package cli

import (
	"runtime/debug"
)

// scanGCPercent is the garbage collector's target for scans: a scan holds its findings for
// the whole run (about 0.7 KB each; a 50,000-zone account has 830,000) and waits on the
// API's rate limit, not the processor, so collecting more often is cheap and keeps the peak
// near what is live (Go's default, 100, lets the heap grow to twice that). BenchmarkScanPeakRSS
// measures it.
const scanGCPercent = 50

// planWriteGCPercent is the collector's target while a scan that planned writes its plan
// and reports: they are written from the spill a zone at a time, so what is live is the
// findings and one zone's plan in its forms (decoded, rendered, formatted Terraform), and
// the largest zone's, megabytes for thousands of old rules, would otherwise let the heap
// grow by a good part of it again. At 1,000 zones with every format the scan's peak RSS
// was 106-108 MB at 25 and 100-101 MB at 10; the scan's wall time did not tell the two
// apart on a loaded machine (68-94 s against 81 s: the writing is a few seconds of a scan
// that waits on the API). BenchmarkScanPlanPeakRSS measures it.
const planWriteGCPercent = 10

// checkGCPercent is the collector's target for checks: a check holds one file per worker
// and the few findings of a repository, but allocates as it parses every file it reads, so
// with Go's default the small heap is collected many times a second for little. Higher
// costs more than it saves: every page the heap grows into is a page fault of a process
// that lives a second (on the real-code tree, 9,000 at 400 against 7,000 at 200, and a fifth
// more processor time in the kernel). BenchmarkCheckRepo and BenchmarkCheckRealCode measure
// the command (their cli_ figures).
const checkGCPercent = 200

// checkMemoryLimit is the heap size past which a check collects as often as it must,
// whatever checkGCPercent allows: a check of a repository stays far below it, but a large
// minified file is read into tokens and values many times its size, and at checkGCPercent
// the garbage of that would be let grow to four times what is live. scanner/repo bounds
// what one file's structure holds (structureBounds) below it; BenchmarkMinifiedFile measures
// the command's peak on such files.
const checkMemoryLimit = 256 << 20

// tuneGCForScan applies scanGCPercent unless the user chose a GOGC of their own, and
// returns what puts the previous setting back (the CLI runs inside tests too).
func tuneGCForScan(getenv func(string) string) (restore func()) {
	return tuneGC(getenv, scanGCPercent)
}

// tuneGC sets the collector's target to percent unless GOGC is set, and returns what puts
// the previous one back.
func tuneGC(getenv func(string) string, percent int) (restore func()) {
	if getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(percent)
	return func() { debug.SetGCPercent(old) }
}

// tuneMemoryLimit sets the collector's soft memory limit to limit bytes unless GOMEMLIMIT
// is set, and returns what puts the previous one back.
func tuneMemoryLimit(getenv func(string) string, limit int64) (restore func()) {
	if getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	old := debug.SetMemoryLimit(limit)
	return func() { debug.SetMemoryLimit(old) }
}
