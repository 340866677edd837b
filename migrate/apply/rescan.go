package apply

import (
	"encoding/json"
	"slices"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// Rescan is how Summarize foresees what a scan of the account reports once the apply is
// done: the plan's findings it leaves, and the findings on what it creates (a custom rule
// created disabled because it still names cf.threat_score is reported as such). A nil
// Rescan, or a nil func, knows nothing of that part.
type Rescan struct {
	// Severity gives a finding's severity by fingerprint ("" when unknown); replaced says
	// that a step done lists the finding too (its replacement is in place: a scan may judge
	// what is left of it less severe).
	Severity func(fingerprint string, replaced bool) string
	// Object is the id of the object a finding is on ("" when unknown): a finding on an
	// object a done step deleted is gone with it.
	Object func(fingerprint string) string
	// Created scans the rules the apply creates in a zone (by phase, without ids) and
	// returns the severity of each finding on them.
	Created func(zoneID string, rulesets []inventory.Ruleset) []string
	// After scans a zone as the apply leaves it (the objects it deletes gone) and returns
	// the fingerprints found: a finding a review step leaves is still reported only when
	// they hold it. A finding on how old objects stand together (a filter two rules share,
	// a plan's quota the old rules overrun) ends with them.
	After func(zoneID string, deleted map[string]bool) map[string]bool
}

// NewRescan is the Rescan of a plan built from snap, whose scan found findings; scan scans
// a zone as the scanner does (scanner.ScanSnapshot of one zone).
func NewRescan(snap *inventory.Snapshot, findings []scanner.Finding, scan func(*inventory.ZoneInventory) []scanner.Finding) *Rescan {
	byFP := make(map[string]*scanner.Finding, len(findings))
	for i := range findings {
		byFP[findings[i].Fingerprint] = &findings[i]
	}
	zones := map[string]*inventory.ZoneInventory{}
	if snap != nil {
		for i := range snap.Zones {
			zones[snap.Zones[i].Zone.ID] = &snap.Zones[i]
		}
	}
	return &Rescan{
		Severity: func(fp string, replaced bool) string {
			f, ok := byFP[fp]
			switch {
			case !ok:
				return ""
			case f.Suppressed:
				return "suppressed"
			case replaced && f.Severity > scanner.SeverityNotice:
				// What is left of a finding whose replacement is in place is a notice (the
				// scanner's rule for settings past their end of life: see scanner.ScanSnapshot).
				return scanner.SeverityNotice.String()
			}
			return f.Severity.String()
		},
		Object: func(fp string) string {
			if f, ok := byFP[fp]; ok {
				return f.Resource.ID
			}
			return ""
		},
		After: func(zoneID string, deleted map[string]bool) map[string]bool {
			known := zones[zoneID]
			if known == nil {
				return nil
			}
			out := map[string]bool{}
			for _, f := range scan(without(known, deleted)) {
				out[f.Fingerprint] = true
			}
			return out
		},
		Created: func(zoneID string, rulesets []inventory.Ruleset) []string {
			z := &inventory.ZoneInventory{Rulesets: rulesets}
			if known := zones[zoneID]; known != nil {
				z.Zone = known.Zone
			} else {
				z.Zone.ID = zoneID
			}
			var out []string
			for _, f := range scan(z) {
				if !f.Suppressed {
					out = append(out, f.Severity.String())
				}
			}
			return out
		},
	}
}

// without is a copy of the zone without the firewall rules, filters, rate limits and WAF
// overrides whose ids are deleted.
func without(z *inventory.ZoneInventory, deleted map[string]bool) *inventory.ZoneInventory {
	out := *z
	out.FirewallRules = slices.DeleteFunc(slices.Clone(z.FirewallRules), func(r inventory.FirewallRule) bool { return deleted[r.ID] })
	out.Filters = slices.DeleteFunc(slices.Clone(z.Filters), func(f inventory.Filter) bool { return deleted[f.ID] })
	out.RateLimits = slices.DeleteFunc(slices.Clone(z.RateLimits), func(r inventory.RateLimit) bool { return deleted[r.ID] })
	out.WAFOverrides = slices.DeleteFunc(slices.Clone(z.WAFOverrides), func(o inventory.WAFOverride) bool { return deleted[o.ID] })
	return &out
}

// createdRules are the rules the scope's done (or, in a dry run, would-be) creates put in
// its entry points, by phase: what a rescan reads besides what the plan found.
func createdRules(sc scope, res *ScopeResult) []inventory.Ruleset {
	outcome := make(map[string]string, len(res.Steps))
	for _, st := range res.Steps {
		outcome[st.ID] = st.Outcome
	}
	var out []inventory.Ruleset
	at := map[vocab.Phase]int{}
	for _, st := range sc.steps {
		spec := migrate.SpecOf(st)
		if spec == nil || (spec.Op != migrate.OpCreateEntrypoint && spec.Op != migrate.OpAddRule) {
			continue
		}
		switch outcome[st.ID] {
		case OutcomeSent, OutcomeWould, OutcomeJournal:
		default:
			continue // not made by this apply (or found standing: the scan saw it)
		}
		rules := rulesOfCreate(st, spec.Op)
		i, ok := at[spec.Phase]
		if !ok {
			i = len(out)
			at[spec.Phase] = i
			out = append(out, inventory.Ruleset{Kind: "zone", Phase: spec.Phase})
		}
		out[i].Rules = append(out[i].Rules, rules...)
	}
	return out
}

// rulesOfCreate are the rules a create step's body holds: an entry point's list, or the
// one rule added (nil when the body does not decode: Plan.Check refuses such a plan).
func rulesOfCreate(st migrate.Step, op migrate.Op) []inventory.RulesetRule {
	if op == migrate.OpAddRule {
		var r inventory.RulesetRule
		if json.Unmarshal(st.Body, &r) != nil {
			return nil
		}
		return []inventory.RulesetRule{r}
	}
	var body struct {
		Rules []inventory.RulesetRule `json:"rules"`
	}
	if json.Unmarshal(st.Body, &body) != nil {
		return nil
	}
	return body.Rules
}
