package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// addRules carries out the rules a unit adds to one existing entry point with one write of
// its whole rule list: the entry point is read, held to the snapshot (every rule it held
// is there, unchanged, in place, and no rule is there the plan does not put there), and
// written with the plan's list, each rule already there sent with its id so it stays that
// rule; the PUT's answer (or, when lost, a read) is the read back. The ruleset's version
// guards against a concurrent edit: the write must make exactly the next version of the
// one read, or someone else wrote between the read and the write (their change may be
// overwritten), and the zone stops as stale.
func (r *scopeRun) addRules(ctx context.Context, steps []migrate.Step, done map[string]StepResult) error {
	rulesetID := rulesetOf(steps[0])
	t, ok := r.sc.targetByRuleset(rulesetID)
	if !ok {
		return fmt.Errorf("step %s: no target has ruleset %s", steps[0].ID, rulesetID)
	}
	want, err := targetRules(t)
	if err != nil {
		return err
	}
	before := r.before(t.Phase)
	live, err := r.readEntrypoint(ctx, t.Phase, rulesetID)
	if err != nil {
		return err
	}
	if err := keptInPlace(live.Rules, before, want); err != nil {
		return stale("the %s entry point: %s", t.Phase, err)
	}
	if missing, err := r.rulesIn(live, before, steps, done, true); err != nil || !missing {
		return err
	}
	body, err := json.Marshal(map[string]any{"rules": wholeList(live.Rules, want)})
	if err != nil {
		return err
	}
	if err := r.beginUnit(Entry{Kind: string(steps[0].Kind), Method: http.MethodPut, Path: entrypointPath(r.sc.id, t)}, notDone(steps, done), nil); err != nil {
		return err
	}
	back := &inventory.Ruleset{}
	callErr := r.opts.Client.Call(ctx, http.MethodPut, entrypointPath(r.sc.id, t), body, back)
	if callErr != nil || back.ID != rulesetID {
		if back, err = r.readEntrypoint(ctx, t.Phase, rulesetID); err != nil {
			return err
		}
	}
	return r.addedBack(live, back, before, want, steps, callErr, done)
}

// addedBack checks the entry point read back after its whole list was written: the next
// version of the one read, every rule kept in place, each added rule there.
func (r *scopeRun) addedBack(live, back, before *inventory.Ruleset, want []inventory.RulesetRule, steps []migrate.Step, callErr error, done map[string]StepResult) error {
	if back.Version == live.Version && callErr != nil {
		return callErr // not written: the attempt may be repeated
	}
	if !nextVersion(live.Version, back.Version) {
		return stale("the %s entry point changed while this apply wrote its rules: version %s when read, %s after the write; someone else wrote to it between the two (their change may be overwritten): check its rules and build a new plan", back.Phase, live.Version, back.Version)
	}
	if err := keptInPlace(back.Rules, before, want); err != nil {
		return unsafe("the %s entry point: %s", back.Phase, err)
	}
	missing, err := r.rulesIn(back, before, steps, done, false)
	switch {
	case err != nil:
		return err
	case missing && callErr != nil:
		return callErr
	case missing:
		return unsafe("the %s entry point does not hold the added rules after the PUT", back.Phase)
	}
	return nil
}

// rulesIn finishes each step whose rule the entry point holds (already: found without this
// run's write) and reports whether one is missing.
func (r *scopeRun) rulesIn(rs, before *inventory.Ruleset, steps []migrate.Step, done map[string]StepResult, already bool) (bool, error) {
	missing := false
	for _, st := range steps {
		if _, ok := done[st.ID]; ok {
			continue
		}
		var rule inventory.RulesetRule
		if err := json.Unmarshal(st.Body, &rule); err != nil {
			return false, fmt.Errorf("step %s: body: %w", st.ID, err)
		}
		i := indexNew(rs.Rules, before, rule)
		if i < 0 {
			missing = true
			continue
		}
		if err := r.finishInto(done, st, map[string]string{"ruleset_id": rs.ID, "rule_id": rs.Rules[i].ID}, already); err != nil {
			return false, err
		}
	}
	return missing, nil
}

// wholeList is the plan's rules in order, each one the entry point holds already sent as
// it is there (with its id and every member it has, less what the API sets on a write), so
// nothing of it changes; the others as the plan writes them.
func wholeList(live, want []inventory.RulesetRule) []inventory.RulesetRule {
	used := make([]bool, len(live))
	out := make([]inventory.RulesetRule, len(want))
	for i, w := range want {
		out[i] = w
		for j, l := range live {
			if !used[j] && sameRule(l, w) {
				used[j] = true
				out[i] = writable(l)
				break
			}
		}
	}
	return out
}

// writable is a rule as read, less the members the API sets on every write.
func writable(r inventory.RulesetRule) inventory.RulesetRule {
	r.Version = ""
	if r.Extra != nil {
		extra := make(inventory.Extra, len(r.Extra))
		for k, v := range r.Extra {
			if !volatile[k] {
				extra[k] = v
			}
		}
		r.Extra = extra
	}
	return r
}

// nextVersion reports whether version b is the one after a (the API numbers a ruleset's
// versions 1, 2, 3...).
func nextVersion(a, b string) bool {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	return errA == nil && errB == nil && y == x+1
}

// entrypointPath is the path of the zone's entry point of the target's phase.
func entrypointPath(zoneID string, t migrate.Target) string {
	return "/zones/" + zoneID + "/rulesets/phases/" + string(t.Phase) + "/entrypoint"
}
