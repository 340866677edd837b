package scanner

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// Managed rulesets that replace the previous-version WAF packages.
const (
	rulesetCloudflareManaged = inventory.RulesetCloudflareManaged
	rulesetOWASPCore         = inventory.RulesetOWASPCore
)

// owaspMapping says how an OWASP package's sensitivity and action mode carry over to the OWASP
// Core ruleset (inventory.WAFPackage.OWASPCoreSettings, the documented mapping).
func owaspMapping(p inventory.WAFPackage) string {
	if strings.EqualFold(p.Sensitivity, "off") {
		return "sensitivity off: the package blocks nothing, so deploying the OWASP Core ruleset is a choice, not a migration"
	}
	pl, threshold, action := p.OWASPCoreSettings()
	s := fmt.Sprintf("paranoia level PL%d, score threshold %d", pl, threshold)
	switch strings.ToLower(p.Sensitivity) {
	case "high", "medium", "low":
	default:
		s += " (the default)"
	}
	return s + ", action " + string(action)
}

// groupNonDefault says how a group differs from its default, or "".
func groupNonDefault(g *inventory.WAFGroup) string {
	var parts []string
	if strings.EqualFold(g.Mode, "off") {
		parts = append(parts, "off")
	}
	if g.ModifiedRulesCount > 0 {
		parts = append(parts, plural(g.ModifiedRulesCount, "modified rule", "modified rules"))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("group %q %s", g.Name, strings.Join(parts, ", "))
}

// ruleNonDefault says how a rule differs from its default mode, or "". Rules with a
// default_mode (traditional packages) differ when their mode is neither "default" nor the
// default mode; on/off rules (anomaly packages) default to on.
func ruleNonDefault(r *inventory.WAFRule) string {
	label := r.ID
	if r.Description != "" {
		label = fmt.Sprintf("%s (%q)", r.ID, r.Description)
	}
	mode := strings.ToLower(r.Mode)
	if r.DefaultMode != "" {
		if mode == "" || mode == "default" || strings.EqualFold(r.Mode, r.DefaultMode) {
			return ""
		}
		return fmt.Sprintf("rule %s %s instead of %s", label, r.Mode, r.DefaultMode)
	}
	if mode == "off" {
		return fmt.Sprintf("rule %s off", label)
	}
	return ""
}

// wafPackages reports each active previous-version WAF package, summarising its groups and
// rules that are not at their default mode. Packages whose status says they are not active,
// and every package of a zone whose waf setting is off, are skipped: nothing runs through
// them, so nothing needs to migrate.
func (s *liveScan) wafPackages(z *inventory.ZoneInventory) {
	r, ok := s.rule(vocab.WAFManagedRulesV1)
	if !ok {
		return
	}
	if set, ok := z.Setting("waf"); ok {
		if on, known := inventory.SettingOn(set.Value); known && !on {
			return // the previous version is off for the zone: its packages inspect nothing
		}
	}
	sc := zoneScope(z)
	for i := range z.WAFPackages {
		p := &z.WAFPackages[i]
		if st := strings.ToLower(p.Package.Status); st != "" && st != "active" {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "WAF package %s: detection mode %s", named(p.Package.Name, p.Package.ID), orUnknown(p.Package.DetectionMode))
		anomaly := p.Package.IsOWASP()
		if anomaly {
			fmt.Fprintf(&b, ", OWASP sensitivity %s, action mode %s", orUnknown(p.Package.Sensitivity), orUnknown(p.Package.ActionMode))
		}
		var changed []string
		groups, rules := 0, 0
		for j := range p.Groups {
			if d := groupNonDefault(&p.Groups[j]); d != "" {
				changed = append(changed, d)
				groups++
			}
		}
		for j := range p.Rules {
			if d := ruleNonDefault(&p.Rules[j]); d != "" {
				changed = append(changed, d)
				rules++
			}
		}
		// Groups first, then rules, each sorted as rendered, whatever the order they were listed in.
		sort.Strings(changed[:groups])
		sort.Strings(changed[groups:])
		if len(changed) > 0 {
			fmt.Fprintf(&b, "; %d of %d groups and %d of %d rules read differ from their defaults: %s",
				groups, len(p.Groups), rules, len(p.Rules), listN(changed, 10))
		} else if len(p.Groups)+len(p.Rules) > 0 {
			fmt.Fprintf(&b, "; all %d groups and %d rules read are at their defaults", len(p.Groups), len(p.Rules))
		}
		fmt.Fprintf(&b, ". The previous version of managed rules is %s: ", r.life(s.asOf))
		if anomaly {
			fmt.Fprintf(&b, "deploy the OWASP Core ruleset (%s) in phase http_request_firewall_managed with %s", rulesetOWASPCore, owaspMapping(p.Package))
		} else {
			fmt.Fprintf(&b, "deploy the Cloudflare Managed ruleset (%s) in phase http_request_firewall_managed", rulesetCloudflareManaged)
		}
		if len(changed) > 0 {
			b.WriteString("; old group and rule ids do not map to the new ones, so re-create these changes as ruleset overrides by hand")
		}
		b.WriteString(".")
		s.add(r, r.sev, sc, Resource{Kind: vocab.KindWAFPackage, ID: p.Package.ID, Name: p.Package.Name}, "", b.String())
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "(not set)"
	}
	return s
}

// wafOverrides reports each URL-based WAF override.
func (s *liveScan) wafOverrides(z *inventory.ZoneInventory) {
	r, ok := s.rule(vocab.WAFManagedRulesV1)
	if !ok {
		return
	}
	sc := zoneScope(z)
	for i := range z.WAFOverrides {
		o := &z.WAFOverrides[i]
		urls := slices.Clone(o.URLs)
		sort.Strings(urls)
		state := "active"
		if o.Paused {
			state = "paused"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "WAF URL override %s for %s (%s): priority %d, %s",
			named(o.Description, o.ID), plural(len(urls), "URL", "URLs"), listN(urls, 5), o.Priority, state)
		if len(o.Groups) > 0 {
			fmt.Fprintf(&b, "; sets %s (%s)", plural(len(o.Groups), "group", "groups"), listN(inventory.SortedPairs(o.Groups), 5))
		}
		if len(o.Rules) > 0 {
			fmt.Fprintf(&b, "; sets %s (%s)", plural(len(o.Rules), "rule", "rules"), listN(inventory.SortedPairs(o.Rules), 5))
		}
		if len(o.RewriteAction) > 0 {
			fmt.Fprintf(&b, "; rewrites actions (%s)", listN(inventory.SortedPairs(o.RewriteAction), 5))
		}
		fmt.Fprintf(&b, ". The previous version of managed rules is %s: replace the override with exceptions (skip rules) or ruleset overrides in phase http_request_firewall_managed, placed before the execute rule; URL overrides also block the service's automatic upgrade until deleted.", r.life(s.asOf))
		s.add(r, r.sev, sc, Resource{Kind: vocab.KindWAFOverride, ID: o.ID, Name: o.Description}, "", b.String())
	}
}

// rateLimitAction says what an old rate limit's mode becomes.
func rateLimitAction(a inventory.RateLimitAction) string {
	if act := a.RuleAction(); act != "" {
		return string(act)
	}
	return fmt.Sprintf("no known action for mode %q", a.Mode)
}

// rateLimits reports each previous-version rate limit, saying so when its replacement is in
// place already (see rateLimitReplacement), and the zone when the new rate limiting rules
// quota cannot hold those still to migrate.
func (s *liveScan) rateLimits(z *inventory.ZoneInventory) {
	r, ok := s.rule(vocab.RateLimitingV1)
	if !ok || len(z.RateLimits) == 0 {
		return
	}
	sc := zoneScope(z)
	replaced := 0
	for i := range z.RateLimits {
		rl := &z.RateLimits[i]
		state := "enabled"
		if rl.Disabled {
			state = "disabled (becomes enabled: false)"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "Rate limit %s: %d requests per %d s", named(rl.Description, rl.ID), rl.Threshold, rl.Period)
		if rl.Match.Request != nil && rl.Match.Request.URL != "" {
			fmt.Fprintf(&b, " on %s", rl.Match.Request.URL)
		}
		fmt.Fprintf(&b, ", action %s", orUnknown(rl.Action.Mode))
		if rl.Action.Timeout > 0 {
			fmt.Fprintf(&b, " for %d s", rl.Action.Timeout)
		}
		fmt.Fprintf(&b, ", %s. Previous-version rate limiting is %s: ", state, r.life(s.asOf))
		if repl, differs := rateLimitReplacement(z, rl); repl != nil && differs == "" {
			replaced++
			fmt.Fprintf(&b, "its replacement is in place, rate limiting rule %s (ref %s: same action and requests per period): delete this rate limit (sunset plan and apply do it, after checking the rule again).",
				named(repl.Description, repl.ID), repl.Ref)
		} else {
			fmt.Fprintf(&b, "recreate it as a rate limiting rule (phase %s) with requests_per_period %d, period %d s, action %s",
				vocab.PhaseRateLimiting, rl.Threshold, rl.Period, rateLimitAction(rl.Action))
			notes := rateLimitNotes(rl, inventory.RateLimitRulesFor(z.Zone.Plan.LegacyID))
			if differs != "" {
				notes = append(notes, differs)
			}
			if len(notes) > 0 {
				b.WriteString("; " + strings.Join(notes, "; "))
			}
			b.WriteString(".")
		}
		s.add(r, r.sev, sc, Resource{Kind: vocab.KindRateLimit, ID: rl.ID, Name: rl.Description}, "", b.String())
	}
	s.rateLimitQuota(r, z, len(z.RateLimits)-replaced)
}

// rateLimitQuota reports the zone when the rate limiting rules quota cannot hold the rules
// of its rate limits still to migrate (pending) beside the rules it has.
func (s *liveScan) rateLimitQuota(r rule, z *inventory.ZoneInventory, pending int) {
	rank := inventory.PlanRank(z.Zone.Plan.LegacyID)
	if rank < 0 || pending == 0 {
		return
	}
	plan := strings.ToLower(z.Zone.Plan.LegacyID)
	existing := 0
	if rs, ok := z.Ruleset(vocab.PhaseRateLimiting); ok {
		existing = len(rs.Rules)
	}
	quota := inventory.RateLimitingRulesQuota(z.Zone.Plan.LegacyID)
	if total := pending + existing; total > quota {
		addOn := ""
		if rank == 3 {
			addOn = " (100 with the advanced rate limiting add-on)"
		}
		s.add(r, r.sev, zoneScope(z), Resource{Kind: vocab.KindZone, ID: z.Zone.ID, Name: z.Zone.Name}, "quota:rate-limiting-rules",
			fmt.Sprintf("Zone %s (%s plan) has %s and %s; the %s plan allows %d rate limiting rules%s, so %d will not fit after migration: merge or drop rate limits (or upgrade the plan) before migrating.",
				z.Zone.Name, plan, plural(pending, "previous-version rate limit", "previous-version rate limits"),
				plural(existing, "existing rate limiting rule", "existing rate limiting rules"), plan, quota, addOn, total-quota))
	}
}

// rateLimitReplacement is the rule of the zone's rate limiting entry point that replaces rl:
// the one whose ref is rl's (inventory.RateLimitRef: plan, apply and fix --snapshot write
// it), when it does what rl did as far as the scan can tell without translating the match
// (the translation lives in package migrate, which the scanner does not import; the planner
// compares whole rules with package meaning): the same action, requests per period and
// counting characteristic, and enabled as rl is. differs says how a rule that carries the
// ref does not ("" when it does, or when no rule carries it).
func rateLimitReplacement(z *inventory.ZoneInventory, rl *inventory.RateLimit) (repl *inventory.RulesetRule, differs string) {
	rs, ok := z.Ruleset(vocab.PhaseRateLimiting)
	if !ok {
		return nil, ""
	}
	ref := inventory.RateLimitRef(rl.ID)
	for i := range rs.Rules {
		cand := &rs.Rules[i]
		if cand.Ref != ref {
			continue
		}
		var lim struct {
			Characteristics   []string `json:"characteristics"`
			RequestsPerPeriod int      `json:"requests_per_period"`
		}
		_ = json.Unmarshal(cand.RateLimit, &lim) // a malformed one differs below
		by := "ip.src"
		if rl.Correlate != nil && strings.EqualFold(rl.Correlate.By, "nat") {
			by = "cf.unique_visitor_id"
		}
		var diff []string
		if cand.Action != rl.Action.RuleAction() {
			diff = append(diff, fmt.Sprintf("action %s, not %s", cand.Action, rateLimitAction(rl.Action)))
		}
		if lim.RequestsPerPeriod != rl.Threshold {
			diff = append(diff, fmt.Sprintf("%d requests per period, not %d", lim.RequestsPerPeriod, rl.Threshold))
		}
		if !slices.Contains(lim.Characteristics, by) {
			diff = append(diff, "not counted by "+by)
		}
		if enabled := cand.Enabled == nil || *cand.Enabled; enabled == rl.Disabled {
			diff = append(diff, fmt.Sprintf("enabled %t", enabled))
		}
		if len(diff) == 0 {
			return cand, ""
		}
		return cand, fmt.Sprintf("rate limiting rule %s carries its ref (%s) but does not do what it did (%s): check it before deleting this rate limit", named(cand.Description, cand.ID), ref, strings.Join(diff, ", "))
	}
	return nil, ""
}

// rateLimitNotes says what of a rate limit the zone's plan cannot carry over as is (the
// plan's allowed periods, timeouts and characteristics).
func rateLimitNotes(rl *inventory.RateLimit, avail inventory.RateLimitRules) []string {
	var notes []string
	plan := avail.Plan
	if plan == "" {
		plan = "unknown"
	}
	if !slices.Contains(avail.Periods, rl.Period) {
		notes = append(notes, fmt.Sprintf("period %d s is not allowed on the %s plan (%s) and will be rounded", rl.Period, plan, joinInts(avail.Periods)))
	}
	challenge := rl.Action.RuleAction().IsChallenge()
	if rl.Action.Timeout > 0 && !challenge && !slices.Contains(avail.Timeouts, rl.Action.Timeout) {
		notes = append(notes, fmt.Sprintf("timeout %d s is not an allowed mitigation_timeout on the %s plan (%s) and will be rounded", rl.Action.Timeout, plan, joinInts(avail.Timeouts)))
	}
	if rl.Correlate != nil && rl.Correlate.By == "nat" {
		if avail.AllowsCharacteristic("cf.unique_visitor_id") {
			notes = append(notes, "correlate by nat becomes the cf.unique_visitor_id characteristic")
		} else {
			notes = append(notes, fmt.Sprintf("correlate by nat needs the cf.unique_visitor_id characteristic, which is Enterprise only (%s plan)", plan))
		}
	}
	return notes
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ", ")
}
