package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// maxAttempts is how often a step is tried when its call fails in a way that may pass (the
// client has retried the call itself already; an answer lost on a POST is not retried by
// the client, and the read before the next attempt finds whether it landed).
const maxAttempts = 4

// attempts runs a step until it is done, stops for a reason that will not pass, or runs
// out of attempts. It returns the ids created and the outcome.
func (r *scopeRun) attempts(ctx context.Context, st migrate.Step) (map[string]string, string, error) {
	for n := 1; ; n++ {
		created, outcome, err := r.attempt(ctx, st)
		if err == nil {
			return created, outcome, nil
		}
		if cfapi.IsAuth(err) {
			return nil, "", fmt.Errorf("%w: %w", errFatal, err)
		}
		if n >= maxAttempts || ctx.Err() != nil || !transient(err) {
			return nil, "", err
		}
	}
}

// transient reports whether a failed call may succeed when tried again.
func transient(err error) bool {
	var e *cfapi.Error
	if !errors.As(err, &e) {
		return false
	}
	return e.Status == 0 || e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// attempt is one try of a step, by its kind's handler. Plan.Check has held the step's
// method and path to its kind's before anything ran, so the kind cannot pass a removal off
// as something else.
func (r *scopeRun) attempt(ctx context.Context, st migrate.Step) (map[string]string, string, error) {
	spec := migrate.SpecOf(st)
	h, ok := handlers[spec.Op]
	if !ok || h.run == nil {
		return nil, "", fmt.Errorf("step %s: kind %s is not one apply runs", st.ID, st.Kind)
	}
	return h.run(r, ctx, st, spec)
}

// handler is how apply carries out the steps of one migrate.Op: run sends the step and
// reads it back, undo reverses it (nil: it cannot be). What run sends is counted by
// costWalk.step.
type handler struct {
	run  func(r *scopeRun, ctx context.Context, st migrate.Step, spec *migrate.KindSpec) (map[string]string, string, error)
	undo func(r *scopeRun, ctx context.Context, st migrate.Step, spec *migrate.KindSpec, t *touched) error
}

// handlers has one entry per migrate.Op apply runs (TestEveryKindHasAHandler).
var handlers = map[migrate.Op]handler{
	migrate.OpVerify: {run: (*scopeRun).checkStep},
	migrate.OpCreateEntrypoint: {
		run: func(r *scopeRun, ctx context.Context, st migrate.Step, spec *migrate.KindSpec) (map[string]string, string, error) {
			return r.createEntrypoint(ctx, st, spec.Phase)
		},
		undo: func(r *scopeRun, ctx context.Context, _ migrate.Step, spec *migrate.KindSpec, t *touched) error {
			return r.undoCreateEntrypoint(ctx, spec.Phase, t.created)
		},
	},
	migrate.OpAddRule: {
		run: func(r *scopeRun, ctx context.Context, st migrate.Step, _ *migrate.KindSpec) (map[string]string, string, error) {
			done := map[string]StepResult{}
			if err := r.addRules(ctx, []migrate.Step{st}, done); err != nil {
				return nil, "", err
			}
			return done[st.ID].Created, done[st.ID].Outcome, nil
		},
		undo: func(r *scopeRun, ctx context.Context, st migrate.Step, _ *migrate.KindSpec, t *touched) error {
			return r.undoAddRule(ctx, st, rulesetOf(st), t.created["rule_id"])
		},
	},
	migrate.OpUpdate: {
		run: func(r *scopeRun, ctx context.Context, st migrate.Step, spec *migrate.KindSpec) (map[string]string, string, error) {
			return r.updateObject(ctx, st, spec)
		},
		undo: func(r *scopeRun, ctx context.Context, st migrate.Step, _ *migrate.KindSpec, t *touched) error {
			before, err := r.trustedBefore(st, t.before)
			if err != nil {
				return err
			}
			return r.undoUpdate(ctx, st, before)
		},
	},
	migrate.OpDelete: {
		run: func(r *scopeRun, ctx context.Context, st migrate.Step, _ *migrate.KindSpec) (map[string]string, string, error) {
			return r.deleteObject(ctx, st)
		},
	},
	migrate.OpVerifyObject: {run: (*scopeRun).checkObject},
	migrate.OpCreate: {
		run: func(r *scopeRun, ctx context.Context, st migrate.Step, _ *migrate.KindSpec) (map[string]string, string, error) {
			return r.createObject(ctx, st)
		},
		undo: func(r *scopeRun, ctx context.Context, st migrate.Step, _ *migrate.KindSpec, t *touched) error {
			return r.undoCreateObject(ctx, st, t.created["id"])
		},
	},
}

// checkStep is a verify step: the entry point holds the plan's rules, in order.
func (r *scopeRun) checkStep(ctx context.Context, st migrate.Step, spec *migrate.KindSpec) (map[string]string, string, error) {
	if err := r.verifyEntrypoint(ctx, spec.Phase, true); err != nil {
		return nil, "", err
	}
	if _, _, err := r.finish(st, nil, false); err != nil {
		return nil, "", err
	}
	return nil, OutcomeChecked, nil
}

// rulesetOf is the ruleset id of a rule POST: /zones/:zone/rulesets/:ruleset/rules.
func rulesetOf(st migrate.Step) string { return segments(st.Path)[3] }

// target is the zone's target of a phase.
func (r *scopeRun) target(phase vocab.Phase) (migrate.Target, []inventory.RulesetRule, error) {
	for _, t := range r.sc.targets {
		if t.Phase == phase {
			rules, err := targetRules(t)
			return t, rules, err
		}
	}
	return migrate.Target{}, nil, fmt.Errorf("the plan has no target for phase %s", phase)
}

// before is the zone's entry point of a phase in the snapshot, nil when it had none.
func (r *scopeRun) before(phase vocab.Phase) *inventory.Ruleset {
	if r.sc.zone == nil {
		return nil
	}
	if rs, ok := r.sc.zone.Ruleset(phase); ok {
		return &rs
	}
	return nil
}

// verifyEntrypoint checks that the entry point holds the plan's rules, in order: each one
// there, as the plan wrote it or as a rule that does the same (package meaning), whoever
// wrote it. Rules someone else added besides are kept wherever they are, and named. With
// reuse, an entry point the run knows with nothing written since (fresh) is not read again.
func (r *scopeRun) verifyEntrypoint(ctx context.Context, phase vocab.Phase, reuse bool) error {
	_, want, err := r.target(phase)
	if err != nil {
		return err
	}
	rs, ok := r.fresh(phase)
	if !reuse || !ok {
		if rs, err = r.getEntrypoint(ctx, phase); err != nil {
			return err
		}
	}
	if rs == nil {
		return unsafe("the %s entry point does not exist", phase)
	}
	extra, err := holdsInOrder(phase, rs.Rules, want)
	if err != nil {
		return unsafe("the %s entry point %s", phase, err)
	}
	r.noteOthers(phase, extra, r.before(phase))
	return nil
}

// createEntrypoint carries out the step that creates a missing entry point with the plan's
// rules. It never replaces rules someone else wrote: an entry point that does not exist is
// created with the API's create call (POST /zones/:id/rulesets, kind zone), which the API
// refuses when the phase has an entry point already, rather than with the step's PUT of the
// phase's entry point, which would replace whatever it holds; an entry point that exists
// (created since the scan, by anyone) gets the plan's rules added one at a time as to any
// existing entry point, those that do what a rule there does not added again. It is read
// first, though the create call would be refused: a run that finds the step done (an
// applied plan applied again) sends no write at all.
func (r *scopeRun) createEntrypoint(ctx context.Context, st migrate.Step, phase vocab.Phase) (map[string]string, string, error) {
	_, want, err := r.target(phase)
	if err != nil {
		return nil, "", err
	}
	live, err := r.getEntrypoint(ctx, phase)
	if err != nil {
		return nil, "", err
	}
	made := false
	if live == nil {
		if live, made, err = r.postEntrypoint(ctx, st, phase, want); err != nil {
			return nil, "", err
		}
	}
	if holdsExactly(live.Rules, want) == nil {
		// Made by this call, or by an earlier run of the plan (its answer lost): the entry
		// point holds nothing but the plan's rules, and a rollback deletes it whole.
		return r.finish(st, map[string]string{"ruleset_id": live.ID}, !made)
	}
	return r.addIntoExisting(ctx, st, phase, want, live)
}

// postEntrypoint creates the missing entry point of phase with the plan's rules; it returns
// the entry point as the API holds it after the call (the call's answer, or a read when the
// answer was lost or the API refused because one exists now), and whether the call made it.
func (r *scopeRun) postEntrypoint(ctx context.Context, st migrate.Step, phase vocab.Phase, want []inventory.RulesetRule) (*inventory.Ruleset, bool, error) {
	path := entrypointCreatePath(r.sc.id)
	body, err := json.Marshal(map[string]any{"name": "default", "kind": "zone", "phase": phase, "rules": want})
	if err != nil {
		return nil, false, err
	}
	if err := r.opts.Journal.Record(Entry{Event: EventBegin, Scope: r.sc.kind, ID: r.sc.id, Step: st.ID, Kind: string(st.Kind), Method: http.MethodPost, Path: path}); err != nil {
		return nil, false, fmt.Errorf("%w: journal: %w", errFatal, err)
	}
	back := &inventory.Ruleset{}
	callErr := r.call(ctx, http.MethodPost, path, body, back)
	if callErr == nil && back.ID != "" {
		r.learnt(phase, back) // the answer is the entry point as created
		return back, true, nil
	}
	live, err := r.getEntrypoint(ctx, phase)
	switch {
	case err != nil:
		return nil, false, err
	case live == nil && callErr != nil:
		return nil, false, callErr
	case live == nil:
		return nil, false, unsafe("the %s entry point does not exist after its create call", phase)
	}
	return live, callErr == nil, nil
}

// addIntoExisting adds the plan's rules of the create step st to the entry point live, which
// exists (someone created it since the scan, or this run's create call lost its answer):
// each rule not there already is added with its own positioned POST. The journal records
// the rules it added (added_rule_ids), which a rollback deletes, never the entry point.
func (r *scopeRun) addIntoExisting(ctx context.Context, st migrate.Step, phase vocab.Phase, want []inventory.RulesetRule, live *inventory.Ruleset) (map[string]string, string, error) {
	x := newRuleAdd(phase, want, nil, live)
	r.noteOthers(phase, others(live.Rules, locate(phase, live.Rules, want)), nil)
	if err := r.roomFor(x, want); err != nil {
		return nil, "", err
	}
	var added []string
	sent := false
	for _, rule := range want {
		created, already, err := r.addRule(ctx, st, x, rule)
		if err != nil {
			return nil, "", err
		}
		sent = sent || !already
		if id := created["rule_id"]; id != "" {
			added = append(added, id)
		}
	}
	created := map[string]string{"ruleset_id": x.live.ID}
	if len(added) > 0 {
		created["added_rule_ids"] = strings.Join(added, ",")
	}
	return r.finish(st, created, !sent)
}

// indexNew finds rule among the live rules that were not there at the scan.
func indexNew(live []inventory.RulesetRule, before *inventory.Ruleset, rule inventory.RulesetRule) int {
	old := map[string]bool{}
	if before != nil {
		for _, b := range before.Rules {
			old[b.ID] = true
		}
	}
	for i, l := range live {
		if !old[l.ID] && sameRule(l, rule) {
			return i
		}
	}
	return -1
}

// targetByRuleset is the target whose existing entry point has the given id.
func (sc *scope) targetByRuleset(id string) (migrate.Target, bool) {
	for _, t := range sc.targets {
		if t.RulesetID == id {
			return t, true
		}
	}
	return migrate.Target{}, false
}

// readEntrypoint reads an entry point that must exist with the given id.
func (r *scopeRun) readEntrypoint(ctx context.Context, phase vocab.Phase, id string) (*inventory.Ruleset, error) {
	live, err := r.getEntrypoint(ctx, phase)
	if err != nil {
		return nil, err
	}
	if live == nil || live.ID != id {
		return nil, stale("the %s entry point %s is gone", phase, id)
	}
	return live, nil
}

// read GETs the object at path, decoded; nil when it does not exist.
func (r *scopeRun) read(ctx context.Context, path string) (any, error) {
	var raw json.RawMessage
	err := r.call(ctx, http.MethodGet, path, nil, &raw)
	if cfapi.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	return decodeAny(raw)
}

// expected is the object at path as this apply expects it: the snapshot's, with what this
// apply wrote there since; nil when the snapshot does not hold it.
func (r *scopeRun) expected(path string) any {
	obj := snapshotObject(r.sc.zone, r.sc.account, path)
	if obj == nil {
		return nil
	}
	if w, ok := r.applied[path]; ok {
		obj = overlay(obj, w)
	}
	return obj
}

// checkFresh refuses when the live object differs from what the plan was built on.
func (r *scopeRun) checkFresh(st migrate.Step, live any) error {
	want := r.expected(st.Path)
	if want == nil {
		return nil
	}
	if at := differs(live, want, ""); at != "" {
		return stale("%s: %s differs from the snapshot", st.Path, at)
	}
	return nil
}

// updateObject is a PUT or PATCH of an existing object: pause a firewall rule, switch a
// setting, clear a field.
func (r *scopeRun) updateObject(ctx context.Context, st migrate.Step, spec *migrate.KindSpec) (map[string]string, string, error) {
	body, err := decodeAny(st.Body)
	if err != nil {
		return nil, "", fmt.Errorf("step %s: body: %w", st.ID, err)
	}
	live, err := r.current(ctx, st.Path)
	if err != nil {
		return nil, "", err
	}
	if live == nil {
		if r.deletesLater(st, false) {
			return r.finish(st, nil, true) // a later step of the plan deleted it already
		}
		return nil, "", stale("%s is gone", st.Path)
	}
	took := tookOf(spec)
	if took(live, body) {
		return r.finish(st, nil, true)
	}
	if err := r.checkFresh(st, live); err != nil {
		return nil, "", err
	}
	if err := r.replacementsInPlace(ctx, st, false); err != nil {
		return nil, "", err
	}
	before, _ := json.Marshal(project(live, body))
	if spec.Whole {
		before, _ = json.Marshal(project(live, topLevel(body)))
	}
	if err := r.begin(st, before); err != nil {
		return nil, "", err
	}
	r.befores[st.ID] = before
	r.wrote(st.Path)
	// The write answers with the object as written: that is the read back, unless the
	// answer was lost or does not show the change.
	var answer json.RawMessage
	callErr := r.call(ctx, st.Method, st.Path, st.Body, &answer)
	back, err := r.answered(ctx, st.Path, answer, callErr, func(obj any) bool { return took(obj, body) })
	if err != nil {
		return nil, "", err
	}
	if back == nil && r.deletesLater(st, false) {
		return r.finish(st, nil, true) // another run of the plan deleted it meanwhile
	}
	if back == nil || !took(back, body) {
		if callErr != nil {
			return nil, "", callErr
		}
		return nil, "", unsafe("%s does not show the change after the %s", st.Path, st.Method)
	}
	if err := r.replacementsInPlace(ctx, st, true); err != nil {
		return nil, "", err
	}
	return r.finish(st, nil, false)
}

// deletesLater reports whether a step after st deletes the object st changes (done says
// whether that step must be done already in this run).
func (r *scopeRun) deletesLater(st migrate.Step, done bool) bool {
	for _, o := range r.sc.after(st) {
		if o.Method == http.MethodDelete && o.Path == st.Path && (!done || r.done[o.ID]) {
			return true
		}
	}
	return false
}

// deleteObject deletes an old object once its replacement is in place.
func (r *scopeRun) deleteObject(ctx context.Context, st migrate.Step) (map[string]string, string, error) {
	live, err := r.current(ctx, st.Path)
	if err != nil {
		return nil, "", err
	}
	if live == nil {
		return r.finish(st, nil, true)
	}
	if err := r.checkFresh(st, live); err != nil {
		return nil, "", err
	}
	if err := r.replacementsInPlace(ctx, st, false); err != nil {
		return nil, "", err
	}
	if err := r.begin(st, nil); err != nil {
		return nil, "", err
	}
	r.wrote(st.Path)
	// The API answering the DELETE is its read back: the object is gone. A failed call
	// (an answer lost, a refusal) is read back.
	callErr := r.call(ctx, st.Method, st.Path, st.Body, nil)
	var back any
	if callErr == nil {
		r.seen(st.Path, nil)
	} else if back, err = r.readBack(ctx, st.Path); err != nil {
		return nil, "", err
	}
	if back != nil {
		if callErr != nil {
			return nil, "", callErr
		}
		return nil, "", unsafe("%s still exists after the DELETE", st.Path)
	}
	if err := r.replacementsInPlace(ctx, st, true); err != nil {
		return nil, "", err
	}
	return r.finish(st, nil, false)
}

// nameOf is the name a create step gives its object ("" when none).
func nameOf(st migrate.Step) string {
	var body struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(st.Body, &body)
	return body.Name
}

// begin journals a step about to be sent.
func (r *scopeRun) begin(st migrate.Step, before json.RawMessage) error {
	err := r.opts.Journal.Record(Entry{Event: EventBegin, Scope: r.sc.kind, ID: r.sc.id, Step: st.ID, Kind: string(st.Kind), Method: st.Method, Path: st.Path, Before: before})
	if err != nil {
		return fmt.Errorf("%w: journal: %w", errFatal, err)
	}
	return nil
}

// finish journals a step read back done.
func (r *scopeRun) finish(st migrate.Step, created map[string]string, already bool) (map[string]string, string, error) {
	err := r.opts.Journal.Record(Entry{Event: EventDone, Scope: r.sc.kind, ID: r.sc.id, Step: st.ID, Kind: string(st.Kind), Method: st.Method, Path: st.Path, Created: created, Already: already})
	if err != nil {
		return nil, "", fmt.Errorf("%w: journal: %w", errFatal, err)
	}
	if already {
		return created, OutcomeAlready, nil
	}
	return created, OutcomeSent, nil
}

// entrypointCreatePath is where a missing entry point of a zone is created: the API's
// ruleset create call, refused when the phase has an entry point by then.
func entrypointCreatePath(zoneID string) string { return "/zones/" + zoneID + "/rulesets" }
