package scanner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// A rate limit whose replacement exists (a rule of the entry point carrying its ref, with
// its action and requests per period, as plan, apply and fix --snapshot write it) is reported
// as replaced: delete it. It no longer counts against the quota of rules still to make. A
// rule carrying the ref that does something else is named, not taken for the replacement.
func TestRateLimitFindingSaysTheReplacementIsInPlace(t *testing.T) {
	on, off := true, false
	rule := func(ref string, action vocab.Action, perPeriod int, enabled *bool) inventory.RulesetRule {
		rl, _ := json.Marshal(map[string]any{"characteristics": []string{"cf.colo.id", "ip.src"}, "period": 60, "requests_per_period": perPeriod, "mitigation_timeout": 600})
		return inventory.RulesetRule{ID: "r-" + ref, Ref: ref, Action: action, Expression: `http.request.uri.path wildcard "/login*"`, Enabled: enabled, RateLimit: rl}
	}
	snap := withZone(inventory.PlanFree, func(z *inventory.ZoneInventory) {
		for _, id := range []string{"rl-login", "rl-api", "rl-feed"} {
			z.RateLimits = append(z.RateLimits, inventory.RateLimit{ID: id, Threshold: 10, Period: 60,
				Match:  inventory.RateLimitMatch{Request: &inventory.RateLimitRequest{URL: "example.com/login*"}},
				Action: inventory.RateLimitAction{Mode: "ban", Timeout: 600}})
		}
		z.Rulesets = []inventory.Ruleset{{ID: "rs", Phase: vocab.PhaseRateLimiting, Rules: []inventory.RulesetRule{
			rule("rate_limit:rl-login", vocab.ActionBlock, 10, &on),
			rule("rate_limit:rl-api", vocab.ActionBlock, 20, &off),
		}}}
	})
	msgs := map[string]string{}
	for _, f := range ScanSnapshot(snap, nil, Options{AsOf: day("2026-01-01")}).Findings {
		if f.RuleID == vocab.RateLimitingV1 {
			msgs[f.Resource.ID] = f.Message
		}
	}
	if m := msgs["rl-login"]; !strings.Contains(m, "its replacement is in place, rate limiting rule id r-rate_limit:rl-login (ref rate_limit:rl-login") || strings.Contains(m, "recreate it") {
		t.Errorf("rl-login: %s", m)
	}
	if m := msgs["rl-api"]; !strings.Contains(m, "recreate it") || !strings.Contains(m, "carries its ref (rate_limit:rl-api) but does not do what it did (20 requests per period, not 10, enabled false)") {
		t.Errorf("rl-api: %s", m)
	}
	if m := msgs["rl-feed"]; !strings.Contains(m, "recreate it") || strings.Contains(m, "replacement") {
		t.Errorf("rl-feed: %s", m)
	}
	// Free allows 1 rule: 2 rules exist and 2 rate limits are still to migrate.
	if m := msgs["z1"]; !strings.Contains(m, "has 2 previous-version rate limits and 2 existing rate limiting rules") {
		t.Errorf("quota: %q", m)
	}
}
