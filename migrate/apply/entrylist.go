package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/meaning"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// addRules carries out the rules a unit adds to one existing entry point, each with one
// positioned POST of its own (the API's per-rule create), never a write of the whole list:
// a rule someone else adds to the entry point at any moment of the apply is kept, as the
// API inserts each rule into the list as it is when the POST arrives. The entry point is
// read first and held to the snapshot (the rules the scan saw are there, doing the same, in
// their order: the plan placed its rules among them); rules added since by anyone are kept
// and named. Each rule is placed right after the plan's rule before it (or right before the
// one after it), found by what it does; a rule that does the same is there already is not
// added again (written by someone else, or by an earlier or concurrent run); each POST's
// answer, the entry point as written, is the read back.
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
	if err := scanRulesKept(t.Phase, live.Rules, before); err != nil {
		return stale("the %s entry point: %s", t.Phase, err)
	}
	x := newRuleAdd(t.Phase, want, before, live)
	r.noteOthers(t.Phase, others(live.Rules, locate(t.Phase, live.Rules, want)), before)
	rules := make([]inventory.RulesetRule, 0, len(steps))
	todo := notDone(steps, done)
	for _, st := range todo {
		var rule inventory.RulesetRule
		if err := json.Unmarshal(st.Body, &rule); err != nil {
			return fmt.Errorf("step %s: body: %w", st.ID, err)
		}
		delete(rule.Extra, "position")
		rules = append(rules, rule)
	}
	if err := r.roomFor(x, rules); err != nil {
		return err
	}
	for i, st := range todo {
		created, already, err := r.addRule(ctx, st, x, rules[i])
		if err != nil {
			return err
		}
		if err := r.finishInto(done, st, created, already); err != nil {
			return err
		}
	}
	return nil
}

// roomFor checks, before the first rule is sent, that the rules still to add fit the phase's
// quota beside every rule the entry point holds now (rules someone added since the scan count
// too): the zone stops with nothing added rather than halfway, with the API's refusal.
func (r *scopeRun) roomFor(x *ruleAdd, rules []inventory.RulesetRule) error {
	q, plan := r.quota(x.phase)
	missing := 0
	for _, rule := range rules {
		if x.freeCopy(rule) < 0 {
			missing++
		}
	}
	if q > 0 && len(x.live.Rules)+missing > q {
		return stale("the %s entry point holds %d rules now and the plan adds %d: more than the %s plan's quota of %d; someone added rules since the scan, or changed the plan: build a new plan (it says which rules do not fit)", x.phase, len(x.live.Rules), missing, plan, q)
	}
	return nil
}

// ruleAdd is an entry point rules are added to one at a time: its phase, the plan's rules
// (the target), the entry point as the scan saw it and as last read.
type ruleAdd struct {
	phase  vocab.Phase
	want   []inventory.RulesetRule
	before *inventory.Ruleset
	live   *inventory.Ruleset
	// isNew marks the plan's rules that the scan did not see (the ones it adds).
	isNew []bool
}

// newRuleAdd is the entry point of phase as read (live), to add the plan's rules (want) to.
func newRuleAdd(phase vocab.Phase, want []inventory.RulesetRule, before, live *inventory.Ruleset) *ruleAdd {
	x := &ruleAdd{phase: phase, want: want, before: before, live: live, isNew: make([]bool, len(want))}
	for j := range want {
		x.isNew[j] = true
	}
	for _, b := range scanRules(before) {
		for j, w := range want {
			if x.isNew[j] && sameRule(w, b) {
				x.isNew[j] = false
				break
			}
		}
	}
	return x
}

// earlierNew counts the plan's new rules before rule that do what it does: the copies of its
// meaning the entry point holds for them, before one for rule.
func (x *ruleAdd) earlierNew(rule inventory.RulesetRule) int {
	k, n := meaning.Rule(x.phase, rule), 0
	for j := 0; j < planIndex(x.want, rule); j++ {
		if x.isNew[j] && meaning.Rule(x.phase, x.want[j]) == k {
			n++
		}
	}
	return n
}

// addRule adds one rule to the entry point unless a rule that does the same is there
// already; it returns what the journal records of the step (created) and whether nothing
// was sent for it.
func (r *scopeRun) addRule(ctx context.Context, st migrate.Step, x *ruleAdd, rule inventory.RulesetRule) (map[string]string, bool, error) {
	if created, ok := x.standing(rule, st.ID, r); ok {
		return created, true, nil
	}
	var id string
	var callErr error
	for n := 0; n < maxRefusedPosts; n++ {
		body, err := x.positioned(rule) // again each time: the rule it follows may be gone
		if err != nil {
			return nil, false, err
		}
		if id, callErr = r.postRule(ctx, st, x, rule, body); id != "" || callErr == nil || !isRefusal(callErr) {
			break
		}
		if x.freeCopy(rule) >= 0 {
			break // another run's copy stands for it
		}
		// Refused: a copy another run added at the same moment may have held the entry
		// point at its quota (the API names no code for it). Settle the copies and send
		// again while the entry point has room now.
		settled, err := r.settleCopies(ctx, x)
		if err != nil {
			return nil, false, err
		}
		if !settled && !r.roomNow(x) {
			break
		}
	}
	if id == "" {
		if created, ok := x.standing(rule, st.ID, r); ok && callErr != nil {
			return created, false, nil // the answer was lost, the rule is there
		}
		if callErr != nil {
			return nil, false, callErr
		}
		return nil, false, unsafe("the %s entry point does not hold rule %s after its POST", x.phase, ruleLabel(rule))
	}
	return r.keepEarlier(ctx, x, rule, id)
}

// postRule sends one positioned rule (body) and reads the entry point back when the answer
// does not show it: the id of the rule the POST added ("" when none), and the call's error,
// or the read's when the entry point could not be read back.
func (r *scopeRun) postRule(ctx context.Context, st migrate.Step, x *ruleAdd, rule inventory.RulesetRule, body []byte) (string, error) {
	path := "/zones/" + r.sc.id + "/rulesets/" + x.live.ID + "/rules"
	if err := r.opts.Journal.Record(Entry{Event: EventBegin, Scope: r.sc.kind, ID: r.sc.id, Step: st.ID, Kind: string(st.Kind), Method: http.MethodPost, Path: path}); err != nil {
		return "", fmt.Errorf("%w: journal: %w", errFatal, err)
	}
	back := &inventory.Ruleset{}
	callErr := r.call(ctx, http.MethodPost, path, body, back)
	if callErr != nil || back.ID != x.live.ID {
		var err error
		if back, err = r.readEntrypoint(ctx, x.phase, x.live.ID); err != nil {
			return "", err
		}
	}
	prev := x.live
	x.live = back
	r.learnt(x.phase, back) // the POST's answer, or the read after it
	return newRuleID(x.phase, prev.Rules, back.Rules, rule), callErr
}

// maxRefusedPosts bounds the POSTs of one rule the API refuses while a race settles.
const maxRefusedPosts = 3

// isRefusal reports whether err is the API refusing a call (a 4xx answer other than the
// rate limit's), not a lost answer or a fault.
func isRefusal(err error) bool {
	s := cfapi.StatusOf(err)
	return s >= 400 && s < 500 && s != http.StatusTooManyRequests
}

// roomNow reports whether the entry point as last read has room for one more rule under
// the phase's quota of the zone's plan (no quota known: no).
func (r *scopeRun) roomNow(x *ruleAdd) bool {
	q, _ := r.quota(x.phase)
	return q > 0 && len(x.live.Rules) < q
}

// quota is how many rules the phase's entry point may hold on the zone's plan (0: no quota
// known), and the plan's id.
func (r *scopeRun) quota(phase vocab.Phase) (int, string) {
	plan := ""
	if r.sc.zone != nil {
		plan = r.sc.zone.Zone.Plan.LegacyID
	}
	return inventory.PhaseRulesQuota(phase, plan), plan
}

// standing finds the rule of the entry point that stands for rule, found before sending: a
// rule that does the same, that neither the scan saw nor the plan's other rules stand on.
// The journal records a copy sunset wrote (an earlier or concurrent run's, or this run's
// whose answer was lost) as the step's rule (rule_id: a rollback deletes it), a rule
// someone else wrote as standing for it (standing_rule_id: kept by a rollback).
func (x *ruleAdd) standing(rule inventory.RulesetRule, step string, r *scopeRun) (map[string]string, bool) {
	i := x.freeCopy(rule)
	if i < 0 {
		return nil, false
	}
	found := x.live.Rules[i]
	if sameRule(found, rule) {
		return map[string]string{"ruleset_id": x.live.ID, "rule_id": found.ID}, true
	}
	r.notice("step %s: rule %s of the %s entry point, written by someone else, does what the plan's rule %s does: not added again", step, ruleLabel(found), x.phase, ruleLabel(rule))
	return map[string]string{"ruleset_id": x.live.ID, "standing_rule_id": found.ID}, true
}

// freeCopy is the index of the live rule that stands for rule: of the rules the scan did not
// see that do what rule does, in list order, the one after those standing for the plan's
// new rules of that meaning before it; -1 when there is none.
func (x *ruleAdd) freeCopy(rule inventory.RulesetRule) int {
	k, used, seen := meaning.Rule(x.phase, rule), x.earlierNew(rule), scanIDs(x.before)
	n := 0
	for i, l := range x.live.Rules {
		if seen[l.ID] || meaning.Rule(x.phase, l) != k {
			continue
		}
		if n == used {
			return i
		}
		n++
	}
	return -1
}

// positioned is the POST body of rule: the rule with its position, right after the live
// rule that stands for the plan's rule before it, else right before the one that stands
// for the plan's rule after it (the top or the bottom of an empty list).
func (x *ruleAdd) positioned(rule inventory.RulesetRule) ([]byte, error) {
	k := planIndex(x.want, rule)
	loc := locate(x.phase, x.live.Rules, x.want)
	pos := map[string]string{"after": ""}
	for j := k - 1; j >= 0; j-- {
		if loc[j] >= 0 {
			pos = map[string]string{"after": x.live.Rules[loc[j]].ID}
			break
		}
	}
	if pos["after"] == "" {
		for j := k + 1; j < len(x.want); j++ {
			if loc[j] >= 0 {
				pos = map[string]string{"before": x.live.Rules[loc[j]].ID}
				break
			}
		}
	}
	body := map[string]json.RawMessage{}
	raw, err := json.Marshal(rule)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, err
	}
	body["position"], _ = json.Marshal(pos)
	return json.Marshal(body)
}

// planIndex is the index of rule among the plan's rules (the first the same on what a
// plan sets), -1 when it is not one of them.
func planIndex(want []inventory.RulesetRule, rule inventory.RulesetRule) int {
	for i, w := range want {
		if sameRule(w, rule) {
			return i
		}
	}
	return -1
}

// newRuleID is the id of the rule a POST of rule added: a rule of after that does the same
// and was not in before; "" when there is none.
func newRuleID(phase vocab.Phase, before, after []inventory.RulesetRule, rule inventory.RulesetRule) string {
	had := map[string]bool{}
	for _, b := range before {
		had[b.ID] = true
	}
	k := meaning.Rule(phase, rule)
	for _, a := range after {
		if !had[a.ID] && meaning.Rule(phase, a) == k && sameRule(a, rule) {
			return a.ID
		}
	}
	return ""
}

// keepEarlier settles copies a race left: when the entry point holds, besides the rules the
// scan saw and those standing for the plan's new rules of the same meaning before rule, more
// than one rule that does what rule does (two runs added it at once), the earliest (by
// last_updated, then id: the same choice on every machine) is kept and the later copies
// sunset wrote are deleted, this run's own included; a later copy someone else wrote is
// named, not deleted. It returns what the journal records of the step.
func (r *scopeRun) keepEarlier(ctx context.Context, x *ruleAdd, rule inventory.RulesetRule, id string) (map[string]string, bool, error) {
	copies, keepN := x.copies(rule), x.earlierNew(rule)+1
	if len(copies) <= keepN {
		return map[string]string{"ruleset_id": x.live.ID, "rule_id": id}, false, nil
	}
	kept := copies[:keepN]
	for _, c := range copies[keepN:] {
		if c.ID != id && !sameRule(c, rule) {
			r.notice("rule %s of the %s entry point, written by someone else, does what the plan's rule %s does: it runs twice; remove one", ruleLabel(c), x.phase, ruleLabel(rule))
			continue
		}
		path := "/zones/" + r.sc.id + "/rulesets/" + x.live.ID + "/rules/" + c.ID
		if err := r.call(ctx, http.MethodDelete, path, nil, nil); err != nil && !cfapi.IsNotFound(err) {
			return nil, false, err
		}
		r.notice("removed rule %s of the %s entry point: a second copy of %s that another run added at the same moment", c.ID, x.phase, ruleLabel(rule))
	}
	live, err := r.readEntrypoint(ctx, x.phase, x.live.ID)
	if err != nil {
		return nil, false, err
	}
	x.live = live
	if slices.ContainsFunc(kept, func(c inventory.RulesetRule) bool { return c.ID == id }) {
		return map[string]string{"ruleset_id": x.live.ID, "rule_id": id}, false, nil
	}
	return map[string]string{"ruleset_id": x.live.ID, "standing_rule_id": kept[keepN-1].ID}, false, nil
}

// settleCopies deletes the copies of the plan's new rules that sunset wrote beyond those the
// plan adds, the earliest kept (copies: the same choice in every run), as keepEarlier does
// for one rule: two runs added a rule at once and the other run has not removed its copy
// yet. It reports whether it deleted any, having read the entry point again.
func (r *scopeRun) settleCopies(ctx context.Context, x *ruleAdd) (bool, error) {
	wanted := map[meaning.Key]int{} // how many new rules of each meaning the plan adds
	for j, w := range x.want {
		if x.isNew[j] {
			wanted[meaning.Rule(x.phase, w)]++
		}
	}
	removed := false
	for j, w := range x.want {
		k := meaning.Rule(x.phase, w)
		if !x.isNew[j] || wanted[k] == 0 {
			continue
		}
		copies := x.copies(w)
		for _, c := range copies[min(wanted[k], len(copies)):] {
			if planIndex(x.want, c) < 0 {
				continue // someone else's: named by keepEarlier, never deleted
			}
			path := "/zones/" + r.sc.id + "/rulesets/" + x.live.ID + "/rules/" + c.ID
			if err := r.call(ctx, http.MethodDelete, path, nil, nil); err != nil && !cfapi.IsNotFound(err) {
				return removed, err
			}
			r.notice("removed rule %s of the %s entry point: a second copy of %s that another run added at the same moment", c.ID, x.phase, ruleLabel(c))
			removed = true
		}
		wanted[k] = 0 // each meaning once
	}
	if !removed {
		return false, nil
	}
	live, err := r.readEntrypoint(ctx, x.phase, x.live.ID)
	if err != nil {
		return true, err
	}
	x.live = live
	return true, nil
}

// copies are the live rules that do what rule does and that the scan did not see, earliest
// first (last_updated, then id).
func (x *ruleAdd) copies(rule inventory.RulesetRule) []inventory.RulesetRule {
	seen := scanIDs(x.before)
	k := meaning.Rule(x.phase, rule)
	var out []inventory.RulesetRule
	for _, l := range x.live.Rules {
		if !seen[l.ID] && meaning.Rule(x.phase, l) == k {
			out = append(out, l)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := updatedOf(out[i]), updatedOf(out[j])
		if a != b {
			return a < b
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// updatedOf is a rule's last_updated as the API wrote it ("" when it has none).
func updatedOf(r inventory.RulesetRule) string {
	var s string
	_ = json.Unmarshal(r.Extra["last_updated"], &s)
	return s
}

// scanRules are the rules of an entry point as the scan saw it (none when it had none).
func scanRules(before *inventory.Ruleset) []inventory.RulesetRule {
	if before == nil {
		return nil
	}
	return before.Rules
}

// scanIDs are the ids of the rules the scan saw in an entry point.
func scanIDs(before *inventory.Ruleset) map[string]bool {
	out := map[string]bool{}
	for _, b := range scanRules(before) {
		out[b.ID] = true
	}
	return out
}
