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

// tuneGCForScan applies scanGCPercent unless the user chose a GOGC of their own, and
// returns what puts the previous setting back (the CLI runs inside tests too).
func tuneGCForScan(getenv func(string) string) (restore func()) {
	if getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(scanGCPercent)
	return func() { debug.SetGCPercent(old) }
}
