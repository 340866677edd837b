package cli

import (
	"fmt"

	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/collect"
)

// printOutcome ends a run that wrote its reports with what a CI log needs to read it (see
// reports.OutcomeLines): what could not be read, once per zone, account or file, the
// endpoints that answered retired, and last one summary line, always on stderr, "sunset: "
// first. When the table went to a terminal it has shown the counts and every read error
// just above, so only the gate and completeness are said again (stdout and stderr are the
// same screen then; a table piped or to a file is another matter, and the line says all).
func printOutcome(s *Streams, rep *reports.Report, specs []reports.FormatSpec, interrupted bool) {
	o := reports.OutcomeOptions{Brief: tableOnTerminal(s, specs), Interrupted: interrupted}
	for _, line := range reports.OutcomeLines(rep, o) {
		fmt.Fprintf(s.Err, "sunset: %s\n", line)
	}
}

// tableOnTerminal reports whether the styled table (with its own summary) went to a
// terminal: writeReports renders "table" to a terminal's stdout as the table, never as rows.
func tableOnTerminal(s *Streams, specs []reports.FormatSpec) bool {
	for _, spec := range specs {
		if spec.Format == "table" && spec.Stdout() && s.OutTTY {
			return true
		}
	}
	return false
}

// liveCounts are the report's counts of a live scan: zones never started (an interrupted
// run records them with one error, {What: "zone", Message: collect.NotScannedInterrupted})
// are counted apart, not as scanned and failed.
func liveCounts(res scanner.Result) reports.Counts {
	notStarted := 0
	for _, e := range res.Errors {
		if e.What == "zone" && e.Message == collect.NotScannedInterrupted && e.Path == "" {
			notStarted++
		}
	}
	return reports.Counts{
		ZonesScanned:    res.Zones - notStarted,
		ZonesFailed:     res.ZonesFailed - notStarted,
		ZonesNotScanned: notStarted,
		Accounts:        res.Accounts,
	}
}
