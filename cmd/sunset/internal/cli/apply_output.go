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
	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

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
// the apply read; for a journal resumed, beside the plan it applied or in the JSON of this
// run; else where sunset writes them.
func manualListAt(planFile, journal string) string {
	const json = `--format json (scopes[].manual)`
	switch {
	case planFile == "" && journal != "":
		return fmt.Sprintf("the plan.md of the plan directory journal %s applied (the steps marked \"!\"), or `sunset apply --resume %s --format json` (scopes[].manual)",
			textsafe.Sanitize(journal), textsafe.Sanitize(journal))
	case planFile == "":
		return "`sunset plan --plan-dir DIR` writes them to DIR/plan.md; " + json
	}
	dir := filepath.Dir(planFile)
	md := filepath.Join(dir, "plan.md")
	if _, err := os.Stat(md); err != nil {
		return textsafe.Sanitize(planFile) + ` (steps with "manual": true); ` + json
	}
	return fmt.Sprintf(`%s (the steps marked "!") and %s ("manual": true)`, textsafe.Sanitize(md), textsafe.Sanitize(planFile))
}

// applyView is what an apply's (or a rollback's) outputs are rendered from.
type applyView struct {
	run      *applyRun
	res      *apply.Result
	sum      apply.Summary
	client   *cfapi.Client
	manualAt string
	// journal is the journal the run wrote, resumed or would write (--yes).
	journal string
	// brief lists the scopes with the most to do, not every one (at scale, on stdout);
	// fullAt is the file every scope's lines went to then.
	brief  bool
	fullAt string
}

// write renders the view as text or JSON.
func (v *applyView) write(w io.Writer, format string) error {
	if format == "json" {
		return v.writeJSON(w)
	}
	switch {
	case v.res.DryRun && !v.run.rollback && v.nothingToSend():
		// No changes: a line per scope would only say so.
	case v.brief:
		v.writeBrief(w)
	default:
		for i := range v.res.Scopes {
			writeScopeText(w, v.res, &v.res.Scopes[i])
		}
	}
	writeSkipped(w, "", v.run.skipped)
	if !v.run.rollback {
		writeManualLeft(w, v.sum, v.manualAt)
	}
	switch {
	case v.res.DryRun && v.run.rollback:
		v.writeRollbackDryRunTotals(w)
	case v.res.DryRun:
		v.writeDryRunTotals(w)
	case v.run.rollback:
		v.writeRollbackTotals(w)
	default:
		v.writeApplyTotals(w)
	}
	return nil
}

// writeJSON is the JSON form: what was done (or would be) per zone and step, with each dry
// run's requests and the steps behind each.
func (v *applyView) writeJSON(w io.Writer) error {
	out := struct {
		*apply.Result
		// Skipped are the zones and accounts --partial left out of a plan from an
		// incomplete scan, with what was not read of each.
		Skipped  []migrate.Unread `json:"skipped,omitempty"`
		Summary  apply.Summary    `json:"summary"`
		Requests cfapi.Stats      `json:"requests"`
	}{v.res, v.run.skipped, v.sum, cfapi.Stats{}}
	if v.client != nil {
		out.Requests = v.client.Stats()
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
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
	switch {
	case res.DryRun && res.Rollback:
		writeRollbackDryRun(w, sc)
	case res.DryRun && sc.Status == apply.StatusStopped:
		fmt.Fprintf(w, "%s %s: %s: %s\n", sc.Scope, scopeName(sc), sc.StoppedAt, textsafe.Sanitize(sc.Reason))
	case res.DryRun:
		fmt.Fprintln(w, dryRunScopeLine(sc))
		for _, rq := range sc.Requests {
			fmt.Fprintf(w, "  %s %s  (%s)\n", rq.Method, textsafe.Sanitize(rq.Path), requestWords(rq))
		}
	case res.Rollback:
		fmt.Fprintln(w, rollbackEndLine(sc))
	default:
		fmt.Fprintln(w, scopeEndLine(sc))
		for _, id := range sc.Restored {
			fmt.Fprintf(w, "  switched back on (its replacement is missing): %s\n", textsafe.Sanitize(id))
		}
	}
	for _, n := range sc.Notices {
		fmt.Fprintf(w, "  other writers: %s\n", textsafe.Sanitize(n))
	}
}

// dryRunScopeLine heads a scope's requests in a dry run.
func dryRunScopeLine(sc *apply.ScopeResult) string {
	line := fmt.Sprintf("%s %s: %s", sc.Scope, scopeName(sc), requestCount(len(sc.Requests), sc.Count(apply.OutcomeWould)))
	if n := sc.Count(apply.OutcomeJournal); n > 0 {
		line += fmt.Sprintf(" (%s done by the journal)", plural(n, "step", "steps"))
	}
	return line
}

// requestCount is "3 requests for 12 steps", "nothing to send" for none.
func requestCount(requests, steps int) string {
	if requests == 0 {
		return "nothing to send"
	}
	return plural(requests, "request", "requests") + " for " + plural(steps, "step", "steps")
}

// requestWords says what a request of a dry run does: its kind in words, and how many steps
// one bulk call carries.
func requestWords(rq apply.Request) string {
	words := rq.Kind
	if spec := migrate.SpecOf(migrate.Step{Kind: migrate.StepKind(rq.Kind)}); spec != nil && spec.Words != "" {
		words = spec.Words
	}
	if len(rq.Steps) > 1 {
		return fmt.Sprintf("%s: %d steps in one call", words, len(rq.Steps))
	}
	if _, obj, ok := strings.Cut(rq.Steps[0], ":"); ok && strings.HasSuffix(rq.Path, "/"+obj) {
		return words // the path names the object, as the step's id does
	}
	return words + ": " + rq.Steps[0]
}

// scopeEndLine says how a scope of an apply or a rollback ended.
func scopeEndLine(sc *apply.ScopeResult) string {
	name := scopeName(sc)
	switch sc.Status {
	case apply.StatusStopped:
		safe := sc.LastSafe
		if safe == "" {
			safe = "none"
		}
		return fmt.Sprintf("%s %s: stopped at %s (last safe step: %s): %s", sc.Scope, name, sc.StoppedAt, safe, textsafe.Sanitize(sc.Reason))
	case "":
		return fmt.Sprintf("%s %s: not started", sc.Scope, name)
	}
	return fmt.Sprintf("%s %s: %s (%d sent, %d found done, %d from the journal, %d held back)", sc.Scope, name, sc.Status,
		sc.Count(apply.OutcomeSent)+sc.Count(apply.OutcomeChecked)+sc.Count(apply.OutcomeUndone), sc.Count(apply.OutcomeAlready), sc.Count(apply.OutcomeJournal), sc.Count(apply.OutcomeHeld))
}

// rollbackEndLine says how a scope of a rollback ended: what it undid and, when it stopped,
// where and why (at a deletion the apply made, in a few words: the totals say the rest).
func rollbackEndLine(sc *apply.ScopeResult) string {
	name, undid := scopeName(sc), sc.Count(apply.OutcomeUndone)
	switch {
	case sc.Status == "":
		return fmt.Sprintf("%s %s: not started", sc.Scope, name)
	case sc.Status != apply.StatusStopped && undid == 0:
		return fmt.Sprintf("%s %s: nothing to undo", sc.Scope, name)
	case sc.Status != apply.StatusStopped:
		return fmt.Sprintf("%s %s: rolled back (undid %s)", sc.Scope, name, plural(undid, "step", "steps"))
	}
	why := textsafe.Sanitize(sc.Reason)
	if stoppedAtDeletion(sc) {
		why = "the apply deleted it, and a deletion cannot be undone"
	}
	return fmt.Sprintf("%s %s: undid %s, then stopped at %s: %s", sc.Scope, name, plural(undid, "step", "steps"), sc.StoppedAt, why)
}

// writeRollbackDryRun prints what the rollback of one scope would send, in the order it
// would send it: the request undoing each step (a DELETE of what the apply created, the
// write of what it overwrote), with what it does, and where it would stop.
func writeRollbackDryRun(w io.Writer, sc *apply.ScopeResult) {
	fmt.Fprintf(w, "%s %s: the rollback would undo %s\n", sc.Scope, scopeName(sc), plural(sc.Count(apply.OutcomeWould), "step", "steps"))
	for _, st := range sc.Steps {
		if st.Outcome == apply.OutcomeWould {
			fmt.Fprintf(w, "  %s %s  (undoes %s): %s\n", st.Method, textsafe.Sanitize(st.Path), st.ID, textsafe.Sanitize(st.What))
		}
	}
	if sc.Status == apply.StatusStopped {
		fmt.Fprintf(w, "  stops at %s: %s\n", sc.StoppedAt, textsafe.Sanitize(sc.Reason))
	}
}

// writeManualLeft prints what is left by hand, by kind, and where each step is listed.
func writeManualLeft(w io.Writer, sum apply.Summary, manualAt string) {
	if sum.ManualSteps == 0 {
		return
	}
	fmt.Fprintf(w, "\nLeft by hand: %s (sunset never runs them):\n", plural(sum.ManualSteps, "manual step", "manual steps"))
	for _, m := range sum.Manual {
		fmt.Fprintf(w, "  %5d  %s (%s)\n", m.Count, m.What, textsafe.Sanitize(m.Kind))
	}
	fmt.Fprintf(w, "  Each one, with what to do: %s.\n", manualAt)
}

// plural is reports.Plural with the count written with thousands separators.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return thousands(n) + " " + many
}

// objectCounts is "3 created, 1 changed, 2 paused, 4 deleted", as Terraform counts.
func objectCounts(s apply.Summary) string {
	return fmt.Sprintf("%s created, %s changed, %s paused, %s deleted", thousands(s.Created), thousands(s.Changed), thousands(s.Paused), thousands(s.Deleted))
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
	for _, s := range []struct{ key, one, many string }{
		{"error", "error", "errors"}, {"warning", "warning", "warnings"}, {"notice", "notice", "notices"},
		{"suppressed", "suppressed", "suppressed"}, {"none", "of no severity", "of no severity"},
	} {
		if n := by[s.key]; n > 0 {
			out = append(out, reports.Plural(n, s.one, s.many))
		}
	}
	return strings.Join(out, ", ")
}

// writeOutputs writes the view to each --format destination. Text to stdout at scale is
// brief: every scope's lines go to a file beside the journal (fullListPath) first.
func (v *applyView) writeOutputs(s *Streams, specs []reports.FormatSpec) error {
	for _, spec := range specs {
		nothing := v.res.DryRun && !v.run.rollback && v.nothingToSend()
		if spec.Format == "text" && spec.Stdout() && len(v.res.Scopes) > briefAbove && v.fullAt == "" && !nothing {
			at := v.fullListPath()
			if err := writeOutputFile("the list of every scope", at, func(w io.Writer) error { return v.write(w, "text") }); err != nil {
				return err
			}
			v.brief, v.fullAt = true, at
		}
	}
	return s.writeOutputs(specs, v.write)
}

// fullListPath is where a brief text output puts every scope's lines: beside the journal,
// named after it and what the run is (sunset-apply.dry-run.txt for sunset-apply.journal).
func (v *applyView) fullListPath() string {
	base := strings.TrimSuffix(v.journal, filepath.Ext(v.journal))
	what := ".result.txt"
	switch {
	case v.res.DryRun && v.run.rollback:
		what = ".rollback-dry-run.txt"
	case v.res.DryRun:
		what = ".dry-run.txt"
	case v.run.rollback:
		what = ".rollback.txt"
	}
	return base + what
}

// wrote names the files the run wrote: the journal, every scope's lines at scale, and the
// --format files.
func (v *applyView) wrote(o *applyOptions) []string {
	var out []string
	if v.run.yes {
		out = append(out, v.journal+" (the journal: --resume, --rollback)")
	}
	if v.fullAt != "" {
		out = append(out, v.fullAt+" (every scope's lines)")
	}
	return append(out, filesOf(o.formats)...)
}

// next is the command to run after this one, with why when it is not plain.
func (v *applyView) next(o *applyOptions) string {
	sc := v.sum.Scopes
	resume := "sunset apply --resume " + v.journal + " --yes"
	switch {
	case v.run.rollback && v.res.DryRun:
		return "sunset apply --rollback " + v.journal + " --yes"
	case v.run.rollback:
		return "sunset scan   # the account as it is now"
	case v.res.DryRun && v.nothingToSend():
		return "sunset scan   # " + v.leftWords(o)
	case v.res.DryRun:
		return v.againWithYes(o)
	case sc.Stopped+sc.NotStarted > 0:
		return resume + "   # once the cause of each stop is fixed"
	case sc.Partial > 0 && v.run.keepOld:
		return resume + "   # without --keep-old: deletes the old objects once you are satisfied"
	}
	return "sunset scan   # " + v.leftWords(o)
}

// nothingToSend reports whether a dry run found nothing left to send.
func (v *applyView) nothingToSend() bool {
	for i := range v.res.Scopes {
		if v.res.Scopes[i].Count(apply.OutcomeWould) > 0 || v.res.Scopes[i].Status == apply.StatusStopped {
			return false
		}
	}
	return true
}

// leftWords says what a rescan will show is left: the manual steps, and where they are
// listed.
func (v *applyView) leftWords(o *applyOptions) string {
	if v.sum.ManualSteps == 0 {
		return "what is left"
	}
	at := "`sunset plan --plan-dir DIR` lists them in DIR/plan.md"
	if v.run.loaded != nil {
		at = "the plan.md of the plan directory applied lists them"
	}
	if o.saved.plan != "" {
		at = "plan.md lists them"
		if filepath.Base(o.saved.plan) == planFile {
			at = filepath.Join(filepath.Dir(o.saved.plan), "plan.md") + " lists them"
		}
	}
	return "what is left: " + plural(v.sum.ManualSteps, "manual step", "manual steps") + ", " + at
}

// againWithYes is the dry run's own command with --yes: the same plan, journal and choices.
func (v *applyView) againWithYes(o *applyOptions) string {
	cmd := "sunset apply"
	switch {
	case v.run.loaded != nil:
		cmd += " --resume " + v.journal
	case o.saved.plan != "" && filepath.Base(o.saved.plan) == planFile:
		cmd += " " + filepath.Dir(o.saved.plan)
	}
	if v.run.loaded == nil && o.journal != applyJournalDefault {
		cmd += " --journal " + o.journal
	}
	if o.keepOld {
		cmd += " --keep-old"
	}
	if o.partial {
		cmd += " --" + flagPartial
	}
	return cmd + " --yes"
}
