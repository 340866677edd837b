package migrate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// rulesetChange adds rules to a zone's entry point of one phase.
type rulesetChange struct {
	prefix string // step kind prefix: custom-rules, rate-limiting-rules, managed-rules
	phase  vocab.Phase
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

// plan emits the create step(s) and the verify step, records the target, and returns the
// verify step's id ("" when there is nothing to add).
//
// Decision: an entry point that does not exist yet is created with one PUT (it holds only
// the new rules, so nothing can be lost). An entry point that exists gets one POST per new
// rule with an explicit position, never a PUT: a PUT replaces the whole list, and a custom
// rule added by someone between the scan and the apply would be deleted by it.
func (b *builder) plan(c rulesetChange) string {
	if len(c.front)+len(c.back) == 0 {
		return ""
	}
	zid := b.z.Zone.ID
	var existing []inventory.RulesetRule
	if c.existing != nil {
		existing = c.existing.Rules
	}
	final := make([]inventory.RulesetRule, 0, len(existing)+len(c.front)+len(c.back))
	final = append(final, c.front...)
	final = append(final, existing...)
	final = append(final, c.back...)

	t := Target{Phase: c.phase, Name: "default"}
	if c.existing != nil && c.existing.Name != "" {
		t.Name = c.existing.Name
	}
	for _, r := range final {
		t.Rules = append(t.Rules, targetRule(r))
	}
	n := len(c.front) + len(c.back)
	var createIDs []string
	if c.existing == nil {
		id := c.prefix + ".create"
		createIDs = append(createIDs, id)
		b.add(phaseCreate, Step{
			ID: id, Kind: c.prefix + ".create", Change: ChangeCreate,
			Method: "PUT", Path: entrypointPath(zid, c.phase),
			Body:     mustJSON(map[string]any{"rules": final}),
			Resolves: c.resolves, Risk: c.risk, Derived: c.derived,
			Title:  fmt.Sprintf("Create the %s entry point with %s", c.phase, plural(n, c.what, c.whats)),
			Reason: c.reason + " The zone has no entry point for this phase yet, so one PUT creates it with exactly these rules.",
			Note:   c.note, Diffs: c.diffs,
		})
	} else {
		t.RulesetID = c.existing.ID
		added := map[int]bool{}
		for i := range c.front {
			added[i] = true
		}
		for i := range c.back {
			added[len(c.front)+len(existing)+i] = true
		}
		prev := ""
		for k, r := range final {
			if !added[k] {
				continue
			}
			id := fmt.Sprintf("%s.add:%d", c.prefix, k+1)
			body := map[string]json.RawMessage{}
			_ = json.Unmarshal(mustJSON(r), &body)
			body["position"] = mustJSON(map[string]int{"index": k + 1})
			st := Step{
				ID: id, Kind: c.prefix + ".add", Change: ChangeCreate,
				Method: "POST", Path: zonePath(zid, "rulesets", c.existing.ID, "rules"),
				Body: mustJSON(body), Risk: c.risk, Derived: c.derived,
				Title:  fmt.Sprintf("Add %s %s at position %d of the %s entry point", c.what, quoteOr(r.Description, string(r.Action)), k+1, c.phase),
				Reason: c.reason + fmt.Sprintf(" The entry point %s exists with %s: rules are added one by one at their position (a PUT would replace rules added since the scan).", c.existing.ID, plural(len(existing), "rule", "rules")),
			}
			if prev != "" {
				st.DependsOn = []string{prev}
			} else {
				st.Resolves, st.Note, st.Diffs = c.resolves, c.note, c.diffs
			}
			b.add(phaseCreate, st)
			createIDs = append(createIDs, id)
			prev = id
		}
	}
	b.targets = append(b.targets, t)

	checks := []string{fmt.Sprintf("the entry point of phase %s holds %s, in this order:", c.phase, plural(len(final), "rule", "rules"))}
	for k, r := range final {
		en := "enabled"
		if r.Enabled != nil && !*r.Enabled {
			en = "disabled"
		}
		checks = append(checks, fmt.Sprintf("%d. %s, %s, %s: %s", k+1, r.Action, en, quoteOr(r.Description, "(no description)"), r.Expression))
	}
	verify := c.prefix + ".verify"
	b.add(phaseVerify, Step{
		ID: verify, Kind: c.prefix + ".verify", Change: ChangeVerify,
		Method: "GET", Path: entrypointPath(zid, c.phase), DependsOn: createIDs, Risk: RiskNone,
		Title:  fmt.Sprintf("Check the %s entry point", c.phase),
		Reason: "The old objects are only paused or deleted once their replacements are confirmed in place.",
		Checks: checks,
	})
	return verify
}

func quoteOr(s, alt string) string {
	if strings.TrimSpace(s) == "" {
		return alt
	}
	return fmt.Sprintf("%q", s)
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
func (b *builder) verifyEarlier(prefix string, phase vocab.Phase, reason, check string) string {
	id := prefix + ".verify"
	b.add(phaseVerify, Step{
		ID: id, Kind: prefix + ".verify", Change: ChangeVerify, Method: "GET",
		Path: entrypointPath(b.z.Zone.ID, phase), Risk: RiskNone,
		Title:  "Check the " + strings.ReplaceAll(prefix, "-", " ") + " that an earlier run created",
		Reason: reason,
		Checks: []string{check},
	})
	return id
}
