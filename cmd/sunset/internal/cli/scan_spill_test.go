package cli

import (
	"context"
	"os"
	"testing"

	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner/safefile"
)

// TestDemoSpilledFindings runs the demo with its findings written to a temporary file after
// every zone: every format gives the bytes of the run that holds them in memory (the goldens
// for those that have one), and no file is left.
func TestDemoSpilledFindings(t *testing.T) {
	args := []string{"demo", "--as-of", "2025-02-01", "--report", ""}
	run := func(spillAfter int, format string) string {
		t.Helper()
		defer func(n int) { findingSpillAfter = n }(findingSpillAfter)
		findingSpillAfter = spillAfter
		r := (&testRun{}).exec(context.Background(), append(args, "--format", format)...)
		if r.code != ExitOK {
			t.Fatalf("%s: exit %d; stderr:\n%s", format, r.code, r.stderr)
		}
		return r.stdout
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the spill goes
	before, _ := safefile.TempInUse()
	for _, format := range reports.Formats() {
		if got, want := run(1, format), run(0, format); got != want {
			t.Errorf("%s differs when the findings are spilled:\n%s", format, firstDiff(want, got))
		}
	}
	checkGolden(t, "report.json.golden", run(1, "json"))
	checkGolden(t, "table-piped.golden", run(1, "table"))
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if open, _ := safefile.TempInUse(); open > before {
		t.Errorf("%d temporary files left open", open-before)
	}
}
