package scanner

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/expr"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// exprUnit is one expression the scan inspects for deprecated fields: a filter (with the
// firewall rules using it) or a rule of a ruleset.
type exprUnit struct {
	id, name, expr string
	where          string // "filter X (used by firewall rule Y)" or "custom rule X in ruleset Y"
	// disabled is set for a ruleset rule with enabled false: it decides nothing today.
	disabled bool
}

// expressionUnits lists a zone's expressions once each: filters (from the filters list and the
// filters embedded in firewall rules, one unit per filter id) and ruleset rules of every phase.
func expressionUnits(z *inventory.ZoneInventory) []exprUnit {
	type filterUse struct {
		f     inventory.Filter
		rules []string
		// ruleName names the unit when the filter has no description of its own.
		ruleName string
	}
	byID := map[string]*filterUse{}
	var order []string
	addFilter := func(key string, f inventory.Filter) *filterUse {
		u, ok := byID[key]
		if !ok {
			u = &filterUse{f: f}
			byID[key] = u
			order = append(order, key)
		}
		return u
	}
	for _, f := range z.Filters {
		addFilter("filter:"+f.ID, f)
	}
	for i := range z.FirewallRules {
		fr := &z.FirewallRules[i]
		key := "filter:" + fr.Filter.ID
		if fr.Filter.ID == "" {
			key = "rule:" + fr.ID // a rule whose filter has no id: the rule owns the expression
		}
		u := addFilter(key, fr.Filter)
		u.rules = append(u.rules, ruleLabel(fr))
		if u.ruleName == "" || fr.Description < u.ruleName {
			u.ruleName = fr.Description
		}
	}
	var out []exprUnit
	for _, key := range order {
		u := byID[key]
		if strings.TrimSpace(u.f.Expression) == "" {
			continue
		}
		id, name := u.f.ID, u.f.Description
		if strings.HasPrefix(key, "rule:") {
			id = strings.TrimPrefix(key, "rule:")
		}
		sort.Strings(u.rules)
		where := "Filter " + named(u.f.Description, u.f.ID)
		switch len(u.rules) {
		case 0:
			where += " (not used by any firewall rule)"
		case 1:
			where += " (used by firewall rule " + u.rules[0] + ")"
			if name == "" {
				name = u.ruleName
			}
		default:
			where += " (used by firewall rules " + listN(u.rules, 5) + ")"
		}
		out = append(out, exprUnit{id: id, name: name, expr: u.f.Expression, where: where})
	}
	for _, rs := range z.Rulesets {
		for j, rr := range rs.Rules {
			if strings.TrimSpace(rr.Expression) == "" {
				continue
			}
			id := rr.ID
			if id == "" {
				id = fmt.Sprintf("%s#%d", rs.ID, j)
			}
			kind := "rule"
			switch rs.Phase {
			case vocab.PhaseCustomRules:
				kind = "custom rule"
			case vocab.PhaseRateLimiting:
				kind = "rate limiting rule"
			}
			where := fmt.Sprintf("%s %s in ruleset %s (phase %s)", strings.ToUpper(kind[:1])+kind[1:], named(rr.Description, rr.ID), named(rs.Name, rs.ID), rs.Phase)
			disabled := rr.Enabled != nil && !*rr.Enabled
			out = append(out, exprUnit{id: id, name: rr.Description, expr: rr.Expression, where: where, disabled: disabled})
		}
	}
	return out
}

// matchFields returns the fields of used that the patterns select; a pattern ending in ".*"
// or "*" selects by prefix.
func matchFields(used, patterns []string) []string {
	var out []string
	for _, f := range used {
		for _, p := range patterns {
			prefix, wild := strings.CutSuffix(p, "*")
			if (wild && strings.HasPrefix(f, prefix)) || (!wild && f == p) {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// threatScoreField is the field whose value is always 0 now.
const threatScoreField = "cf.threat_score"

// threatScoreEffects says what each comparison of cf.threat_score with a literal does now that
// the field is always 0, quoting each comparison as written (once each). Comparisons the value 0
// does not decide (a $list, a string) are left out.
func threatScoreEffects(e *expr.Expr) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range expr.FieldComparisons(e, threatScoreField) {
		result, ok := expr.CompareInt(c, 0)
		if !ok || c.End() > expr.Pos(len(e.Src)) {
			continue
		}
		text := e.Src[c.Pos():c.End()]
		if seen[text] {
			continue
		}
		seen[text] = true
		if result {
			out = append(out, fmt.Sprintf("%q is always true (always matches)", text))
		} else {
			out = append(out, fmt.Sprintf("%q is always false (never matches)", text))
		}
	}
	return out
}

// geoipRename returns the ip.src.* name of a deprecated ip.geoip.* field: the field
// catalogue's RenamedTo, else the same suffix under ip.src.
func geoipRename(field string) string {
	if def, ok := catalog.Fields().Field(field); ok && def.RenamedTo != "" {
		return def.RenamedTo
	}
	return "ip.src." + strings.TrimPrefix(field, "ip.geoip.")
}

// expressionFields reports expressions that use cf.threat_score or the ip.geoip.* names, once
// per filter (whatever the number of firewall rules using it) and once per ruleset rule.
func (s *liveScan) expressionFields(z *inventory.ZoneInventory) {
	threat, threatOK := s.rule(vocab.ThreatScoreField)
	geo, geoOK := s.rule(vocab.GeoIPFieldNames)
	if !threatOK && !geoOK {
		return
	}
	threatFields := []string{"cf.threat_score"}
	geoFields := []string{"ip.geoip.*"}
	if threatOK && len(threat.e.Match.ExpressionFields) > 0 {
		threatFields = threat.e.Match.ExpressionFields
	}
	if geoOK && len(geo.e.Match.ExpressionFields) > 0 {
		geoFields = geo.e.Match.ExpressionFields
	}
	sc := zoneScope(z)
	for _, u := range expressionUnits(z) {
		info := s.inspect(u.expr)
		res := Resource{Kind: vocab.KindExpression, ID: u.id, Name: u.name}
		if threatOK {
			if used := matchFields(info.Fields, threatFields); len(used) > 0 {
				effect := "every comparison behaves as if the score were 0"
				if eff := threatScoreEffects(info.tree); len(eff) > 0 {
					effect = strings.Join(eff, "; ")
				}
				sev, msg := threat.sev, fmt.Sprintf("%s uses %s, which is always 0 now, so the rule silently changed meaning: %s. Decide what the rule should do and replace the condition (e.g. with a managed challenge, bot score or WAF attack score); never translate it unchanged.",
					u.where, strings.Join(used, ", "), effect)
				if u.disabled {
					// A disabled rule decides nothing: what to know before enabling it.
					sev = min(sev, SeverityNotice)
					msg = fmt.Sprintf("%s is disabled and uses %s, which is always 0 now: %s. Replace the condition (e.g. with a managed challenge, bot score or WAF attack score) before enabling the rule.",
						u.where, strings.Join(used, ", "), effect)
				}
				s.add(threat, sev, sc, res, "", msg)
			}
		}
		if geoOK {
			if used := matchFields(info.Fields, geoFields); len(used) > 0 {
				renames := make([]string, len(used))
				for i, f := range used {
					renames[i] = f + " -> " + geoipRename(f)
				}
				s.add(geo, geo.sev, sc, res, "",
					fmt.Sprintf("%s uses deprecated field names: rename %s (same values).", u.where, strings.Join(renames, ", ")))
			}
		}
	}
}
