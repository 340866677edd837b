package inventory

import "strings"

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
