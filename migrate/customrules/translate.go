package customrules

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/meaning"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// precedence orders firewall rules of equal priority by action.
var precedence = map[vocab.Action]int{
	vocab.ActionLog: 0, vocab.ActionBypass: 1, vocab.ActionAllow: 2, vocab.ActionChallenge: 3, vocab.ActionManagedChallenge: 4, vocab.ActionJSChallenge: 5, vocab.ActionBlock: 6,
}

// skipProducts are the product names the skip action takes (the same as
// the bypass action's).
var skipProducts = []string{"bic", "hot", "rateLimit", "securityLevel", "uaBlock", "waf", "zoneLockdown"}

// productPhases are the phases that replace the previous-version products
// (derived: no official mapping says so).
var productPhases = map[string]vocab.Phase{"rateLimit": vocab.PhaseRateLimiting, "waf": vocab.PhaseManaged}

// maxDescription is the longest description the API takes, in characters.
const maxDescription = 500

// skipParams is the skip action's action_parameters.
type skipParams struct {
	Ruleset  string   `json:"ruleset,omitempty"`
	Phases   []string `json:"phases,omitempty"`
	Products []string `json:"products,omitempty"`
}

// source is one firewall rule on its way to a custom rule.
type source struct {
	idx  int
	rule inventory.FirewallRule
	rank int
	expr *ExpressionResult // shared by rules with the same expression
}

// terminates reports whether the firewall rule stopped evaluation when it matched.
func (s *source) terminates() bool {
	_, known := precedence[s.rule.Action]
	return known && s.rule.Action != vocab.ActionLog && s.rule.Action != vocab.ActionBypass
}

// compareSources is the firewall rules' evaluation order: ascending
// priority, null last, then action precedence, then input order.
func compareSources(a, b *source) int {
	switch {
	case a.rule.Priority == nil && b.rule.Priority != nil:
		return 1
	case a.rule.Priority != nil && b.rule.Priority == nil:
		return -1
	case a.rule.Priority != nil && *a.rule.Priority != *b.rule.Priority:
		if *a.rule.Priority < *b.rule.Priority {
			return -1
		}
		return 1
	}
	if a.rank != b.rank {
		return a.rank - b.rank
	}
	return a.idx - b.idx
}

// sameGroup reports whether two rules have the same priority and action:
// within such a group the evaluation order cannot change the outcome.
func sameGroup(a, b *source) bool {
	if (a.rule.Priority == nil) != (b.rule.Priority == nil) {
		return false
	}
	if a.rule.Priority != nil && *a.rule.Priority != *b.rule.Priority {
		return false
	}
	return a.rank == b.rank
}

// unit is one future custom rule: one firewall rule, or a bypass and an allow merged.
type unit struct {
	srcs      []*source
	t         RuleTranslation
	enabled   bool
	blocked   bool // an error the API would reject, or no rule at all
	migrated  bool
	threatOff bool
}

func (u *unit) terminates() bool {
	return slices.ContainsFunc(u.srcs, (*source).terminates)
}

// actionAllowBypass names a unit of an allow and a bypass merged into one skip rule.
const actionAllowBypass vocab.Action = "allow+bypass"

func (u *unit) action() vocab.Action {
	if len(u.srcs) == 2 {
		return actionAllowBypass
	}
	return u.srcs[0].rule.Action
}

// name is how diagnostics refer to the unit: its firewall rule ids and description.
func (u *unit) name() string {
	ids := strings.Join(u.t.FirewallRuleIDs, "+")
	if ids == "" {
		ids = "(no id)"
	}
	if d := u.srcs[0].rule.Description; d != "" {
		return fmt.Sprintf("%s (%q)", ids, d)
	}
	return ids
}

// Translate turns a zone's firewall rules into the custom rules of its
// http_request_firewall_custom entry point, in an order that keeps their
// outcome (see the package documentation), with per-rule changes and
// diagnostics, quota checks and the full PUT body in Result.Ruleset.
func Translate(rules []inventory.FirewallRule, opts Options) *Result {
	res := &Result{Rules: []RuleTranslation{}, Ruleset: []inventory.RulesetRule{}, Diagnostics: []Diagnostic{}, Quota: Quota(opts.Plan)}
	units := pairUp(sources(rules, opts))
	recognise(units, opts)
	orderDiagnostics(units)
	res.Diagnostics = append(res.Diagnostics, existingOrder(opts.Existing, units)...)

	included := fitQuota(res, toInclude(units), opts)
	res.Ruleset = append(res.Ruleset, opts.Existing...)
	for _, u := range included {
		u.t.Index = len(res.Ruleset)
		res.Ruleset = append(res.Ruleset, *u.t.Rule)
	}
	for _, u := range units {
		sortDiagnostics(u.t.Diagnostics)
		res.Rules = append(res.Rules, u.t)
	}
	sortDiagnostics(res.Diagnostics)
	return res
}

// sources are the firewall rules in their evaluation order, each with its
// expression translated (once per distinct expression).
func sources(rules []inventory.FirewallRule, opts Options) []*source {
	cache := map[string]*ExpressionResult{}
	srcs := make([]*source, len(rules))
	for i, r := range rules {
		er, ok := cache[r.Filter.Expression]
		if !ok {
			x := TranslateExpression(r.Filter.Expression, opts)
			er = &x
			cache[r.Filter.Expression] = er
		}
		rank, ok := precedence[r.Action]
		if !ok {
			rank = len(precedence) // unknown actions sort after block; they make no rule
		}
		srcs[i] = &source{idx: i, rule: r, rank: rank, expr: er}
	}
	slices.SortStableFunc(srcs, compareSources)
	return srcs
}

// toInclude are the units whose rule goes into the ruleset, before the quota:
// not migrated before, not blocked. A blocked rule says what leaving it out
// means.
func toInclude(units []*unit) []*unit {
	var out []*unit
	for _, u := range units {
		if !u.migrated && !u.blocked {
			out = append(out, u)
		} else if !u.migrated && u.t.Rule != nil {
			u.t.Changes = append(u.t.Changes, "left out of the ruleset because of the errors below: requests it matched now reach the rules after it")
		}
	}
	return out
}

// fitQuota returns the included units that fit the plan's quota beside the
// existing rules; the others get a quota error each, and the result one that
// names them.
func fitQuota(res *Result, included []*unit, opts Options) []*unit {
	q := res.Quota
	if q <= 0 || len(opts.Existing)+len(included) <= q {
		return included
	}
	fit := max(0, q-len(opts.Existing))
	var names []string
	for _, u := range included[fit:] {
		names = append(names, u.name())
		u.t.Diagnostics = append(u.t.Diagnostics, Diagnostic{Severity: SeverityError, Code: CodeQuota,
			Message: fmt.Sprintf("does not fit the %s plan's quota of %d custom rules (%d existing + %d new): left out of the ruleset", opts.Plan, q, len(opts.Existing), len(included))})
	}
	res.Diagnostics = append(res.Diagnostics, Diagnostic{Severity: SeverityError, Code: CodeQuota,
		Message: fmt.Sprintf("%d existing + %d new custom rules exceed the %s plan's quota of %d; left out (%d): %s",
			len(opts.Existing), len(included), opts.Plan, q, len(included)-fit, strings.Join(names, ", "))})
	return included[:fit]
}

// pairUp makes the units in list order, merging a bypass with the allow of
// the same expression that follows it directly. Rules of one priority and
// action may be reordered freely (they all terminate with the same action,
// or none of them terminates), so a bypass moves to the end of its group
// and its partner to the start of the next group when that is an allow
// group, which makes them neighbours.
func pairUp(srcs []*source) []*unit {
	partner := map[*source]*source{}
	for start := 0; start < len(srcs); {
		end := start + 1
		for end < len(srcs) && sameGroup(srcs[start], srcs[end]) {
			end++
		}
		next := end + 1
		for next < len(srcs) && sameGroup(srcs[end], srcs[next]) {
			next++
		}
		if srcs[start].rule.Action == vocab.ActionBypass && end < len(srcs) && srcs[end].rule.Action == vocab.ActionAllow {
			g, h := srcs[start:end], srcs[end:next]
		search:
			for i, b := range g {
				if b.expr.Expression == "" || len(b.rule.Products) == 0 {
					continue
				}
				for j, a := range h {
					if a.expr.Expression == b.expr.Expression && a.rule.Paused == b.rule.Paused {
						copy(g[i:], g[i+1:])
						g[len(g)-1] = b
						copy(h[1:j+1], h[:j])
						h[0] = a
						partner[b] = a
						break search
					}
				}
			}
		}
		start = end
	}
	var units []*unit
	for i := 0; i < len(srcs); i++ {
		u := &unit{srcs: []*source{srcs[i]}}
		if a, ok := partner[srcs[i]]; ok && i+1 < len(srcs) && srcs[i+1] == a {
			u.srcs = append(u.srcs, a)
			i++
		}
		units = append(units, u)
	}
	return units
}

// recognise builds each unit's rule, unless an existing custom rule stands for
// it already: first by ref (one of the unit's firewall rule ids or refs: the
// translation an earlier run made), then by what it does (meaning.Rule: the
// same phase, action, parameters, enabled and expression as the rule built,
// whoever wrote it and whatever its ref: Terraform, the dashboard, a script).
// Each existing rule stands for one unit at most.
func recognise(units []*unit, opts Options) {
	existingRef := map[string]int{}
	for i, r := range opts.Existing {
		if r.Ref != "" {
			if _, dup := existingRef[r.Ref]; !dup {
				existingRef[r.Ref] = i
			}
		}
	}
	same := meaning.NewIndex(len(opts.Existing), func(i int) meaning.Key { return meaning.Rule(Phase, opts.Existing[i]) })
	var built []*unit
	for _, u := range units {
		if k, ok := migratedAs(u, existingRef); ok && !same.Claimed(k) {
			same.Reserve(k)
			markMigrated(u, k, opts.Existing[k], MatchRef)
			continue
		}
		build(u, opts)
		built = append(built, u)
	}
	for _, u := range built {
		if u.t.Rule == nil {
			continue
		}
		if k, ok := same.Claim(meaning.Rule(Phase, *u.t.Rule)); ok {
			markMigrated(u, k, opts.Existing[k], MatchMeaning)
		}
	}
}

// migratedAs finds the existing custom rule whose ref is one of the unit's
// firewall rule ids or refs: the translation a previous run (or a person)
// already made.
func migratedAs(u *unit, existingRef map[string]int) (int, bool) {
	for _, s := range u.srcs {
		for _, key := range []string{s.rule.ID, s.rule.Ref} {
			if key == "" {
				continue
			}
			if k, ok := existingRef[key]; ok {
				return k, true
			}
		}
	}
	return 0, false
}

// markMigrated makes the existing custom rule k the unit's translation: it is
// not added again. match says how it was recognised (MatchRef, MatchMeaning).
func markMigrated(u *unit, k int, existing inventory.RulesetRule, match string) {
	first := u.srcs[0]
	rule := existing
	u.migrated = true
	change := fmt.Sprintf("already migrated: custom rule %s with ref %q is in the entry point; not added again", orNone(existing.ID), existing.Ref)
	if match == MatchMeaning {
		change = fmt.Sprintf("already there: custom rule %s %s(ref %q) does the same (same action, parameters, enabled and expression), written by someone else; not added again", orNone(existing.ID), quoted(existing.Description), existing.Ref)
	}
	u.t = RuleTranslation{
		FirewallRuleIDs: ids(u.srcs), FirewallActions: actions(u.srcs), FilterID: first.rule.Filter.ID,
		OldExpression: first.rule.Filter.Expression, NewExpression: first.expr.Expression,
		Rule: &rule, Index: k, Match: match, Diagnostics: []Diagnostic{},
		Changes: []string{change},
	}
}

// quoted is s quoted and followed by a space, "" when s is empty.
func quoted(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf("%q ", s)
}

func ids(srcs []*source) []string {
	out := make([]string, len(srcs))
	for i, s := range srcs {
		out[i] = s.rule.ID
	}
	return out
}

func actions(srcs []*source) []string {
	out := make([]string, len(srcs))
	for i, s := range srcs {
		out[i] = string(s.rule.Action)
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(no id)"
	}
	return s
}

// build translates a unit's rule(s): action, parameters, enabled,
// description and ref.
func build(u *unit, opts Options) {
	u.t = newTranslation(u)
	t := &u.t
	if t.NewExpression == "" {
		u.blocked = true
		t.Changes = append(t.Changes, "no custom rule: the expression must be fixed first")
		return
	}
	rule := &inventory.RulesetRule{Expression: t.NewExpression}
	if !setAction(u, rule, opts) {
		u.blocked = true
		return
	}
	setEnabled(u, rule)
	rule.Description = description(u.srcs, t)
	rule.Ref = ref(u.srcs, t)
	t.Rule = rule
	u.blocked = slices.ContainsFunc(t.Diagnostics, func(d Diagnostic) bool {
		return d.Severity == SeverityError && d.Code != CodeThreatScore
	})
}

// newTranslation starts a unit's translation from its expression's: no rule yet.
func newTranslation(u *unit) RuleTranslation {
	first := u.srcs[0]
	er := first.expr
	t := RuleTranslation{
		FirewallRuleIDs: ids(u.srcs), FirewallActions: actions(u.srcs), FilterID: first.rule.Filter.ID,
		OldExpression: first.rule.Filter.Expression, NewExpression: er.Expression,
		Index: -1, Changes: slices.Clone(er.Changes), Diagnostics: slices.Clone(er.Diagnostics),
	}
	if t.Changes == nil {
		t.Changes = []string{}
	}
	if t.Diagnostics == nil {
		t.Diagnostics = []Diagnostic{}
	}
	return t
}

// setAction sets the custom rule's action (and a skip's parameters) from the unit's
// firewall rule(s); false when there is no counterpart, and then no rule.
func setAction(u *unit, rule *inventory.RulesetRule, opts Options) bool {
	t := &u.t
	if len(u.srcs) == 2 {
		bypass, allow := u.srcs[0], u.srcs[1]
		t.Changes = append(t.Changes, fmt.Sprintf("merged bypass %s and allow %s on the same expression into one skip rule", orNone(bypass.rule.ID), orNone(allow.rule.ID)))
		if bypass.rule.Filter.Expression != allow.rule.Filter.Expression {
			t.Changes = append(t.Changes, fmt.Sprintf("the allow rule's filter %s spells the expression differently: %s", orNone(allow.rule.Filter.ID), allow.rule.Filter.Expression))
		}
		return setSkip(t, rule, allow, bypass)
	}
	first := u.srcs[0]
	switch a := first.rule.Action; a {
	case vocab.ActionBlock, vocab.ActionChallenge, vocab.ActionJSChallenge, vocab.ActionManagedChallenge:
		rule.Action = a
	case vocab.ActionLog:
		rule.Action = a
		if opts.Plan != "" && opts.Plan != inventory.PlanEnterprise {
			t.Diagnostics = append(t.Diagnostics, Diagnostic{Severity: SeverityError, Code: CodePlanLog,
				Message: fmt.Sprintf("the log action needs the enterprise plan; the zone is on %s: change the action or drop the rule", opts.Plan)})
		}
	case vocab.ActionAllow:
		return setSkip(t, rule, first, nil)
	case vocab.ActionBypass:
		return setSkip(t, rule, nil, first)
	default:
		t.Diagnostics = append(t.Diagnostics, Diagnostic{Severity: SeverityError, Code: CodeAction,
			Message: fmt.Sprintf("action %q has no custom-rule counterpart (want block, challenge, js_challenge, managed_challenge, log, allow or bypass)", a)})
		return false
	}
	return true
}

// setSkip makes the rule a skip: of the current ruleset for an allow, of the products
// (and their phases) for a bypass, both for a merged pair. False when a bypass has no
// products, as there is nothing to skip.
func setSkip(t *RuleTranslation, rule *inventory.RulesetRule, allow, bypass *source) bool {
	var p skipParams
	if allow != nil {
		p.Ruleset = "current"
		t.Changes = append(t.Changes, `allow -> skip with action_parameters.ruleset "current": it stops the remaining custom rules, as allow stopped the remaining firewall rules`)
	}
	if bypass != nil {
		p.Products, p.Phases = products(bypass.rule.Products, t)
		if len(p.Products) == 0 {
			t.Diagnostics = append(t.Diagnostics, Diagnostic{Severity: SeverityError, Code: CodeProducts,
				Message: "bypass without products: there is nothing to skip"})
			return false
		}
	}
	rule.Action = vocab.ActionSkip
	params, _ := json.Marshal(p) // strings and slices of strings: cannot fail
	rule.ActionParameters = params
	t.Changes = append(t.Changes, "skip rules log matching requests by default: logging is left at its default (set logging.enabled to false to turn it off)")
	return true
}

// setEnabled sets enabled = !paused (a filter's own paused is ignored), and disabled for a
// rule using cf.threat_score, which is always 0.
func setEnabled(u *unit, rule *inventory.RulesetRule) {
	t := &u.t
	first := u.srcs[0]
	u.enabled = !first.rule.Paused
	if first.rule.Paused {
		t.Changes = append(t.Changes, "paused -> enabled false")
	}
	for _, s := range u.srcs {
		if s.rule.Filter.Paused && !s.rule.Paused {
			t.Changes = append(t.Changes, fmt.Sprintf("filter %s is paused but the rule was active: the filter's own flag is ignored, the rule is enabled", orNone(s.rule.Filter.ID)))
		}
	}
	if u.enabled && slices.ContainsFunc(t.Diagnostics, func(d Diagnostic) bool { return d.Code == CodeThreatScore }) {
		u.enabled = false
		u.threatOff = true
		t.Changes = append(t.Changes, "created disabled (enabled false): its condition uses cf.threat_score, which is always 0; rewrite the condition, then enable it")
	}
	rule.Enabled = &u.enabled
}

// products returns the bypass products for the skip action (deduplicated,
// in their order) and the phases derived from them.
func products(in []string, t *RuleTranslation) (prods, phases []string) {
	for _, p := range in {
		if slices.Contains(prods, p) {
			continue
		}
		if !slices.Contains(skipProducts, p) {
			t.Diagnostics = append(t.Diagnostics, Diagnostic{Severity: SeverityWarning, Code: CodeProducts,
				Message: fmt.Sprintf("bypass product %q is not one the skip action knows (%s); kept as is", p, strings.Join(skipProducts, ", "))})
		}
		prods = append(prods, p)
	}
	if len(prods) == 0 {
		return nil, nil
	}
	t.Changes = append(t.Changes, fmt.Sprintf("bypass -> skip with action_parameters.products [%s]: it does not stop the remaining rules, as bypass did not", strings.Join(prods, " ")))
	for _, p := range prods {
		if ph, ok := productPhases[p]; ok {
			phases = append(phases, string(ph))
			t.Changes = append(t.Changes, fmt.Sprintf("product %s addresses only the previous version: also skips phase %s (derived)", p, ph))
		}
	}
	slices.Sort(phases)
	return prods, phases
}

// description is the rule's description, else its filter's; a merged pair
// joins both. It is cut to the API's 500 characters.
func description(srcs []*source, t *RuleTranslation) string {
	var parts []string
	for _, s := range srcs {
		d := s.rule.Description
		if d == "" && s.rule.Filter.Description != "" {
			d = s.rule.Filter.Description
			t.Changes = append(t.Changes, fmt.Sprintf("description taken from filter %s (the rule has none)", orNone(s.rule.Filter.ID)))
		}
		if d != "" && !slices.Contains(parts, d) {
			parts = append(parts, d)
		}
	}
	d := strings.Join(parts, " + ")
	if utf8.RuneCountInString(d) > maxDescription {
		d = string([]rune(d)[:maxDescription])
		t.Changes = append(t.Changes, fmt.Sprintf("description cut to %d characters", maxDescription))
	}
	return d
}

// ref keeps the rule's ref (the allow's first for a pair), else uses the
// firewall rule id, so that a later run recognises what it already migrated.
func ref(srcs []*source, t *RuleTranslation) string {
	ordered := srcs
	if len(srcs) == 2 {
		ordered = []*source{srcs[1], srcs[0]}
	}
	for _, s := range ordered {
		if s.rule.Ref != "" {
			return s.rule.Ref
		}
	}
	for _, s := range ordered {
		if s.rule.ID != "" {
			t.Changes = append(t.Changes, fmt.Sprintf("ref set to the firewall rule id %s, so a later run recognises the rule as migrated", s.rule.ID))
			return s.rule.ID
		}
	}
	return ""
}

// orderDiagnostics says where the new list and the old evaluation order
// relate in a way worth knowing (see the package documentation's table).
func orderDiagnostics(units []*unit) {
	info := func(u *unit, format string, args ...any) {
		u.t.Diagnostics = append(u.t.Diagnostics, Diagnostic{Severity: SeverityInfo, Code: CodeOrder, Message: fmt.Sprintf(format, args...)})
	}
	live := func(u *unit) bool { return !u.migrated && u.t.Rule != nil && u.enabled }
	for i, u := range units {
		if !live(u) {
			continue
		}
		switch u.action() {
		case vocab.ActionLog:
			var before []string
			for _, p := range units[:i] {
				if live(p) && p.terminates() {
					before = append(before, p.t.FirewallRuleIDs...)
				}
			}
			if len(before) > 0 {
				info(u, "runs after %d rules that stop evaluation (%s): requests they stop are not logged, as with firewall rules evaluated by priority", len(before), abbreviate(before))
			}
		case vocab.ActionBypass:
			expr := u.t.NewExpression
			for _, p := range units[:i] {
				if live(p) && p.action() == vocab.ActionAllow && p.t.NewExpression == expr {
					info(u, "never takes effect: the allow %s with the same expression comes first and stops evaluation, as it did among the firewall rules", abbreviate(p.t.FirewallRuleIDs))
					break
				}
			}
			for _, p := range units[i+1:] {
				if !p.migrated && p.t.Rule != nil && p.action() == vocab.ActionAllow && p.t.NewExpression == expr {
					info(u, "kept apart from the allow %s on the same expression: they are not neighbours in the evaluation order (or only one is paused), and merging would change what runs between them; two rules keep the outcome", abbreviate(p.t.FirewallRuleIDs))
					break
				}
			}
		}
	}
}

// existingOrder warns that existing custom rules stay ahead of the migrated ones.
func existingOrder(existing []inventory.RulesetRule, units []*unit) []Diagnostic {
	var stopping []string
	for _, r := range existing {
		if r.Enabled != nil && !*r.Enabled {
			continue
		}
		if r.Action == vocab.ActionLog || (r.Action == vocab.ActionSkip && !skipsCurrent(r.ActionParameters)) {
			continue
		}
		stopping = append(stopping, orNone(r.ID))
	}
	added := slices.ContainsFunc(units, func(u *unit) bool { return !u.migrated && !u.blocked })
	if len(stopping) == 0 || !added {
		return nil
	}
	return []Diagnostic{{Severity: SeverityInfo, Code: CodeOrder, Message: fmt.Sprintf(
		"existing custom rules stay first (%d); those that stop evaluation (%d: %s) decide a request they match before any migrated rule runs",
		len(existing), len(stopping), abbreviate(stopping))}}
}

// skipsCurrent reports whether skip action parameters skip the rest of the ruleset.
func skipsCurrent(params json.RawMessage) bool {
	var p skipParams
	return json.Unmarshal(params, &p) == nil && p.Ruleset == "current"
}

// abbreviate lists at most three ids.
func abbreviate(in []string) string {
	ids := make([]string, len(in))
	for i, id := range in {
		ids[i] = orNone(id)
	}
	if len(ids) <= 3 {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:3], ", "), len(ids)-3)
}

// Precedence is the rank of a firewall rule action among rules of equal priority (lower
// runs first); false for an action with none.
func Precedence(a vocab.Action) (int, bool) {
	p, ok := precedence[a]
	return p, ok
}

// SkipPhase is the phase a bypass product also skips in its skip rule (derived), "" for
// none.
func SkipPhase(product string) vocab.Phase { return productPhases[product] }

// SkipProducts are the product names the skip action takes.
func SkipProducts() []string { return slices.Clone(skipProducts) }
