package customrules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate/verify/ruleeval"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/expr/celcheck"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// expressions are the filter expressions of rules, for generating requests.
func expressions(rules []inventory.FirewallRule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.Filter.Expression
	}
	return out
}

// declared reports whether a translation says that it does not keep the
// old behaviour: an error diagnostic (no rule, left out, or disabled for
// cf.threat_score).
func declared(t RuleTranslation) bool {
	return hasSeverity(t.Diagnostics, SeverityError)
}

// checkEquivalence translates rules and compares both worlds on generated
// requests. A difference is accepted only when a firewall rule matching the
// request has a translation that declares a difference. It returns how many
// requests were compared and how many differed (declared).
func checkEquivalence(t *testing.T, name string, rules []inventory.FirewallRule, opts Options, seed int64) (compared, differed int, unmatched []string) {
	t.Helper()
	res := Translate(rules, opts)
	byID := map[string]RuleTranslation{}
	for _, tr := range res.Rules {
		for _, id := range tr.FirewallRuleIDs {
			byID[id] = tr
		}
	}
	ev := ruleeval.NewEvaluator()
	newRules := res.Ruleset[len(opts.Existing):]
	hits := map[string]int{}
	defer func() {
		if err := ev.Err(); err != nil {
			t.Fatal(err)
		}
		for _, r := range rules {
			if hits[r.ID] == 0 && ev.Checks(r.Filter.Expression) {
				unmatched = append(unmatched, r.ID)
			}
		}
	}()
	for req := range ruleeval.Requests(expressions(rules), perRule, perSet, seed) {
		for _, r := range rules {
			if ev.Matches(r.Filter.Expression, req) {
				hits[r.ID]++
			}
		}
		old, now := ev.Old(rules, req), ev.New(newRules, req)
		compared++
		if old.Same(now) {
			continue
		}
		explained := false
		for _, r := range rules {
			if !r.Paused && ev.Matches(r.Filter.Expression, req) && declared(byID[r.ID]) {
				explained = true
				break
			}
		}
		if !explained {
			t.Errorf("%s: old %v, new %v, with no diagnostic declaring a difference; request %v", name, old, now, reqSummary(rules, req, ev))
			return compared, differed, unmatched
		}
		differed++
	}
	return compared, differed, unmatched
}

// Requests generated per rule and per rule set.
const (
	perRule = 40
	perSet  = 400
)

// reqSummary lists the rules a request matches, for failure messages.
func reqSummary(rules []inventory.FirewallRule, req celcheck.Request, ev *ruleeval.Evaluator) string {
	var out []string
	for _, r := range rules {
		if ev.Matches(r.Filter.Expression, req) {
			out = append(out, fmt.Sprintf("%s(%s)", r.ID, r.Action))
		}
	}
	return "matching " + strings.Join(out, ", ")
}

// Every demo zone's translation keeps the old outcome on generated requests,
// except where a diagnostic says it cannot.
func TestEquivalenceDemoZones(t *testing.T) {
	for _, z := range seed.Demo().Zones {
		if len(z.FirewallRules) == 0 {
			continue
		}
		n, d, un := checkEquivalence(t, z.Zone.Name, z.FirewallRules, Options{Plan: z.Zone.Plan.LegacyID}, 1)
		if n < 200 {
			t.Errorf("%s: only %d requests compared", z.Zone.Name, n)
		}
		t.Logf("%s (%s): %d requests, %d declared differences, rules never matched: %v", z.Zone.Name, z.Zone.Plan.LegacyID, n, d, un)
	}
}

// The rule sets of the table tests keep their outcome too.
func TestEquivalenceTableCases(t *testing.T) {
	for i, c := range equivalenceSets() {
		n, d, un := checkEquivalence(t, c.name, c.rules, Options{Plan: c.plan}, int64(i))
		if len(un) > 0 {
			t.Errorf("%s: the requests never match %v, so the test says nothing about them", c.name, un)
		}
		t.Logf("%s: %d requests, %d declared differences", c.name, n, d)
	}
}

// Generated accounts (every plan, tied, null and ascending priorities,
// shared filters, the occasional unparsable filter) keep their outcome.
func TestEquivalenceGeneratedZones(t *testing.T) {
	snap := seed.Generate(40, 7)
	total, zones := 0, 0
	for i, z := range snap.Zones {
		if len(z.FirewallRules) == 0 || len(z.FirewallRules) > 60 || zones == 20 {
			continue // large Enterprise zones and more zones add time, not cases
		}
		n, _, _ := checkEquivalence(t, z.Zone.Name, z.FirewallRules, Options{Plan: z.Zone.Plan.LegacyID}, int64(i))
		total += n
		zones++
	}
	if zones < 20 {
		t.Errorf("only %d generated zones with firewall rules", zones)
	}
	t.Logf("%d zones, %d requests", zones, total)
}

// The evaluator itself can see a difference: a list in the wrong order
// (block before an allow of higher precedence) differs from the old world.
func TestEvaluatorDetectsReordering(t *testing.T) {
	rules := []inventory.FirewallRule{
		fw("a", "allow", nil, `ip.src in {192.0.2.0/24}`),
		fw("b", "block", nil, `http.request.uri.path contains "/admin"`),
	}
	res := Translate(rules, Options{})
	wrong := []inventory.RulesetRule{res.Ruleset[1], res.Ruleset[0]}
	ev := ruleeval.NewEvaluator()
	diff := 0
	for req := range ruleeval.Requests(expressions(rules), 50, 300, 3) {
		if !ev.Old(rules, req).Same(ev.New(wrong, req)) {
			diff++
		}
		if !ev.Old(rules, req).Same(ev.New(res.Ruleset, req)) {
			t.Fatalf("the translation differs on %v", req)
		}
	}
	if diff == 0 {
		t.Error("reversed list gives the same outcome on every request: the requests do not exercise the overlap")
	}
}

type ruleSet struct {
	name, plan string
	rules      []inventory.FirewallRule
}

// equivalenceSets are the rule sets of the table tests, gathered so the
// equivalence test runs over each of them.
func equivalenceSets() []ruleSet {
	office := `ip.src in {198.51.100.0/24 2001:db8:1::/48}`
	admin := `starts_with(http.request.uri.path, "/admin")`
	return []ruleSet{
		{name: "every action at one priority", plan: "enterprise", rules: []inventory.FirewallRule{
			fw("1-block", "block", prio(1), admin),
			fw("1-js", "js_challenge", prio(1), `http.user_agent contains "curl"`),
			fw("1-managed", "managed_challenge", prio(1), `ip.src.country in {"KP" "IR"}`),
			fw("1-challenge", "challenge", prio(1), `http.request.method eq "POST"`),
			fw("1-allow", "allow", prio(1), office),
			fw("1-bypass", "bypass", prio(1), `http.request.uri.path eq "/health"`, withProducts("waf", "hot")),
			fw("1-log", "log", prio(1), `http.request.uri.path contains "/api/"`),
		}},
		{name: "priorities and nulls", plan: "business", rules: []inventory.FirewallRule{
			fw("n-allow", "allow", nil, office),
			fw("n-js", "js_challenge", nil, `http.request.uri.path contains "/login"`),
			fw("30-block", "block", prio(30), admin),
			fw("10-challenge", "challenge", prio(10), `http.request.uri.path contains "/admin/login"`),
			fw("20-allow", "allow", prio(20), `ip.src in {198.51.100.0/25}`),
			fw("20-bypass", "bypass", prio(20), `ip.src.asnum eq 64500`, withProducts("securityLevel")),
			fw("p-block", "block", prio(5), `http.request.uri.path contains "/"`, paused),
		}},
		{name: "merged pair and neighbours", plan: "business", rules: []inventory.FirewallRule{
			fw("a", "allow", prio(10), office),
			fw("b", "bypass", prio(10), office, withProducts("waf", "securityLevel")),
			fw("b2", "bypass", prio(10), `http.request.uri.path eq "/upload"`, withProducts("waf")),
			fw("c", "block", prio(20), admin),
			fw("d", "challenge", prio(20), `ip.src.country eq "T1"`),
		}},
		{name: "two pairs at one priority", rules: []inventory.FirewallRule{
			fw("b1", "bypass", prio(1), office, withProducts("waf")),
			fw("b2", "bypass", prio(1), `http.request.uri.path eq "/health"`, withProducts("hot")),
			fw("a1", "allow", prio(1), office),
			fw("a2", "allow", prio(1), `http.request.uri.path eq "/health"`),
			fw("x", "block", prio(2), `http.request.uri.path contains "/h"`),
		}},
		{name: "pair with a rule between", rules: []inventory.FirewallRule{
			fw("b", "bypass", prio(5), office, withProducts("hot")),
			fw("x", "log", prio(7), `http.request.uri.path eq "/login"`),
			fw("a", "allow", prio(9), office),
			fw("y", "block", prio(10), `http.request.uri.path eq "/login"`),
		}},
		{name: "threat score, renames, unparsable, regex on pro", plan: "pro", rules: []inventory.FirewallRule{
			fw("t", "block", prio(1), `cf.threat_score gt 10 or ip.geoip.country eq "CN"`),
			fw("g", "challenge", prio(2), `ip.geoip.asnum eq 64500`),
			fw("u", "block", prio(3), `(http.request.uri.path contains "/x"`),
			fw("r", "block", prio(4), `http.request.uri.path matches "^/wp-"`),
			fw("z", "managed_challenge", prio(5), `http.request.uri.path contains "/wp"`),
		}},
		{name: "log below enterprise", plan: "pro", rules: []inventory.FirewallRule{
			fw("l", "log", prio(1), `http.request.uri.path contains "/api/"`),
			fw("b", "block", prio(2), `http.request.uri.path contains "/api/v0"`),
		}},
		{name: "allow before bypass", rules: []inventory.FirewallRule{
			fw("a", "allow", prio(1), office),
			fw("b", "bypass", prio(2), office, withProducts("waf")),
			fw("c", "block", prio(3), `ip.src in {198.51.100.0/28}`),
		}},
	}
}
