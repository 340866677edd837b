package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/textsafe"

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

// summarizeApply tells the apply's result (apply.Summarize), the findings it leaves by
// their severity in the scan of the plan's snapshot as of asOf, with those a scan will
// report on what the apply creates.
func summarizeApply(run *applyRun, res *apply.Result, asOf time.Time, cat *catalog.Catalog) apply.Summary {
	opts := scanner.Options{AsOf: asOf}
	var findings []scanner.Finding
	if run.snap != nil && !run.rollback {
		findings = scanner.ScanSnapshot(run.snap, cat, opts).Findings
	}
	return apply.Summarize(run.plan, res, apply.NewRescan(run.snap, findings, func(z *inventory.ZoneInventory) []scanner.Finding {
		return scanner.ScanSnapshot(&inventory.Snapshot{Zones: []inventory.ZoneInventory{*z}}, cat, opts).Findings
	}))
}

// manualListAt says where the manual steps are listed one by one: next to the plan file
// the apply read, else where sunset writes them.
func manualListAt(planFile string) string {
	const json = `--format json (scopes[].manual)`
	if planFile == "" {
		return "`sunset plan --plan-dir DIR` writes them to DIR/plan.md; " + json
	}
	dir := filepath.Dir(planFile)
	md := filepath.Join(dir, "plan.md")
	if _, err := os.Stat(md); err != nil {
		return textsafe.Sanitize(planFile) + ` (steps with "manual": true); ` + json
	}
	return fmt.Sprintf(`%s (the steps marked "!") and %s ("manual": true)`, textsafe.Sanitize(md), textsafe.Sanitize(planFile))
}

// writeApplyResult prints what was done (or would be): text or JSON, with its summary.
func writeApplyResult(w io.Writer, format string, run *applyRun, res *apply.Result, sum apply.Summary, client *cfapi.Client, manualAt string) error {
	if format == "json" {
		out := struct {
			*apply.Result
			// Skipped are the zones and accounts --partial left out of a plan from an
			// incomplete scan, with what was not read of each.
			Skipped  []migrate.Unread `json:"skipped,omitempty"`
			Summary  apply.Summary    `json:"summary"`
			Requests cfapi.Stats      `json:"requests"`
		}{res, run.skipped, sum, cfapi.Stats{}}
		if client != nil {
			out.Requests = client.Stats()
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	for i := range res.Scopes {
		writeScopeText(w, res, &res.Scopes[i])
	}
	writeSkipped(w, "", run.skipped)
	if !run.rollback {
		writeManualLeft(w, sum, manualAt)
	}
	if res.DryRun {
		writeDryRunTotals(w, run, res, sum)
		return nil
	}
	writeApplyTotals(w, run, sum)
	return nil
}

// scopeName is a scope's name for a terminal, its id when it has none.
func scopeName(sc *apply.ScopeResult) string {
	if name := textsafe.Sanitize(sc.Name); name != "" {
		return name
	}
	return sc.ID
}

// writeScopeText prints one scope: what it would send, why it stopped, or how it ended.
func writeScopeText(w io.Writer, res *apply.Result, sc *apply.ScopeResult) {
	name := scopeName(sc)
	switch {
	case res.DryRun && res.Rollback:
		writeRollbackDryRun(w, sc)
	case res.DryRun:
		fmt.Fprintf(w, "%s %s: would send %d steps\n", sc.Scope, name, sc.Count(apply.OutcomeWould))
		for _, st := range sc.Steps {
			if st.Outcome == apply.OutcomeWould {
				fmt.Fprintf(w, "  %s %s  (%s)\n", st.Method, textsafe.Sanitize(st.Path), st.ID)
			}
		}
	case sc.Status == apply.StatusStopped:
		safe := sc.LastSafe
		if safe == "" {
			safe = "none"
		}
		fmt.Fprintf(w, "%s %s: stopped at %s (last safe step: %s): %s\n", sc.Scope, name, sc.StoppedAt, safe, textsafe.Sanitize(sc.Reason))
		for _, id := range sc.Restored {
			fmt.Fprintf(w, "  switched back on (its replacement is missing): %s\n", textsafe.Sanitize(id))
		}
	case sc.Status == "":
		fmt.Fprintf(w, "%s %s: not started\n", sc.Scope, name)
	default:
		fmt.Fprintf(w, "%s %s: %s (%d sent, %d found done, %d from the journal, %d held back)\n", sc.Scope, name, sc.Status,
			sc.Count(apply.OutcomeSent)+sc.Count(apply.OutcomeChecked)+sc.Count(apply.OutcomeUndone), sc.Count(apply.OutcomeAlready), sc.Count(apply.OutcomeJournal), sc.Count(apply.OutcomeHeld))
	}
	for _, n := range sc.Notices {
		fmt.Fprintf(w, "  other writers: %s\n", textsafe.Sanitize(n))
	}
}

// writeManualLeft prints what is left by hand, by kind, and where each step is listed.
func writeManualLeft(w io.Writer, sum apply.Summary, manualAt string) {
	if sum.ManualSteps == 0 {
		return
	}
	fmt.Fprintf(w, "\nLeft by hand: %s (sunset never runs them):\n", fmt.Sprintf("%d manual steps", sum.ManualSteps))
	for _, m := range sum.Manual {
		fmt.Fprintf(w, "  %5d  %s (%s)\n", m.Count, m.What, textsafe.Sanitize(m.Kind))
	}
	fmt.Fprintf(w, "  Each one, with what to do: %s.\n", manualAt)
}

// objectCounts is "3 created, 1 changed, 2 paused, 4 deleted", as Terraform counts.
func objectCounts(s apply.Summary) string {
	return fmt.Sprintf("%d created, %d changed, %d paused, %d deleted", s.Created, s.Changed, s.Paused, s.Deleted)
}

// writeApplyTotals closes a run: what happened to the objects, how the scopes ended, and
// what a rescan will still report.
func writeApplyTotals(w io.Writer, run *applyRun, sum apply.Summary) {
	sc := sum.Scopes
	if run.rollback {
		fmt.Fprintf(w, "\nRolled back: %d deleted (what the apply created), %d restored (as they were before it); %d scopes done, %d stopped.\n",
			sum.Deleted, sum.Restored, sc.Done, sc.Stopped)
		return
	}
	fmt.Fprintf(w, "\nApplied: %s; %d found done already, %d held back.\n", objectCounts(sum), sum.FoundDone, sum.Held)
	fmt.Fprintf(w, "Scopes: %d done, %d partial, %d stopped", sc.Done, sc.Partial, sc.Stopped)
	if sc.NotStarted > 0 {
		fmt.Fprintf(w, ", %d not started", sc.NotStarted)
	}
	if len(run.skipped) > 0 {
		fmt.Fprintf(w, ", %d skipped (not read whole)", len(run.skipped))
	}
	fmt.Fprintln(w, ".")
	if sc.Partial > 0 {
		fmt.Fprintf(w, "Partial is not done: old objects are kept (--keep-old; run again without it to delete them) or steps wait on a manual step.\n")
	}
	fmt.Fprintln(w, rescanLine("A rescan will still report", sum.Left))
}

// writeDryRunTotals closes a dry run: what the run would do and send.
func writeDryRunTotals(w io.Writer, run *applyRun, res *apply.Result, sum apply.Summary) {
	fmt.Fprintf(w, "Dry run: nothing sent. %d scopes, %d manual steps.\n", len(res.Scopes), sum.ManualSteps)
	if run.rollback {
		n := apply.EstimateRollback(run.loaded)
		if len(run.loaded.Accounts) > 0 {
			n++ // the account list holding the journal to its accounts (checkJournalBinding)
		}
		fmt.Fprintf(w, "The rollback would delete %d objects the apply created and restore %d as they were, %d scopes stopping at a deletion.\n",
			sum.Deleted, sum.Restored, sum.Scopes.Stopped)
		fmt.Fprintf(w, "The rollback would send %s requests, %s.\n", thousands(n), dryRunTime(n, run.rps))
	} else {
		n := apply.EstimateRequests(run.plan, run.keepOld)
		fmt.Fprintf(w, "The apply would create %d, change %d, pause %d and delete %d objects.\n", sum.Created, sum.Changed, sum.Paused, sum.Deleted)
		fmt.Fprintf(w, "The apply would send %s requests, %s.\n", thousands(n), dryRunTime(n, run.rps))
		fmt.Fprintln(w, rescanLine("After it, a rescan would still report", sum.Left))
	}
	fmt.Fprintf(w, "Run again with --yes to carry it out.\n")
}

// rescanLine says which findings a rescan will still report and why, and whether the default
// gate (--fail-on warning) passes.
func rescanLine(lead string, left apply.FindingsLeft) string {
	if left.Total == 0 {
		return lead + " no finding."
	}
	var why []string
	for _, p := range []struct {
		n    int
		what string
	}{
		{left.Manual, "for the manual steps"},
		{left.KeptOld, "for the old objects kept by --keep-old"},
		{left.NotReached, "for steps of stopped or unstarted scopes"},
		{left.NoStep, "no step settles"},
		{left.Created, "on the rules the apply creates"},
	} {
		if p.n > 0 {
			why = append(why, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	line := fmt.Sprintf("%s %s", lead, reports.Plural(left.Total, "finding", "findings"))
	if sev := severityCounts(left.BySeverity); sev != "" {
		line += " (" + sev + ")"
	}
	line += ": " + strings.Join(why, ", ") + "."
	switch gate := left.BySeverity["error"] + left.BySeverity["warning"]; {
	case left.BySeverity == nil:
	case gate > 0:
		line += fmt.Sprintf(" The gate (--fail-on warning) will fail on %d of them.", gate)
	default:
		line += " The gate (--fail-on warning) will pass."
	}
	return line
}

// severityCounts is "4 errors, 21 notices", worst first; "" when none is known.
func severityCounts(by map[string]int) string {
	var out []string
	for _, s := range []struct{ key, what string }{
		{"error", "errors"}, {"warning", "warnings"}, {"notice", "notices"}, {"suppressed", "suppressed"}, {"none", "of no severity"},
	} {
		if n := by[s.key]; n > 0 {
			out = append(out, fmt.Sprintf("%d %s", n, s.what))
		}
	}
	return strings.Join(out, ", ")
}
