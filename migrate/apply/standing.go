package apply

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/meaning"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// An entry point is shared: the rules a plan puts there are recognised by what they do
// (package meaning), never by id or position, and rules someone else wrote are kept and
// named, never required gone.

// keys are the meaning keys of rules in an entry point of phase.
func keys(phase vocab.Phase, rules []inventory.RulesetRule) []meaning.Key {
	out := make([]meaning.Key, len(rules))
	for i, r := range rules {
		out[i] = meaning.Rule(phase, r)
	}
	return out
}

// locate finds, for each wanted rule in order, the live rule that stands for it: the next
// live rule, after the one found for the wanted rule before, that does the same; -1 when
// there is none (not added yet, or gone). A wanted rule not found does not move the search.
func locate(phase vocab.Phase, live, want []inventory.RulesetRule) []int {
	lk, wk := keys(phase, live), keys(phase, want)
	out := make([]int, len(want))
	at := 0
	for j, k := range wk {
		out[j] = -1
		for i := at; i < len(lk); i++ {
			if lk[i] == k {
				out[j], at = i, i+1
				break
			}
		}
	}
	return out
}

// holdsInOrder checks that the live rules hold every wanted rule, in the wanted order (rules
// that do the same stand for each other); it returns the live rules that stand for none, the
// rules someone else wrote, which are kept wherever they are.
func holdsInOrder(phase vocab.Phase, live, want []inventory.RulesetRule) ([]inventory.RulesetRule, error) {
	loc := locate(phase, live, want)
	for j, i := range loc {
		if i >= 0 {
			continue
		}
		if slices.Contains(keys(phase, live), meaning.Rule(phase, want[j])) {
			return nil, fmt.Errorf("holds rule %d of the plan (%s) out of its place", j+1, ruleLabel(want[j]))
		}
		return nil, fmt.Errorf("does not hold rule %d of the plan (%s)", j+1, ruleLabel(want[j]))
	}
	return others(live, loc), nil
}

// others are the live rules no wanted rule was located at.
func others(live []inventory.RulesetRule, loc []int) []inventory.RulesetRule {
	used := make([]bool, len(live))
	for _, i := range loc {
		if i >= 0 {
			used[i] = true
		}
	}
	var out []inventory.RulesetRule
	for i, r := range live {
		if !used[i] {
			out = append(out, r)
		}
	}
	return out
}

// scanRulesKept checks that the rules the entry point held at the scan are still there, in
// the same relative order and doing the same (their labels may change): the plan placed its
// rules among them. Rules added since, by anyone, are allowed.
func scanRulesKept(phase vocab.Phase, live []inventory.RulesetRule, before *inventory.Ruleset) error {
	if before == nil {
		return nil
	}
	at := 0
	for _, b := range before.Rules {
		i := slices.IndexFunc(live, func(l inventory.RulesetRule) bool { return l.ID == b.ID })
		switch {
		case i < 0:
			return fmt.Errorf("rule %s, there at the scan, is gone", ruleLabel(b))
		case i < at:
			return fmt.Errorf("rule %s, there at the scan, moved", ruleLabel(b))
		case meaning.Rule(phase, live[i]) != meaning.Rule(phase, b):
			return fmt.Errorf("rule %s changed since the scan", ruleLabel(b))
		}
		at = i + 1
	}
	return nil
}

// ruleLabel names a rule for people: its description and id.
func ruleLabel(r inventory.RulesetRule) string {
	parts := []string{}
	if r.Description != "" {
		parts = append(parts, fmt.Sprintf("%q", r.Description))
	}
	if r.ID != "" {
		parts = append(parts, r.ID)
	}
	if len(parts) == 0 {
		return fmt.Sprintf("%s %s", r.Action, clipText(r.Expression, 60))
	}
	return strings.Join(parts, " ")
}

// clipText is s cut to n characters, with an ellipsis when cut.
func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// notice records what this run met of other writers, once per text.
func (r *scopeRun) notice(format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	if !slices.Contains(r.res.Notices, text) {
		r.res.Notices = append(r.res.Notices, text)
	}
}

// noteOthers names the rules of an entry point that neither the scan saw nor the plan puts
// there: someone else wrote them; they are kept.
func (r *scopeRun) noteOthers(phase vocab.Phase, rules []inventory.RulesetRule, before *inventory.Ruleset) {
	seen := map[string]bool{}
	if before != nil {
		for _, b := range before.Rules {
			seen[b.ID] = true
		}
	}
	for _, o := range rules {
		if !seen[o.ID] {
			r.notice("kept rule %s of the %s entry point: someone else added it since the scan", ruleLabel(o), phase)
		}
	}
}
