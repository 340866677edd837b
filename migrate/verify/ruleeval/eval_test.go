package ruleeval

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/sunsetscan/sunset/scanner/expr/celcheck"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

func fw(id string, action vocab.Action, prio *int, src string, products ...string) inventory.FirewallRule {
	return inventory.FirewallRule{ID: id, Action: action, Priority: prio, Products: products, Filter: inventory.Filter{Expression: src}}
}

func p(n int) *int { return &n }

// The firewall rules' semantics, case by case, on one request for /admin from 192.0.2.7.
func TestOldSemantics(t *testing.T) {
	req := celcheck.Request{"http.request.uri.path": "/admin", "ip.src": "192.0.2.7"}
	const admin, office, never = `http.request.uri.path eq "/admin"`, `ip.src in {192.0.2.0/24}`, `http.request.uri.path eq "/x"`
	paused := fw("paused", vocab.ActionBlock, p(0), admin)
	paused.Paused = true
	for _, c := range []struct {
		name  string
		rules []inventory.FirewallRule
		want  Decision
	}{
		{"lower priority first", []inventory.FirewallRule{fw("b", vocab.ActionBlock, p(2), admin), fw("a", vocab.ActionAllow, p(1), office)},
			Decision{Action: "allow", By: "firewall rule a (allow)"}},
		{"no priority last", []inventory.FirewallRule{fw("a", vocab.ActionAllow, nil, office), fw("b", vocab.ActionBlock, p(9), admin)},
			Decision{Action: "block", By: "firewall rule b (block)"}},
		{"precedence at equal priority: allow before block", []inventory.FirewallRule{fw("b", vocab.ActionBlock, p(1), admin), fw("a", vocab.ActionAllow, p(1), office)},
			Decision{Action: "allow", By: "firewall rule a (allow)"}},
		{"precedence: challenge before js_challenge before block", []inventory.FirewallRule{
			fw("b", vocab.ActionBlock, nil, admin), fw("j", vocab.ActionJSChallenge, nil, admin), fw("c", vocab.ActionChallenge, nil, admin)},
			Decision{Action: "challenge", By: "firewall rule c (challenge)"}},
		{"log and bypass go on", []inventory.FirewallRule{
			fw("l", vocab.ActionLog, p(1), admin), fw("y", vocab.ActionBypass, p(1), office, "waf", "hot"), fw("b", vocab.ActionBlock, p(1), admin)},
			Decision{Action: "block", Skipped: []string{"hot", "waf"}, Logged: true, By: "firewall rule b (block)"}},
		{"allow ends evaluation: a later log does not run", []inventory.FirewallRule{fw("a", vocab.ActionAllow, p(1), office), fw("l", vocab.ActionLog, p(2), admin)},
			Decision{Action: "allow", By: "firewall rule a (allow)"}},
		{"paused rules do not run", []inventory.FirewallRule{paused}, Decision{}},
		{"no match", []inventory.FirewallRule{fw("n", vocab.ActionBlock, nil, never)}, Decision{}},
		{"an expression that does not check never matches", []inventory.FirewallRule{fw("u", vocab.ActionBlock, nil, `http.request.uri.path eq 1`)}, Decision{}},
	} {
		if got := NewEvaluator().Old(c.rules, req); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}

// The custom rules' semantics: list order, disabled rules, log, skip of products, skip of the
// current ruleset as allow.
func TestNewSemantics(t *testing.T) {
	req := celcheck.Request{"http.request.uri.path": "/admin"}
	const admin = `http.request.uri.path eq "/admin"`
	off := false
	rule := func(a vocab.Action, params string) inventory.RulesetRule {
		r := inventory.RulesetRule{Action: a, Expression: admin, Ref: string(a)}
		if params != "" {
			r.ActionParameters = json.RawMessage(params)
		}
		return r
	}
	disabled := rule(vocab.ActionBlock, "")
	disabled.Enabled = &off
	for _, c := range []struct {
		name  string
		rules []inventory.RulesetRule
		want  Decision
	}{
		{"list order", []inventory.RulesetRule{rule(vocab.ActionChallenge, ""), rule(vocab.ActionBlock, "")},
			Decision{Action: "challenge", By: "custom rule 1 (challenge, ref challenge)"}},
		{"disabled rules do not run", []inventory.RulesetRule{disabled}, Decision{}},
		{"log and skip products go on; skip current is allow", []inventory.RulesetRule{
			rule(vocab.ActionLog, ""), rule(vocab.ActionSkip, `{"products":["waf"],"phases":["http_request_firewall_managed"]}`),
			rule(vocab.ActionSkip, `{"ruleset":"current"}`), rule(vocab.ActionBlock, "")},
			Decision{Action: "allow", Skipped: []string{"waf"}, Logged: true, By: "custom rule 3 (skip, ref skip)"}},
	} {
		if got := NewEvaluator().New(c.rules, req); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}

// Requests are the same for the same arguments, carry cf.threat_score 0, and include a
// request the anchored regex matches.
func TestRequests(t *testing.T) {
	exprs := []string{`http.request.uri.path matches "^/wp-(login|admin)\\.php$"`, `cf.threat_score gt 10`}
	a, b := slices.Collect(Requests(exprs, 20, 40, 1)), slices.Collect(Requests(exprs, 20, 40, 1))
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same arguments, different requests")
	}
	ev := NewEvaluator()
	matched := false
	for _, r := range a {
		if r["cf.threat_score"] != int64(0) {
			t.Fatalf("cf.threat_score is %v", r["cf.threat_score"])
		}
		matched = matched || ev.Matches(exprs[0], r)
	}
	if !matched {
		t.Error("no request matches the anchored regex")
	}
}
