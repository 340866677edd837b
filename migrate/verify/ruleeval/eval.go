package ruleeval

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/scanner/expr"
	"github.com/sunsetscan/sunset/scanner/expr/celcheck"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// listMembers are what every named list ($name) holds during an evaluation: the lists'
// contents are not part of a snapshot, and both rule lists see the same ones. They are
// addresses, so IP lists match some generated requests.
var listMembers = []string{"10.0.0.0/8", "192.0.2.0/24", "198.51.100.0/25"}

// Evaluator evaluates Rules language expressions on requests, one checked program per
// expression, compiled once. An expression that does not check never matches: the old
// service could not have evaluated it either. It is not safe for concurrent use.
type Evaluator struct {
	progs map[string]*celcheck.Program
	lists map[string][]string
	// err is the first evaluation error; the request then counts as not matching.
	err error
}

// NewEvaluator returns an evaluator with no program compiled yet.
func NewEvaluator() *Evaluator {
	return &Evaluator{progs: map[string]*celcheck.Program{}, lists: map[string][]string{}}
}

// Err returns the first evaluation error met, or nil.
func (ev *Evaluator) Err() error { return ev.err }

// Checks reports whether src type-checks, so that it can match at all.
func (ev *Evaluator) Checks(src string) bool { return ev.program(src) != nil }

func (ev *Evaluator) program(src string) *celcheck.Program {
	p, ok := ev.progs[src]
	if ok {
		return p
	}
	if c := celcheck.Check(src, celcheck.Options{}); c.Valid {
		p = c.Program
	}
	ev.progs[src] = p
	if e, err := expr.Parse(src); err == nil {
		for _, l := range expr.Lists(e) {
			ev.lists[l.Name] = listMembers
		}
	}
	return p
}

// Matches reports whether src matches req.
func (ev *Evaluator) Matches(src string, req celcheck.Request) bool {
	p := ev.program(src)
	if p == nil {
		return false
	}
	ok, err := p.Eval(req, ev.lists)
	if err != nil {
		if ev.err == nil {
			ev.err = fmt.Errorf("evaluating %s: %w", src, err)
		}
		return false
	}
	return ok
}

// firewallPrecedence is the order of firewall rule actions at equal priority (domain-facts).
var firewallPrecedence = []vocab.Action{vocab.ActionLog, vocab.ActionBypass, vocab.ActionAllow,
	vocab.ActionChallenge, vocab.ActionManagedChallenge, vocab.ActionJSChallenge, vocab.ActionBlock}

// FirewallOrder returns firewall rules in the order the service ran them: ascending
// priority, no priority last, equal priorities by action precedence (log, bypass, allow,
// challenge, managed_challenge, js_challenge, block), then as listed. Within one priority and
// action the order cannot change the outcome.
func FirewallOrder(rules []inventory.FirewallRule) []inventory.FirewallRule {
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
		return cmp.Compare(precedence(a.Action), precedence(b.Action))
	})
	return order
}

// precedence ranks an action; an unknown one after block (the service refused it anyway).
func precedence(a vocab.Action) int {
	if i := slices.Index(firewallPrecedence, a); i >= 0 {
		return i
	}
	return len(firewallPrecedence)
}

// Rule is a firewall rule or a custom rule reduced to what evaluation needs.
type Rule struct {
	// Label names the rule in decisions and reports; ID is the firewall rule's id, "" for a
	// custom rule.
	Label, ID string
	Expr      string
	// Active is false for a paused firewall rule or a disabled custom rule: it does not run.
	Active bool
	// Action ends evaluation when set ("allow" for allow and for a skip of the current
	// ruleset); Log and Products say what the rule does on the way.
	Action   string
	Log      bool
	Products []string
}

// FirewallRules are firewall rules as Rules, in the order given (FirewallOrder gives the
// service's): paused rules do not run; log and bypass do not end evaluation (bypass skips
// its products), every other action does, allow included.
func FirewallRules(rules []inventory.FirewallRule) []Rule {
	out := make([]Rule, 0, len(rules))
	for _, r := range rules {
		s := Rule{Label: fmt.Sprintf("firewall rule %s (%s)", cmp.Or(r.ID, "without id"), r.Action), ID: r.ID,
			Expr: r.Filter.Expression, Active: !r.Paused}
		switch r.Action {
		case vocab.ActionLog:
			s.Log = true
		case vocab.ActionBypass:
			s.Products = r.Products
		default:
			s.Action = string(r.Action)
		}
		out = append(out, s)
	}
	return out
}

// skipParams are the members of a skip rule's action_parameters that evaluation reads. The
// phases a skip adds for the products waf and rateLimit (a derived mapping) are not
// compared: the products are.
type skipParams struct {
	Ruleset  string   `json:"ruleset"`
	Products []string `json:"products"`
}

// CustomRules are custom rules as Rules, in list order; first is the position of the first
// (1-based) in its entry point. Disabled rules do not run; log and skip of products or phases
// do not end evaluation; skip of the current ruleset ends it as allow did; every other action
// ends it.
func CustomRules(rules []inventory.RulesetRule, first int) []Rule {
	out := make([]Rule, 0, len(rules))
	for i, r := range rules {
		s := Rule{Label: fmt.Sprintf("custom rule %d (%s)", first+i, r.Action), Expr: r.Expression,
			Active: r.Enabled == nil || *r.Enabled}
		if r.Ref != "" {
			s.Label = fmt.Sprintf("custom rule %d (%s, ref %s)", first+i, r.Action, r.Ref)
		}
		switch r.Action {
		case vocab.ActionLog:
			s.Log = true
		case vocab.ActionSkip:
			var p skipParams
			// Undecodable parameters skip nothing: the API would have refused the rule.
			_ = json.Unmarshal(r.ActionParameters, &p)
			s.Products = p.Products
			if p.Ruleset == "current" {
				s.Action = string(vocab.ActionAllow)
			}
		default:
			s.Action = string(r.Action)
		}
		out = append(out, s)
	}
	return out
}

// Decision is what a rule list does to one request.
type Decision struct {
	// Action ended the evaluation ("" when no rule did); an allow and a skip of the
	// current ruleset are both "allow".
	Action string `json:"action"`
	// Skipped are the products bypassed on the way, sorted.
	Skipped []string `json:"skipped,omitempty"`
	// Logged is set when a log rule matched before the evaluation ended.
	Logged bool `json:"logged,omitempty"`
	// By names the rule that ended the evaluation.
	By string `json:"by,omitempty"`
}

// Same compares two decisions on what the request experiences: the action that ended
// evaluation, the products skipped, whether it was logged; not which rule decided.
func (d Decision) Same(o Decision) bool {
	return d.Action == o.Action && d.Logged == o.Logged && slices.Equal(d.Skipped, o.Skipped)
}

// Key is the decision in one string, for grouping.
func (d Decision) Key() string {
	return fmt.Sprintf("%s|%s|%t|%s", d.Action, strings.Join(d.Skipped, " "), d.Logged, d.By)
}

// Decide runs rules on req as one list.
func (ev *Evaluator) Decide(rules []Rule, req celcheck.Request) Decision {
	var d Decision
	for _, s := range rules {
		if !s.Active || !ev.Matches(s.Expr, req) {
			continue
		}
		d.Logged = d.Logged || s.Log
		d.Skipped = append(d.Skipped, s.Products...)
		if s.Action != "" {
			d.Action, d.By = s.Action, s.Label
			break
		}
	}
	slices.Sort(d.Skipped)
	d.Skipped = slices.Compact(d.Skipped)
	return d
}

// Matching lists the labels of the active rules req matches, in order.
func (ev *Evaluator) Matching(rules []Rule, req celcheck.Request) []string {
	out := []string{}
	for _, s := range rules {
		if s.Active && ev.Matches(s.Expr, req) {
			out = append(out, s.Label)
		}
	}
	return out
}

// Old is the decision of firewall rules on req, with the service's semantics.
func (ev *Evaluator) Old(rules []inventory.FirewallRule, req celcheck.Request) Decision {
	return ev.Decide(FirewallRules(FirewallOrder(rules)), req)
}

// New is the decision of custom rules on req, in list order.
func (ev *Evaluator) New(rules []inventory.RulesetRule, req celcheck.Request) Decision {
	return ev.Decide(CustomRules(rules, 1), req)
}
