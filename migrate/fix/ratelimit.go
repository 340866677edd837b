package fix

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/verify"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

const typeRateLimit = "cloudflare_rate_limit"

// rlGroup is the rate limits of one zone in one module: they become one ruleset of phase
// http_ratelimit.
type rlGroup struct {
	module   *Module
	zone     hclsyntax.Expression
	zoneText string
	items    []rlItem
}

// rlItem is one rate limit, its values and its translation.
type rlItem struct {
	r       *Resource
	old     inventory.RateLimit   // with marks for the references it keeps (holes.go)
	actual  *inventory.RateLimit  // its values, nil when the repository does not hold them all
	holes   *refHoles             // the references its rule keeps, nil for none
	rule    inventory.RulesetRule // translated from old
	changes []string
	blocked []string
}

// rateLimits rewrites the module's cloudflare_rate_limit resources, per zone, into a
// cloudflare_ruleset of phase http_ratelimit, as `sunset plan` translates them for the
// zone's plan, keeping the variables and locals they read as references (holes.go). A rate
// limit with count or for_each, or with values that are neither in the repository nor
// references the rule can keep, stays as it is with a comment saying why.
func (f *fixer) rateLimits(ev *evaluator, m *Module) {
	sets := f.byZone(m, []string{typeRateLimit}, "fix rewrites rate limits one resource at a time (each rule must be checked against the zone's plan): write one resource per rate limit, or move it to the ruleset by hand", nil)
	for _, s := range sets {
		why := workspaceWhy(m, s.zone, s.res)
		if why == "" {
			why = f.sharedWhy(m, vocab.PhaseRateLimiting, s.zoneText)
		}
		if why != "" {
			for _, r := range s.res {
				f.leave(r, r.Address()+" not rewritten: "+why)
			}
			continue
		}
		g := &rlGroup{module: m, zone: s.zone, zoneText: s.zoneText}
		for i, r := range s.res {
			rl, holes, actual, why := readMarked(ev, r, 100*i)
			if why != "" {
				f.leave(r, r.Address()+" not rewritten: "+why)
				continue
			}
			g.items = append(g.items, rlItem{r: r, old: rl, holes: holes, actual: actual})
		}
		if len(g.items) > 0 {
			f.rateLimitGroup(ev, g)
		}
	}
}

// readRateLimit reads a cloudflare_rate_limit (provider v4's schema) as the API's rate limit;
// unknown names the attributes whose values the repository does not hold.
func readRateLimit(ev *evaluator, r *Resource) (inventory.RateLimit, []string) {
	if r.Attr("match") != nil || r.Attr("action") != nil {
		return readRateLimitV5(ev, r)
	}
	b := newLiteralReader(ev, r)
	rl := inventory.RateLimit{ID: r.Name, Threshold: b.integer("threshold"), Period: b.integer("period"),
		Disabled: b.boolean("disabled"), Description: b.str("description")}
	for _, u := range b.strs("bypass_url_patterns") {
		rl.Bypass = append(rl.Bypass, inventory.RateLimitBypass{Name: "url", Value: u})
	}
	if m, ok := b.block("match"); ok {
		if q, ok := m.block("request"); ok {
			rl.Match.Request = &inventory.RateLimitRequest{URL: q.str("url_pattern"), Schemes: q.strs("schemes"), Methods: q.strs("methods")}
		}
		if s, ok := m.block("response"); ok {
			resp := &inventory.RateLimitResponse{Status: s.ints("statuses")}
			if s.has("origin_traffic") {
				o := s.boolean("origin_traffic")
				resp.OriginTraffic = &o
			}
			for _, h := range s.objects("headers") {
				resp.Headers = append(resp.Headers, inventory.HeaderMatch{Name: h["name"], Op: h["op"], Value: h["value"]})
			}
			rl.Match.Response = resp
		}
	}
	if a, ok := b.block("action"); ok {
		rl.Action = inventory.RateLimitAction{Mode: a.str("mode"), Timeout: a.integer("timeout")}
		if resp, ok := a.block("response"); ok {
			rl.Action.Response = &inventory.RateLimitResponseBody{ContentType: resp.str("content_type"), Body: resp.str("body")}
		}
	}
	if c, ok := b.block("correlate"); ok {
		rl.Correlate = &inventory.RateLimitCorrelate{By: c.str("by")}
	}
	return rl, b.rd.unknown
}

// readRateLimitV5 reads a cloudflare_rate_limit in provider v5's syntax, whose attributes
// are the API's members (match, action, bypass, correlate as objects): their values are the
// API's rate limit as JSON.
func readRateLimitV5(ev *evaluator, r *Resource) (inventory.RateLimit, []string) {
	var unknown []string
	obj := map[string]json.RawMessage{}
	for name, a := range r.Block.Body.Attributes {
		if name == "zone_id" || name == "id" {
			continue
		}
		v := ev.value(a.Expr, nil)
		if !v.IsWhollyKnown() {
			unknown = append(unknown, name)
			continue
		}
		raw, err := ctyJSON(v)
		if err != nil {
			unknown = append(unknown, name)
			continue
		}
		obj[name] = raw
	}
	sort.Strings(unknown)
	var rl inventory.RateLimit
	data, _ := json.Marshal(obj) // raw JSON values: cannot fail
	if err := json.Unmarshal(data, &rl); err != nil {
		return rl, append(unknown, "its attributes as the API's rate limit ("+err.Error()+")")
	}
	rl.ID = r.Name
	return rl, unknown
}

// rateLimitGroup translates one zone's rate limits for its plan (as for Enterprise when the
// plan is not known, the notes saying what needs which plan) and writes those that can be
// created, in the plan's order and within its quota, as one ruleset.
func (f *fixer) rateLimitGroup(ev *evaluator, g *rlGroup) {
	zone := f.zoneOf(ev, &group{module: g.module, zone: g.zone, zoneText: g.zoneText})
	written := zone.plan
	if written == "" {
		written = "enterprise"
	}
	g.items = f.translateRateLimits(g.items, written)
	liveRateLimitRefs(g.items, zone.inv, written)
	// The plan's order: enabled rate limits first (they protect something), then the file's.
	slices.SortStableFunc(g.items, func(a, b rlItem) int { return boolRank(a.old.Disabled) - boolRank(b.old.Disabled) })
	// The quota counts the rules the zone's entry point holds: declared here, or in the account.
	_, taken := declaredRuleset(ev, g.module, vocab.PhaseRateLimiting, g.zoneText)
	if rs, ok := entryPointOf(zone, vocab.PhaseRateLimiting); ok && taken == 0 {
		taken = len(rs.Rules)
	}
	fit := f.rateLimitsThatFit(g, zone.plan, taken)
	if len(fit) == 0 {
		return
	}
	rw := Rewrite{Module: g.module.Dir, Zone: zone.label(g.zoneText), Plan: zone.plan}
	rw.Notes = rateLimitPlanNotes(zone, fit)
	block, err := f.rateLimitBlock(g, zone, fit, &rw)
	if err != nil {
		for _, it := range fit {
			f.leave(it.r, it.r.Address()+" not rewritten: "+err.Error())
		}
		return
	}
	olds := make([]*Resource, 0, len(fit))
	for _, it := range fit {
		olds = append(olds, it.r)
	}
	inFileOrder(olds)
	for _, r := range olds {
		rw.Old = append(rw.Old, r.Address())
	}
	rw.File, rw.Line = olds[0].File.Path, olds[0].Line()
	f.replace(olds, block, rw.New)
	f.res.Rewrites = append(f.res.Rewrites, rw)
}

// translateRateLimits translates each rate limit for the plan written, and leaves those
// whose rule cannot keep the references they read (refHoles.check); what the translation
// says names the references as written.
func (f *fixer) translateRateLimits(items []rlItem, written string) []rlItem {
	out := items[:0]
	for _, it := range items {
		it.rule, it.changes, it.blocked = migrate.TranslateRateLimit(it.old, written)
		if !it.holes.empty() {
			var want *inventory.RulesetRule
			if it.actual != nil {
				w, _, _ := migrate.TranslateRateLimit(*it.actual, written)
				want = &w
			}
			if why := it.holes.check(it.rule, want); why != "" {
				f.leave(it.r, it.r.Address()+" not rewritten: "+why)
				continue
			}
			it.changes, it.blocked = it.holes.explain(it.changes), it.holes.explain(it.blocked)
		}
		out = append(out, it)
	}
	return out
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rateLimitsThatFit leaves the rate limits the plan cannot take (a condition it cannot
// express, or over its quota of rules beside the taken ones) and returns the others.
func (f *fixer) rateLimitsThatFit(g *rlGroup, plan string, taken int) []rlItem {
	room := -1
	if quota := migrate.RateLimitingQuota(plan); quota > 0 {
		room = max(0, quota-taken)
	}
	var fit []rlItem
	for _, it := range g.items {
		switch {
		case len(it.blocked) > 0:
			f.leave(it.r, it.r.Address()+" not rewritten: "+strings.Join(it.blocked, "; ")+". Options: upgrade the plan, recreate it by hand with what the plan allows (knowing what the difference counts), or drop it; it stops working at its end of life")
		case room >= 0 && len(fit) >= room:
			f.leave(it.r, fmt.Sprintf("%s not rewritten: it does not fit the %s plan's quota of %d rate limiting rules. Options: merge rate limits with the same threshold, period and action into one rule (their expressions joined with or), upgrade the plan, or drop it if it is no longer needed", it.r.Address(), plan, migrate.RateLimitingQuota(plan)))
		default:
			fit = append(fit, it)
		}
	}
	return fit
}

// rateLimitBlock renders the zone's cloudflare_ruleset of rate limiting rules with its
// comment line, the references the rules keep written back (holes.go), and says in rw what
// was compared on generated requests.
func (f *fixer) rateLimitBlock(g *rlGroup, zone zoneInfo, fit []rlItem, rw *Rewrite) (string, error) {
	rules := make([]inventory.RulesetRule, 0, len(fit))
	var addrs []string
	for _, it := range fit {
		rule := it.rule
		if !it.holes.empty() {
			it.holes.markNumbers(&rule)
		}
		rules = append(rules, rule)
		addrs = append(addrs, it.r.Address())
		if len(it.changes) > 0 {
			rw.Notes = append(rw.Notes, it.r.Address()+": "+strings.Join(it.changes, "; "))
		}
	}
	presentRules(fit, rules, zone, writtenPlan(zone))
	what := fmt.Sprintf("sunset fix: rate limiting rules of zone %s, replacing %s (previous-version rate limiting is deprecated: see sunset help fix).", rw.Zone, strings.Join(addrs, ", "))
	since := map[*File]int{}
	for file, es := range f.edits {
		since[file] = len(es)
	}
	block, err := f.entryPoint(g.module, fit[0].r.File, g.zone, zone, newRules{phase: vocab.PhaseRateLimiting, short: "rate_limiting_rules", back: rules, what: what}, rw)
	if err != nil {
		return "", err
	}
	if block, err = f.fillHoles(block, since, fit, writtenPlan(zone)); err != nil {
		return "", err
	}
	rw.Proven, rw.IsProof = verifyItems(fit, writtenPlan(zone))
	rw.Notes = append(rw.Notes, refNotes(fit)...)
	return block, nil
}

// writtenPlan is the plan the rules are written for: the zone's, else Enterprise's.
func writtenPlan(zone zoneInfo) string {
	if zone.plan == "" {
		return inventory.PlanEnterprise
	}
	return zone.plan
}

// fillHoles writes the references the rules keep into the rendered block and into the
// edits rendering added since (rules joining a ruleset the module declares).
func (f *fixer) fillHoles(block string, since map[*File]int, fit []rlItem, plan string) (string, error) {
	avail := inventory.RateLimitRulesFor(plan)
	fill := func(text string) string {
		for _, it := range fit {
			text = it.holes.fill(text, avail.Periods, avail.Timeouts)
		}
		return text
	}
	block = fill(block)
	left := markPattern.MatchString(block)
	for file, es := range f.edits {
		for i := since[file]; i < len(es); i++ {
			es[i].text = fill(es[i].text)
			left = left || markPattern.MatchString(es[i].text)
		}
	}
	if left {
		return "", errors.New("a reference it reads could not be written back into the rule")
	}
	return block, nil
}

// verifyItems verifies the rules: with the values where the repository holds them all (the
// rules built with the references are those built from the values, refHoles.check), else
// with the marks standing for the values, and then says what is not proven.
func verifyItems(fit []rlItem, plan string) (string, bool) {
	olds := make([]inventory.RateLimit, 0, len(fit))
	rules := make([]inventory.RulesetRule, 0, len(fit))
	var unknown []string
	for _, it := range fit {
		if it.actual != nil {
			rule, _, _ := migrate.TranslateRateLimit(*it.actual, plan)
			olds, rules = append(olds, *it.actual), append(rules, rule)
			continue
		}
		olds, rules = append(olds, it.old), append(rules, it.rule)
		unknown = append(unknown, it.holes.unknownRefs()...)
	}
	proven, ok := verifyRateLimits(olds, rules)
	if len(unknown) == 0 {
		return proven, ok
	}
	slices.Sort(unknown)
	return "not proven: the repository does not hold the value of " + strings.Join(slices.Compact(unknown), ", ") +
		"; the rules keep them as references, and with stand-ins for them: " + strings.TrimPrefix(proven, "verified: "), false
}

// refNotes say which references the rules keep, and what a value the repository does not
// hold is assumed to be.
func refNotes(fit []rlItem) []string {
	var notes []string
	for _, it := range fit {
		if it.holes.empty() {
			continue
		}
		var kept, assumed, rounded []string
		for _, s := range it.holes.strs {
			kept = append(kept, s.ref)
			if !s.value.IsWhollyKnown() {
				assumed = append(assumed, s.ref)
			}
		}
		for _, n := range it.holes.nums {
			kept = append(kept, n.expr+" ("+n.member+")")
			if n.member != "requests_per_period" && !n.value.IsWhollyKnown() {
				rounded = append(rounded, n.expr)
			}
		}
		note := it.r.Address() + ": its rule keeps " + strings.Join(kept, ", ") + " as references"
		if len(assumed) > 0 {
			note += "; " + strings.Join(assumed, ", ") + " taken as text: a value holding a /, *, ?, #, a scheme or a quote would change how the url is read"
		}
		if len(rounded) > 0 {
			note += "; " + strings.Join(rounded, ", ") + " rounded in HCL to the nearest value the plan allows, as the translation rounds"
		}
		notes = append(notes, note)
	}
	return notes
}

// verifyRateLimits compares each rate limit with its rule on generated requests, as `sunset
// verify` does, and says the result in words.
func verifyRateLimits(olds []inventory.RateLimit, rules []inventory.RulesetRule) (string, bool) {
	raws := make([]json.RawMessage, 0, len(rules))
	for _, r := range rules {
		raw, err := json.Marshal(r)
		if err != nil {
			return "not proven: " + err.Error(), false
		}
		raws = append(raws, raw)
	}
	zp := &migrate.ZonePlan{Targets: []migrate.Target{{Phase: vocab.PhaseRateLimiting, Name: entryPointName, Rules: raws}}}
	v := verify.Zone(zp, &inventory.ZoneInventory{RateLimits: olds})
	requests := 0
	var differ []string
	for _, c := range v.RateLimits {
		requests += c.Requests
		if c.Differing > 0 {
			differ = append(differ, fmt.Sprintf("%s counts %d of %d generated requests differently", c.RateLimitID, c.Differing, c.Requests))
		}
	}
	if len(differ) > 0 {
		return "NOT the same: " + strings.Join(differ, "; "), false
	}
	return fmt.Sprintf("verified: each rule counts the same requests as its rate limit on %d generated requests (limits rounded to the plan's values are in the notes)", requests), true
}

// rateLimitPlanNotes say where the plan comes from, or, when it is not known, which plan
// each rule as written needs and what the quotas are.
func rateLimitPlanNotes(zone zoneInfo, fit []rlItem) []string {
	if zone.plan != "" {
		return []string{"plan " + zone.plan + " from " + zone.source}
	}
	notes := []string{"zone plan not known (say it with --zone-plan NAME=LEVEL or --snapshot): written as for Enterprise"}
	for _, it := range fit {
		notes = append(notes, planNeeds(it))
	}
	if len(fit) > 1 {
		var q []string
		for _, p := range []string{"free", "pro", "business", "enterprise"} {
			q = append(q, fmt.Sprintf("%s %d", p, migrate.RateLimitingQuota(p)))
		}
		notes = append(notes, fmt.Sprintf("%d rate limiting rules: the plans allow %s", len(fit), strings.Join(q, ", ")))
	}
	return notes
}

// planNeeds says the lowest plan that takes the rule as written, and what the plan below it
// would change or refuse (lower plans allow less still).
func planNeeds(it rlItem) string {
	want, _ := json.Marshal(it.rule)
	lowest, below := "enterprise", ""
	for _, p := range []string{"business", "pro", "free"} {
		rule, changes, blocked := migrate.TranslateRateLimit(it.old, p)
		got, _ := json.Marshal(rule)
		switch {
		case len(blocked) > 0:
			below = p + ": " + strings.Join(it.holes.explain(blocked), "; ")
		case string(got) != string(want) && (it.holes.empty() || !it.holes.sameNumbers(string(got), string(want))):
			below = p + ": " + strings.Join(without(it.holes.explain(changes), it.changes), "; ")
		default:
			lowest = p
			continue
		}
		break
	}
	if below == "" {
		return it.r.Address() + ": every plan takes the rule as written"
	}
	return fmt.Sprintf("%s as written needs the %s plan or higher (on %s)", it.r.Address(), lowest, below)
}

// without is xs less the members of ys.
func without(xs, ys []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(ys, x) {
			out = append(out, x)
		}
	}
	return out
}
