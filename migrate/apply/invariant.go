package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

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

// deletes reports whether a step deletes an object (its kind's op, held to its method and
// path by Plan.Check; never the plan's change text): --keep-old holds those back.
func deletes(st migrate.Step) bool {
	spec := migrate.SpecOf(st)
	return spec != nil && spec.Op == migrate.OpDelete
}

// replacementsInPlace is the safety invariant around the steps that remove an old
// protection, read from the API right before and right after each one (or each bulk call
// of them: replacementsAround). Before the scope's first such step, every entry point the
// plan targets must hold exactly the plan's rules; before and after each one, the entry
// points that replace what it removes (guardedPhases) must still do, and after the last one
// all of them again. A change someone else makes to those entry points during the apply
// stops the scope before its next removal, and the scope's stop switches back on what it
// had paused without a replacement (restore).
func (r *scopeRun) replacementsInPlace(ctx context.Context, st migrate.Step, after bool) error {
	return r.replacementsAround(ctx, []migrate.Step{st}, after)
}

// replacementsAround is replacementsInPlace for steps sent together (a unit): read right
// before and right after the unit's write.
func (r *scopeRun) replacementsAround(ctx context.Context, steps []migrate.Step, after bool) error {
	for _, st := range steps {
		if spec := migrate.SpecOf(st); !after && spec != nil && len(spec.ReplacedBy) > 0 {
			if err := r.replacementThere(ctx, st); err != nil {
				return err
			}
		}
	}
	for _, p := range r.invariantReads(steps, after) {
		if err := r.verifyEntrypoint(ctx, p, false); err != nil {
			return fmt.Errorf("replacements not in place around %s: %w", steps[0].ID, err)
		}
	}
	if removes(steps[0]) {
		r.replacedChecked = true
	}
	return nil
}

// invariantPhases are the entry points replacementsAround reads around steps: those that
// replace what they remove, every target before the scope's first removal and after its
// last.
func (r *scopeRun) invariantPhases(steps []migrate.Step, after bool) []vocab.Phase {
	if !removes(steps[0]) {
		return nil
	}
	if (!after && !r.replacedChecked) || (after && r.lastRemoval(steps[len(steps)-1])) {
		return r.sc.targetPhases()
	}
	return r.sc.guardedOf(steps)
}

// invariantReads are the entry points replacementsAround reads around steps: its
// invariantPhases, less, before steps that continue the unit before them (continuing), those
// read right after that unit with nothing written since, which that read stands for. The
// scope's first removal reads every target, even those the verify steps read just before:
// the check right before the first removal is what finds a replacement removed after them
// (TestReplacementRemovedBeforeARemoval).
func (r *scopeRun) invariantReads(steps []migrate.Step, after bool) []vocab.Phase {
	phases := r.invariantPhases(steps, after)
	if after || !r.continuing || !r.replacedChecked {
		return phases
	}
	return slices.DeleteFunc(slices.Clone(phases), func(p vocab.Phase) bool {
		_, ok := r.fresh(p)
		return ok
	})
}

// lastRemoval reports whether no step after st removes an old protection in this run.
func (r *scopeRun) lastRemoval(st migrate.Step) bool {
	for _, o := range r.sc.after(st) {
		if removes(o) && !o.Manual && (!r.opts.KeepOld || !deletes(o)) {
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

// guardedOf are the entry points that replace what any of steps removes, in the plan's
// order of targets.
func (sc *scope) guardedOf(steps []migrate.Step) []vocab.Phase {
	if len(steps) == 1 {
		return sc.guardedPhases(steps[0])
	}
	found := map[vocab.Phase]bool{}
	for _, st := range steps {
		for _, p := range sc.guardedPhases(st) {
			found[p] = true
		}
	}
	var out []vocab.Phase
	for _, t := range sc.targets {
		if found[t.Phase] {
			out = append(out, t.Phase)
		}
	}
	return out
}

// guardedPhases are the entry points that replace what st removes: those written or
// verified by the steps st depends on, directly or not (a pause depends on the verify step
// of its replacements, a deletion on the pause). Every target when the plan names none.
func (sc *scope) guardedPhases(st migrate.Step) []vocab.Phase {
	var out []vocab.Phase
	if i, ok := sc.index[st.ID]; ok && sc.guards != nil {
		for j, t := range sc.targets { // in the plan's order
			if sc.guards[i]&(1<<j) != 0 {
				out = append(out, t.Phase)
			}
		}
	} else {
		found := map[vocab.Phase]bool{}
		migrate.EachDependency(sc.steps, sc.index, st, func(dep migrate.Step) bool {
			if p, ok := sc.phaseWritten(dep); ok {
				found[p] = true
			}
			return true
		})
		for _, t := range sc.targets { // in the plan's order
			if found[t.Phase] {
				out = append(out, t.Phase)
			}
		}
	}
	if len(out) == 0 {
		return sc.targetPhases()
	}
	return out
}

// guardBits is, for each step of the scope, the targets written or verified by the steps it
// depends on, directly or not: bit j for a step writing or verifying targets[j]'s phase
// (every target of that phase). A checked plan's steps depend on earlier steps only, so
// each step's set is its dependencies' sets and their own phases, computed once in order:
// a zone of thousands of rules has thousands of removals that each depend on all its rules,
// and a walk of the dependencies for each was quadratic in time and held the walk's queue.
// nil when there are more targets than bits or a step depends on a later one (guardedPhases
// then walks).
func (sc *scope) guardBits() []uint64 {
	if len(sc.targets) > 64 {
		return nil
	}
	bitOf := map[vocab.Phase]uint64{}
	for j, t := range sc.targets {
		bitOf[t.Phase] |= 1 << j
	}
	out := make([]uint64, len(sc.steps))
	for i, st := range sc.steps {
		for _, id := range st.DependsOn {
			d, ok := sc.index[id]
			switch {
			case !ok:
				continue
			case d >= i:
				return nil
			}
			out[i] |= out[d]
			if p, ok := sc.phaseWritten(sc.steps[d]); ok {
				out[i] |= bitOf[p]
			}
		}
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

// restore runs when a scope stops: every old protection this apply paused or switched off
// (done, not deleted since) whose replacement entry points no longer hold the plan's rules
// is switched back on, writing back what the pause overwrote, and journaled undone so a
// resumed run pauses it again once the replacement is back. So a stop never leaves an old
// protection off without its replacement. It returns what it switched back on, and what it
// could not.
func (r *scopeRun) restore(ctx context.Context) []string {
	if r.opts.DryRun || ctx.Err() != nil {
		return nil
	}
	var out []string
	for i := len(r.sc.steps) - 1; i >= 0; i-- {
		st := r.sc.steps[i]
		spec := migrate.SpecOf(st)
		if spec == nil || !spec.Removes || spec.Op != migrate.OpUpdate || !r.done[st.ID] || r.deletesLater(st, true) || r.guardsHold(ctx, st) {
			continue
		}
		err := r.undoUpdate(ctx, st, r.beforeOf(st))
		if err == nil {
			err = r.opts.Journal.Record(Entry{Event: EventUndone, Scope: r.sc.kind, ID: r.sc.id, Step: st.ID, Kind: string(st.Kind), Method: st.Method, Path: st.Path, Reason: "switched back on: its replacement is missing"})
		}
		if err != nil {
			out = append(out, st.ID+" (could not switch it back on: "+err.Error()+")")
			continue
		}
		r.done[st.ID] = false
		out = append(out, st.ID)
	}
	return out
}

// guardsHold reports whether the entry points replacing what st removed hold the plan's
// rules, read now; true also when that cannot be told (a read failed, no target), so that
// only a replacement seen missing switches an old protection back on.
func (r *scopeRun) guardsHold(ctx context.Context, st migrate.Step) bool {
	for _, p := range r.sc.guardedPhases(st) {
		err := r.verifyEntrypoint(ctx, p, false)
		var u *unsafeError
		var s *staleError
		if errors.As(err, &u) || errors.As(err, &s) {
			return false
		}
	}
	return true
}

// beforeOf is what st's write overwrote: as read right before it in this run, else (done
// by an earlier run of the journal) as the snapshot holds it, which the stale check held
// the object to before the write.
func (r *scopeRun) beforeOf(st migrate.Step) json.RawMessage {
	if b, ok := r.befores[st.ID]; ok {
		return b
	}
	body, err := decodeAny(st.Body)
	obj := snapshotObject(r.sc.zone, r.sc.account, st.Path)
	if err != nil || obj == nil {
		return nil
	}
	if migrate.SpecOf(st).Whole {
		body = topLevel(body)
	}
	raw, _ := json.Marshal(project(obj, body))
	return raw
}
