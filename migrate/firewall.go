package migrate

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/migrate/customrules"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// firewall plans firewall rules and filters -> custom rules with the translator: create the
// custom rules (merged with the existing entry point), verify them, pause the old rules,
// delete them, then delete the filters no remaining rule uses. Rules the translator leaves
// out (an expression the API would reject, a feature above the plan, the quota) stay as
// firewall rules, each with a manual step that says why and what to do.
func (b *builder) firewall() {
	z := b.z
	if !b.has(vocab.FirewallRules) || len(z.FirewallRules) == 0 {
		b.orphanFilters(nil)
		b.expressionReviews("")
		return
	}
	zid := z.Zone.ID
	filterByID := map[string]inventory.Filter{}
	for _, f := range z.Filters {
		filterByID[f.ID] = f
	}
	rules := z.FirewallRulesWithFilters()
	byID := map[string]*inventory.FirewallRule{}
	for i := range rules {
		byID[rules[i].ID] = &rules[i]
	}
	var existing []inventory.RulesetRule
	entry, hasEntry := z.Ruleset(vocab.PhaseCustomRules)
	if hasEntry {
		existing = entry.Rules
	}
	res := customrules.Translate(rules, customrules.Options{Plan: strings.ToLower(z.Zone.Plan.LegacyID), Existing: existing})

	var migrated, kept []customrules.RuleTranslation
	for _, t := range res.Rules {
		if t.Index >= 0 {
			migrated = append(migrated, t)
		} else {
			kept = append(kept, t)
		}
	}
	newRules := res.Ruleset[len(existing):]

	// Set-level remarks (order that cannot be kept, quota) go to the zone notes; the ones
	// that are not just information are declared differences of behaviour.
	var setNotes []string
	for _, d := range res.Diagnostics {
		setNotes = append(setNotes, fmt.Sprintf("custom rules (%s, %s): %s", d.Severity, d.Code, d.Message))
	}
	b.notes = append(b.notes, setNotes...)

	// The create step resolves what the creation itself settles: renamed fields in the
	// filters of the migrated rules (the old names are gone from the new expressions).
	var createResolves []string
	var diffs []Diff
	for _, t := range migrated {
		if t.Index < len(existing) {
			continue // migrated by an earlier run: nothing to create
		}
		if t.FilterID != "" {
			createResolves = append(createResolves, b.findings(vocab.GeoIPFieldNames, vocab.KindExpression, t.FilterID)...)
		}
		d := Diff{Label: "firewall rule " + strings.Join(t.FirewallRuleIDs, " + "), Old: t.OldExpression, New: t.NewExpression}
		if src := byID[t.FirewallRuleIDs[0]]; src != nil {
			d.Label += " " + quoteOr(src.Description, "")
			d.Old = fmt.Sprintf("%s: %s", oldActionLabel(byID, t.FirewallRuleIDs), t.OldExpression)
		}
		if t.Rule != nil {
			d.New = fmt.Sprintf("%s: %s", newActionLabel(*t.Rule), t.NewExpression)
		}
		d.Changes = append(d.Changes, t.Changes...)
		for _, dg := range t.Diagnostics {
			d.Changes = append(d.Changes, fmt.Sprintf("%s: %s", dg.Severity, dg.Message))
		}
		diffs = append(diffs, d)
	}
	risk := RiskMedium
	var differences []string
	if len(kept) > 0 {
		risk = RiskHigh
		differences = append(differences, fmt.Sprintf("%s stay as firewall rules while the others become custom rules; until they are migrated, custom rules and firewall rules are evaluated separately, so an allow or a block among the kept rules no longer orders with the migrated ones", plural(len(kept), "rule", "rules")))
	}
	for _, t := range migrated {
		for _, dg := range t.Diagnostics {
			if dg.Code == customrules.CodeThreatScore {
				differences = append(differences, fmt.Sprintf("firewall rule %s uses cf.threat_score (always 0 now): its custom rule is created disabled", strings.Join(t.FirewallRuleIDs, " + ")))
			}
		}
	}
	for _, d := range res.Diagnostics {
		if d.Code == customrules.CodeOrder && d.Severity != customrules.SeverityInfo {
			differences = append(differences, "order: "+d.Message)
		}
	}
	for _, d := range differences {
		b.notes = append(b.notes, "declared difference: "+d)
	}

	verify := b.plan(rulesetChange{
		prefix: "custom-rules", phase: vocab.PhaseCustomRules, existing: entryOrNil(entry, hasEntry),
		back: newRules, what: "custom rule", whats: "custom rules",
		resolves: createResolves, risk: risk,
		reason: fmt.Sprintf("Firewall rules and filters are deprecated; each migrated firewall rule becomes a custom rule in phase %s, in the order that keeps the old outcome (priority, then action precedence).", vocab.PhaseCustomRules),
		note:   strings.Join(setNotes, "\n"),
		diffs:  diffs,
	})
	if verify == "" && len(migrated) > 0 {
		// Everything was migrated by an earlier run: the old rules still need to go, after a check.
		verify = b.verifyEarlier("custom-rules", vocab.PhaseCustomRules,
			"The firewall rules below already have their custom rules (matched by ref); confirm them before the old rules go.",
			"every firewall rule deleted below has a custom rule whose ref is its id or ref")
	}

	// Pause, then delete, each migrated firewall rule.
	deleteOf := map[string]string{}
	for _, t := range migrated {
		for _, id := range t.FirewallRuleIDs {
			fr := byID[id]
			if fr == nil {
				continue
			}
			label := named(fr.Description, fr.ID)
			dep := verify
			if !fr.Paused {
				pause := "firewall-rule.pause:" + id
				b.add(phasePause, Step{
					ID: pause, Kind: "firewall-rule.pause", Change: ChangeUpdate,
					Method: "PUT", Path: zonePath(zid, "firewall", "rules", id),
					Body:      pausedRuleBody(*fr),
					DependsOn: []string{verify}, Risk: RiskMedium,
					Title:  "Pause firewall rule " + label,
					Reason: "Its custom rule is in place; pausing first leaves a way back (un-pause) while traffic is watched, before the rule is deleted.",
					Note:   maintenanceNote,
				})
				dep = pause
			}
			del := "firewall-rule.delete:" + id
			deleteOf[id] = del
			b.add(phaseDelete, Step{
				ID: del, Kind: "firewall-rule.delete", Change: ChangeDelete,
				Method: "DELETE", Path: zonePath(zid, "firewall", "rules", id),
				DependsOn: []string{dep}, Risk: RiskMedium,
				Resolves: b.findings(vocab.FirewallRules, vocab.KindFirewallRule, id),
				Title:    "Delete firewall rule " + label,
				Reason:   "The rule is replaced by a custom rule; the rule side goes first, then its filter (the spec's deletion order).",
				Note:     "Deleting the rule leaves its filter in place (whoever created it); the filter goes in its own step. " + maintenanceNote,
			})
			b.retired = append(b.retired, Retired{Type: "cloudflare_firewall_rule", ID: id})
		}
	}

	// Kept rules: a manual step each, with the reason and the options.
	keptFilter := map[string]bool{}
	for _, t := range kept {
		b.keptRule(t, byID, entryOrNil(entry, hasEntry), len(existing), res.Quota)
		for _, id := range t.FirewallRuleIDs {
			if fr := byID[id]; fr != nil && fr.Filter.ID != "" {
				keptFilter[fr.Filter.ID] = true
			}
		}
	}

	// Filters: deleted only when every rule using them is deleted by this plan.
	users := map[string][]string{}
	for _, fr := range rules {
		if fr.Filter.ID != "" {
			users[fr.Filter.ID] = append(users[fr.Filter.ID], fr.ID)
		}
	}
	var filterIDs []string
	for id := range users {
		filterIDs = append(filterIDs, id)
	}
	sort.Strings(filterIDs)
	for _, fid := range filterIDs {
		if keptFilter[fid] {
			continue
		}
		var deps []string
		all := true
		for _, rid := range users[fid] {
			if d, ok := deleteOf[rid]; ok {
				deps = append(deps, d)
			} else {
				all = false
			}
		}
		if !all {
			continue
		}
		f := filterByID[fid]
		resolves := b.findings(vocab.Filters, vocab.KindFilter, fid)
		resolves = append(resolves, b.findings(vocab.GeoIPFieldNames, vocab.KindExpression, fid)...)
		b.add(phaseFilters, Step{
			ID: "filter.delete:" + fid, Kind: "filter.delete", Change: ChangeDelete,
			Method: "DELETE", Path: zonePath(zid, "filters", fid),
			DependsOn: deps, Resolves: resolves, Risk: RiskLow,
			Title:  "Delete filter " + named(f.Description, fid),
			Reason: fmt.Sprintf("No firewall rule uses it once %s deleted; custom rules carry their expression inline.", plural(len(deps), "rule is", "rules are")),
			Note:   "The API refuses to delete a filter that another feature still uses (or one created by the combined rule+filter call): if it does, keep the filter; it is never forced.",
		})
		b.retired = append(b.retired, Retired{Type: "cloudflare_filter", ID: fid})
	}
	b.orphanFilters(users)
	b.expressionReviews(verify)
}

// maintenanceNote is what to know about writes to the deprecated firewall rules API.
const maintenanceNote = "Since 2025 the firewall rules API may answer writes with error 10020 (maintenance mode): nothing changed; retry the step later."

func entryOrNil(rs inventory.Ruleset, ok bool) *inventory.Ruleset {
	if !ok {
		return nil
	}
	return &rs
}

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

// keptRule plans a firewall rule the translator left out: it stays, and an operator decides.
func (b *builder) keptRule(t customrules.RuleTranslation, byID map[string]*inventory.FirewallRule, entry *inventory.Ruleset, existing, quota int) {
	zid := b.z.Zone.ID
	var why []string
	quotaHit := false
	for _, d := range t.Diagnostics {
		if d.Severity == customrules.SeverityError {
			why = append(why, d.String())
			if d.Code == customrules.CodeQuota {
				quotaHit = true
			}
		}
	}
	if t.Rule == nil && len(why) == 0 {
		why = append(why, "no custom rule can be made from it")
	}
	var options []string
	switch {
	case quotaHit:
		options = append(options,
			fmt.Sprintf("merge expressions: custom rules with the same action can be combined into one rule with \"or\" (the plan allows %d custom rules and the entry point already holds %d)", quota, existing),
			"upgrade the zone's plan for a larger custom rule quota",
			"drop rules that are no longer needed (paused ones first)")
	case t.Rule == nil:
		options = append(options, "fix the expression (it does not parse or uses an unknown action) in the firewall rule, then build the plan again")
	default:
		options = append(options, "rewrite the expression so the zone's plan allows it (e.g. wildcard, contains, starts_with instead of matches), or upgrade the plan, then build the plan again")
	}
	var resolves []string
	var labels []string
	for _, id := range t.FirewallRuleIDs {
		resolves = append(resolves, b.findings(vocab.FirewallRules, vocab.KindFirewallRule, id)...)
		if fr := byID[id]; fr != nil {
			labels = append(labels, named(fr.Description, id))
		}
	}
	if quotaHit {
		resolves = append(resolves, b.findings(vocab.FirewallRules, vocab.KindZone, zid)...)
	}
	st := Step{
		ID: "firewall-rule.keep:" + strings.Join(t.FirewallRuleIDs, "+"), Kind: "firewall-rule.keep",
		Manual: true, Risk: RiskHigh, Resolves: resolves,
		Title:  "Keep firewall rule " + strings.Join(labels, " + ") + " until it can be migrated",
		Reason: "The translator left it out of the custom rules: " + strings.Join(why, "; ") + ".",
		Note:   "Options: " + strings.Join(options, "; ") + ". The rule and its filter stay as they are meanwhile.",
		Diffs:  []Diff{{Label: "firewall rule " + strings.Join(t.FirewallRuleIDs, " + "), Old: t.OldExpression, New: t.NewExpression, Changes: t.Changes}},
	}
	if t.Rule != nil {
		// The custom rule as it would be added once the blocker is gone.
		call := b.manualRuleCall(vocab.PhaseCustomRules, entry, *t.Rule)
		st.Method, st.Path, st.Body = call.method, call.path, call.body
		st.Note += " " + call.note
	}
	b.add(phaseManual, st)
}

// orphanFilters deletes the filters no firewall rule refers to. The API refuses to delete a
// filter a rule still references, so the call cannot break anything that uses it.
func (b *builder) orphanFilters(users map[string][]string) {
	zid := b.z.Zone.ID
	for _, f := range b.z.Filters {
		if len(users[f.ID]) > 0 {
			continue
		}
		resolves := b.findings(vocab.Filters, vocab.KindFilter, f.ID)
		resolves = append(resolves, b.findings(vocab.GeoIPFieldNames, vocab.KindExpression, f.ID)...)
		resolves = append(resolves, b.findings(vocab.ThreatScoreField, vocab.KindExpression, f.ID)...)
		if len(resolves) == 0 {
			continue
		}
		b.add(phaseFilters, Step{
			ID: "filter.delete:" + f.ID, Kind: "filter.delete", Change: ChangeDelete,
			Method: "DELETE", Path: zonePath(zid, "filters", f.ID),
			Resolves: resolves, Risk: RiskLow,
			Title:  "Delete orphan filter " + named(f.Description, f.ID),
			Reason: "No firewall rule refers to it; custom rules carry their expression inline, so nothing needs it.",
			Note:   "The API refuses to delete a filter that a rule still references: if it does, a rule was added since the scan; keep the filter and build the plan again.",
		})
		b.retired = append(b.retired, Retired{Type: "cloudflare_filter", ID: f.ID})
	}
}

// expressionReviews plans the expression findings still open: cf.threat_score in migrated
// filters (the custom rule is created disabled), and deprecated fields in rules of existing
// rulesets. No call can fix them without a person's judgement.
func (b *builder) expressionReviews(verify string) {
	type item struct{ id, label string }
	var items []item
	for _, f := range b.ix.byScope[b.scope] {
		if b.ix.used[f.Fingerprint] || f.Resource.Kind != vocab.KindExpression {
			continue
		}
		if f.RuleID != vocab.ThreatScoreField && f.RuleID != vocab.GeoIPFieldNames {
			continue
		}
		items = append(items, item{f.Resource.ID, f.Resource.Name})
	}
	sort.Slice(items, func(i, j int) bool { return items[i].id < items[j].id })
	seen := map[string]bool{}
	for _, it := range items {
		if seen[it.id] {
			continue
		}
		seen[it.id] = true
		resolves := b.findings(vocab.ThreatScoreField, vocab.KindExpression, it.id)
		resolves = append(resolves, b.findings(vocab.GeoIPFieldNames, vocab.KindExpression, it.id)...)
		st := Step{
			ID: "expression.review:" + b.expressionKey(it.id), Kind: "expression.review", Manual: true,
			Resolves: resolves, Risk: RiskMedium,
			Title:  "Review the expression of " + named(it.label, it.id),
			Reason: "It uses cf.threat_score, which is always 0 now (rules using it silently change meaning), or a renamed field in a rule the plan does not rewrite.",
			Note:   "Replace cf.threat_score with a bot or WAF attack score condition (cf.bot_management.score, cf.waf.score, plan permitting) and ip.geoip.* with ip.src.*; a migrated rule using cf.threat_score is created disabled until then.",
		}
		if verify != "" {
			st.DependsOn = []string{verify}
		}
		b.add(phaseManual, st)
	}
}

// expressionKey names an expression so that its review step keeps its id across the
// migration: a custom rule is known by its ref (the firewall rule's ref or id), and a
// filter by the ref its custom rule will carry (that of the first rule using it, by id).
func (b *builder) expressionKey(id string) string {
	for _, rs := range b.z.Rulesets {
		for _, r := range rs.Rules {
			if r.ID == id && r.Ref != "" {
				return r.Ref
			}
		}
	}
	var users []inventory.FirewallRule
	for _, fr := range b.z.FirewallRules {
		if fr.Filter.ID == id {
			users = append(users, fr)
		}
	}
	sort.Slice(users, func(i, j int) bool { return users[i].ID < users[j].ID })
	if len(users) > 0 {
		if users[0].Ref != "" {
			return users[0].Ref
		}
		return users[0].ID
	}
	return id
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
