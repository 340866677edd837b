package migrate

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/meaning"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// overrideMapping is what becomes of one URL override with a finding.
type overrideMapping struct {
	o   inventory.WAFOverride
	fps []string
	// carried is set when the override's effect is in place once the managed rules are:
	// its exception is planned (or exists), or it is paused and does nothing.
	carried bool
	why     []string // why it cannot be carried, when it cannot
}

// mapOverrides maps each URL override with a finding to a skip exception placed before the
// execute rules, where an exception can express it.
func (m *wafMigration) mapOverrides() {
	allExecuted := sortedKeys(m.executed)
	for _, o := range m.b.z.WAFOverrides {
		fps := m.b.findings(vocab.WAFManagedRulesV1, vocab.KindWAFOverride, o.ID)
		if len(fps) == 0 {
			continue
		}
		m.overrides = append(m.overrides, m.mapOverride(o, fps, allExecuted))
	}
}

// mapOverride maps one override: an exception skipping the rulesets its groups and rules
// belong to (every executed ruleset when they belong to none mapped).
func (m *wafMigration) mapOverride(o inventory.WAFOverride, fps []string, allExecuted []string) overrideMapping {
	om := overrideMapping{o: o, fps: fps, carried: o.Paused} // a paused override does nothing today
	conds, notes := urlConditions(o.URLs)
	if !o.Paused {
		om.why = append(om.why, overrideShapeBlockers(o, conds)...)
	}
	targets, modeWhy := m.overrideTargets(o)
	om.why = append(om.why, modeWhy...)
	if o.Paused || len(om.why) > 0 {
		return om
	}
	skip := targets
	if len(skip) == 0 {
		skip = allExecuted
	}
	if len(skip) == 0 {
		om.why = append(om.why, "no managed ruleset is executed for it to skip")
		return om
	}
	om.carried = true
	m.addException(o, conds, skip, notes)
	return om
}

// urlConditions are the conditions of an override's URLs (a URL matching everything has
// none) and the notes on how they were read. A scheme, query string or anchor is dropped with
// a note: the support article saying such patterns never matched is about rate limiting.
func urlConditions(urls []string) (conds, notes []string) {
	for _, u := range urls {
		c, never, n := urlCondition(u)
		if never != "" {
			notes = append(notes, fmt.Sprintf("URL %q %s: read without it", u, never))
		}
		notes = append(notes, n...)
		if c != "" {
			conds = append(conds, c)
		}
	}
	return conds, notes
}

// overrideShapeBlockers say why an active override cannot become an exception whatever its
// modes: it rewrites actions, or one of its URLs matches every request.
func overrideShapeBlockers(o inventory.WAFOverride, conds []string) []string {
	switch {
	case len(o.RewriteAction) > 0:
		return []string{fmt.Sprintf("it rewrites actions (%s), which exceptions cannot express", strings.Join(inventory.SortedPairs(o.RewriteAction), ", "))}
	case len(conds) == 0 || len(conds) < len(o.URLs):
		return []string{"one of its URLs matches every request of the zone: an exception would switch the managed rules off everywhere"}
	}
	return nil
}

// overrideTargets are the rulesets the override's groups and rules belong to, and the modes
// a skip cannot express (anything but relaxing), groups first, each by id.
func (m *wafMigration) overrideTargets(o inventory.WAFOverride) (targets, why []string) {
	set := map[string]bool{}
	for _, part := range []struct {
		what  string
		modes map[string]string
		pkgOf map[string]string
	}{{"group", o.Groups, m.groupPkg}, {"rule", o.Rules, m.rulePkg}} {
		for _, id := range sortedModeKeys(part.modes) {
			if mode := part.modes[id]; !relaxing(mode) {
				why = append(why, fmt.Sprintf("it sets %s %s to %s, which an exception (a skip) cannot express", part.what, id, mode))
			}
			if rs := m.pkgRuleset[part.pkgOf[id]]; rs != "" {
				set[rs] = true
			}
		}
	}
	return sortedKeys(set), why
}

func sortedModeKeys(modes map[string]string) []string {
	keys := make([]string, 0, len(modes))
	for k := range modes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// WAFOverrideRef is the ref of the skip exception that replaces a WAF override, so that
// later runs (and apply's checks) recognise it.
func WAFOverrideRef(id string) string { return "waf_override:" + id }

// relaxing reports whether a WAF override mode only weakens protection (a skip exception
// approximates it); "block", "challenge", "on", "default" would tighten or restore it.
func relaxing(mode string) bool {
	switch strings.ToLower(mode) {
	case "disable", "off", "simulate":
		return true
	}
	return false
}

// addException plans the skip rule of an override (unless an earlier run made it) and its diff.
func (m *wafMigration) addException(o inventory.WAFOverride, conds, skip, notes []string) {
	ref := WAFOverrideRef(o.ID)
	exception := inventory.RulesetRule{
		Action: vocab.ActionSkip, Expression: anyOf(conds), Enabled: boolPtr(true), Ref: ref,
		Description:      "Exception from WAF override " + quoteOr(o.Description, o.ID),
		ActionParameters: mustJSON(map[string]any{"rulesets": skip}),
	}
	switch k, same := m.same.Claim(meaning.Rule(vocab.PhaseManaged, exception)); {
	case m.exceptionRef[ref]:
		// an earlier run made it
	case same:
		r := rulesOf(m.entry)[k]
		m.b.note(fmt.Sprintf("already there: WAF override %s is done by rule %s (ref %q) of the managed rules entry point, which does the same (same skip and expression): no exception is created for it", named(o.Description, o.ID), named(r.Description, r.ID), r.Ref))
	default:
		m.exceptions = append(m.exceptions, exception)
	}
	m.diffs = append(m.diffs, Diff{Label: "WAF override " + named(o.Description, o.ID),
		Old:     fmt.Sprintf("urls %s; groups %s; rules %s", strings.Join(o.URLs, " "), strings.Join(inventory.SortedPairs(o.Groups), ", "), strings.Join(inventory.SortedPairs(o.Rules), ", ")),
		New:     "skip " + strings.Join(skip, ", ") + " when " + anyOf(conds),
		Changes: append(notes, "the exception skips the whole ruleset(s) for these URLs, which is broader than switching off single groups or rules (derived: old ids do not map to new ones); narrow it with action_parameters.rules if needed")})
}

// retireOverrides pauses, then deletes, each override whose exception is in place (after
// the check), and gives the others a manual step: re-create by hand, then delete.
func (m *wafMigration) retireOverrides(verify string) {
	for _, om := range m.overrides {
		if !om.carried {
			m.keepOverride(om)
			continue
		}
		o := om.o
		path := zonePath(m.b.z.Zone.ID, "firewall", "waf", "overrides", o.ID)
		var deps []string
		if verify != "" {
			deps = []string{verify}
		}
		if !o.Paused {
			pause := Step{
				ID: "waf-override.pause:" + o.ID, Kind: KindWAFOverridePause, Change: ChangeUpdate,
				Method: "PUT", Path: path, Body: pausedOverrideBody(o), DependsOn: deps, Risk: RiskMedium, Derived: true,
				Title:  "Pause WAF override " + named(o.Description, o.ID),
				Reason: "Its exception is in place; pausing first leaves a way back (un-pause) while traffic is watched, before the override is deleted.",
				Note:   "A PUT replaces the whole override: the body is the override as scanned, with paused: true.",
			}
			m.b.add(phasePause, pause)
			deps = []string{pause.ID}
		}
		m.b.add(phaseOldDelete, Step{
			ID: "waf-override.delete:" + o.ID, Kind: KindWAFOverrideDelete, Change: ChangeDelete,
			Method: "DELETE", Path: path, DependsOn: deps,
			Resolves: om.fps, Risk: RiskMedium, Derived: !o.Paused,
			Title:  "Delete WAF override " + named(o.Description, o.ID),
			Reason: "Its exception is in place (a paused override does nothing); URL overrides block the service's own upgrade until deleted.",
		})
		m.b.retire("cloudflare_waf_override", o.ID)
	}
}

// pausedOverrideBody is the PUT body that pauses an override: the whole object as scanned
// (a PUT replaces it), with paused: true, and the members the schema requires (id, urls,
// rules, rewrite_action) present even when empty.
func pausedOverrideBody(o inventory.WAFOverride) json.RawMessage {
	o.Paused = true
	var body map[string]any
	_ = json.Unmarshal(mustJSON(o), &body)
	for _, k := range []string{"rules", "rewrite_action"} {
		if body[k] == nil {
			body[k] = map[string]any{}
		}
	}
	return mustJSON(body)
}

// keepOverride is the manual step of an override no exception can carry.
func (m *wafMigration) keepOverride(om overrideMapping) {
	o := om.o
	m.b.add(phaseManual, Step{
		ID: "waf-override.keep:" + o.ID, Kind: KindWAFOverrideKeep, Manual: true, Derived: true,
		Method: "DELETE", Path: zonePath(m.b.z.Zone.ID, "firewall", "waf", "overrides", o.ID),
		Resolves: om.fps, Risk: RiskHigh,
		Title:  "Re-create WAF override " + named(o.Description, o.ID) + " by hand, then delete it",
		Reason: "It cannot be carried over automatically: " + strings.Join(om.why, "; ") + ".",
		Note:   fmt.Sprintf("Write the exception or rule overrides in the %s entry point by hand; URL overrides block the service's own upgrade until they are deleted.", vocab.PhaseManaged),
	})
}
