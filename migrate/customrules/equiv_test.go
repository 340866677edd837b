package customrules

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/expr"
	"github.com/sunsetscan/sunset/scanner/expr/celcheck"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// outcome is what a rule list does to one request: the action that stopped
// evaluation ("" when none did; allow and skip-current are both "allow"),
// the products bypassed on the way, and whether a log rule recorded it.
type outcome struct {
	action   string
	products string // sorted, space-separated
	logged   bool
}

func (o outcome) String() string {
	return fmt.Sprintf("{action=%q products=[%s] logged=%t}", o.action, o.products, o.logged)
}

// evaluator evaluates both worlds over celcheck programs, compiled once per
// expression. Expressions that do not check never match (the old world
// cannot have evaluated them either).
type evaluator struct {
	t     testing.TB
	progs map[string]*celcheck.Program
	lists map[string][]string
}

func newEvaluator(t testing.TB) *evaluator {
	return &evaluator{t: t, progs: map[string]*celcheck.Program{}, lists: map[string][]string{}}
}

func (ev *evaluator) matches(src string, req celcheck.Request) bool {
	p, ok := ev.progs[src]
	if !ok {
		if c := celcheck.Check(src, celcheck.Options{}); c.Valid {
			p = c.Program
		}
		ev.progs[src] = p
		if e, err := expr.Parse(src); err == nil {
			for _, l := range expr.Lists(e) {
				if _, ok := ev.lists[l.Name]; !ok {
					// Addresses the generator derives from the literals of the
					// test rule sets, so that list rules match some requests.
					ev.lists[l.Name] = []string{"10.0.0.0/8", "192.0.2.0/24", "198.51.100.0/25"}
				}
			}
		}
	}
	if p == nil {
		return false
	}
	ok, err := p.Eval(req, ev.lists)
	if err != nil {
		ev.t.Fatalf("eval %s: %v", src, err)
	}
	return ok
}

// firewallPrecedence is written out again here, independently of the code
// under test, from the facts: log, bypass, allow, challenge,
// managed_challenge, js_challenge, block.
var firewallPrecedence = []vocab.Action{vocab.ActionLog, vocab.ActionBypass, vocab.ActionAllow, vocab.ActionChallenge, vocab.ActionManagedChallenge, vocab.ActionJSChallenge, vocab.ActionBlock}

// oldOutcome evaluates firewall rules semantics: ascending priority, null
// last, ties by action precedence; paused rules do not run; log and bypass
// do not stop evaluation, the other actions do.
func (ev *evaluator) oldOutcome(rules []inventory.FirewallRule, req celcheck.Request) outcome {
	order := slices.Clone(rules)
	slices.SortStableFunc(order, func(a, b inventory.FirewallRule) int {
		if (a.Priority == nil) != (b.Priority == nil) {
			if a.Priority == nil {
				return 1
			}
			return -1
		}
		if a.Priority != nil && *a.Priority != *b.Priority {
			return cmp.Compare(*a.Priority, *b.Priority)
		}
		return cmp.Compare(slices.Index(firewallPrecedence, a.Action), slices.Index(firewallPrecedence, b.Action))
	})
	var o outcome
	var prods []string
	for _, r := range order {
		if r.Paused || !ev.matches(r.Filter.Expression, req) {
			continue
		}
		switch r.Action {
		case "log":
			o.logged = true
			continue
		case "bypass":
			prods = append(prods, r.Products...)
			continue
		}
		o.action = string(r.Action)
		break
	}
	o.products = productSet(prods)
	return o
}

// newOutcome evaluates custom rules semantics: list order; disabled rules do
// not run; log and skip of products/phases do not stop evaluation; skip of
// the current ruleset and the other actions do.
func (ev *evaluator) newOutcome(rules []inventory.RulesetRule, req celcheck.Request) outcome {
	var o outcome
	var prods []string
	for _, r := range rules {
		if (r.Enabled != nil && !*r.Enabled) || !ev.matches(r.Expression, req) {
			continue
		}
		switch r.Action {
		case "log":
			o.logged = true
			continue
		case "skip":
			var p skipParams
			if err := json.Unmarshal(r.ActionParameters, &p); err != nil {
				ev.t.Fatalf("action_parameters %s: %v", r.ActionParameters, err)
			}
			prods = append(prods, p.Products...)
			if p.Ruleset != "current" {
				continue
			}
			o.action = "allow"
		default:
			o.action = string(r.Action)
		}
		break
	}
	o.products = productSet(prods)
	return o
}

func productSet(p []string) string {
	p = slices.Clone(p)
	slices.Sort(p)
	return strings.Join(slices.Compact(p), " ")
}

// requestsFor generates requests from all expressions of a rule set at once
// (so that requests match several rules) and from each one alone.
func requestsFor(rules []inventory.FirewallRule, perRule, all int, seed int64) []celcheck.Request {
	var parts []string
	var reqs []celcheck.Request
	for i, r := range rules {
		e, err := expr.Parse(r.Filter.Expression)
		if err != nil {
			continue
		}
		parts = append(parts, "("+expr.Print(e)+")")
		gen := celcheck.GenerateRequests(e, perRule, seed+int64(i))
		reqs = append(reqs, gen...)
		reqs = append(reqs, regexMatches(e, gen)...)
	}
	if len(parts) > 0 {
		// Parse keeps the whole tree when the only error is the length limit.
		e, _ := expr.Parse(strings.Join(parts, " or "))
		reqs = append(reqs, celcheck.GenerateRequests(e, all, seed)...)
	}
	return reqs
}

// regexMatches makes, for each plain field compared with matches, copies of
// half the requests whose field holds a string the regex matches: the
// generator draws literals from a pattern, which seldom satisfies anchors.
func regexMatches(e *expr.Expr, gen []celcheck.Request) []celcheck.Request {
	var out []celcheck.Request
	expr.Inspect(e, func(n expr.Node) bool {
		c, ok := n.(*expr.Comparison)
		if !ok || c.Op != expr.OpMatches {
			return true
		}
		f, ok1 := c.X.(*expr.Field)
		lit, ok2 := c.Y.(*expr.StringLit)
		if !ok1 || !ok2 {
			return true
		}
		sample, ok := regexSample(lit.Value)
		if !ok {
			return true
		}
		for _, r := range gen[:len(gen)/2] {
			cp := maps.Clone(r)
			cp[f.Name] = sample
			out = append(out, cp)
		}
		return true
	})
	return out
}

// regexSample builds one string that the pattern matches (first branch of
// alternations, minimum repetitions, first character of classes).
func regexSample(pattern string) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	var walk func(*syntax.Regexp) bool
	walk = func(re *syntax.Regexp) bool {
		switch re.Op {
		case syntax.OpLiteral:
			b.WriteString(string(re.Rune))
		case syntax.OpCharClass:
			if len(re.Rune) == 0 {
				return false
			}
			r := re.Rune[0]
			if r < 'a' && re.Rune[1] >= 'a' {
				r = 'a'
			}
			b.WriteRune(r)
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			b.WriteByte('x')
		case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
			syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpEmptyMatch:
		case syntax.OpCapture:
			return walk(re.Sub[0])
		case syntax.OpStar, syntax.OpQuest:
		case syntax.OpPlus:
			return walk(re.Sub[0])
		case syntax.OpRepeat:
			for range re.Min {
				if !walk(re.Sub[0]) {
					return false
				}
			}
		case syntax.OpConcat:
			for _, s := range re.Sub {
				if !walk(s) {
					return false
				}
			}
		case syntax.OpAlternate:
			return walk(re.Sub[0])
		default:
			return false
		}
		return true
	}
	if !walk(re) {
		return "", false
	}
	if ok, _ := regexp.MatchString(pattern, b.String()); !ok {
		return "", false
	}
	return b.String(), true
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
	ev := newEvaluator(t)
	newRules := res.Ruleset[len(opts.Existing):]
	hits := map[string]int{}
	defer func() {
		for _, r := range rules {
			if hits[r.ID] == 0 && ev.progs[r.Filter.Expression] != nil {
				unmatched = append(unmatched, r.ID)
			}
		}
	}()
	for _, req := range requestsFor(rules, perRule, perSet, seed) {
		for _, r := range rules {
			if ev.matches(r.Filter.Expression, req) {
				hits[r.ID]++
			}
		}
		old, now := ev.oldOutcome(rules, req), ev.newOutcome(newRules, req)
		compared++
		if old == now {
			continue
		}
		explained := false
		for _, r := range rules {
			if !r.Paused && ev.matches(r.Filter.Expression, req) && declared(byID[r.ID]) {
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
func reqSummary(rules []inventory.FirewallRule, req celcheck.Request, ev *evaluator) string {
	var out []string
	for _, r := range rules {
		if ev.matches(r.Filter.Expression, req) {
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
	ev := newEvaluator(t)
	diff := 0
	for _, req := range requestsFor(rules, 50, 300, 3) {
		if ev.oldOutcome(rules, req) != ev.newOutcome(wrong, req) {
			diff++
		}
		if ev.oldOutcome(rules, req) != ev.newOutcome(res.Ruleset, req) {
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
