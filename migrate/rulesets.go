package migrate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/meaning"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// rulesetChange adds rules to a zone's entry point of one phase.
type rulesetChange struct {
	kinds rulesetKinds // the step kinds and the phase
	// existing is the entry point from the snapshot; nil when the zone has none.
	existing *inventory.Ruleset
	// front rules go before every existing rule (exceptions before execute rules); back
	// rules go after them.
	front, back []inventory.RulesetRule
	// what names the rules in titles ("custom rule", "rate limiting rule", ...).
	what, whats string
	// resolves, risk, derived, reason, note and diffs describe the create step(s).
	resolves []string
	risk     Risk
	derived  bool
	reason   string
	note     string
	diffs    []Diff
}

// computed members of a stored rule that a PUT or Terraform must not carry over.
var computedRuleMembers = []string{"last_updated"}

// targetRule renders a rule for a Target: without the members the service computes.
func targetRule(r inventory.RulesetRule) json.RawMessage {
	r.ID, r.Version = "", ""
	if len(r.Extra) > 0 {
		x := inventory.Extra{}
		for k, v := range r.Extra {
			x[k] = v
		}
		for _, k := range computedRuleMembers {
			delete(x, k)
		}
		r.Extra = x
	}
	return mustJSON(r)
}

// TargetRule renders an existing rule as a new rule list holds it (without the members the
// service computes), for callers outside the plan (sunset fix).
func TargetRule(r inventory.RulesetRule) json.RawMessage { return targetRule(r) }

// changeRuleset emits the create step(s) and the verify step, records the target, and
// returns the verify step's id ("" when there is nothing to add).
//
// Decision: an entry point that does not exist yet is created with one PUT (it holds only
// the new rules, so nothing can be lost). An entry point that exists gets one POST per new
// rule with an explicit position, never a PUT: a PUT replaces the whole list, and a custom
// rule added by someone between the scan and the apply would be deleted by it. When the
// entry point holds rules sunset did not write, the plan says who else may own it.
func (b *builder) changeRuleset(c rulesetChange) string {
	if len(c.front)+len(c.back) == 0 {
		return ""
	}
	final := c.finalRules()
	t := c.target(final)
	var createIDs []string
	if c.existing == nil {
		createIDs = []string{b.createEntrypoint(c, final)}
	} else {
		if owner := b.otherOwner(c); owner != "" {
			b.note(owner)
		}
		createIDs = b.addRules(c, final)
	}
	b.targets = append(b.targets, t)
	return b.verifyEntrypoint(c, final, createIDs)
}

// existingRules are the rules of the entry point before the change.
func (c rulesetChange) existingRules() []inventory.RulesetRule {
	if c.existing == nil {
		return nil
	}
	return c.existing.Rules
}

// finalRules are the entry point's rules after the change: front, existing, back.
func (c rulesetChange) finalRules() []inventory.RulesetRule {
	existing := c.existingRules()
	final := make([]inventory.RulesetRule, 0, len(existing)+len(c.front)+len(c.back))
	final = append(final, c.front...)
	final = append(final, existing...)
	return append(final, c.back...)
}

// target is the entry point after the change, without the members the service computes.
func (c rulesetChange) target(final []inventory.RulesetRule) Target {
	t := Target{Phase: c.kinds.phase, Name: "default"}
	if c.existing != nil {
		t.RulesetID = c.existing.ID
		if c.existing.Name != "" {
			t.Name = c.existing.Name
		}
	}
	for _, r := range final {
		t.Rules = append(t.Rules, targetRule(r))
	}
	return t
}

// createEntrypoint is the PUT that creates a missing entry point with exactly final.
func (b *builder) createEntrypoint(c rulesetChange, final []inventory.RulesetRule) string {
	id := string(c.kinds.create)
	b.add(phaseCreate, Step{
		ID: id, Kind: c.kinds.create, Change: ChangeCreate,
		Method: "PUT", Path: entrypointPath(b.z.Zone.ID, c.kinds.phase),
		Body:     mustJSON(map[string]any{"rules": final}),
		Resolves: c.resolves, Risk: c.risk, Derived: c.derived,
		Title:  fmt.Sprintf("Create the %s entry point with %s", c.kinds.phase, plural(len(c.front)+len(c.back), c.what, c.whats)),
		Reason: c.reason + " The zone has no entry point for this phase yet, so one PUT creates it with exactly these rules.",
		Note:   c.note, Diffs: c.diffs,
	})
	return id
}

// addRules is one POST per new rule at its position in final, each after the previous one;
// the first carries what the change resolves. It returns the steps' ids.
func (b *builder) addRules(c rulesetChange, final []inventory.RulesetRule) []string {
	existing := c.existingRules()
	var ids []string
	for k, r := range final {
		if k >= len(c.front) && k < len(c.front)+len(existing) {
			continue // an existing rule
		}
		st := b.addRuleStep(c, r, k+1, len(existing))
		if len(ids) > 0 {
			st.DependsOn = []string{ids[len(ids)-1]}
		} else {
			st.Resolves, st.Note, st.Diffs = c.resolves, c.note, c.diffs
		}
		b.add(phaseCreate, st)
		ids = append(ids, st.ID)
	}
	return ids
}

// addRuleStep is the POST that adds rule r at (1-based) position pos of an existing entry
// point holding existing rules.
func (b *builder) addRuleStep(c rulesetChange, r inventory.RulesetRule, pos, existing int) Step {
	body := map[string]json.RawMessage{}
	_ = json.Unmarshal(mustJSON(r), &body)
	body["position"] = mustJSON(map[string]int{"index": pos})
	return Step{
		ID: fmt.Sprintf("%s:%d", c.kinds.add, pos), Kind: c.kinds.add, Change: ChangeCreate,
		Method: "POST", Path: zonePath(b.z.Zone.ID, "rulesets", c.existing.ID, "rules"),
		Body: mustJSON(body), Risk: c.risk, Derived: c.derived,
		Title:  fmt.Sprintf("Add %s %s at position %d of the %s entry point", c.what, quoteOr(r.Description, string(r.Action)), pos, c.kinds.phase),
		Reason: c.reason + fmt.Sprintf(" The entry point %s exists with %s: each rule is added at its position and every rule there is kept (sunset apply adds each rule on its own, placed after the rule it follows, so a rule someone else adds meanwhile is never overwritten; a rule that does the same already is not added again).", c.existing.ID, plural(existing, "rule", "rules")),
	}
}

// verifyEntrypoint is the GET of the entry point with every rule it must hold, in order.
func (b *builder) verifyEntrypoint(c rulesetChange, final []inventory.RulesetRule, createIDs []string) string {
	checks := []string{fmt.Sprintf("the entry point of phase %s holds %s, in this order:", c.kinds.phase, plural(len(final), "rule", "rules"))}
	for k, r := range final {
		en := "enabled"
		if r.Enabled != nil && !*r.Enabled {
			en = "disabled"
		}
		checks = append(checks, fmt.Sprintf("%d. %s, %s, %s: %s", k+1, r.Action, en, quoteOr(r.Description, "(no description)"), r.Expression))
	}
	verify := string(c.kinds.verify)
	b.add(phaseVerify, Step{
		ID: verify, Kind: c.kinds.verify, Change: ChangeVerify,
		Method: "GET", Path: entrypointPath(b.z.Zone.ID, c.kinds.phase), DependsOn: createIDs, Risk: RiskNone,
		Title:  fmt.Sprintf("Check the %s entry point", c.kinds.phase),
		Reason: "The old objects are only paused or deleted once their replacements are confirmed in place.",
		Checks: checks,
	})
	return verify
}

// ruleCall is the API call that adds one rule to a zone's entry point of a phase.
type ruleCall struct {
	method, path string
	body         json.RawMessage
	note         string // how to read the body
}

// manualRuleCall is the call an operator makes to add rule once the blocker is gone: a POST
// to the entry point's rules when the entry point exists, else a PUT of the entry point that
// holds every rule the plan puts there plus this one (a PUT replaces the whole list, and the
// entry point's id is not known before it exists).
func (b *builder) manualRuleCall(phase vocab.Phase, entry *inventory.Ruleset, rule inventory.RulesetRule) ruleCall {
	if entry != nil && entry.ID != "" {
		return ruleCall{
			method: "POST", path: zonePath(b.z.Zone.ID, "rulesets", entry.ID, "rules"), body: mustJSON(rule),
			note: "The body is the rule to add to the entry point then (it goes last; send a position to place it elsewhere).",
		}
	}
	var rules []json.RawMessage
	for _, t := range b.targets {
		if t.Phase == phase {
			rules = append(rules, t.Rules...)
		}
	}
	rules = append(rules, mustJSON(rule))
	return ruleCall{
		method: "PUT", path: entrypointPath(b.z.Zone.ID, phase), body: mustJSON(map[string]any{"rules": rules}),
		note: "The zone has no entry point for this phase yet: the body is the whole entry point (the rules this plan creates, then this one); if rules were added since, send them too, as a PUT replaces the whole list.",
	}
}

// verifyEarlier adds the check of replacements an earlier run created, when this run
// creates none but still deletes the old objects they replace; it returns the step id.
//
// Its target is the entry point as the scan read it (the replacements are in it, found by
// ref): apply checks that it still holds exactly those rules before and around every
// removal, as it does for the rules a plan creates.
func (b *builder) verifyEarlier(kinds rulesetKinds, reason, check string) string {
	if existing := entrypoint(b.z, kinds.phase); existing != nil {
		b.targets = append(b.targets, rulesetChange{kinds: kinds, existing: existing}.target(existing.Rules))
	}
	id := string(kinds.verify)
	b.add(phaseVerify, Step{
		ID: id, Kind: kinds.verify, Change: ChangeVerify, Method: "GET",
		Path: entrypointPath(b.z.Zone.ID, kinds.phase), Risk: RiskNone,
		Title:  "Check the " + strings.ReplaceAll(strings.TrimSuffix(string(kinds.verify), ".verify"), "-", " ") + " that an earlier run created",
		Reason: reason,
		Checks: []string{check},
	})
	return id
}

// entrypoint returns the zone's entry point of a phase, nil when it has none.
func entrypoint(z *inventory.ZoneInventory, phase vocab.Phase) *inventory.Ruleset {
	rs, ok := z.Ruleset(phase)
	if !ok {
		return nil
	}
	return &rs
}

// rulesOf returns the rules of an entry point, none when there is no entry point.
func rulesOf(rs *inventory.Ruleset) []inventory.RulesetRule {
	if rs == nil {
		return nil
	}
	return rs.Rules
}

// otherOwner says, when the existing entry point of c holds rules sunset did not write, who
// else may own it and what that means for the rules the plan adds ("" when every rule there
// is sunset's).
func (b *builder) otherOwner(c rulesetChange) string {
	var names []string
	for _, r := range c.existingRules() {
		if !b.wroteBySunset(r) {
			names = append(names, named(r.Description, r.ID))
		}
	}
	if len(names) == 0 {
		return ""
	}
	shown := names
	if len(shown) > 3 {
		shown = append(shown[:3:3], fmt.Sprintf("%d more", len(names)-3))
	}
	return fmt.Sprintf("The %s entry point %s holds %s sunset did not write (%s): someone else manages it (the dashboard, Terraform, a script). sunset apply adds the new rules beside them and keeps every rule there; but if a Terraform configuration manages this ruleset, its next apply removes what sunset adds: then do not apply these rules here, run `sunset fix` on that configuration (it writes them into its cloudflare_ruleset) and apply them with Terraform.",
		c.kinds.phase, c.existing.ID, plural(len(names), "rule", "rules"), strings.Join(shown, ", "))
}

// wroteBySunset reports whether an entry point rule carries a ref sunset gives the rules it
// writes: a firewall rule's id or ref (an old rule's id when it is gone: 32 hex digits that
// are not the rule's own id), rate_limit:ID, waf_override:ID or the mobile redirect's.
func (b *builder) wroteBySunset(r inventory.RulesetRule) bool {
	switch {
	case r.Ref == "" || r.Ref == r.ID:
		return false // the API's default ref: written without one
	case strings.HasPrefix(r.Ref, RateLimitRef("")), strings.HasPrefix(r.Ref, WAFOverrideRef("")), r.Ref == inventory.MobileRedirectRef:
		return true
	case inventory.LooksLikeID(r.Ref):
		return true
	}
	for _, fr := range b.z.FirewallRules {
		if r.Ref == fr.ID || r.Ref == fr.Ref {
			return true
		}
	}
	return false
}

// ruleThere reports whether the zone's entry point of phase holds rule already: a rule with
// its ref (an earlier run's), or one that does the same (package meaning), whoever wrote it.
// When the second, the plan's notes say which rule stands for it.
func (b *builder) ruleThere(phase vocab.Phase, rule inventory.RulesetRule) bool {
	if _, done := b.z.RuleByRef(phase, rule.Ref); done && rule.Ref != "" {
		return true
	}
	want := meaning.Rule(phase, rule)
	for _, r := range rulesOf(entrypoint(b.z, phase)) {
		if meaning.Rule(phase, r) == want {
			b.note(fmt.Sprintf("already there: rule %s (ref %q) of the %s entry point does what the plan's rule %s would: it is not created again", named(r.Description, r.ID), r.Ref, phase, quoteOr(rule.Description, rule.Ref)))
			return true
		}
	}
	return false
}
