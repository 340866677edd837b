package migrate

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/sunsetscan/sunset/migrate/expr"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// Allowed values of the new rate limiting rules (domain-facts).
var (
	allowedPeriods  = []int{10, 60, 120, 300, 600, 3600}
	allowedTimeouts = []int{0, 10, 60, 120, 300, 600, 3600, 86400}
)

// nearest returns the allowed value closest to v; a tie goes to the larger one (a longer
// window or timeout keeps at least the old strictness).
func nearest(v int, allowed []int) int {
	best := allowed[0]
	for _, a := range allowed[1:] {
		da, db := abs(a-v), abs(best-v)
		if da < db || (da == db && a > best) {
			best = a
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// RateLimitingQuota is the number of new rate limiting rules a plan allows (every rule of
// the http_ratelimit phase counts): free 1, pro 2, business 5, enterprise 5 (100 with the
// advanced rate limiting add-on, which the API does not show); 0 when the plan is unknown.
func RateLimitingQuota(plan string) int { return inventory.RateLimitingRulesQuota(plan) }

// rateLimitRef is the ref a migrated rate limit's rule carries, so a later run recognises it.
func rateLimitRef(id string) string { return "rate_limit:" + id }

// rlTranslation is one previous-version rate limit as a rate limiting rule.
type rlTranslation struct {
	old     inventory.RateLimit
	rule    inventory.RulesetRule
	changes []string // what the mapping did, incl. rounding
	blocked []string // why the rule cannot be created on this zone
	derived bool
	oldText string // the old match in one line, for the diff
}

// translateRateLimit maps a previous-version rate limit to a rate limiting rule (phase
// http_ratelimit). The mapping is domain-facts' table, derived except where it says
// otherwise: disabled -> enabled = !disabled; threshold -> requests_per_period; period and
// timeout rounded to the nearest allowed value (documented); mode ban -> block, simulate ->
// log, challenge modes unchanged; action.response -> action_parameters.response (body ->
// content, status 429); url -> http.host / http.request.uri.path conditions (urlCondition);
// methods -> http.request.method in {...} (_ALL_ = no condition); schemes -> ssl / not ssl;
// response status and headers -> counting_expression (Business+); origin_traffic true ->
// requests_to_origin; bypass urls -> and not (...); correlate nat -> cf.unique_visitor_id
// instead of ip.src (Business+).
func translateRateLimit(rl inventory.RateLimit, plan string) rlTranslation {
	t := rlTranslation{old: rl, derived: true}
	rank := inventory.PlanRank(plan)
	var conds []string
	var oldParts []string
	req := rl.Match.Request
	if req == nil {
		req = &inventory.RateLimitRequest{}
	}
	urlCond, notes := urlCondition(req.URL)
	t.changes = append(t.changes, notes...)
	if req.URL != "" {
		oldParts = append(oldParts, "url "+req.URL)
		if urlCond != "" {
			t.changes = append(t.changes, fmt.Sprintf("url %q -> %s", req.URL, urlCond))
		}
	}
	conds = append(conds, urlCond)

	if methods := normalizeList(req.Methods); len(methods) > 0 && !contains(methods, "_ALL_") {
		oldParts = append(oldParts, "methods "+strings.Join(methods, ","))
		quoted := make([]string, len(methods))
		for i, m := range methods {
			quoted[i] = expr.Quote(m)
		}
		if len(quoted) == 1 {
			conds = append(conds, "http.request.method eq "+quoted[0])
		} else {
			conds = append(conds, "http.request.method in {"+strings.Join(quoted, " ")+"}")
		}
	} else if len(req.Methods) > 0 {
		oldParts = append(oldParts, "methods _ALL_")
	}
	schemes := normalizeList(req.Schemes)
	if len(schemes) > 0 {
		oldParts = append(oldParts, "schemes "+strings.Join(schemes, ","))
	}
	https, http := contains(schemes, "HTTPS"), contains(schemes, "HTTP")
	switch {
	case contains(schemes, "_ALL_") || https == http:
	case https:
		conds = append(conds, "ssl")
	case http:
		conds = append(conds, "not ssl")
	}
	var bypass []string
	for _, bp := range rl.Bypass {
		if !strings.EqualFold(bp.Name, "url") {
			t.changes = append(t.changes, fmt.Sprintf("bypass entry %q=%q is not a url: dropped", bp.Name, bp.Value))
			continue
		}
		c, n := urlCondition(bp.Value)
		t.changes = append(t.changes, n...)
		oldParts = append(oldParts, "bypass "+bp.Value)
		if c == "" {
			t.blocked = append(t.blocked, fmt.Sprintf("bypass url %q matches everything: the rate limit never applied", bp.Value))
			continue
		}
		bypass = append(bypass, c)
	}
	if len(bypass) > 0 {
		conds = append(conds, "not ("+anyOf(bypass)+")")
		t.changes = append(t.changes, fmt.Sprintf("%s -> and not (...)", plural(len(bypass), "bypass url", "bypass urls")))
	}
	expression := allOf(conds...)
	if expression == "" {
		expression = "true"
		t.changes = append(t.changes, "matches every request of the zone: expression true")
	}

	// Counting: response status and headers (under match.response or match).
	var counting []string
	var status []int
	var headers []inventory.HeaderMatch
	origin := false
	if r := rl.Match.Response; r != nil {
		status = r.Status
		headers = append(headers, r.Headers...)
		origin = r.OriginTraffic != nil && *r.OriginTraffic
	}
	headers = append(headers, rl.Match.Headers...)
	if len(status) > 0 {
		ss := append([]int(nil), status...)
		sort.Ints(ss)
		parts := make([]string, len(ss))
		for i, s := range ss {
			parts[i] = strconv.Itoa(s)
		}
		oldParts = append(oldParts, "status "+strings.Join(parts, ","))
		if len(parts) == 1 {
			counting = append(counting, "http.response.code eq "+parts[0])
		} else {
			counting = append(counting, "http.response.code in {"+strings.Join(parts, " ")+"}")
		}
	}
	for _, h := range headers {
		name := strings.ToLower(h.Name)
		oldParts = append(oldParts, fmt.Sprintf("header %s %s %s", h.Name, h.Op, h.Value))
		c := fmt.Sprintf("any(http.response.headers[%s][*] eq %s)", expr.Quote(name), expr.Quote(h.Value))
		switch strings.ToLower(h.Op) {
		case "eq":
			counting = append(counting, c)
		case "ne":
			counting = append(counting, "not "+c)
		default:
			t.changes = append(t.changes, fmt.Sprintf("response header condition with op %q is not known: dropped", h.Op))
		}
	}
	countingExpr := ""
	if len(counting) > 0 {
		if rank >= 0 && rank < 2 {
			t.changes = append(t.changes, fmt.Sprintf("response conditions (%s) need a counting expression, which the %s plan does not allow: every matching request is counted", strings.Join(counting, " and "), plan))
		} else {
			countingExpr = allOf(append([]string{expression}, counting...)...)
			t.changes = append(t.changes, "response status/headers -> counting_expression (the match conditions and the response conditions)")
		}
	}

	// Action.
	action := ""
	switch strings.ToLower(rl.Action.Mode) {
	case "ban":
		action = "block"
	case "simulate":
		action = "log"
		if rank >= 0 && rank < 3 {
			t.blocked = append(t.blocked, fmt.Sprintf("mode simulate becomes the log action, which is Enterprise only (zone plan %s)", plan))
		}
	case "challenge", "js_challenge", "managed_challenge":
		action = strings.ToLower(rl.Action.Mode)
	default:
		t.blocked = append(t.blocked, fmt.Sprintf("mode %q has no rate limiting rule action", rl.Action.Mode))
	}
	if action != "" && action != rl.Action.Mode {
		t.changes = append(t.changes, fmt.Sprintf("mode %s -> action %s", rl.Action.Mode, action))
	}
	period := nearest(rl.Period, allowedPeriods)
	if period != rl.Period {
		t.changes = append(t.changes, fmt.Sprintf("period %d s is not allowed: rounded to %d s (%d requests per %d s instead of per %d s)", rl.Period, period, rl.Threshold, period, rl.Period))
	}
	timeout := nearest(rl.Action.Timeout, allowedTimeouts)
	if timeout != rl.Action.Timeout {
		t.changes = append(t.changes, fmt.Sprintf("timeout %d s is not an allowed mitigation_timeout: rounded to %d s", rl.Action.Timeout, timeout))
	}
	characteristics := []string{"cf.colo.id", "ip.src"}
	if rl.Correlate != nil && strings.EqualFold(rl.Correlate.By, "nat") {
		if rank >= 0 && rank < 2 {
			t.changes = append(t.changes, fmt.Sprintf("correlate by nat needs the cf.unique_visitor_id characteristic, which the %s plan does not allow: counted per IP", plan))
		} else {
			characteristics = []string{"cf.colo.id", "cf.unique_visitor_id"}
			t.changes = append(t.changes, "correlate by nat -> characteristic cf.unique_visitor_id instead of ip.src")
		}
	}
	ratelimit := map[string]any{
		"characteristics":     characteristics,
		"period":              period,
		"requests_per_period": rl.Threshold,
		"mitigation_timeout":  timeout,
	}
	if countingExpr != "" {
		ratelimit["counting_expression"] = countingExpr
	}
	if origin {
		ratelimit["requests_to_origin"] = true
		t.changes = append(t.changes, "origin_traffic -> requests_to_origin")
	}
	rule := inventory.RulesetRule{
		Action: action, Expression: expression, Description: rl.Description,
		Enabled: boolPtr(!rl.Disabled), Ref: rateLimitRef(rl.ID), RateLimit: mustJSON(ratelimit),
	}
	if resp := rl.Action.Response; resp != nil && (resp.Body != "" || resp.ContentType != "") {
		if action == "block" {
			ct := resp.ContentType
			if ct == "" {
				ct = "text/plain"
			}
			rule.ActionParameters = mustJSON(map[string]any{"response": map[string]any{"status_code": 429, "content_type": ct, "content": resp.Body}})
			t.changes = append(t.changes, "custom response -> action_parameters.response (status 429)")
		} else {
			t.changes = append(t.changes, fmt.Sprintf("the custom response applies only to block: dropped for action %s", action))
		}
	}
	if rl.Disabled {
		t.changes = append(t.changes, "disabled -> enabled: false")
	}
	t.rule = rule
	t.oldText = fmt.Sprintf("%s %d/%ds %s", strings.Join(oldParts, " "), rl.Threshold, rl.Period, rl.Action.Mode)
	if rl.Action.Timeout > 0 {
		t.oldText += fmt.Sprintf(" for %ds", rl.Action.Timeout)
	}
	if _, err := expr.Parse(expression); err != nil {
		t.blocked = append(t.blocked, fmt.Sprintf("the expression built from the match does not parse (%v)", err))
	}
	return t
}

func normalizeList(xs []string) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		if x = strings.ToUpper(strings.TrimSpace(x)); x != "" && !contains(out, x) {
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}

func contains(xs []string, v string) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

// rateLimits plans previous-version rate limits -> rate limiting rules: the rules that fit
// the (lower) new quota are created, verified, and then the old rate limits deleted; the
// others stay, each with a manual step saying why and what to do.
func (b *builder) rateLimits() {
	z := b.z
	if !b.has(idRateLimitingV1) || len(z.RateLimits) == 0 {
		return
	}
	zid := z.Zone.ID
	plan := strings.ToLower(z.Zone.Plan.LegacyID)
	entry, hasEntry := z.Ruleset(PhaseRateLimiting)
	migratedRef := map[string]bool{}
	for _, r := range entry.Rules {
		if r.Ref != "" {
			migratedRef[r.Ref] = true
		}
	}
	quota := RateLimitingQuota(plan)
	room := -1
	if quota > 0 {
		room = max(0, quota-len(entry.Rules))
	}

	var cands, already []rlTranslation
	var blocked []rlTranslation
	for _, rl := range z.RateLimits {
		if len(b.peekFindings(idRateLimitingV1, kindRateLimit, rl.ID)) == 0 {
			continue
		}
		t := translateRateLimit(rl, plan)
		switch {
		case migratedRef[t.rule.Ref]:
			already = append(already, t)
		case len(t.blocked) > 0:
			blocked = append(blocked, t)
		default:
			cands = append(cands, t)
		}
	}
	// Enabled rate limits get the room first (a disabled one protects nothing today); then
	// the snapshot's order (by id).
	sort.SliceStable(cands, func(i, j int) bool { return !cands[i].old.Disabled && cands[j].old.Disabled })
	var fit, over []rlTranslation
	for _, t := range cands {
		if room < 0 || len(fit) < room {
			fit = append(fit, t)
		} else {
			over = append(over, t)
		}
	}
	var rules []inventory.RulesetRule
	var diffs []Diff
	for _, t := range fit {
		rules = append(rules, t.rule)
		diffs = append(diffs, Diff{Label: "rate limit " + named(t.old.Description, t.old.ID), Old: t.oldText, New: rlNewText(t.rule), Changes: t.changes})
	}
	var notes []string
	if quota > 0 && len(entry.Rules)+len(cands)+len(already) > quota {
		notes = append(notes, fmt.Sprintf("the %s plan allows %d rate limiting rules (fewer than previous-version rate limits): %d existing, %d fit, %d do not", plan, quota, len(entry.Rules), len(fit), len(over)))
	}
	b.notes = append(b.notes, notes...)
	verify := b.plan(rulesetChange{
		prefix: "rate-limiting-rules", phase: PhaseRateLimiting, existing: entryOrNil(entry, hasEntry),
		back: rules, what: "rate limiting rule", whats: "rate limiting rules",
		risk: RiskMedium, derived: true,
		reason: "Previous-version rate limiting is deprecated; each rate limit becomes a rate limiting rule (fields mapped one to one where documented; the steps marked derived are sunset's own decisions where no official mapping exists).",
		note:   strings.Join(notes, "\n"), diffs: diffs,
	})
	if verify == "" && len(already) > 0 {
		verify = "rate-limiting-rules.verify"
		b.add(phaseVerify, Step{
			ID: verify, Kind: "rate-limiting-rules.verify", Change: ChangeVerify, Method: "GET",
			Path: entrypointPath(zid, PhaseRateLimiting), Risk: RiskNone,
			Title:  "Check the rate limiting rules an earlier run created",
			Reason: "The rate limits deleted below already have their rules (matched by ref rate_limit:ID).",
			Checks: []string{"every rate limit deleted below has a rule whose ref is rate_limit:<its id>"},
		})
	}
	for _, t := range append(fit, already...) {
		id := t.old.ID
		b.add(phaseOldDelete, Step{
			ID: "rate-limit.delete:" + id, Kind: "rate-limit.delete", Change: ChangeDelete,
			Method: "DELETE", Path: zonePath(zid, "rate_limits", id), DependsOn: []string{verify},
			Resolves: b.findings(idRateLimitingV1, kindRateLimit, id), Risk: RiskMedium,
			Title:  "Delete rate limit " + named(t.old.Description, id),
			Reason: "Its rate limiting rule is in place; keeping both would count and mitigate twice.",
		})
		b.retired = append(b.retired, Retired{Type: "cloudflare_rate_limit", ID: id})
	}
	quotaFPs := b.findings(idRateLimitingV1, kindZone, zid)
	for i, t := range append(blocked, over...) {
		id := t.old.ID
		why := t.blocked
		var options []string
		if len(why) == 0 {
			why = []string{fmt.Sprintf("it does not fit the %s plan's quota of %d rate limiting rules", plan, quota)}
			options = []string{
				"merge rate limits with the same threshold, period and action into one rule (join their expressions with \"or\")",
				"upgrade the plan (or, on Enterprise, the advanced rate limiting add-on)",
				"drop the rate limit if it is no longer needed (disabled ones first)",
			}
		} else {
			options = []string{"recreate it by hand with an action the plan allows, or drop it; the previous-version rate limit stays meanwhile"}
		}
		resolves := b.findings(idRateLimitingV1, kindRateLimit, id)
		if i == 0 {
			resolves = append(resolves, quotaFPs...)
		}
		rsID := entry.ID
		if rsID == "" {
			rsID = ":ruleset_id"
		}
		b.add(phaseManual, Step{
			ID: "rate-limit.keep:" + id, Kind: "rate-limit.keep", Manual: true, Derived: true,
			Method: "POST", Path: zonePath(zid, "rulesets", rsID, "rules"), Body: mustJSON(t.rule),
			Resolves: resolves, Risk: RiskHigh,
			Title:  "Keep rate limit " + named(t.old.Description, id) + " until it can be migrated",
			Reason: "It cannot become a rate limiting rule now: " + strings.Join(why, "; ") + ".",
			Note:   "Options: " + strings.Join(options, "; ") + ". The body is the rate limiting rule it maps to.",
			Diffs:  []Diff{{Label: "rate limit " + named(t.old.Description, id), Old: t.oldText, New: rlNewText(t.rule), Changes: t.changes}},
		})
	}
}

// peekFindings is findings without marking them planned.
func (b *builder) peekFindings(ruleID, kind, id string) []string {
	var out []string
	for _, f := range b.ix.byScope[b.scope] {
		if f.RuleID == ruleID && f.Resource.Kind == kind && f.Resource.ID == id {
			out = append(out, f.Fingerprint)
		}
	}
	return out
}

// rlNewText renders a rate limiting rule in one line for diffs.
func rlNewText(r inventory.RulesetRule) string {
	s := fmt.Sprintf("%s when %s; ratelimit %s", r.Action, r.Expression, string(r.RateLimit))
	if r.Enabled != nil && !*r.Enabled {
		s += " (disabled)"
	}
	return s
}
