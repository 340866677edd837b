package migrate

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/migrate/customrules"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// keepLeftOut gives each rule the translator left out a manual step, and returns the
// filters those rules use (they stay too).
func (m *firewallMigration) keepLeftOut() map[string]bool {
	keptFilters := map[string]bool{}
	for _, t := range m.kept {
		m.keepRule(t)
		for _, id := range t.FirewallRuleIDs {
			if fr := m.byID[id]; fr != nil && fr.Filter.ID != "" {
				keptFilters[fr.Filter.ID] = true
			}
		}
	}
	return keptFilters
}

// keepRule plans a firewall rule the translator left out: it stays, and an operator decides.
func (m *firewallMigration) keepRule(t customrules.RuleTranslation) {
	why, quotaHit := keptReasons(t)
	resolves, labels := m.keptFindings(t, quotaHit)
	st := Step{
		ID: "firewall-rule.keep:" + strings.Join(t.FirewallRuleIDs, "+"), Kind: KindFirewallRuleKeep,
		Manual: true, Risk: RiskHigh, Resolves: resolves,
		Title:  "Keep firewall rule " + strings.Join(labels, " + ") + " until it can be migrated",
		Reason: "The translator left it out of the custom rules: " + strings.Join(why, "; ") + ".",
		Note:   "Options: " + strings.Join(m.keptOptions(t, quotaHit), "; ") + ". The rule and its filter stay as they are meanwhile.",
		Diffs:  []Diff{{Label: "firewall rule " + strings.Join(t.FirewallRuleIDs, " + "), Old: t.OldExpression, New: t.NewExpression, Changes: t.Changes}},
	}
	if t.Rule != nil {
		// The custom rule as it would be added once the blocker is gone.
		call := m.b.manualRuleCall(vocab.PhaseCustomRules, m.entry, *t.Rule)
		st.Method, st.Path, st.Body = call.method, call.path, call.body
		st.Note += " " + call.note
	}
	m.b.add(phaseManual, st)
}

// keptReasons are the errors that kept a rule out, and whether the quota is one of them.
func keptReasons(t customrules.RuleTranslation) (why []string, quotaHit bool) {
	for _, d := range t.Diagnostics {
		if d.Severity == customrules.SeverityError {
			why = append(why, d.String())
			quotaHit = quotaHit || d.Code == customrules.CodeQuota
		}
	}
	if t.Rule == nil && len(why) == 0 {
		why = append(why, "no custom rule can be made from it")
	}
	return why, quotaHit
}

// keptOptions are what an operator can do about a kept rule.
func (m *firewallMigration) keptOptions(t customrules.RuleTranslation, quotaHit bool) []string {
	switch {
	case quotaHit:
		return []string{
			fmt.Sprintf("merge expressions: custom rules with the same action can be combined into one rule with \"or\" (the plan allows %d custom rules and the entry point already holds %d)", m.res.Quota, len(m.existing)),
			"upgrade the zone's plan for a larger custom rule quota",
			"drop rules that are no longer needed (paused ones first)",
		}
	case t.Rule == nil:
		return []string{"fix the expression (it does not parse or uses an unknown action) in the firewall rule, then build the plan again"}
	}
	return []string{"rewrite the expression so the zone's plan allows it (e.g. wildcard, contains, starts_with instead of matches), or upgrade the plan, then build the plan again"}
}

// keptFindings are the findings a kept rule's step settles (the zone's quota finding too
// when the quota kept it out), and the labels of its firewall rules.
func (m *firewallMigration) keptFindings(t customrules.RuleTranslation, quotaHit bool) (resolves, labels []string) {
	for _, id := range t.FirewallRuleIDs {
		resolves = append(resolves, m.b.findings(vocab.FirewallRules, vocab.KindFirewallRule, id)...)
		if fr := m.byID[id]; fr != nil {
			labels = append(labels, named(fr.Description, id))
		}
	}
	if quotaHit {
		resolves = append(resolves, m.b.findings(vocab.FirewallRules, vocab.KindZone, m.zid)...)
	}
	return resolves, labels
}

// reviewExpressions plans the expression findings still open: cf.threat_score in migrated
// filters (the custom rule is created disabled), and deprecated fields in rules of existing
// rulesets. No call can fix them without a person's judgement.
func (m *firewallMigration) reviewExpressions(verify string) {
	for _, it := range m.openExpressions() {
		resolves := m.b.findings(vocab.ThreatScoreField, vocab.KindExpression, it.ID)
		resolves = append(resolves, m.b.findings(vocab.GeoIPFieldNames, vocab.KindExpression, it.ID)...)
		keys := m.expressionKeys(it.ID)
		for _, k := range keys {
			title := "Review the expression of " + named(it.Name, it.ID)
			if len(keys) > 1 { // the filter's: name each firewall rule that uses it
				title = "Review the expression of " + named(m.byIDOrRef(k), k)
			}
			st := Step{
				ID: "expression.review:" + k, Kind: KindExpressionReview, Manual: true,
				Resolves: resolves, Risk: RiskMedium, Title: title,
				Reason: "It uses cf.threat_score, which is always 0 now (rules using it silently change meaning), or a renamed field in a rule the plan does not rewrite.",
				Note:   "Replace cf.threat_score with a bot or WAF attack score condition (cf.bot_management.score, cf.waf.score, plan permitting) and ip.geoip.* with ip.src.*; a migrated rule using cf.threat_score is created disabled until then.",
			}
			if verify != "" {
				st.DependsOn = []string{verify}
			}
			m.b.add(phaseManual, st)
		}
	}
}

// byIDOrRef is the description of the firewall rule whose ref, else id, is k ("" if none).
func (m *firewallMigration) byIDOrRef(k string) string {
	for _, fr := range m.rules {
		if fr.Ref == k || fr.Ref == "" && fr.ID == k {
			return fr.Description
		}
	}
	return ""
}

// openExpressions are the expressions with open cf.threat_score or renamed-field findings,
// each once (the first finding's resource), by id.
func (m *firewallMigration) openExpressions() []scanner.Resource {
	var items []scanner.Resource
	for _, f := range m.b.open() {
		if f.Resource.Kind != vocab.KindExpression {
			continue
		}
		if f.RuleID != vocab.ThreatScoreField && f.RuleID != vocab.GeoIPFieldNames {
			continue
		}
		items = append(items, f.Resource)
	}
	sort.Slice(items, func(i, j int) bool { return items[i].ID < items[j].ID })
	var out []scanner.Resource
	for i, it := range items {
		if i == 0 || it.ID != items[i-1].ID {
			out = append(out, it)
		}
	}
	return out
}

// expressionKeys name an expression's review steps so that they keep their ids across the
// migration: a custom rule is known by its ref (the firewall rule's ref or id), and a filter
// by the refs of the custom rules it becomes: one per firewall rule using it, since each of
// them carries the expression after the migration and is reviewed on its own then.
func (m *firewallMigration) expressionKeys(id string) []string {
	z := m.b.z
	for _, rs := range z.Rulesets {
		for _, r := range rs.Rules {
			if r.ID == id && r.Ref != "" {
				return []string{r.Ref}
			}
		}
	}
	var users []inventory.FirewallRule
	for _, fr := range z.FirewallRules {
		if fr.Filter.ID == id {
			users = append(users, fr)
		}
	}
	sort.Slice(users, func(i, j int) bool { return users[i].ID < users[j].ID })
	var keys []string
	for _, fr := range users {
		k := fr.ID
		if fr.Ref != "" {
			k = fr.Ref
		}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return []string{id}
	}
	return keys
}
