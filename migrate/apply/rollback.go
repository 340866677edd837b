package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// OutcomeUndone is a step a rollback undid (or found undone).
const OutcomeUndone = "undone"

// Rollback undoes what a journal did, per scope in reverse step order: rules added to an
// entry point are deleted (an entry point the apply created is deleted whole), paused rules
// resumed and changed values written back as they were read before the change, created
// objects deleted. A deletion cannot be undone: a scope's rollback stops there, at the
// last safe point (its replacements stay, the old objects after it are resumed). Steps a
// killed run began without recording their end are undone too, found by reading. Every
// step undone is journaled, so a rollback can be resumed; opts.Done and opts.KeepOld are
// ignored.
func Rollback(ctx context.Context, l *Loaded, opts Options) (*Result, error) {
	if opts.Client == nil && !opts.DryRun {
		return nil, errors.New("rollback: no client")
	}
	if err := l.Plan.Check(l.Snapshot); err != nil {
		return nil, &RefusedError{Err: err}
	}
	steps := l.touched
	if steps == nil {
		steps = map[string]*touched{} // a Loaded not read from a journal
	}
	res, err := eachScope(ctx, scopesOf(l.Plan, l.Snapshot), &opts, func(r *scopeRun, ctx context.Context) error {
		return r.rollback(ctx, steps)
	})
	res.Rollback = true
	return res, err
}

// touched is what a journal says of one step: begun (with what it overwrote), done (with
// the ids created), undone. LoadJournal folds the entries into it (Loaded.fold).
type touched struct {
	begun, done bool
	before      json.RawMessage
	created     map[string]string
}

// standsOnly reports whether the step was found done by an object someone else wrote (it
// stands for the plan's): this apply wrote nothing for it, so a rollback leaves it alone.
func (t *touched) standsOnly() bool {
	return t.done && t.created["rule_id"] == "" && t.created["id"] == "" &&
		(t.created["standing_rule_id"] != "" || t.created["standing_id"] != "")
}

func (r *scopeRun) rollback(ctx context.Context, touchedBy map[string]*touched) error {
	r.res.Scope, r.res.ID, r.res.Name, r.res.Status = r.sc.kind, r.sc.id, r.sc.name, StatusDone
	r.res.Steps = []StepResult{}
	if r.opts.DryRun {
		r.res.Status = StatusDryRun
	}
	for _, st := range r.undoSteps(touchedBy) {
		t := touchedBy[r.key(st)]
		method, path, what := r.undoCall(st, t)
		out := StepResult{ID: st.ID, Kind: string(st.Kind), Method: method, Path: path, What: what, Outcome: OutcomeWould}
		var err error
		if method == "" {
			err = errors.New(what) // a deletion: the rollback of the scope stops here
		} else if !r.opts.DryRun {
			out.Outcome = OutcomeUndone
			for n := 1; ; n++ {
				if err = r.undo(ctx, st, t); err == nil || n >= maxAttempts || ctx.Err() != nil || !transient(err) {
					break
				}
			}
		}
		if err != nil {
			r.res.Status, r.res.StoppedAt, r.res.Reason = StatusStopped, st.ID, err.Error()
			out.Outcome, out.Reason = OutcomeStopped, err.Error()
			r.res.Steps = append(r.res.Steps, out)
			if errors.Is(err, errFatal) || ctx.Err() != nil {
				return err
			}
			return nil
		}
		r.res.Steps = append(r.res.Steps, out)
		if r.opts.OnStep != nil {
			r.opts.OnStep(r.res, out)
		}
	}
	return nil
}

// undo undoes one step by its kind's handler and journals it.
func (r *scopeRun) undo(ctx context.Context, st migrate.Step, t *touched) error {
	spec := migrate.SpecOf(st)
	if spec == nil || handlers[spec.Op].undo == nil {
		return fmt.Errorf("%s: %s %s cannot be undone", st.ID, st.Method, st.Path)
	}
	if err := handlers[spec.Op].undo(r, ctx, st, spec, t); err != nil {
		return err
	}
	if err := r.opts.Journal.Record(Entry{Event: EventUndone, Scope: r.sc.kind, ID: r.sc.id, Step: st.ID, Kind: string(st.Kind), Method: st.Method, Path: st.Path}); err != nil {
		return fmt.Errorf("%w: journal: %w", errFatal, err)
	}
	return nil
}

// undoCreateEntrypoint undoes the create step of an entry point: the entry point is deleted
// whole when it holds nothing but the plan's rules (this apply created it); when someone
// else added rules to it since, or it was theirs already (the journal names the rules this
// apply added to it), only this apply's rules are deleted and theirs stay.
func (r *scopeRun) undoCreateEntrypoint(ctx context.Context, phase vocab.Phase, created map[string]string) error {
	_, want, err := r.target(phase)
	if err != nil {
		return err
	}
	live, err := r.getEntrypoint(ctx, phase)
	if err != nil || live == nil {
		return err
	}
	ours := r.ourRules(live, want, created["added_rule_ids"])
	if created["added_rule_ids"] != "" || len(ours) < len(live.Rules) {
		return r.deleteRules(ctx, phase, live, ours)
	}
	path := "/zones/" + r.sc.id + "/rulesets/" + live.ID
	if err := r.call(ctx, http.MethodDelete, path, nil, nil); err != nil && !isGone(err) {
		return err
	}
	back, err := r.getEntrypoint(ctx, phase)
	if err != nil {
		return err
	}
	if back != nil {
		return unsafe("the %s entry point is still there after its DELETE", phase)
	}
	return nil
}

// ourRules are the ids of the live rules this apply wrote to the entry point: those the
// journal names (ids, comma-separated), else those the plan's rules are, as the plan wrote
// them. A rule someone else added is not among them.
func (r *scopeRun) ourRules(live *inventory.Ruleset, want []inventory.RulesetRule, ids string) []string {
	var out []string
	if ids != "" {
		for _, id := range strings.Split(ids, ",") {
			if slices.ContainsFunc(live.Rules, func(l inventory.RulesetRule) bool { return l.ID == id }) {
				out = append(out, id)
			}
		}
		return out
	}
	used := make([]bool, len(want))
	for _, l := range live.Rules {
		for j, w := range want {
			if !used[j] && sameRule(l, w) {
				used[j] = true
				out = append(out, l.ID)
				break
			}
		}
	}
	return out
}

// deleteRules deletes the rules of an entry point by id, one at a time, and checks they are
// gone; the entry point and the other rules stay.
func (r *scopeRun) deleteRules(ctx context.Context, phase vocab.Phase, live *inventory.Ruleset, ids []string) error {
	for _, id := range ids {
		path := "/zones/" + r.sc.id + "/rulesets/" + live.ID + "/rules/" + id
		if err := r.call(ctx, http.MethodDelete, path, nil, nil); err != nil && !isGone(err) {
			return err
		}
	}
	back, err := r.readEntrypoint(ctx, phase, live.ID)
	if err != nil {
		return err
	}
	for _, b := range back.Rules {
		if slices.Contains(ids, b.ID) {
			return unsafe("rule %s is still in the %s entry point after its DELETE", b.ID, phase)
		}
	}
	return nil
}

// undoAddRule deletes a rule the apply added (found by its id, or by reading when the run
// was killed before it learnt the id).
func (r *scopeRun) undoAddRule(ctx context.Context, st migrate.Step, rulesetID, ruleID string) error {
	t, ok := r.sc.targetByRuleset(rulesetID)
	if !ok {
		return fmt.Errorf("step %s: no target has ruleset %s", st.ID, rulesetID)
	}
	live, err := r.readEntrypoint(ctx, t.Phase, rulesetID)
	if err != nil {
		return err
	}
	var rule inventory.RulesetRule
	if err := json.Unmarshal(st.Body, &rule); err != nil {
		return err
	}
	i := indexNew(live.Rules, r.before(t.Phase), rule)
	if ruleID == "" && i >= 0 {
		ruleID = live.Rules[i].ID
	}
	if ruleID == "" || i < 0 {
		return nil // never added
	}
	path := "/zones/" + r.sc.id + "/rulesets/" + rulesetID + "/rules/" + ruleID
	if err := r.call(ctx, http.MethodDelete, path, nil, nil); err != nil && !isGone(err) {
		return err
	}
	back, err := r.readEntrypoint(ctx, t.Phase, rulesetID)
	if err != nil {
		return err
	}
	for _, b := range back.Rules {
		if b.ID == ruleID {
			return unsafe("rule %s is still in the %s entry point after its DELETE", ruleID, t.Phase)
		}
	}
	return nil
}

// undoCreateObject deletes an object the apply created.
func (r *scopeRun) undoCreateObject(ctx context.Context, st migrate.Step, id string) error {
	if id == "" {
		// The run stopped before it learnt the id: the copy this plan's body made, if any.
		found, err := r.sameObjects(ctx, migrate.SpecOf(st), st.Path, st.Body)
		if err != nil {
			return err
		}
		for _, o := range found {
			if ours(o, st) {
				id = o.id
			}
		}
		if id == "" {
			return nil // never created
		}
	}
	path := st.Path + "/" + id
	if err := r.call(ctx, http.MethodDelete, path, nil, nil); err != nil && !isGone(err) {
		return err
	}
	back, err := r.read(ctx, path)
	if err != nil {
		return err
	}
	if back != nil {
		return unsafe("%s is still there after its DELETE", path)
	}
	return nil
}

// trustedBefore is what a rollback writes back for st: what the journal says the write
// overwrote, held to the snapshot (the stale check held the object to the snapshot right
// before the write), so an edited journal cannot make a rollback write what the account
// never held. The snapshot's stands in when the journal has none (a step found done).
func (r *scopeRun) trustedBefore(st migrate.Step, journaled json.RawMessage) (json.RawMessage, error) {
	fromSnap := r.beforeOf(st)
	if len(journaled) == 0 || len(fromSnap) == 0 {
		return append(journaled, fromSnap...), nil // one of them, or none (undoUpdate says so)
	}
	j, errJ := decodeAny(journaled)
	s, errS := decodeAny(fromSnap)
	if errJ != nil || errS != nil {
		return nil, fmt.Errorf("%s: the journal's record of what it overwrote is not JSON", st.ID)
	}
	if at := differs(j, s, ""); at != "" {
		return nil, fmt.Errorf("%s: the journal says it overwrote %s = %s, the snapshot holds %s: refused (was the journal edited?)", st.ID, at, clipJSON(j, at), clipJSON(s, at))
	}
	return journaled, nil
}

// clipJSON renders the member at (a dotted path) of v, shortened.
func clipJSON(v any, at string) string {
	for _, k := range strings.Split(at, ".") {
		m, ok := v.(map[string]any)
		if !ok || k == "" {
			break
		}
		v = m[k]
	}
	raw, _ := json.Marshal(v)
	if len(raw) > 80 {
		return string(raw[:80]) + "..."
	}
	return string(raw)
}

// undoUpdate writes back what a PUT or PATCH overwrote.
func (r *scopeRun) undoUpdate(ctx context.Context, st migrate.Step, before json.RawMessage) error {
	if len(before) == 0 {
		return fmt.Errorf("%s: the journal does not say what it overwrote", st.ID)
	}
	want, err := decodeAny(before)
	if err != nil {
		return err
	}
	live, err := r.read(ctx, st.Path)
	if err != nil {
		return err
	}
	if live == nil {
		return stale("%s is gone", st.Path)
	}
	if contains(live, want) {
		return nil
	}
	send := before
	if st.Method == http.MethodPut {
		// A PUT replaces the whole object: the step's body with what it overwrote, so the
		// members the API requires are there even when the object read back lacked them.
		if body, err := decodeAny(st.Body); err == nil {
			send, _ = json.Marshal(overlay(body, want))
		}
	}
	if err := r.call(ctx, st.Method, st.Path, send, nil); err != nil && !transient(err) {
		return err // a transient failure is settled by the read back
	}
	back, err := r.read(ctx, st.Path)
	if err != nil {
		return err
	}
	if back == nil || !contains(back, want) {
		return unsafe("%s is not back as it was after the %s", st.Path, st.Method)
	}
	return nil
}

// isGone: a DELETE whose object is gone already (its first answer was lost).
func isGone(err error) bool { return cfapi.IsNotFound(err) }
