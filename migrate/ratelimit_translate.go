package migrate

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/sunsetscan/sunset/scanner/expr"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// rlTranslation is one previous-version rate limit as a rate limiting rule.
type rlTranslation struct {
	old     inventory.RateLimit
	rule    inventory.RulesetRule
	changes []string // what the mapping did, incl. rounding
	blocked []string // why the rule cannot be created on this zone
	risk    Risk     // medium; high when rounding changes the limit twofold or more, or the url never matched
	oldText string   // the old match in one line, for the diff
}

// rlTranslator is the state of one translation.
type rlTranslator struct {
	t     *rlTranslation
	avail inventory.RateLimitRules
	conds []string // conditions of the rule expression, joined with "and"
	parts []string // the old match, for the diff
	never bool     // the old url matched no request: the rule is created disabled
}

// translateRateLimit maps a previous-version rate limit to a rate limiting rule (phase
// http_ratelimit), within what the zone's plan allows (inventory.RateLimitRulesFor). The
// mapping is domain-facts' table, derived except where it says otherwise: disabled ->
// enabled = !disabled; threshold -> requests_per_period; period and timeout rounded to the
// nearest value the plan allows (documented); mode ban -> block, simulate -> log, challenge
// modes unchanged (they take mitigation_timeout 0, as the API requires); action.response ->
// action_parameters.response (body -> content, status 429); url -> http.host /
// http.request.uri.path wildcard conditions (urlCondition; a url that never matched makes
// the rule disabled); methods -> http.request.method in {...}
// (_ALL_ = no condition); schemes -> ssl / not ssl, or a full URI wildcard on plans without
// ssl; response status and headers -> counting_expression; origin_traffic true ->
// requests_to_origin; bypass urls -> and not (...); correlate nat -> cf.unique_visitor_id.
//
// A condition the plan cannot express is never dropped (that would widen what is counted):
// the translation is blocked with the reason, and the rule it would make is kept for the
// manual step.
func translateRateLimit(rl inventory.RateLimit, plan string) rlTranslation {
	x := &rlTranslator{t: &rlTranslation{old: rl, risk: RiskMedium}, avail: inventory.RateLimitRulesFor(plan)}
	req := rl.Match.Request
	if req == nil {
		req = &inventory.RateLimitRequest{}
	}
	x.url(req.URL)
	x.methods(req.Methods)
	x.schemes(req.Schemes)
	x.bypass(rl.Bypass)
	expression := allOf(x.conds...)
	if expression == "" {
		expression = "true"
		x.change("matches every request of the zone: expression true")
	}
	counting := x.counting(rl, expression)
	action := x.action(rl.Action)
	rule := inventory.RulesetRule{
		Action: action, Expression: expression, Description: rl.Description,
		Enabled: boolPtr(!rl.Disabled && !x.never), Ref: RateLimitRef(rl.ID), RateLimit: mustJSON(x.ratelimit(rl, action, counting)),
	}
	rule.ActionParameters = x.response(rl.Action.Response, action)
	if rl.Disabled {
		x.change("disabled -> enabled: false")
	}
	x.t.rule = rule
	x.t.oldText = fmt.Sprintf("%s %d/%ds %s", strings.Join(x.parts, " "), rl.Threshold, rl.Period, rl.Action.Mode)
	if rl.Action.Timeout > 0 {
		x.t.oldText += fmt.Sprintf(" for %ds", rl.Action.Timeout)
	}
	if _, err := expr.Parse(expression); err != nil {
		x.block("the expression built from the match does not parse (%v)", err)
	}
	return *x.t
}

// TranslateRateLimit is the translation of one rate limit for callers outside the plan
// (sunset fix): the rule, what the mapping changed, and why the rule cannot be created on
// the plan (empty when it can).
func TranslateRateLimit(rl inventory.RateLimit, plan string) (rule inventory.RulesetRule, changes, blocked []string) {
	t := translateRateLimit(rl, plan)
	return t.rule, t.changes, t.blocked
}

func (x *rlTranslator) change(format string, args ...any) {
	x.t.changes = append(x.t.changes, fmt.Sprintf(format, args...))
}

func (x *rlTranslator) block(format string, args ...any) {
	x.t.blocked = append(x.t.blocked, fmt.Sprintf(format, args...))
}

// planName names the plan for messages.
func (x *rlTranslator) planName() string {
	if x.avail.Plan == "" {
		return "unknown"
	}
	return x.avail.Plan
}

// need adds cond to the rule expression and blocks the translation when cond uses a field
// that rate limiting rules on the zone's plan cannot use; what names the old condition.
func (x *rlTranslator) need(cond, what string) {
	if cond == "" {
		return
	}
	x.conds = append(x.conds, cond)
	n, err := expr.Parse(cond)
	if err != nil {
		return // reported once for the whole expression
	}
	var missing []string
	for _, f := range expr.Fields(n) {
		if !x.avail.AllowsField(f.Name) && !contains(missing, f.Name) {
			missing = append(missing, f.Name)
		}
	}
	if len(missing) > 0 {
		x.block("%s needs %s, which rate limiting rules on the %s plan cannot use (they allow %s); dropping the condition would widen what is counted",
			what, strings.Join(missing, ", "), x.planName(), strings.Join(x.avail.Fields, ", "))
	}
}

// url maps match.request.url to host and path conditions. A pattern the old rate limit
// never matched (a scheme, a query string or an anchor: the support article 'Why doesn't my
// Rate Limiting rule match a request?') counted nothing: the rule is created disabled, which
// preserves that, with the pattern read without them, and the translation is high risk.
func (x *rlTranslator) url(pattern string) {
	cond, never, notes := urlCondition(pattern)
	x.t.changes = append(x.t.changes, notes...)
	if pattern == "" {
		return
	}
	x.parts = append(x.parts, "url "+pattern)
	if cond != "" {
		x.change("url %q -> %s", pattern, cond)
	}
	if never != "" {
		x.never = true
		x.t.risk = RiskHigh
		x.change("url %q %s: the old rate limit never matched a request; the rule is created disabled with the pattern read without it: enable it once you have checked it", pattern, never)
	}
	x.need(cond, fmt.Sprintf("url %q", pattern))
}

// methods maps match.request.methods; _ALL_ (or none) is no condition.
func (x *rlTranslator) methods(raw []string) {
	methods := normalizeList(raw)
	if len(methods) == 0 || contains(methods, "_ALL_") {
		if len(raw) > 0 {
			x.parts = append(x.parts, "methods _ALL_")
		}
		return
	}
	x.parts = append(x.parts, "methods "+strings.Join(methods, ","))
	quoted := make([]string, len(methods))
	for i, m := range methods {
		quoted[i] = expr.Quote(m)
	}
	cond := "http.request.method eq " + quoted[0]
	if len(quoted) > 1 {
		cond = "http.request.method in {" + strings.Join(quoted, " ") + "}"
	}
	x.need(cond, "methods "+strings.Join(methods, ","))
}

// schemes maps match.request.schemes: one scheme is ssl / not ssl where the plan allows the
// field, else a wildcard on the full URI (which starts with the scheme).
func (x *rlTranslator) schemes(raw []string) {
	schemes := normalizeList(raw)
	if len(schemes) > 0 {
		x.parts = append(x.parts, "schemes "+strings.Join(schemes, ","))
	}
	https, http := contains(schemes, "HTTPS"), contains(schemes, "HTTP")
	if contains(schemes, "_ALL_") || https == http {
		return
	}
	cond := "ssl"
	switch {
	case x.avail.AllowsField("ssl") && http:
		cond = "not ssl"
	case !x.avail.AllowsField("ssl"):
		scheme := "https"
		if http {
			scheme = "http"
		}
		cond = "http.request.full_uri wildcard " + expr.Quote(scheme+"://*")
		x.change("scheme %s -> %s (the plan's rate limiting rules cannot use ssl)", strings.ToUpper(scheme), cond)
	}
	x.need(cond, "scheme "+strings.Join(schemes, ","))
}

// bypass maps bypass urls to "and not (...)". A url the old rate limit never matched (a
// scheme, a query string or an anchor, per the support article 'Why doesn't my Rate Limiting
// rule match a request?') exempted nothing: it is left out.
func (x *rlTranslator) bypass(entries []inventory.RateLimitBypass) {
	var conds []string
	for _, bp := range entries {
		if !strings.EqualFold(bp.Name, "url") {
			x.block("bypass entry %q=%q is not a url: sunset has no mapping for it, and dropping it would count what the old rate limit skipped", bp.Name, bp.Value)
			continue
		}
		x.parts = append(x.parts, "bypass "+bp.Value)
		c, never, notes := urlCondition(bp.Value)
		if never != "" {
			x.change("bypass url %q %s: the old rate limit never matched it, so it exempted nothing; left out of the expression", bp.Value, never)
			continue
		}
		x.t.changes = append(x.t.changes, notes...)
		if c == "" {
			x.block("bypass url %q matches everything: the rate limit never applied", bp.Value)
			continue
		}
		conds = append(conds, c)
	}
	if len(conds) > 0 {
		x.need("not ("+anyOf(conds)+")", "bypass urls")
		x.change("%s -> and not (...)", plural(len(conds), "bypass url", "bypass urls"))
	}
}

// counting maps response status and headers (under match.response or match) to a counting
// expression: the match conditions and the response conditions. Plans without counting
// expressions cannot count by response: the translation is blocked.
func (x *rlTranslator) counting(rl inventory.RateLimit, expression string) string {
	var counting []string
	var status []int
	var headers []inventory.HeaderMatch
	if r := rl.Match.Response; r != nil {
		status = r.Status
		headers = append(headers, r.Headers...)
	}
	headers = append(headers, rl.Match.Headers...)
	if len(status) > 0 {
		ss := append([]int(nil), status...)
		sort.Ints(ss)
		parts := make([]string, len(ss))
		for i, s := range ss {
			parts[i] = strconv.Itoa(s)
		}
		x.parts = append(x.parts, "status "+strings.Join(parts, ","))
		if len(parts) == 1 {
			counting = append(counting, "http.response.code eq "+parts[0])
		} else {
			counting = append(counting, "http.response.code in {"+strings.Join(parts, " ")+"}")
		}
	}
	for _, h := range headers {
		x.parts = append(x.parts, fmt.Sprintf("header %s %s %s", h.Name, h.Op, h.Value))
		c := fmt.Sprintf("any(http.response.headers[%s][*] eq %s)", expr.Quote(strings.ToLower(h.Name)), expr.Quote(h.Value))
		switch strings.ToLower(h.Op) {
		case "eq":
			counting = append(counting, c)
		case "ne":
			counting = append(counting, "not "+c)
		default:
			x.block("response header condition with op %q has no mapping, and dropping it would widen what is counted", h.Op)
		}
	}
	if len(counting) == 0 {
		return ""
	}
	if !x.avail.CountingExpression {
		x.block("response conditions (%s) need a counting expression, which the %s plan does not allow; counting every matching request instead would widen what is counted",
			strings.Join(counting, " and "), x.planName())
	}
	x.change("response status/headers -> counting_expression (the match conditions and the response conditions)")
	return allOf(append([]string{expression}, counting...)...)
}

// action maps the old mode to a rule action (inventory.RateLimitAction.RuleAction); log is
// Enterprise only.
func (x *rlTranslator) action(a inventory.RateLimitAction) vocab.Action {
	action := a.RuleAction()
	switch {
	case action == "":
		x.block("mode %q has no rate limiting rule action", a.Mode)
	case action == vocab.ActionLog && inventory.PlanRank(x.avail.Plan) >= 0 && inventory.PlanRank(x.avail.Plan) < 3:
		x.block("mode simulate becomes the log action, which is Enterprise only (zone plan %s)", x.planName())
	}
	if action != "" && string(action) != a.Mode {
		x.change("mode %s -> action %s", a.Mode, action)
	}
	return action
}

// ratelimit builds the rule's ratelimit object: characteristics, period and timeout within
// the plan, counting expression, requests_to_origin.
func (x *rlTranslator) ratelimit(rl inventory.RateLimit, action vocab.Action, counting string) map[string]any {
	period := nearest(rl.Period, x.avail.Periods)
	if period != rl.Period {
		x.change("period %d s is not allowed on the %s plan: rounded to %d s (%d requests per %d s instead of per %d s)",
			rl.Period, x.planName(), period, rl.Threshold, period, rl.Period)
		x.loosened(rl.Period, period)
	}
	timeout := 0
	switch {
	case action.IsChallenge() && rl.Action.Timeout > 0:
		x.change("timeout %d s dropped: challenge actions take mitigation_timeout 0 (a visitor who passes the challenge starts counting again)", rl.Action.Timeout)
	case !action.IsChallenge():
		timeout = nearest(rl.Action.Timeout, x.avail.Timeouts)
		if timeout != rl.Action.Timeout {
			x.change("timeout %d s is not an allowed mitigation_timeout on the %s plan: rounded to %d s", rl.Action.Timeout, x.planName(), timeout)
			x.loosened(rl.Action.Timeout, timeout)
		}
	}
	characteristics := []string{"cf.colo.id", "ip.src"}
	if rl.Correlate != nil && strings.EqualFold(rl.Correlate.By, "nat") {
		characteristics = []string{"cf.colo.id", "cf.unique_visitor_id"}
		x.change("correlate by nat -> characteristic cf.unique_visitor_id instead of ip.src")
		if !x.avail.AllowsCharacteristic("cf.unique_visitor_id") {
			x.block("correlate by nat needs the cf.unique_visitor_id characteristic, which is Enterprise only (zone plan %s); counting per IP instead would count every visitor behind one NAT address together", x.planName())
		}
	}
	out := map[string]any{
		"characteristics": characteristics, "period": period,
		"requests_per_period": rl.Threshold, "mitigation_timeout": timeout,
	}
	if counting != "" {
		out["counting_expression"] = counting
	}
	if r := rl.Match.Response; r != nil && r.OriginTraffic != nil && *r.OriginTraffic {
		out["requests_to_origin"] = true
		x.change("origin_traffic -> requests_to_origin")
	}
	return out
}

// loosened marks the translation high risk when rounding changes a window or a timeout
// twofold or more: the limit then behaves noticeably differently.
func (x *rlTranslator) loosened(old, now int) {
	if old > 0 && now > 0 && (now >= 2*old || old >= 2*now) {
		x.t.risk = RiskHigh
	}
}

// response maps the old custom response body; only block responses carry one.
func (x *rlTranslator) response(resp *inventory.RateLimitResponseBody, action vocab.Action) []byte {
	if resp == nil || (resp.Body == "" && resp.ContentType == "") {
		return nil
	}
	if action != vocab.ActionBlock {
		x.change("the custom response applies only to block: dropped for action %s", action)
		return nil
	}
	ct := resp.ContentType
	if ct == "" {
		ct = "text/plain"
	}
	x.change("custom response -> action_parameters.response (status 429)")
	return mustJSON(map[string]any{"response": map[string]any{"status_code": 429, "content_type": ct, "content": resp.Body}})
}

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
