package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path"
	"slices"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/cfapi"
)

// unit is what apply carries out as one: a step on its own, or a run of steps sent together
// (the API's bulk call for their kind, or the rules added to one entry point after one read
// of it).
// The plan keeps one step per object (what is reviewed, journaled and undone); a unit only
// changes how many requests carry them.
type unit struct {
	// at is the index of the unit's first step in the scope's steps.
	at    int
	steps []migrate.Step
	// bulk is the bulk call of the steps' kind (nil: not sent in bulk).
	bulk *bulkForm
	// adds is set for rules added to one existing entry point.
	adds bool
}

// units groups the scope's steps in plan order: consecutive steps of a kind the API has a
// bulk call for (at most the call's cap a unit), consecutive rules added to the same entry point,
// and every other step alone. The planner writes the steps of a kind together and none of
// them depends on another of the same kind, so a unit never holds a step and what it
// depends on.
func (sc *scope) units() []unit {
	var out []unit
	for i, st := range sc.steps {
		if n := len(out); n > 0 && !st.Manual && joins(out[n-1], st) {
			out[n-1].steps = append(out[n-1].steps, st)
			continue
		}
		u := unit{at: i, steps: []migrate.Step{st}}
		if form, ok := bulkForms[st.Kind]; ok && !st.Manual {
			u.bulk = &form
		}
		if spec := migrate.SpecOf(st); spec != nil && spec.Op == migrate.OpAddRule && !st.Manual {
			u.adds = true
		}
		out = append(out, u)
	}
	return out
}

// joins reports whether st goes into the unit u as its next step.
func joins(u unit, st migrate.Step) bool {
	last := u.steps[len(u.steps)-1]
	switch {
	case u.bulk != nil:
		return st.Kind == last.Kind && len(u.steps) < u.bulk.max
	case u.adds:
		return st.Kind == last.Kind && rulesetOf(st) == rulesetOf(last)
	}
	return false
}

// continues reports whether the unit next continues prev, the unit before it: both pause (or
// switch off) old protections, or both delete them, and the entry points that replace what
// next removes are among those read right after prev. The read after prev then stands for
// the read before next when nothing was written between them (invariantReads), and the
// steps of both are reported together. A deletion never continues a pause: the pauses are
// reported done, and the replacements read again, before the first deletion.
func (sc *scope) continues(prev, next unit) bool {
	a, b := prev.steps[0], next.steps[0]
	if a.Manual || b.Manual || !removes(a) || !removes(b) || migrate.SpecOf(a).Op != migrate.SpecOf(b).Op {
		return false
	}
	read := sc.guardedOf(prev.steps)
	for _, p := range sc.guardedOf(next.steps) {
		if !slices.Contains(read, p) {
			return false
		}
	}
	return true
}

// continued marks the units that continue the last unit before them that sends something:
// manual steps between them send nothing and do not part them.
func (sc *scope) continued(units []unit) []bool {
	out := make([]bool, len(units))
	prev := -1
	for i, u := range units {
		if u.steps[0].Manual {
			continue
		}
		out[i] = prev >= 0 && sc.continues(units[prev], u)
		prev = i
	}
	return out
}

// runUnit carries out one unit: each step found done, held back or (dry run) only listed is
// recorded so, the others are sent together. It reports whether the scope stopped, with
// the error that ends the whole apply (nil when only the scope stops).
func (r *scopeRun) runUnit(ctx context.Context, u unit) (bool, error) {
	var todo, would []migrate.Step
	for _, st := range u.steps {
		if st.Manual {
			r.res.Manual = append(r.res.Manual, ManualStep{ID: st.ID, Title: st.Title, What: joinText(st.Reason, st.Note)})
			r.held[st.ID] = true
			continue
		}
		if out, ok := r.settled(st); ok {
			r.record(out)
			if out.Outcome == OutcomeWould {
				would = append(would, st)
			}
			continue
		}
		todo = append(todo, st)
	}
	r.res.Requests = append(r.res.Requests, r.requestsOf(u, would)...)
	if len(todo) == 0 {
		return false, nil
	}
	done, err := r.send(ctx, u, todo)
	var failed []migrate.Step
	for _, st := range todo {
		if out, ok := done[st.ID]; ok {
			r.markDone(st)
			r.record(out)
		} else {
			failed = append(failed, st)
		}
	}
	if len(failed) == 0 {
		return false, nil
	}
	if err == nil {
		err = fmt.Errorf("step %s was not carried out", failed[0].ID)
	}
	fatal := ctx.Err() != nil || errors.Is(err, errFatal)
	r.stop(failed[0], err)
	if !fatal {
		r.res.Restored = r.restore(ctx)
	}
	for _, st := range failed[1:] {
		r.res.Steps = append(r.res.Steps, resultOf(st, OutcomeNotReach, nil))
	}
	r.notReached(u.at + len(u.steps))
	if fatal {
		return true, err
	}
	return true, nil
}

// send carries out the unit's steps still to do; it returns the result of each step done,
// by step id, and why the others were not.
func (r *scopeRun) send(ctx context.Context, u unit, todo []migrate.Step) (map[string]StepResult, error) {
	switch {
	case u.bulk != nil:
		return r.bulkAttempts(ctx, *u.bulk, todo)
	case u.adds:
		return r.retriedUnit(ctx, todo, r.addRules)
	}
	done := map[string]StepResult{}
	created, outcome, err := r.attempts(ctx, todo[0])
	if err == nil {
		done[todo[0].ID] = resultOf(todo[0], outcome, created)
	}
	return done, err
}

// retriedUnit runs try on the steps not done yet until all are done, it fails in a way that
// will not pass, or it runs out of attempts (as attempts does for one step).
func (r *scopeRun) retriedUnit(ctx context.Context, steps []migrate.Step, try func(context.Context, []migrate.Step, map[string]StepResult) error) (map[string]StepResult, error) {
	done := map[string]StepResult{}
	for n := 1; ; n++ {
		rest := notDone(steps, done)
		if len(rest) == 0 {
			return done, nil
		}
		err := try(ctx, rest, done)
		if err == nil {
			return done, nil
		}
		if cfapi.IsAuth(err) {
			return done, fmt.Errorf("%w: %w", errFatal, err)
		}
		if n >= maxAttempts || ctx.Err() != nil || !transient(err) {
			return done, err
		}
	}
}

// notDone are the steps without a result in done.
func notDone(steps []migrate.Step, done map[string]StepResult) []migrate.Step {
	var out []migrate.Step
	for _, st := range steps {
		if _, ok := done[st.ID]; !ok {
			out = append(out, st)
		}
	}
	return out
}

// beginUnit journals a call about to carry out several steps at once (e names its method,
// path and kind): one entry naming every step and object it covers, with what each step's
// write overwrites (befores, by step id).
func (r *scopeRun) beginUnit(e Entry, steps []migrate.Step, befores map[string]json.RawMessage) error {
	e.Event, e.Scope, e.ID = EventBegin, r.sc.kind, r.sc.id
	for _, st := range steps {
		e.Steps = append(e.Steps, st.ID)
		if op := migrate.SpecOf(st).Op; op == migrate.OpUpdate || op == migrate.OpDelete {
			e.IDs = append(e.IDs, path.Base(st.Path))
		}
	}
	if len(befores) > 0 {
		e.Befores = befores
	}
	for id, b := range befores {
		r.befores[id] = b
	}
	if err := r.opts.Journal.Record(e); err != nil {
		return fmt.Errorf("%w: journal: %w", errFatal, err)
	}
	return nil
}

// Request is a request a dry run says the apply would send for the plan's steps: a step's
// own call (as the apply sends it: a missing entry point with the API's create call), or
// one call carrying several steps, the API's bulk call (the ids in its body or query).
// The reads around them (each object held to the snapshot before its write, each write
// read back) are not listed: EstimateRequests counts them.
type Request struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	// Kind is the steps' kind, Steps their ids: one, or every step a bulk call carries.
	Kind  string   `json:"kind"`
	Steps []string `json:"steps"`
}

// requestsOf are the requests that carry out steps, the unit's steps a dry run would send.
func (r *scopeRun) requestsOf(u unit, steps []migrate.Step) []Request {
	if len(steps) == 0 {
		return nil
	}
	if u.bulk != nil {
		ids := make([]string, len(steps))
		for i, st := range steps {
			ids[i] = st.ID
		}
		return []Request{{Method: u.bulk.method, Path: collectionOf(steps[0].Path), Kind: string(steps[0].Kind), Steps: ids}}
	}
	out := make([]Request, 0, len(steps))
	for _, st := range steps {
		method, path := st.Method, st.Path
		if spec := migrate.SpecOf(st); spec != nil && spec.Op == migrate.OpCreateEntrypoint {
			method, path = http.MethodPost, entrypointCreatePath(r.sc.id) // createEntrypoint's call
		}
		out = append(out, Request{Method: method, Path: path, Kind: string(st.Kind), Steps: []string{st.ID}})
	}
	return out
}
