package apply

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/cfapi"
)

// bulkForm is how the API takes many objects of one kind of step in one call, on the
// collection's path (OpenAPI: PUT and DELETE /zones/{zone_identifier}/firewall/rules,
// DELETE /zones/{zone_identifier}/filters).
type bulkForm struct {
	method string
	// list: the body is the list of the steps' bodies (each names its object by id); else
	// the objects are named in the query, ?id=ID&id=ID (cloudflare-go's DeleteFirewallRules
	// and DeleteFilters send the same).
	list bool
	// max is the most objects one call names.
	max int
}

// bulkForms are the step kinds the API has a bulk call for. Rate limits and WAF overrides
// have none: their steps are sent one by one.
var bulkForms = map[migrate.StepKind]bulkForm{
	migrate.KindFirewallRulePause:  {method: http.MethodPut, list: true, max: cfapi.MaxBulkRuleUpdate},
	migrate.KindFirewallRuleDelete: {method: http.MethodDelete, max: cfapi.MaxBulkDelete},
	migrate.KindFilterDelete:       {method: http.MethodDelete, max: cfapi.MaxBulkDelete},
}

// bulkRefusedError is a bulk call the API refused, read back as not carried out for some of
// its objects: those are then sent one by one, so that each gets the API's own answer.
type bulkRefusedError struct{ err error }

func (e *bulkRefusedError) Error() string { return "bulk call refused: " + e.err.Error() }

func (e *bulkRefusedError) Unwrap() error { return e.err }

// bulkAttempts carries out steps of one kind with the API's bulk call: attempted as a unit
// (retriedUnit); what a refused call left undone is then sent one step at a time.
func (r *scopeRun) bulkAttempts(ctx context.Context, form bulkForm, steps []migrate.Step) (map[string]StepResult, error) {
	done, err := r.retriedUnit(ctx, steps, func(ctx context.Context, rest []migrate.Step, done map[string]StepResult) error {
		return r.bulkAttempt(ctx, form, rest, done)
	})
	var refused *bulkRefusedError
	if !errors.As(err, &refused) {
		return done, err
	}
	for _, st := range notDone(steps, done) {
		created, outcome, err := r.attempts(ctx, st)
		if err != nil {
			return done, err
		}
		done[st.ID] = resultOf(st, outcome, created)
	}
	return done, nil
}

// bulkAttempt is one try of a bulk unit: the collection as last read holds each object to
// the snapshot (or shows it done), the invariant is read, the batch journaled, the call
// sent, the collection read back and each step's effect checked in it, and the invariant
// read again. Steps found done go into done as they are.
func (r *scopeRun) bulkAttempt(ctx context.Context, form bulkForm, steps []migrate.Step, done map[string]StepResult) error {
	coll := collectionOf(steps[0].Path)
	live, err := r.listed(ctx, coll)
	if err != nil {
		return err
	}
	var send []migrate.Step
	befores := map[string]json.RawMessage{}
	for _, st := range steps {
		already, before, err := r.bulkCheck(st, live[st.Path])
		if err != nil {
			return err
		}
		if already {
			if err := r.finishInto(done, st, nil, true); err != nil {
				return err
			}
			continue
		}
		send = append(send, st)
		if before != nil {
			befores[st.ID] = before
		}
	}
	if len(send) == 0 {
		return nil
	}
	if err := r.replacementsAround(ctx, send, false); err != nil {
		return err
	}
	if err := r.beginUnit(Entry{Kind: string(send[0].Kind), Method: form.method, Path: coll}, send, befores); err != nil {
		return err
	}
	answer, callErr := r.bulkCall(ctx, form, coll, send)
	return r.bulkReadBack(ctx, coll, send, answer, callErr, done)
}

// bulkReadBack finishes each step a bulk call shows done: in its answer, or else in the
// collection read after it.
func (r *scopeRun) bulkReadBack(ctx context.Context, coll string, send []migrate.Step, answer json.RawMessage, callErr error, done map[string]StepResult) error {
	back, ok := r.bulkAnswered(coll, send, answer, callErr)
	var err error
	if !ok {
		delete(r.lists, coll) // unknown until read
		if back, err = r.relist(ctx, coll); err != nil {
			return err
		}
	}
	var took, gone []migrate.Step
	for _, st := range send {
		switch {
		case bulkTook(st, back[st.Path]):
			took = append(took, st)
		case back[st.Path] == nil && r.deletesLater(st, false):
			gone = append(gone, st) // another run of the plan deleted it meanwhile
		}
	}
	missed := len(send) - len(took) - len(gone)
	switch {
	case missed > 0 && callErr != nil && !transient(callErr) && !cfapi.IsAuth(callErr):
		err = &bulkRefusedError{err: callErr}
	case missed > 0 && callErr != nil:
		err = callErr
	case missed > 0:
		err = unsafe("%d of the %d objects of the bulk %s %s do not show the change", missed, len(send), send[0].Kind, coll)
	default:
		err = r.replacementsAround(ctx, send, true)
	}
	if err != nil && missed == 0 {
		return err // the invariant after: the next attempt finds them done, or the scope stops
	}
	for _, st := range took {
		if ferr := r.finishInto(done, st, nil, false); ferr != nil {
			return ferr
		}
	}
	for _, st := range gone {
		if ferr := r.finishInto(done, st, nil, true); ferr != nil {
			return ferr
		}
	}
	return err
}

// bulkCheck holds one step's object, as its collection was last read, to the snapshot: it
// reports whether the step is done already, and what a pause overwrites.
func (r *scopeRun) bulkCheck(st migrate.Step, live any) (bool, json.RawMessage, error) {
	spec := migrate.SpecOf(st)
	if spec.Op == migrate.OpDelete {
		if live == nil {
			return true, nil, nil
		}
		return false, nil, r.checkFresh(st, live)
	}
	body, err := decodeAny(st.Body)
	if err != nil {
		return false, nil, fmt.Errorf("step %s: body: %w", st.ID, err)
	}
	switch {
	case live == nil && r.deletesLater(st, false):
		return true, nil, nil // a later step of the plan deleted it already
	case live == nil:
		return false, nil, stale("%s is gone", st.Path)
	case tookOf(spec)(live, body):
		return true, nil, nil
	}
	if err := r.checkFresh(st, live); err != nil {
		return false, nil, err
	}
	before, _ := json.Marshal(project(live, body))
	return false, before, nil
}

// bulkTook reports whether a step's object, as read back, shows the step's effect.
func bulkTook(st migrate.Step, back any) bool {
	spec := migrate.SpecOf(st)
	if spec.Op == migrate.OpDelete {
		return back == nil
	}
	body, err := decodeAny(st.Body)
	return err == nil && back != nil && tookOf(spec)(back, body)
}

// bulkCall sends the bulk call for the steps: their bodies as a list, or their objects' ids
// in the query. It returns the call's answer.
func (r *scopeRun) bulkCall(ctx context.Context, form bulkForm, coll string, send []migrate.Step) (json.RawMessage, error) {
	var answer json.RawMessage
	if !form.list {
		ids := make([]string, len(send))
		for i, st := range send {
			ids[i] = path.Base(st.Path)
		}
		return answer, r.callIDs(ctx, form.method, coll, ids, &answer)
	}
	bodies := make([][]byte, len(send))
	for i, st := range send {
		bodies[i] = st.Body
	}
	body := append(append([]byte{'['}, bytes.Join(bodies, []byte{','})...), ']')
	return answer, r.call(ctx, form.method, coll, body, &answer)
}

// bulkAnswered is the collection after a bulk call as its answer shows it, kept as the
// collection's last list: the list last read, with each object the call wrote as it answered
// it (a bulk update answers the rules as written, a bulk deletion the ids it deleted). ok is
// false when the call failed, the list is not known, or the answer does not show every
// step's effect: the collection is read then.
func (r *scopeRun) bulkAnswered(coll string, send []migrate.Step, answer json.RawMessage, callErr error) (map[string]any, bool) {
	live := r.lists[coll]
	if callErr != nil || live == nil || len(answer) == 0 {
		return nil, false
	}
	v, err := decodeAny(answer)
	items, ok := v.([]any)
	if err != nil || !ok {
		return nil, false
	}
	got := map[string]any{}
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			if id, ok := m["id"].(string); ok && id != "" {
				got[coll+"/"+id] = m
			}
		}
	}
	for _, st := range send {
		obj, ok := got[st.Path]
		if !ok || (!deletes(st) && !bulkTook(st, obj)) {
			return nil, false
		}
	}
	for _, st := range send {
		if deletes(st) {
			r.seen(st.Path, nil)
		} else {
			r.seen(st.Path, got[st.Path])
		}
	}
	return live, true
}

// finishInto journals a step done and puts its result into done.
func (r *scopeRun) finishInto(done map[string]StepResult, st migrate.Step, created map[string]string, already bool) error {
	created, outcome, err := r.finish(st, created, already)
	if err != nil {
		return err
	}
	done[st.ID] = resultOf(st, outcome, created)
	return nil
}

// tookOf is how a write of the kind shows on its object: its body's members there, compared
// whole for kinds that replace them.
func tookOf(spec *migrate.KindSpec) func(live, want any) bool {
	if spec.Whole {
		return containsWhole
	}
	return contains
}
