package migrate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sunsetscan/sunset/migrate/customrules"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// firewallTranslator plans firewall rules and filters -> custom rules with the customrules
// translator: create the custom rules (merged with the existing entry point), verify them,
// pause the old rules, delete them, then delete the filters no remaining rule uses. Rules
// the translator leaves out (an expression the API would reject, a feature above the plan,
// the quota) stay as firewall rules, each with a manual step that says why and what to do.
// Expression findings still open afterwards (cf.threat_score, renamed fields in rules the
// plan does not rewrite) get a review step each.
type firewallTranslator struct{}

func (firewallTranslator) translate(b *builder) {
	m := &firewallMigration{b: b, zid: b.z.Zone.ID}
	if !b.has(vocab.FirewallRules) || len(b.z.FirewallRules) == 0 {
		m.deleteOrphanFilters(nil)
		m.reviewExpressions("")
		return
	}
	m.translateRules()
	verify := m.createCustomRules()
	deleteOf := m.retireMigrated(verify)
	keptFilters := m.keepLeftOut()
	users := filterUsers(m.rules)
	m.deleteUnusedFilters(users, deleteOf, keptFilters)
	m.deleteOrphanFilters(users)
	m.reviewExpressions(verify)
}

// firewallMigration is the firewall rules of one zone on their way to custom rules.
type firewallMigration struct {
	b   *builder
	zid string

	rules    []inventory.FirewallRule // with their filters
	byID     map[string]*inventory.FirewallRule
	entry    *inventory.Ruleset // the custom rules entry point; nil when none
	existing []inventory.RulesetRule
	res      *customrules.Result
	// migrated have a custom rule in the new entry point (made now or by an earlier run);
	// kept were left out by the translator.
	migrated, kept []customrules.RuleTranslation
}

// translateRules runs the customrules translator on the zone's rules.
func (m *firewallMigration) translateRules() {
	z := m.b.z
	m.rules = z.FirewallRulesWithFilters()
	m.byID = map[string]*inventory.FirewallRule{}
	for i := range m.rules {
		m.byID[m.rules[i].ID] = &m.rules[i]
	}
	m.entry = entrypoint(z, vocab.PhaseCustomRules)
	m.existing = rulesOf(m.entry)
	m.res = customrules.Translate(m.rules, customrules.Options{Plan: strings.ToLower(z.Zone.Plan.LegacyID), Existing: m.existing})
	for _, t := range m.res.Rules {
		if t.Index >= 0 {
			m.migrated = append(m.migrated, t)
		} else {
			m.kept = append(m.kept, t)
		}
	}
}

// createCustomRules plans the custom rules the migrated firewall rules become and their
// check, and returns the verify step's id ("" when there is nothing to check).
func (m *firewallMigration) createCustomRules() string {
	setNotes := m.setNotes()
	resolves, diffs := m.createDiffs()
	risk := RiskMedium
	if len(m.kept) > 0 {
		risk = RiskHigh
	}
	for _, d := range m.differences() {
		m.b.note("declared difference: " + d)
	}
	verify := m.b.changeRuleset(rulesetChange{
		kinds: customRuleKinds, existing: m.entry,
		back: m.res.Ruleset[len(m.existing):], what: "custom rule", whats: "custom rules",
		resolves: resolves, risk: risk,
		reason: fmt.Sprintf("Firewall rules and filters are deprecated; each migrated firewall rule becomes a custom rule in phase %s, in the order that keeps the old outcome (priority, then action precedence).", vocab.PhaseCustomRules),
		note:   strings.Join(setNotes, "\n"),
		diffs:  diffs,
	})
	m.alreadyThere()
	if verify == "" && len(m.migrated) > 0 {
		// Everything was migrated already: the old rules still need to go, after a check.
		verify = m.b.verifyEarlier(customRuleKinds,
			"The firewall rules below already have their custom rules (an earlier run's, found by ref, or rules that do the same, found by what they do); confirm them before the old rules go.",
			"every firewall rule deleted below has its custom rule in place: one whose ref is its id or ref, or one that does the same")
	}
	return verify
}

// alreadyThere notes each firewall rule for which a custom rule someone else wrote does the
// same (recognised by meaning): no custom rule is created for it, and which one stands for
// it is said.
func (m *firewallMigration) alreadyThere() {
	for _, t := range m.migrated {
		if t.Match != customrules.MatchMeaning || t.Rule == nil {
			continue
		}
		src := m.byID[t.FirewallRuleIDs[0]]
		label := strings.Join(t.FirewallRuleIDs, " + ")
		if src != nil {
			label = named(src.Description, label)
		}
		m.b.note(fmt.Sprintf("already there: firewall rule %s is done by custom rule %s (ref %q, position %d), which does the same (same action, parameters, enabled and expression): no custom rule is created for it", label, named(t.Rule.Description, t.Rule.ID), t.Rule.Ref, t.Index+1))
	}
}

// setNotes are the translation's set-level remarks (order that cannot be kept, quota), added
// to the zone notes and returned for the create step.
func (m *firewallMigration) setNotes() []string {
	var notes []string
	for _, d := range m.res.Diagnostics {
		notes = append(notes, fmt.Sprintf("custom rules (%s, %s): %s", d.Severity, d.Code, d.Message))
	}
	m.b.note(notes...)
	return notes
}

// createDiffs are the diffs of the custom rules created now, and the findings the creation
// itself settles: renamed fields in their filters (the old names are gone from the new
// expressions).
func (m *firewallMigration) createDiffs() (resolves []string, diffs []Diff) {
	for _, t := range m.migrated {
		if t.Index < len(m.existing) {
			continue // migrated by an earlier run: nothing to create
		}
		if t.FilterID != "" {
			resolves = append(resolves, m.b.findings(vocab.GeoIPFieldNames, vocab.KindExpression, t.FilterID)...)
		}
		diffs = append(diffs, m.diff(t))
	}
	return resolves, diffs
}

// diff shows a firewall rule and the custom rule it becomes, actions included.
func (m *firewallMigration) diff(t customrules.RuleTranslation) Diff {
	d := Diff{Label: "firewall rule " + strings.Join(t.FirewallRuleIDs, " + "), Old: t.OldExpression, New: t.NewExpression}
	if src := m.byID[t.FirewallRuleIDs[0]]; src != nil {
		d.Label += " " + quoteOr(src.Description, "")
		d.Old = fmt.Sprintf("%s: %s", oldActionLabel(m.byID, t.FirewallRuleIDs), t.OldExpression)
	}
	if t.Rule != nil {
		d.New = fmt.Sprintf("%s: %s", newActionLabel(*t.Rule), t.NewExpression)
	}
	d.Changes = append(d.Changes, t.Changes...)
	for _, dg := range t.Diagnostics {
		d.Changes = append(d.Changes, fmt.Sprintf("%s: %s", dg.Severity, dg.Message))
	}
	return d
}

// differences are the declared differences in behaviour: kept rules no longer ordered with
// the migrated ones, rules created disabled (cf.threat_score), order that cannot be kept.
func (m *firewallMigration) differences() []string {
	var out []string
	if len(m.kept) > 0 {
		out = append(out, fmt.Sprintf("%s stay as firewall rules while the others become custom rules; until they are migrated, custom rules and firewall rules are evaluated separately, so an allow or a block among the kept rules no longer orders with the migrated ones", plural(len(m.kept), "rule", "rules")))
	}
	for _, t := range m.migrated {
		for _, dg := range t.Diagnostics {
			if dg.Code == customrules.CodeThreatScore {
				out = append(out, fmt.Sprintf("firewall rule %s uses cf.threat_score (always 0 now): its custom rule is created disabled", strings.Join(t.FirewallRuleIDs, " + ")))
			}
		}
	}
	for _, d := range m.res.Diagnostics {
		if d.Code == customrules.CodeOrder && d.Severity != customrules.SeverityInfo {
			out = append(out, "order: "+d.Message)
		}
	}
	return out
}

// retireMigrated pauses, then deletes, each migrated firewall rule after the check, and
// returns the delete step of each rule by id.
func (m *firewallMigration) retireMigrated(verify string) map[string]string {
	deleteOf := map[string]string{}
	for _, t := range m.migrated {
		for _, id := range t.FirewallRuleIDs {
			if fr := m.byID[id]; fr != nil {
				deleteOf[id] = m.retireRule(fr, verify)
			}
		}
	}
	return deleteOf
}

// retireRule pauses an active firewall rule and deletes it; it returns the delete step's id.
func (m *firewallMigration) retireRule(fr *inventory.FirewallRule, verify string) string {
	label := named(fr.Description, fr.ID)
	dep := verify
	if !fr.Paused {
		pause := string(KindFirewallRulePause) + ":" + fr.ID
		m.b.add(phasePause, Step{
			ID: pause, Kind: KindFirewallRulePause, Change: ChangeUpdate,
			Method: "PUT", Path: zonePath(m.zid, "firewall", "rules", fr.ID),
			Body:      pausedRuleBody(*fr),
			DependsOn: []string{verify}, Risk: RiskMedium,
			Title:  "Pause firewall rule " + label,
			Reason: "Its custom rule is in place; pausing first leaves a way back (un-pause) while traffic is watched, before the rule is deleted.",
			Note:   maintenanceNote,
		})
		dep = pause
	}
	del := string(KindFirewallRuleDelete) + ":" + fr.ID
	m.b.add(phaseDelete, Step{
		ID: del, Kind: KindFirewallRuleDelete, Change: ChangeDelete,
		Method: "DELETE", Path: zonePath(m.zid, "firewall", "rules", fr.ID),
		DependsOn: []string{dep}, Risk: RiskMedium,
		Resolves: m.b.findings(vocab.FirewallRules, vocab.KindFirewallRule, fr.ID),
		Title:    "Delete firewall rule " + label,
		Reason:   "The rule is replaced by a custom rule; the rule side goes first, then its filter (the spec's deletion order).",
		Note:     "Deleting the rule leaves its filter in place (whoever created it); the filter goes in its own step. " + maintenanceNote,
	})
	m.b.retire("cloudflare_firewall_rule", fr.ID)
	return del
}

// maintenanceNote is what to know about writes to the deprecated firewall rules API.
const maintenanceNote = "Since 2025 the firewall rules API may answer writes with error 10020 (maintenance mode): nothing changed; retry the step later."

// oldActionLabel renders the action(s) of the source firewall rules.
func oldActionLabel(byID map[string]*inventory.FirewallRule, ids []string) string {
	var parts []string
	for _, id := range ids {
		fr := byID[id]
		if fr == nil {
			continue
		}
		a := string(fr.Action)
		if len(fr.Products) > 0 {
			a += " [" + strings.Join(fr.Products, " ") + "]"
		}
		if fr.Priority != nil {
			a += fmt.Sprintf(" @%d", *fr.Priority)
		}
		if fr.Paused {
			a += " (paused)"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " + ")
}

// newActionLabel renders a custom rule's action with its parameters.
func newActionLabel(r inventory.RulesetRule) string {
	a := string(r.Action)
	if len(r.ActionParameters) > 0 {
		a += " " + compactJSON(r.ActionParameters)
	}
	if r.Enabled != nil && !*r.Enabled {
		a += " (disabled)"
	}
	return a
}

// pausedRuleBody is the whole firewall rule with paused set, for PUT
// /zones/:id/firewall/rules/:id: the way the SDKs pause a rule (the PATCH operation is
// documented for the priority only). The filter is referenced by its id.
func pausedRuleBody(fr inventory.FirewallRule) json.RawMessage {
	body := map[string]any{"id": fr.ID, "action": fr.Action, "paused": true, "filter": map[string]string{"id": fr.Filter.ID}}
	if fr.Priority != nil {
		body["priority"] = *fr.Priority
	}
	if fr.Description != "" {
		body["description"] = fr.Description
	}
	if fr.Ref != "" {
		body["ref"] = fr.Ref
	}
	if len(fr.Products) > 0 {
		body["products"] = fr.Products
	}
	return mustJSON(body)
}
