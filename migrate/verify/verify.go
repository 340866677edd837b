package verify

import (
	"encoding/json"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"

	"github.com/sourcegraph/conc/pool"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/verify/ruleeval"
	"github.com/sunsetscan/sunset/scanner/expr"
	"github.com/sunsetscan/sunset/scanner/expr/celcheck"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// Requests generated per rule and per zone's whole rule set, and the budget that bounds a
// zone's requests when it has many rules (each request is evaluated against every rule of
// both lists, so the cost grows with the square of the rule count).
const (
	perRule     = 40
	perSet      = 400
	minPerRule  = 4
	zoneBudget  = 8000
	generateKey = 1 // the seed: the same plan and snapshot give the same requests
	// maxDifferences bounds the kinds of difference listed per zone; all are counted.
	maxDifferences = 20
)

// Verify evaluates, for every zone of p found in snap, the old rules and the new ones on the
// same generated requests and sets the zone's Verification. Zones are verified concurrently;
// the result depends only on p and snap.
func Verify(p *migrate.Plan, snap *inventory.Snapshot) {
	zones := make(map[string]*inventory.ZoneInventory, len(snap.Zones))
	for i := range snap.Zones {
		zones[snap.Zones[i].Zone.ID] = &snap.Zones[i]
	}
	workers := pool.New().WithMaxGoroutines(min(runtime.GOMAXPROCS(0), max(len(p.Zones), 1)))
	for i := range p.Zones {
		zp := &p.Zones[i]
		workers.Go(func() {
			if z, ok := zones[zp.ZoneID]; ok {
				zp.Verification = Zone(zp, z)
				return
			}
			zp.Verification = &migrate.Verification{Differences: []migrate.Difference{}, Missing: true,
				Notes: []string{"the zone is not in the snapshot: nothing was compared"}}
		})
	}
	workers.Wait()
}

// Zone verifies one zone's plan against the zone as scanned.
func Zone(zp *migrate.ZonePlan, z *inventory.ZoneInventory) *migrate.Verification {
	v := &migrate.Verification{Differences: []migrate.Difference{}}
	ev := ruleeval.NewEvaluator()
	fw := z.FirewallRulesWithFilters()
	if len(fw) > 0 {
		verifyFirewall(v, ev, zp, z, fw)
	}
	rls := slices.Clone(z.RateLimits)
	slices.SortFunc(rls, func(a, b inventory.RateLimit) int { return strings.Compare(a.ID, b.ID) })
	for _, rl := range rls {
		v.RateLimits = append(v.RateLimits, checkRateLimit(ev, zp, z, rl))
	}
	if len(rls) > 0 {
		v.Notes = append(v.Notes, "rate limit url patterns are read as the support article 'Why doesn't my Rate Limiting rule match a request?' documents: host and path wildcards, case-insensitive, a request's query ignored, a bare host meaning its homepage only, a pattern with a scheme, query string or anchor matching nothing")
	}
	if len(fw) == 0 && len(rls) == 0 {
		v.Notes = append(v.Notes, "nothing to compare: the zone has no firewall rules and no previous-version rate limits")
	}
	if err := ev.Err(); err != nil {
		v.Notes = append(v.Notes, "an expression failed to evaluate and was taken as not matching: "+err.Error())
	}
	return v
}

// lists are a zone's two rule lists as evaluation sees them.
type lists struct {
	old, now []ruleeval.Rule
	exprs    []string // every expression of both, once, in order
}

// zoneLists builds the old list (existing custom rules that translate no firewall rule,
// then the firewall rules in their order) and the new one (the plan's custom rules target,
// or the entry point as it is when the plan does not change it).
func zoneLists(zp *migrate.ZonePlan, z *inventory.ZoneInventory, fw []inventory.FirewallRule) (lists, []string) {
	var notes []string
	var existing []inventory.RulesetRule
	if rs, ok := z.Ruleset(vocab.PhaseCustomRules); ok {
		existing = rs.Rules
	}
	translates := map[string]bool{}
	for _, r := range fw {
		translates[r.ID] = true
		if r.Ref != "" {
			translates[r.Ref] = true
		}
	}
	var l lists
	for i, r := range existing {
		if r.Ref == "" || !translates[r.Ref] {
			l.old = append(l.old, ruleeval.CustomRules([]inventory.RulesetRule{r}, i+1)...)
		}
	}
	if len(l.old) > 0 {
		notes = append(notes, fmt.Sprintf("%s taken to run before the firewall rules, as the plan keeps them first (how the two lists interplayed is not documented)", plural(len(l.old), "existing custom rule is", "existing custom rules are")))
	}
	l.old = append(l.old, ruleeval.FirewallRules(ruleeval.FirewallOrder(fw))...)
	now := existing
	for _, tg := range zp.Targets {
		if tg.Phase == vocab.PhaseCustomRules {
			now = decodeRules(tg.Rules)
		}
	}
	l.now = ruleeval.CustomRules(now, 1)
	seen := map[string]bool{}
	for _, s := range append(slices.Clone(l.old), l.now...) {
		if !seen[s.Expr] {
			seen[s.Expr] = true
			l.exprs = append(l.exprs, s.Expr)
		}
	}
	return l, notes
}

// decodeRules decodes a target's rules; one that does not decode is left out (the plan
// writes only what it encoded).
func decodeRules(raw []json.RawMessage) []inventory.RulesetRule {
	out := make([]inventory.RulesetRule, 0, len(raw))
	for _, r := range raw {
		var rule inventory.RulesetRule
		if json.Unmarshal(r, &rule) == nil {
			out = append(out, rule)
		}
	}
	return out
}

// requestCounts are the per-rule and per-set request counts for n expressions within the
// zone budget.
func requestCounts(n int) (int, int) {
	if n == 0 {
		return 0, 0
	}
	return max(minPerRule, min(perRule, zoneBudget/n)), perSet
}

// verifyFirewall compares the zone's firewall rules with the custom rules of the plan.
func verifyFirewall(v *migrate.Verification, ev *ruleeval.Evaluator, zp *migrate.ZonePlan, z *inventory.ZoneInventory, fw []inventory.FirewallRule) {
	l, notes := zoneLists(zp, z, fw)
	v.Notes = append(v.Notes, notes...)
	pr, ps := requestCounts(len(l.exprs))
	index := map[string]int{}
	for req := range ruleeval.Requests(l.exprs, pr, ps, generateKey) {
		v.Requests++
		o, n := ev.Decide(l.old, req), ev.Decide(l.now, req)
		if o.Same(n) {
			continue
		}
		v.Differing++
		d := migrate.Difference{Old: o, New: n, OldRules: ev.Matching(l.old, req), NewRules: ev.Matching(l.now, req)}
		key := o.Key() + "\x00" + n.Key() + "\x00" + strings.Join(d.OldRules, ",") + "\x00" + strings.Join(d.NewRules, ",")
		if i, ok := index[key]; ok {
			v.Differences[i].Requests++
			continue
		}
		if len(v.Differences) == maxDifferences {
			continue
		}
		d.Requests = 1
		d.Witness = witness(ev, req, l, d)
		d.Declared = declared(zp, l.old, d.OldRules)
		index[key] = len(v.Differences)
		v.Differences = append(v.Differences, d)
	}
	if len(index) == maxDifferences && v.Differing > countListed(v.Differences) {
		v.Notes = append(v.Notes, fmt.Sprintf("only the first %d kinds of difference are listed; %d differing requests in all", maxDifferences, v.Differing))
	}
}

// plural is "1 rule" or "n rules".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func countListed(ds []migrate.Difference) int {
	n := 0
	for _, d := range ds {
		n += d.Requests
	}
	return n
}

// witness keeps the fields of req that decide the difference: starting from those the
// rules involved (matched on either side, or deciding) read, or from req whole when those
// alone do not get the same two decisions, it drops each field (in name order) without
// which both decisions stay the same.
func witness(ev *ruleeval.Evaluator, req celcheck.Request, l lists, d migrate.Difference) map[string]any {
	involved := map[string]bool{d.Old.By: true, d.New.By: true}
	for _, lb := range append(slices.Clone(d.OldRules), d.NewRules...) {
		involved[lb] = true
	}
	out := map[string]any{}
	for _, s := range append(slices.Clone(l.old), l.now...) {
		if involved[s.Label] {
			addFields(out, req, s.Expr)
		}
	}
	same := func(r map[string]any) bool {
		return ev.Decide(l.old, r).Key() == d.Old.Key() && ev.Decide(l.now, r).Key() == d.New.Key()
	}
	if !same(out) {
		out = maps.Clone(req)
	}
	for _, f := range slices.Sorted(maps.Keys(out)) {
		v := out[f]
		delete(out, f)
		if !same(out) {
			out[f] = v
		}
	}
	return out
}

// addFields copies the fields src reads from req into out.
func addFields(out map[string]any, req celcheck.Request, src string) {
	e, err := expr.Parse(src)
	if err != nil {
		return
	}
	for _, f := range expr.Fields(e) {
		if v, ok := req[f.Name]; ok {
			out[f.Name] = v
		}
	}
}

// declared returns the plan's own account of a difference that involves one of the
// firewall rules matched: the step that keeps the rule a firewall rule, or a zone note that
// declares a difference naming it; "" when the plan declares none.
func declared(zp *migrate.ZonePlan, old []ruleeval.Rule, matched []string) string {
	ids := map[string]string{}
	for _, s := range old {
		if s.ID != "" {
			ids[s.Label] = s.ID
		}
	}
	for _, lb := range matched {
		id := ids[lb]
		if id == "" {
			continue
		}
		for _, st := range zp.Steps {
			if rest, ok := strings.CutPrefix(st.ID, "firewall-rule.keep:"); ok && slices.Contains(strings.Split(rest, "+"), id) {
				return "the plan keeps firewall rule " + id + " as a firewall rule (step " + st.ID + ")"
			}
		}
		for _, n := range zp.Notes {
			if strings.HasPrefix(n, "declared difference:") && strings.Contains(n, id) {
				return n
			}
		}
	}
	return ""
}
