package apply

import (
	"context"
	"fmt"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// removes reports whether a step pauses, deletes or switches off an old protection (its
// kind's spec says so, and Plan.Check held its method and path to that kind's): those run
// only while every replacement rule is in place.
func removes(st migrate.Step) bool {
	spec := migrate.SpecOf(st)
	return spec != nil && spec.Removes
}

// replacementsInPlace is the safety invariant around the steps that remove an old
// protection, read from the API. Before the scope's first such step, every entry point the
// plan targets must hold exactly the plan's rules; after each one, the entry points that
// replace what it removed (guardedPhases) must still do, and after the last one all of
// them again. A change someone else makes to those entry points during the apply stops the
// scope at the next read: at most one removal is made after it.
func (r *scopeRun) replacementsInPlace(ctx context.Context, st migrate.Step, after bool) error {
	if !removes(st) || (!after && r.replacedChecked) {
		return nil
	}
	phases := r.sc.targetPhases()
	if after && !r.lastRemoval(st) {
		phases = r.sc.guardedPhases(st)
	}
	for _, p := range phases {
		if err := r.verifyEntrypoint(ctx, p); err != nil {
			return fmt.Errorf("replacements not in place around %s: %w", st.ID, err)
		}
	}
	r.replacedChecked = true
	return nil
}

// invariantReads is how many entry point reads replacementsInPlace makes around st when
// st is sent (first tells whether st is the scope's first removal): the cost model's
// share of the invariant.
func (r *scopeRun) invariantReads(st migrate.Step, first bool) int {
	if !removes(st) {
		return 0
	}
	n := 0
	if first {
		n += len(r.sc.targets)
	}
	if r.lastRemoval(st) {
		return n + len(r.sc.targets)
	}
	return n + len(r.sc.guardedPhases(st))
}

// lastRemoval reports whether no step after st removes an old protection in this run.
func (r *scopeRun) lastRemoval(st migrate.Step) bool {
	for _, o := range r.sc.after(st) {
		if removes(o) && !o.Manual && (!r.opts.KeepOld || o.Change != migrate.ChangeDelete) {
			return false
		}
	}
	return true
}

// targetPhases are the phases of every entry point the plan targets in the scope.
func (sc *scope) targetPhases() []vocab.Phase {
	out := make([]vocab.Phase, len(sc.targets))
	for i, t := range sc.targets {
		out[i] = t.Phase
	}
	return out
}

// guardedPhases are the entry points that replace what st removes: those written or
// verified by the steps st depends on, directly or not (a pause depends on the verify step
// of its replacements, a deletion on the pause). Every target when the plan names none.
func (sc *scope) guardedPhases(st migrate.Step) []vocab.Phase {
	seen, found := map[string]bool{}, map[vocab.Phase]bool{}
	queue := append([]string(nil), st.DependsOn...)
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		i, ok := sc.index[id]
		if !ok || seen[id] {
			continue
		}
		seen[id] = true
		dep := sc.steps[i]
		if p, ok := sc.phaseWritten(dep); ok {
			found[p] = true
		}
		queue = append(queue, dep.DependsOn...)
	}
	var out []vocab.Phase
	for _, t := range sc.targets { // in the plan's order
		if found[t.Phase] {
			out = append(out, t.Phase)
		}
	}
	if len(out) == 0 {
		return sc.targetPhases()
	}
	return out
}

// phaseWritten is the target phase a step reads or writes: an entry point's create, rule
// or verify step.
func (sc *scope) phaseWritten(st migrate.Step) (vocab.Phase, bool) {
	spec := migrate.SpecOf(st)
	switch {
	case spec == nil:
		return "", false
	case spec.Op == migrate.OpVerify, spec.Op == migrate.OpCreateEntrypoint, spec.Op == migrate.OpAddRule:
		return spec.Phase, true
	}
	return "", false
}
