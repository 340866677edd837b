package scanner

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// ruleLabel names a firewall rule for messages.
func ruleLabel(r *inventory.FirewallRule) string { return named(r.Description, r.ID) }

// customRuleAction says what a firewall rule action becomes in a custom rule.
func customRuleAction(r *inventory.FirewallRule) string {
	switch r.Action {
	case vocab.ActionAllow:
		return `skip with action_parameters {"ruleset": "current"}`
	case vocab.ActionBypass:
		if len(r.Products) == 0 {
			return "skip (no products listed: choose what to skip)"
		}
		return fmt.Sprintf(`skip with action_parameters {"products": [%s]}`, strings.Join(r.Products, ", "))
	case vocab.ActionLog:
		return "log (Enterprise only)"
	case vocab.ActionBlock, vocab.ActionChallenge, vocab.ActionJSChallenge, vocab.ActionManagedChallenge:
		return string(r.Action)
	}
	return fmt.Sprintf("no known custom rule action for %q", r.Action)
}

// parseNote says whether an expression parses, with the error position when it does not.
func parseNote(info ExprInfo) string {
	switch {
	case info.Templated:
		return "holds template placeholders"
	case info.Valid:
		return "parses"
	case info.Line > 0:
		return fmt.Sprintf("does not parse (%d:%d: %s)", info.Line, info.Column, info.Error)
	}
	return fmt.Sprintf("does not parse (%s)", info.Error)
}

// firewallRules reports every firewall rule, then the plan checks that can block a migration:
// the custom rules quota of the zone, regular expressions below Business, log below Enterprise.
func (s *liveScan) firewallRules(z *inventory.ZoneInventory) {
	r, ok := s.rule(vocab.FirewallRules)
	if !ok || len(z.FirewallRules) == 0 {
		return
	}
	sc := zoneScope(z)
	rank := inventory.PlanRank(z.Zone.Plan.LegacyID)
	plan := strings.ToLower(z.Zone.Plan.LegacyID)
	rules := z.FirewallRulesWithFilters()
	for i := range rules {
		fr := &rules[i]
		expr := fr.Filter.Expression
		var info ExprInfo
		known := expr != ""
		if known {
			info = s.inspect(expr)
		}
		prio := "no priority (runs after all prioritised rules)"
		if fr.Priority != nil {
			prio = fmt.Sprintf("priority %d", *fr.Priority)
		}
		state := "active"
		if fr.Paused {
			state = "paused (becomes enabled: false)"
		}
		action := string(fr.Action)
		if fr.Action == vocab.ActionBypass && len(fr.Products) > 0 {
			action += " (products " + strings.Join(fr.Products, ", ") + ")"
		}
		filter := "its filter"
		if fr.Filter.ID != "" {
			filter += " " + fr.Filter.ID
		}
		parse := "(expression not in the snapshot)"
		if known {
			parse = parseNote(info)
		}
		msg := fmt.Sprintf("Firewall rule %s: action %s, %s, %s; %s %s. The firewall rules API is %s: recreate the rule as a custom rule (phase %s) with action %s.",
			ruleLabel(fr), action, prio, state, filter, parse, r.life(s.asOf), vocab.PhaseCustomRules, customRuleAction(fr))
		if known && !info.Valid && !info.Templated {
			msg += " Fix the expression first: the service rejects it in a custom rule."
		}
		s.add(r, r.sev, sc, Resource{Kind: vocab.KindFirewallRule, ID: fr.ID, Name: fr.Description}, "", msg)

		if rank >= 0 && rank < 2 && info.UsesRegex {
			s.add(r, r.sev, sc, Resource{Kind: vocab.KindFirewallRule, ID: fr.ID, Name: fr.Description}, "plan:regex",
				fmt.Sprintf("Firewall rule %s uses the matches (~) operator, which custom rules allow only on Business and Enterprise plans; zone %s is on the %s plan: rewrite the expression without regular expressions (contains, wildcard, starts_with, ends_with) or upgrade before migrating.",
					ruleLabel(fr), z.Zone.Name, plan))
		}
		if rank >= 0 && rank < 3 && fr.Action == vocab.ActionLog {
			s.add(r, r.sev, sc, Resource{Kind: vocab.KindFirewallRule, ID: fr.ID, Name: fr.Description}, "plan:log",
				fmt.Sprintf("Firewall rule %s uses the log action, which custom rules allow only on the Enterprise plan; zone %s is on the %s plan: this rule cannot be migrated as is (drop it or choose another action).",
					ruleLabel(fr), z.Zone.Name, plan))
		}
	}
	if rank < 0 {
		return
	}
	existing := 0
	if rs, ok := z.Ruleset(vocab.PhaseCustomRules); ok {
		existing = len(rs.Rules)
	}
	quota := inventory.CustomRulesQuota(z.Zone.Plan.LegacyID)
	if total := len(z.FirewallRules) + existing; total > quota {
		s.add(r, r.sev, sc, Resource{Kind: vocab.KindZone, ID: z.Zone.ID, Name: z.Zone.Name}, "quota:custom-rules",
			fmt.Sprintf("Zone %s (%s plan) has %s and %s; the %s plan allows %d custom rules, so %d will not fit after migration: delete, merge or consolidate rules (or upgrade the plan) before migrating.",
				z.Zone.Name, plan, plural(len(z.FirewallRules), "firewall rule", "firewall rules"),
				plural(existing, "existing custom rule", "existing custom rules"), plan, quota, total-quota))
	}
}

// filters reports the filters a rule finding does not already cover: orphans (no firewall rule
// refers to them) and filters shared by several rules. A filter used by exactly one rule is
// named in that rule's finding and migrates with it, so it gets no finding of its own.
func (s *liveScan) filters(z *inventory.ZoneInventory) {
	r, ok := s.rule(vocab.Filters)
	if !ok || len(z.Filters) == 0 {
		return
	}
	sc := zoneScope(z)
	users := map[string][]*inventory.FirewallRule{}
	for i := range z.FirewallRules {
		fr := &z.FirewallRules[i]
		if fr.Filter.ID != "" {
			users[fr.Filter.ID] = append(users[fr.Filter.ID], fr)
		}
	}
	for i := range z.Filters {
		f := &z.Filters[i]
		info := s.inspect(f.Expression)
		paused := ""
		if f.Paused {
			paused = " (paused)"
		}
		res := Resource{Kind: vocab.KindFilter, ID: f.ID, Name: f.Description}
		rules := users[f.ID]
		switch {
		case len(rules) == 0:
			s.add(r, r.sev, sc, res, "orphan",
				fmt.Sprintf("Filter %s%s is not referenced by any firewall rule; its expression %s. The filters API is %s; custom rules carry their expression inline, so this filter is safe to delete after migration (check first that no other feature, such as a zone lockdown or user agent rule, uses it).",
					named(f.Description, f.ID), paused, parseNote(info), r.life(s.asOf)))
		case len(rules) > 1:
			names := make([]string, len(rules))
			for j, fr := range rules {
				names[j] = ruleLabel(fr)
			}
			sort.Strings(names)
			s.add(r, r.sev, sc, res, "shared",
				fmt.Sprintf("Filter %s%s is shared by %d firewall rules: %s; its expression %s. The filters API is %s; custom rules carry their expression inline, so each rule gets its own copy, and later edits must be made in every copy.",
					named(f.Description, f.ID), paused, len(rules), listN(names, 10), parseNote(info), r.life(s.asOf)))
		}
	}
}
