package inventory

import (
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"
)

// PlanRank orders zone plans (zone.plan.legacy_id): free 0, pro 1, business 2, enterprise 3,
// and -1 for a plan sunset does not know, for which no plan check or quota applies.
func PlanRank(legacyID string) int {
	switch strings.ToLower(legacyID) {
	case PlanFree:
		return 0
	case PlanPro:
		return 1
	case PlanBusiness:
		return 2
	case PlanEnterprise:
		return 3
	}
	return -1
}

// Quotas per plan, indexed by PlanRank (the figures the API documents).
var (
	firewallRulesQuota     = [...]int{5, 20, 100, 1000}
	customRulesQuota       = [...]int{5, 20, 100, 1000} // every rule of the phase counts
	rateLimitsQuota        = [...]int{1, 10, 15, 100}
	rateLimitingRulesQuota = [...]int{1, 2, 5, 5} // enterprise: 100 with an add-on the API does not show
)

func quota(table [4]int, plan string) int {
	if r := PlanRank(plan); r >= 0 {
		return table[r]
	}
	return 0
}

// FirewallRulesQuota is how many (previous) firewall rules a plan allows; 0 when unknown.
func FirewallRulesQuota(plan string) int { return quota(firewallRulesQuota, plan) }

// CustomRulesQuota is how many custom rules (phase http_request_firewall_custom) a plan
// allows; 0 when unknown.
func CustomRulesQuota(plan string) int { return quota(customRulesQuota, plan) }

// RateLimitsQuota is how many previous-version rate limits a plan allows; 0 when unknown.
func RateLimitsQuota(plan string) int { return quota(rateLimitsQuota, plan) }

// RateLimitingRulesQuota is how many rate limiting rules (phase http_ratelimit) a plan
// allows, lower than the previous version's; 0 when unknown.
func RateLimitingRulesQuota(plan string) int { return quota(rateLimitingRulesQuota, plan) }

// PhaseRulesQuota is how many rules a zone's entry point of phase may hold on a plan; 0 when
// the phase has no quota sunset knows, or the plan is unknown.
func PhaseRulesQuota(phase vocab.Phase, plan string) int {
	switch phase {
	case vocab.PhaseCustomRules:
		return CustomRulesQuota(plan)
	case vocab.PhaseRateLimiting:
		return RateLimitingRulesQuota(plan)
	}
	return 0
}

// RateLimitRules is what rate limiting rules (phase http_ratelimit) may use on one plan: the
// public availability table (domain-facts "Rate limiting rules: what each plan may use"),
// with the period and mitigation timeout values the API accepts (10, 60, 120, 300, 600, 3600
// and 0, 10, 60, 120, 300, 600, 3600, 86400) cut at each plan's ceiling (Free 10 s / 10 s,
// Pro up to 1 min / 1 h, Business up to 10 min / 1 day, Enterprise up to 1 h / 1 day).
type RateLimitRules struct {
	// Plan is the plan's legacy id.
	Plan string
	// Fields are the fields a rule expression may use; nil means every request field.
	Fields []string
	// Characteristics are the counting characteristics beside cf.colo.id.
	Characteristics []string
	// CountingExpression tells whether a custom counting expression (response code and
	// headers) is allowed.
	CountingExpression bool
	// Periods and Timeouts are the allowed period and mitigation_timeout values, ascending.
	Periods, Timeouts []int
}

// Allowed period and mitigation_timeout values of rate limiting rules, on every plan.
var (
	rateLimitPeriods  = []int{10, 60, 120, 300, 600, 3600}
	rateLimitTimeouts = []int{0, 10, 60, 120, 300, 600, 3600, 86400}
)

// rateLimitRules is the availability table, indexed by PlanRank. Free may use the URI path
// and the verified bot field; Pro adds the host, URI, full URI and query; Business adds the
// method, the source IP and the user agent; Enterprise every request field. Counting per IP
// with NAT support (cf.unique_visitor_id) is Enterprise only.
var rateLimitRules = [...]RateLimitRules{
	{Plan: PlanFree, Fields: []string{"http.request.uri.path", "cf.bot_management.verified_bot", "cf.client.bot"},
		Characteristics: []string{"ip.src"}, Periods: upTo(rateLimitPeriods, 10), Timeouts: []int{10}},
	{Plan: PlanPro, Fields: []string{"http.request.uri.path", "cf.bot_management.verified_bot", "cf.client.bot",
		"http.host", "http.request.uri", "http.request.full_uri", "http.request.uri.query"},
		Characteristics: []string{"ip.src"}, Periods: upTo(rateLimitPeriods, 60), Timeouts: upTo(rateLimitTimeouts[1:], 3600)},
	{Plan: PlanBusiness, Fields: []string{"http.request.uri.path", "cf.bot_management.verified_bot", "cf.client.bot",
		"http.host", "http.request.uri", "http.request.full_uri", "http.request.uri.query",
		"http.request.method", "ip.src", "http.user_agent"},
		Characteristics: []string{"ip.src"}, CountingExpression: true, Periods: upTo(rateLimitPeriods, 600), Timeouts: rateLimitTimeouts[1:]},
	{Plan: PlanEnterprise, Characteristics: []string{"ip.src", "cf.unique_visitor_id"}, CountingExpression: true,
		Periods: rateLimitPeriods, Timeouts: rateLimitTimeouts[1:]},
}

func upTo(values []int, ceiling int) []int {
	var out []int
	for _, v := range values {
		if v <= ceiling {
			out = append(out, v)
		}
	}
	return out
}

// RateLimitRulesFor returns what rate limiting rules may use on a plan. An unknown plan gets
// the whole API's values and no field restriction: sunset cannot tell what it allows.
func RateLimitRulesFor(plan string) RateLimitRules {
	if r := PlanRank(plan); r >= 0 {
		return rateLimitRules[r]
	}
	return RateLimitRules{Plan: strings.ToLower(plan), Characteristics: []string{"ip.src", "cf.unique_visitor_id"},
		CountingExpression: true, Periods: rateLimitPeriods, Timeouts: rateLimitTimeouts[1:]}
}

// AllowsField tells whether a rule expression may use the field on this plan.
func (r RateLimitRules) AllowsField(field string) bool {
	if r.Fields == nil {
		return true
	}
	for _, f := range r.Fields {
		if f == field {
			return true
		}
	}
	return false
}

// AllowsCharacteristic tells whether the plan may count by the characteristic
// (cf.colo.id is always there).
func (r RateLimitRules) AllowsCharacteristic(c string) bool {
	if c == "cf.colo.id" {
		return true
	}
	for _, x := range r.Characteristics {
		if x == c {
			return true
		}
	}
	return false
}
