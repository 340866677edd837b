package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// writeBrief lists, at scale, the scopes with the most to do (stopped ones first) and says
// where every scope's lines are; a rollback's stops at a deletion are counted in its
// totals, not listed.
func (v *applyView) writeBrief(w io.Writer) {
	weight, line, what := v.briefForm()
	// A stop is listed first, but a rollback's at a deletion, which its totals count.
	stop := func(sc *apply.ScopeResult) bool {
		return sc.Status == apply.StatusStopped && (!v.run.rollback || !stoppedAtDeletion(sc))
	}
	var list []*apply.ScopeResult
	for i := range v.res.Scopes {
		if sc := &v.res.Scopes[i]; weight(sc) > 0 || stop(sc) || sc.Status == "" {
			list = append(list, sc)
		}
	}
	sort.SliceStable(list, func(i, j int) bool {
		if si, sj := stop(list[i]), stop(list[j]); si != sj {
			return si
		}
		return weight(list[i]) > weight(list[j])
	})
	if len(list) == 0 {
		fmt.Fprintf(w, "%s: each one's lines in %s.\n", plural(len(v.res.Scopes), "scope", "scopes"), textsafe.Sanitize(v.fullAt))
		return
	}
	shown := list[:min(len(list), briefTop)]
	fmt.Fprintf(w, "%s (of %s; each one's lines in %s):\n", what, plural(len(v.res.Scopes), "scope", "scopes"), textsafe.Sanitize(v.fullAt))
	for _, sc := range shown {
		fmt.Fprintf(w, "  %s\n", line(sc))
	}
	if rest := len(list) - len(shown); rest > 0 {
		fmt.Fprintf(w, "  and %s more\n", thousands(rest))
	}
}

// briefForm is how writeBrief ranks and shows a scope, and what its list is.
func (v *applyView) briefForm() (weight func(*apply.ScopeResult) int, line func(*apply.ScopeResult) string, what string) {
	switch {
	case v.res.DryRun && v.run.rollback:
		return func(sc *apply.ScopeResult) int { return sc.Count(apply.OutcomeWould) },
			func(sc *apply.ScopeResult) string {
				return fmt.Sprintf("%s %s: the rollback would undo %s", sc.Scope, scopeName(sc), plural(sc.Count(apply.OutcomeWould), "step", "steps"))
			}, "The scopes with the most to undo"
	case v.res.DryRun:
		return func(sc *apply.ScopeResult) int { return len(sc.Requests) }, func(sc *apply.ScopeResult) string {
			if sc.Status == apply.StatusStopped {
				return fmt.Sprintf("%s %s: %s: %s", sc.Scope, scopeName(sc), sc.StoppedAt, textsafe.Sanitize(sc.Reason))
			}
			return dryRunScopeLine(sc)
		}, "The scopes with the most requests"
	case v.run.rollback:
		return func(sc *apply.ScopeResult) int { return sc.Count(apply.OutcomeUndone) }, rollbackEndLine, "The scopes with the most undone"
	}
	return func(sc *apply.ScopeResult) int {
		if sc.Status == apply.StatusPartial {
			return 1
		}
		return 0
	}, scopeEndLine, "The scopes not done"
}

// writeDryRunTotals closes an apply's dry run: what it would do and send, what of it cannot
// be undone, and what a rescan would report after it; or that nothing is left to send.
func (v *applyView) writeDryRunTotals(w io.Writer) {
	requests, steps := 0, 0
	for i := range v.res.Scopes {
		requests += len(v.res.Scopes[i].Requests)
		steps += v.res.Scopes[i].Count(apply.OutcomeWould)
	}
	if steps == 0 && v.sum.Scopes.Stopped == 0 {
		v.writeNoChanges(w)
		return
	}
	sum := v.sum
	fmt.Fprintf(w, "\nDry run: nothing sent. %s: %s; %s.\n", plural(len(v.res.Scopes), "scope", "scopes"),
		requestCount(requests, steps), plural(sum.ManualSteps, "manual step", "manual steps"))
	fmt.Fprintf(w, "The apply would create %s, change %s, pause %s and delete %s objects.\n",
		thousands(sum.Created), thousands(sum.Changed), thousands(sum.Paused), thousands(sum.Deleted))
	n := apply.EstimateLeft(v.run.plan, v.run.keepOld, v.done())
	reads := ""
	if n > requests {
		reads = fmt.Sprintf(": the %s above and %s reads (each object held to the snapshot before its write, the entry points read around each removal)",
			thousands(requests), thousands(n-requests))
	}
	fmt.Fprintf(w, "The apply would send %s requests%s, %s.\n", thousands(n), reads, dryRunTime(n, v.run.rps))
	v.writeIrreversible(w)
	fmt.Fprintln(w, rescanLine("After it, a rescan would report", sum.Left))
}

// done are the steps the journal of a resumed run did (nil for a new apply).
func (v *applyView) done() map[string]apply.Entry {
	if v.run.loaded == nil {
		return nil
	}
	return v.run.loaded.Done()
}

// writeNoChanges closes a dry run with nothing to send, as Terraform says "No changes.":
// the journal did every step (read back in the account when credentials were given), or
// the plan has none but manual ones.
func (v *applyView) writeNoChanges(w io.Writer) {
	journaled := 0
	for i := range v.res.Scopes {
		journaled += v.res.Scopes[i].Count(apply.OutcomeJournal)
	}
	switch {
	case journaled == 0:
		fmt.Fprintf(w, "\nNo changes: the plan has no step to send.\n")
	case v.client != nil && v.client.Stats().Requests > 0:
		fmt.Fprintf(w, "\nNo changes: the journal %s did every step of this plan (%s), and the account shows them (read back with %s).\n",
			textsafe.Sanitize(v.journal), plural(journaled, "step", "steps"), plural(int(v.client.Stats().Requests), "request", "requests"))
	default:
		fmt.Fprintf(w, "\nNo changes: the journal %s did every step of this plan (%s); the account was not read (no credentials): `sunset scan` shows it.\n",
			textsafe.Sanitize(v.journal), plural(journaled, "step", "steps"))
	}
	fmt.Fprintln(w, rescanLine("A rescan will report", v.sum.Left))
}

// writeIrreversible says, before --yes, what the apply would do that cannot be undone (its
// deletions, by kind) and how to keep a way back (--keep-old); under --keep-old, that a
// rollback can undo everything and what waits for a run without it.
func (v *applyView) writeIrreversible(w io.Writer) {
	byKind := map[string]int{}
	deletions, held := 0, 0
	for i := range v.res.Scopes {
		for _, st := range v.res.Scopes[i].Steps {
			if !deletes(st.Kind) {
				continue
			}
			switch st.Outcome {
			case apply.OutcomeWould:
				byKind[deletedNoun(st.Kind)]++
				deletions++
			case apply.OutcomeHeld:
				held++
			}
		}
	}
	if v.run.keepOld {
		fmt.Fprintf(w, "Nothing is deleted (--keep-old): a rollback can undo every step; %s wait for `sunset apply --resume %s --yes` without --keep-old.\n",
			plural(held, "deletion", "deletions"), textsafe.Sanitize(v.journal))
		return
	}
	if deletions == 0 {
		return
	}
	fmt.Fprintf(w, "%s cannot be undone (%s): a rollback stops at them, leaving the replacements in place and the old objects gone.\n",
		plural(deletions, "deletion", "deletions"), countsByKind(byKind))
	fmt.Fprintf(w, "To keep a way back, add --keep-old: it creates the replacements and pauses the old objects, deletes nothing; `sunset apply --resume %s --yes` deletes them once you are satisfied.\n",
		textsafe.Sanitize(v.journal))
}

// deletes reports whether a step kind deletes an object.
func deletes(kind string) bool {
	spec := migrate.SpecOf(migrate.Step{Kind: migrate.StepKind(kind)})
	return spec != nil && spec.Op == migrate.OpDelete
}

// deletedNoun is what a deletion kind deletes ("firewall rule").
func deletedNoun(kind string) string {
	if spec := migrate.SpecOf(migrate.Step{Kind: migrate.StepKind(kind)}); spec != nil && spec.Words != "" {
		return strings.TrimPrefix(spec.Words, "delete ")
	}
	return kind
}

// countsByKind is "2,782 firewall rules, 2,700 filters", most first.
func countsByKind(by map[string]int) string {
	kinds := make([]string, 0, len(by))
	for k := range by {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		if by[kinds[i]] != by[kinds[j]] {
			return by[kinds[i]] > by[kinds[j]]
		}
		return kinds[i] < kinds[j]
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = plural(by[k], k, k+"s")
	}
	return strings.Join(parts, ", ")
}

// writeApplyTotals closes an apply: what happened to the objects, how the scopes ended,
// what a rescan will still report, and what an exit 4 means.
func (v *applyView) writeApplyTotals(w io.Writer) {
	sum, sc := v.sum, v.sum.Scopes
	fmt.Fprintf(w, "\nApplied: %s; %s found done already, %s held back.\n", objectCounts(sum), thousands(sum.FoundDone), thousands(sum.Held))
	fmt.Fprintf(w, "Scopes: %d done, %d partial, %d stopped", sc.Done, sc.Partial, sc.Stopped)
	if sc.NotStarted > 0 {
		fmt.Fprintf(w, ", %d not started", sc.NotStarted)
	}
	if len(v.run.skipped) > 0 {
		fmt.Fprintf(w, ", %d skipped (not read whole)", len(v.run.skipped))
	}
	fmt.Fprintln(w, ".")
	if sc.Partial > 0 {
		fmt.Fprintf(w, "Partial is not done: old objects are kept (--keep-old; run again without it to delete them) or steps wait on a manual step.\n")
	}
	fmt.Fprintln(w, rescanLine("A rescan will report", sum.Left))
	switch {
	case sc.Stopped+sc.NotStarted > 0:
		fmt.Fprintf(w, "Exit 4: %s did not finish (each stopped at its last safe step, said above); `sunset apply --resume %s --yes` goes on from there.\n",
			plural(sc.Stopped+sc.NotStarted, "scope", "scopes"), textsafe.Sanitize(v.journal))
	case len(v.run.skipped) > 0:
		fmt.Fprintf(w, "Exit 4: the zones and accounts the scan did not read whole were skipped (--partial).\n")
	}
}

// writeRollbackDryRunTotals closes a rollback's dry run.
func (v *applyView) writeRollbackDryRunTotals(w io.Writer) {
	fmt.Fprintf(w, "\nDry run: nothing sent. %s.\n", plural(len(v.res.Scopes), "scope", "scopes"))
	fmt.Fprintf(w, "The rollback would delete %s the apply created and restore %s as they were.\n", plural(v.sum.Deleted, "object", "objects"), thousands(v.sum.Restored))
	v.writeStops(w, true)
	if sc := v.sum.Scopes; sc.Stopped > 0 {
		fmt.Fprintf(w, "Exit 4 (as the rollback's will be): %s would not be rolled back whole.\n", plural(sc.Stopped, "scope", "scopes"))
	}
	n := apply.EstimateRollback(v.run.loaded)
	if len(v.run.loaded.Accounts) > 0 {
		n++ // the account list holding the journal to its accounts (checkJournalBinding)
	}
	fmt.Fprintf(w, "The rollback would send %s requests, %s.\n", thousands(n), dryRunTime(n, v.run.rps))
}

// writeRollbackTotals closes a rollback: what it undid, why scopes stopped, and what its
// exit status means.
func (v *applyView) writeRollbackTotals(w io.Writer) {
	sc := v.sum.Scopes
	fmt.Fprintf(w, "\nRolled back: %s deleted (what the apply created), %s restored (as they were before it); %s done, %s stopped.\n",
		thousands(v.sum.Deleted), thousands(v.sum.Restored), plural(sc.Done, "scope", "scopes"), thousands(sc.Stopped))
	v.writeStops(w, false)
	if sc.Stopped+sc.NotStarted > 0 {
		fmt.Fprintf(w, "Exit 4: %s not rolled back whole: what was undone is undone, the rest stays as the apply left it; `sunset scan` shows the account as it is.\n",
			plural(sc.Stopped+sc.NotStarted, "scope", "scopes"))
	}
}

// writeStops says why a rollback's scopes stop (would, in a dry run): at a deletion the
// apply made, which cannot be undone, or on an error.
func (v *applyView) writeStops(w io.Writer, dryRun bool) {
	atDeletion, nothing, other := 0, 0, 0
	for i := range v.res.Scopes {
		sc := &v.res.Scopes[i]
		switch {
		case stoppedAtDeletion(sc):
			atDeletion++
			if sc.Count(apply.OutcomeWould)+sc.Count(apply.OutcomeUndone) == 0 {
				nothing++
			}
		case sc.Status == apply.StatusStopped:
			other++
		}
	}
	verb := "stopped"
	if dryRun {
		verb = "would stop"
	}
	if atDeletion > 0 {
		fmt.Fprintf(w, "%s %s at a deletion the apply made (%d of them before undoing anything): a deletion cannot be undone, so the rollback of such a scope ends there, its replacements in place and its old objects gone.\n",
			plural(atDeletion, "scope", "scopes"), verb, nothing)
	}
	if other > 0 && !dryRun {
		fmt.Fprintf(w, "%s stopped on an error (said above): run the rollback again to retry them.\n", plural(other, "scope", "scopes"))
	}
}

// stoppedAtDeletion reports whether a rollback's scope stopped at a step that deleted an
// object (a deletion cannot be undone).
func stoppedAtDeletion(sc *apply.ScopeResult) bool {
	if sc.Status != apply.StatusStopped {
		return false
	}
	for _, st := range sc.Steps {
		if st.ID == sc.StoppedAt && st.Outcome == apply.OutcomeStopped {
			return deletes(st.Kind) && st.Method == ""
		}
	}
	return false
}
