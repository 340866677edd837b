package verify

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/verify/ruleeval"
	"github.com/sunsetscan/sunset/scanner/expr/celcheck"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// ruleLimit is the ratelimit object of a rate limiting rule, as far as it is compared.
type ruleLimit struct {
	Characteristics    []string `json:"characteristics"`
	Period             int      `json:"period"`
	RequestsPerPeriod  int      `json:"requests_per_period"`
	MitigationTimeout  int      `json:"mitigation_timeout"`
	CountingExpression string   `json:"counting_expression"`
	RequestsToOrigin   bool     `json:"requests_to_origin"`
}

// rateLimitRule finds the rule that replaces rl: in the plan's rate limiting target, else in
// the zone's entry point (made by an earlier run).
func rateLimitRule(zp *migrate.ZonePlan, z *inventory.ZoneInventory, rl inventory.RateLimit) (inventory.RulesetRule, bool) {
	ref := migrate.RateLimitRef(rl.ID)
	for _, tg := range zp.Targets {
		if tg.Phase != vocab.PhaseRateLimiting {
			continue
		}
		for _, r := range decodeRules(tg.Rules) {
			if r.Ref == ref {
				return r, true
			}
		}
	}
	return z.RuleByRef(vocab.PhaseRateLimiting, ref)
}

// checkRateLimit evaluates whether the old rate limit and its rule count the same generated
// requests, and says what else does not carry over exactly.
func checkRateLimit(ev *ruleeval.Evaluator, zp *migrate.ZonePlan, z *inventory.ZoneInventory, rl inventory.RateLimit) migrate.RateLimitCheck {
	c := migrate.RateLimitCheck{RateLimitID: rl.ID}
	rule, ok := rateLimitRule(zp, z, rl)
	if !ok {
		c.NotExact = []string{"the plan keeps the old rate limit (see its manual step): there is no rule to compare"}
		return c
	}
	c.Rule = rule.Ref
	var lim ruleLimit
	_ = json.Unmarshal(rule.RateLimit, &lim) // a rule without ratelimit differs in every parameter below
	c.NotExact = notExact(rl, rule, lim)
	enabled := rule.Enabled == nil || *rule.Enabled
	for req := range ruleeval.Requests([]string{rule.Expression}, rateLimitRequests, 0, generateKey) {
		wholeURI(req)
		c.Requests++
		old, now := oldCounts(rl, req), enabled && ev.Matches(rule.Expression, req)
		if old == now {
			continue
		}
		c.Differing++
		if c.Witness == nil {
			c.Witness, c.OldCounts, c.NewCounts = map[string]any{}, old, now
			for _, f := range []string{fieldHost, fieldPath, fieldMethod, fieldSSL} {
				c.Witness[f] = req[f]
			}
			addFields(c.Witness, req, rule.Expression)
		}
	}
	c.Exact = len(c.NotExact) == 0 && c.Differing == 0
	return c
}

// rateLimitRequests is how many requests are generated per rate limit, from its rule's
// expression (which holds every literal of the old match).
const rateLimitRequests = 260

// wholeURI makes req's full URI what its scheme, host, path and query make, as in a real
// request: the rules of plans without the ssl field match the scheme on the full URI.
func wholeURI(req celcheck.Request) {
	scheme := "http"
	if ssl, _ := req[fieldSSL].(bool); ssl {
		scheme = "https"
	}
	host, _ := req[fieldHost].(string)
	path, _ := req[fieldPath].(string)
	uri := scheme + "://" + host + path
	if q, _ := req[fieldQuery].(string); q != "" {
		uri += "?" + q
	}
	req[fieldFullURI] = uri
}

// The request fields the old rate limit matched on.
const (
	fieldHost   = "http.host"
	fieldPath   = "http.request.uri.path"
	fieldMethod = "http.request.method"
	fieldSSL    = "ssl"
	// The full URI is made of the scheme, host, path and query (wholeURI).
	fieldQuery   = "http.request.uri.query"
	fieldFullURI = "http.request.full_uri"
)

// notExact lists what the rule does not carry over unchanged: the limit's numbers, its
// action, its grouping, and response conditions, which requests alone cannot exercise.
func notExact(rl inventory.RateLimit, rule inventory.RulesetRule, lim ruleLimit) []string {
	var out []string
	if lim.RequestsPerPeriod != rl.Threshold {
		out = append(out, fmt.Sprintf("threshold %d -> requests_per_period %d", rl.Threshold, lim.RequestsPerPeriod))
	}
	if lim.Period != rl.Period {
		out = append(out, fmt.Sprintf("period %d s -> %d s (rounded to a period the plan allows)", rl.Period, lim.Period))
	}
	action := rl.Action.RuleAction()
	if rule.Action != action {
		out = append(out, fmt.Sprintf("mode %s -> action %s", rl.Action.Mode, rule.Action))
	}
	if lim.MitigationTimeout != rl.Action.Timeout {
		out = append(out, fmt.Sprintf("timeout %d s -> mitigation_timeout %d s", rl.Action.Timeout, lim.MitigationTimeout))
	}
	if !slices.Contains(lim.Characteristics, "ip.src") {
		out = append(out, fmt.Sprintf("counted per %s instead of per client IP", strings.Join(lim.Characteristics, " and ")))
	}
	if lim.CountingExpression != "" {
		out = append(out, "response conditions go to the counting expression: generated requests carry no response, so they are not compared")
	}
	for _, bp := range rl.Bypass {
		if !strings.EqualFold(bp.Name, "url") {
			out = append(out, fmt.Sprintf("bypass %q is not a url: not compared", bp.Name))
		}
	}
	if r := rl.Match.Response; r != nil && r.OriginTraffic != nil && *r.OriginTraffic != lim.RequestsToOrigin {
		out = append(out, fmt.Sprintf("origin_traffic %t -> requests_to_origin %t", *r.OriginTraffic, lim.RequestsToOrigin))
	}
	return out
}

// oldCounts reports whether the old rate limit counts req: enabled, its methods and schemes
// (none or _ALL_ is any), its url pattern, and none of its bypass urls.
func oldCounts(rl inventory.RateLimit, req celcheck.Request) bool {
	if rl.Disabled {
		return false
	}
	host, _ := req[fieldHost].(string)
	path, _ := req[fieldPath].(string)
	method, _ := req[fieldMethod].(string)
	ssl, _ := req[fieldSSL].(bool)
	if m := rl.Match.Request; m != nil {
		if !anyOrHas(m.Methods, method) || !schemeOK(m.Schemes, ssl) || !urlMatches(m.URL, host, path) {
			return false
		}
	}
	for _, bp := range rl.Bypass {
		if strings.EqualFold(bp.Name, "url") && urlMatches(bp.Value, host, path) {
			return false
		}
	}
	return true
}

// anyOrHas: an empty list or _ALL_ allows every value; otherwise v must be listed. The
// lists hold upper-case names, whatever case they were written in; a request's method and
// scheme are compared as they are (methods are case-sensitive tokens).
func anyOrHas(list []string, v string) bool {
	if len(list) == 0 {
		return true
	}
	for _, x := range list {
		if x = strings.ToUpper(x); x == "_ALL_" || x == v {
			return true
		}
	}
	return false
}

func schemeOK(schemes []string, ssl bool) bool {
	want := "HTTP"
	if ssl {
		want = "HTTPS"
	}
	return anyOrHas(schemes, want)
}

// urlMatches matches a previous-version url pattern (host and path, * any run) against a
// request's host and path as the support article 'Why doesn't my Rate Limiting rule match a
// request?' documents the old matcher: a pattern with a scheme, a query string or an anchor
// matches nothing; a bare host is its homepage (path / only); otherwise host and path as
// written (a trailing slash counts), the request's query never looked at. Case-insensitive,
// like the wildcard the translation uses. Derived, as the plan reads them: an empty or * host
// is any host, a path of /* any path, a host with a * and no path any path.
func urlMatches(pattern, host, path string) bool {
	p := strings.ToLower(strings.TrimSpace(pattern))
	ph, pp, hasPath := strings.Cut(p, "/")
	switch {
	case p == "":
		return true
	case strings.ContainsAny(p, "?#"), strings.HasSuffix(ph, ":") && strings.HasPrefix(pp, "/"):
		return false // a query string, an anchor or a scheme (https://)
	case ph != "" && ph != "*" && !glob(ph, strings.ToLower(host)):
		return false
	case !hasPath && strings.Contains(ph, "*"), hasPath && pp == "*":
		return true
	}
	return glob("/"+pp, strings.ToLower(path)) // no path: "/", the homepage
}

// glob matches s against a pattern whose * stands for any run of characters.
func glob(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return len(s) >= len(last) && strings.HasSuffix(s, last)
}
