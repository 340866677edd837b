package fix

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// A rate limit is translated, not copied: its url becomes host and path conditions, its
// mode an action, its period a window the plan allows. Its values may come from variables
// and locals, and the new rule keeps them as references, as a firewall rule's expression
// keeps its ${var.x}: another environment's values then reach the new rule as they reached
// the old one. So the rate limit is read with a stand-in text (a mark) for each string
// variable, translated, and each mark in the rule becomes the reference again (a mark the
// translation lowered, in the host, becomes ${lower(REF)}). A local stays a reference
// where the rule holds its value whole; else the variables it is made of do. threshold,
// period and timeout written as expressions stay those expressions (a period or timeout
// the plan may not allow is rounded in HCL, as the translation rounds it).
//
// Where the repository holds the values, the rule built with the references is checked to
// be the rule built from the values, and verified on generated requests; where it does not,
// the rule is verified with the marks standing for the values, and says it is not proven.
// A value the translation does not copy as text (a mode, a scheme), or
// a variable that is not a string in another place, cannot stay a reference: the rate limit
// is left, with the reason.

// refHoles are the references one rate limit's new rule keeps.
type refHoles struct {
	strs []*strHole
	nums []*numHole
	base int // the first mark's number
}

// strHole is a string reference and its mark.
type strHole struct {
	ref   string    // var.NAME or local.NAME
	mark  string    // upper case, so that a copy the translation lowered shows
	value cty.Value // its value in the repository, unknown when it does not hold it
}

// numHole is a number attribute written as an expression, and the ratelimit member it
// becomes.
type numHole struct {
	attr   string // its path in the resource: threshold, period, action.timeout
	expr   string // the expression as written
	member string // requests_per_period, period or mitigation_timeout
	mark   int
	value  cty.Value
}

// numAttrs are the number attributes that may stay expressions, and their members.
var numAttrs = []struct{ path, member string }{
	{"threshold", "requests_per_period"}, {"period", "period"}, {"action.timeout", "mitigation_timeout"},
}

// markPrefix starts every mark; a file that holds it cannot be read with marks.
const markPrefix = "SUNSETREF"

func strMark(i int) string { return fmt.Sprintf("%s%dX", markPrefix, i) }

// numMarkBase numbers the number marks: no rate limit has such a threshold or window.
const numMarkBase = 987654300

// empty reports whether the rule keeps no reference.
func (h *refHoles) empty() bool { return h == nil || len(h.strs)+len(h.nums) == 0 }

// attrExpr is the attribute at a dotted path of the resource's blocks (provider v4's
// action.timeout) or top-level attributes (v5's threshold and period), nil when not set.
func attrExpr(r *Resource, path string) hclsyntax.Expression {
	parts := strings.Split(path, ".")
	body := r.Block.Body
	for _, p := range parts[:len(parts)-1] {
		var next *hclsyntax.Body
		for _, b := range body.Blocks {
			if b.Type == p {
				next = b.Body
				break
			}
		}
		if next == nil {
			return nil
		}
		body = next
	}
	if a, ok := body.Attributes[parts[len(parts)-1]]; ok {
		return a.Expr
	}
	return nil
}

// varsOf are the variables x reads, through the locals it reads.
func varsOf(m *Module, x hclsyntax.Expression, seen map[string]bool) []string {
	var out []string
	for _, tr := range x.Variables() {
		if len(tr) < 2 {
			continue
		}
		a, ok := tr[1].(hcl.TraverseAttr)
		if !ok {
			continue
		}
		switch tr.RootName() {
		case "var":
			out = append(out, a.Name)
		case "local":
			if l, ok := m.Locals[a.Name]; ok && !seen[a.Name] {
				seen[a.Name] = true
				out = append(out, varsOf(m, l, seen)...)
			}
		}
	}
	return out
}

// stringVar reports whether a variable can be marked: its value is a string, or it is not
// known and declared a string (or without a type).
func stringVar(m *Module, name string, v cty.Value) bool {
	if v.IsWhollyKnown() {
		return !v.IsNull() && v.Type().Equals(cty.String)
	}
	b := m.Vars[name]
	if b == nil {
		return true // declared elsewhere (a file not given): nothing says it is not a string
	}
	t, ok := b.Body.Attributes["type"]
	return !ok || hcl.ExprAsKeyword(t.Expr) == "string"
}

// markedEvaluator is ev with each string variable in names replaced by a mark, and the
// locals in locals by theirs.
func markedEvaluator(ev *evaluator, h *refHoles, locals map[string]cty.Value) *evaluator {
	vars := map[string]cty.Value{}
	for k, v := range ev.vars {
		vars[k] = v
	}
	for _, s := range h.strs {
		if name, ok := strings.CutPrefix(s.ref, "var."); ok {
			vars[name] = cty.StringVal(s.mark)
		}
	}
	ls := map[string]cty.Value{}
	for k, v := range locals {
		ls[k] = v
	}
	return &evaluator{m: ev.m, locals: ls, active: map[string]bool{}, vars: vars, funcs: ev.funcs}
}

// readMarked reads rate limit r with its references as marks (see the comment above),
// numbered from base (the marks of one ruleset's rate limits differ): the rate limit to
// translate, the references, its values when the repository holds them all (nil
// otherwise), and why it cannot be read so ("" when it can).
func readMarked(ev *evaluator, r *Resource, base int) (inventory.RateLimit, *refHoles, *inventory.RateLimit, string) {
	actual, unknown := readRateLimit(ev, r)
	h, why := holesOf(ev, r, base)
	if why != "" {
		return actual, nil, nil, why
	}
	if h.empty() {
		if len(unknown) > 0 {
			return actual, nil, nil, "the repository does not hold the value of " + strings.Join(unknown, ", ") + " (another resource's attribute, a data source): the rule cannot be checked against the zone's plan; write the values, or move it to the ruleset by hand"
		}
		return actual, nil, &actual, ""
	}
	locals := keptLocals(ev, r, h)
	marked, still := readRateLimit(markedEvaluator(ev, h, locals), r)
	still = slices.DeleteFunc(still, func(p string) bool { return h.num(p) != nil })
	if len(still) > 0 {
		return actual, nil, nil, "the repository does not hold the value of " + strings.Join(still, ", ") + " (another resource's attribute, a data source): the rule cannot be checked against the zone's plan; write the values, or move it to the ruleset by hand"
	}
	h.standIns(&marked)
	h.dropUnread(marked)
	if len(unknown) > 0 {
		return marked, h, nil, ""
	}
	return marked, h, &actual, ""
}

// dropUnread drops the variables rl does not hold (read only through a local that stays a
// reference).
func (h *refHoles) dropUnread(rl inventory.RateLimit) {
	raw, _ := json.Marshal(rl) // plain data: cannot fail
	h.strs = slices.DeleteFunc(h.strs, func(s *strHole) bool { return !strings.Contains(string(raw), s.mark) })
}

// num is the number hole of the attribute path, nil when there is none.
func (h *refHoles) num(path string) *numHole {
	for _, n := range h.nums {
		if n.attr == path {
			return n
		}
	}
	return nil
}

// holesOf finds the references of r: its number attributes written as expressions, and the
// string variables its values read. A variable that is not a string read outside those
// number attributes cannot stay a reference: why says so.
func holesOf(ev *evaluator, r *Resource, base int) (*refHoles, string) {
	h := &refHoles{base: base}
	skip := map[hclsyntax.Expression]bool{r.Attr("zone_id"): true}
	for i, na := range numAttrs {
		if x := attrExpr(r, na.path); x != nil && refersTo(x, "var", "local") {
			skip[x] = true
			h.nums = append(h.nums, &numHole{attr: na.path, expr: normalText(exprText(r.File, x)), member: na.member, mark: numMarkBase + base + i, value: ev.value(x, nil)})
		}
	}
	var names []string
	_ = hclsyntax.VisitAll(r.Block.Body, func(n hclsyntax.Node) hcl.Diagnostics {
		if a, ok := n.(*hclsyntax.Attribute); ok && !skip[a.Expr] {
			names = append(names, varsOf(ev.m, a.Expr, map[string]bool{})...)
		}
		return nil
	})
	sort.Strings(names)
	for _, name := range slices.Compact(names) {
		v, declared := ev.vars[name]
		if !declared {
			v = cty.DynamicVal
		}
		if !stringVar(ev.m, name, v) {
			return nil, fmt.Sprintf("var.%s is not a string, and not threshold, period or timeout: fix keeps variables as references only where the rule holds them as text or as those numbers; write its value in the rate limit, or move it to the ruleset by hand", name)
		}
		h.strs = append(h.strs, &strHole{ref: "var." + name, mark: strMark(base + len(h.strs)), value: v})
	}
	if !h.empty() && strings.Contains(strings.ToUpper(string(r.File.Src)), markPrefix) {
		return nil, "its file holds " + markPrefix + ", which fix uses to mark references"
	}
	return h, ""
}

// keptLocals are the locals r reads directly that stay references: those whose value the
// rule built with a mark for them holds whole, the marks filled in giving the rule built
// from their value. They join h; the others are read through (their variables marked).
func keptLocals(ev *evaluator, r *Resource, h *refHoles) map[string]cty.Value {
	kept := map[string]cty.Value{}
	var names []string
	_ = hclsyntax.VisitAll(r.Block.Body, func(n hclsyntax.Node) hcl.Diagnostics {
		if t, ok := n.(*hclsyntax.ScopeTraversalExpr); ok && t.Traversal.RootName() == "local" && len(t.Traversal) == 2 {
			if a, ok := t.Traversal[1].(hcl.TraverseAttr); ok {
				names = append(names, a.Name)
			}
		}
		return nil
	})
	sort.Strings(names)
	base := markedEvaluator(ev, h, nil)
	want, _ := readRateLimit(base, r)
	wantRule := ruleText(want)
	for _, name := range slices.Compact(names) {
		v := base.local(name)
		if !v.IsWhollyKnown() || v.IsNull() || !v.Type().Equals(cty.String) {
			continue
		}
		s := &strHole{ref: "local." + name, mark: strMark(h.base + len(h.strs)), value: ev.local(name)}
		try := map[string]cty.Value{name: cty.StringVal(s.mark)}
		for k, x := range kept {
			try[k] = x
		}
		got, _ := readRateLimit(markedEvaluator(ev, h, try), r)
		if fillMark(ruleText(got), s.mark, v.AsString()) == wantRule {
			kept[name] = cty.StringVal(s.mark)
			h.strs = append(h.strs, s)
		}
	}
	return kept
}

// ruleText is the rule translated from rl (for any plan: only the references are compared),
// as JSON.
func ruleText(rl inventory.RateLimit) string {
	rule, _, _ := migrate.TranslateRateLimit(rl, inventory.PlanEnterprise)
	raw, _ := json.Marshal(rule) // plain data: cannot fail
	return string(raw)
}

// standIns gives the number attributes the repository does not hold their marks, for the
// translation (markNumbers writes them into the rule whatever it made of them).
func (h *refHoles) standIns(rl *inventory.RateLimit) {
	for _, n := range h.nums {
		if n.value.IsWhollyKnown() {
			continue
		}
		switch n.attr {
		case "threshold":
			rl.Threshold = n.mark
		case "period":
			rl.Period = n.mark
		case "action.timeout":
			rl.Action.Timeout = n.mark
		}
	}
}

// explain is what the translation says about the rate limit, with the references written
// as they are; what it says of a window or timeout it had only a mark for is dropped (the
// rule rounds the expression in HCL; refNotes says so).
func (h *refHoles) explain(notes []string) []string {
	if h.empty() {
		return notes
	}
	out := notes[:0]
	for _, n := range notes {
		drop := false
		for _, x := range h.nums {
			mark := strconv.Itoa(x.mark)
			drop = drop || (x.attr != "threshold" && strings.Contains(n, mark))
			n = strings.ReplaceAll(n, mark, x.expr)
		}
		if !drop {
			out = append(out, h.show(n))
		}
	}
	return out
}

// fillMark is rule as JSON with mark replaced by value (lowered where the translation
// lowered the mark).
func fillMark(rule, mark, value string) string {
	rule = strings.ReplaceAll(rule, mark, jsonInner(value))
	return strings.ReplaceAll(rule, strings.ToLower(mark), jsonInner(strings.ToLower(value)))
}

// jsonInner is s as it reads inside a JSON string.
func jsonInner(s string) string {
	b, _ := json.Marshal(s) // a string: cannot fail
	return string(b[1 : len(b)-1])
}

// markPattern finds the marks in a text, in either case.
var markPattern = regexp.MustCompile(`(?i)` + markPrefix + `[0-9]+X`)

// show is s with each mark written as the reference it stands for, for people.
func (h *refHoles) show(s string) string {
	if h.empty() {
		return s
	}
	return markPattern.ReplaceAllStringFunc(s, func(m string) string {
		for _, x := range h.strs {
			if strings.EqualFold(x.mark, m) {
				return "${" + x.ref + "}"
			}
		}
		return m
	})
}

// check says why the rule translated from the marked rate limit cannot keep the references
// ("" when it can): a mark the translation did not copy as text, or, where the repository
// holds the values, a rule that differs from the one built from them (the value decides
// how the url is read). want is the rule built from the values (nil when not known).
func (h *refHoles) check(rule inventory.RulesetRule, want *inventory.RulesetRule) string {
	raw, _ := json.Marshal(rule) // plain data: cannot fail
	text := string(raw)
	for _, s := range h.strs {
		if !strings.Contains(strings.ToUpper(text), s.mark) {
			return fmt.Sprintf("the value of %s decides how the rule is built (a mode, a scheme), not only its text: fix keeps variables as references only where the rule holds them as text; write it as a literal, or move the rate limit by hand", s.ref)
		}
	}
	if want == nil {
		return ""
	}
	got := text
	for _, s := range h.strs {
		got = fillMark(got, s.mark, s.value.AsString())
	}
	wantRaw, _ := json.Marshal(*want)
	if h.sameNumbers(got, string(wantRaw)) {
		return ""
	}
	refs := make([]string, 0, len(h.strs))
	for _, s := range h.strs {
		refs = append(refs, s.ref)
	}
	return "the rule built with " + strings.Join(refs, ", ") + " kept as references differs from the rule built from the values the repository gives them (a value holding /, *, ?, # or a scheme changes how the url is read): write the url's host and path as separate values, or move the rate limit by hand"
}

// sameNumbers compares two rules as JSON, the members a number hole writes aside.
func (h *refHoles) sameNumbers(a, b string) bool {
	var x, y map[string]any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	for _, m := range []map[string]any{x, y} {
		if rl, ok := m["ratelimit"].(map[string]any); ok {
			for _, n := range h.nums {
				delete(rl, n.member)
			}
		}
	}
	ax, _ := json.Marshal(x)
	ay, _ := json.Marshal(y)
	return string(ax) == string(ay)
}

// markNumbers writes the number marks into the rule's ratelimit object; a challenge's
// mitigation_timeout stays 0 (the API requires it), whatever the old timeout.
func (h *refHoles) markNumbers(rule *inventory.RulesetRule) {
	if len(h.nums) == 0 {
		return
	}
	var rl map[string]any
	if json.Unmarshal(rule.RateLimit, &rl) != nil {
		return
	}
	for _, n := range h.nums {
		if n.member == "mitigation_timeout" && rule.Action.IsChallenge() {
			continue
		}
		rl[n.member] = n.mark
	}
	rule.RateLimit, _ = json.Marshal(rl) // plain data: cannot fail
}

// fill is rendered HCL with each mark replaced by its reference: a string that is one mark
// becomes the bare reference, a mark in a longer string an interpolation, a lowered mark
// ${lower(REF)} (${REF} when the repository's value is lower case), a number mark the expression (rounded as the plan's allowed values are,
// for a period or timeout the plan may not allow).
func (h *refHoles) fill(text string, periods, timeouts []int) string {
	if h.empty() {
		return text
	}
	for _, s := range h.strs {
		text = strings.ReplaceAll(text, `"`+s.mark+`"`, s.ref)
		text = strings.ReplaceAll(text, s.mark, "${"+s.ref+"}")
		lowered := "${lower(" + s.ref + ")}"
		if s.value.IsWhollyKnown() && s.value.AsString() == strings.ToLower(s.value.AsString()) {
			lowered = "${" + s.ref + "}" // lower case already, as this repository's value is
		}
		text = strings.ReplaceAll(text, strings.ToLower(s.mark), lowered)
	}
	for _, n := range h.nums {
		expr := n.expr
		switch n.member {
		case "period":
			expr = nearestExpr(n, periods)
		case "mitigation_timeout":
			expr = nearestExpr(n, timeouts)
		}
		text = strings.ReplaceAll(text, strconv.Itoa(n.mark), expr)
	}
	return text
}

// nearestExpr is the number expression as written when the repository holds its value and
// the plan allows it, else the allowed value nearest to it in HCL (a tie goes to the larger,
// as the translation rounds).
func nearestExpr(n *numHole, allowed []int) string {
	if n.value.IsWhollyKnown() && !n.value.IsNull() && n.value.Type().Equals(cty.Number) {
		v, _ := n.value.AsBigFloat().Int64()
		if slices.Contains(allowed, int(v)) {
			return n.expr
		}
	}
	list := make([]string, len(allowed))
	for i, a := range allowed {
		list[i] = strconv.Itoa(a)
	}
	l, x := "["+strings.Join(list, ", ")+"]", n.expr
	if !plainRef.MatchString(x) {
		x = "(" + x + ")"
	}
	return fmt.Sprintf("max([for p in %s : p if abs(p - %s) == min([for q in %s : abs(q - %s)]...)]...)", l, x, l, x)
}

// plainRef is a reference without operators (var.x, local.y.z), which needs no parentheses.
var plainRef = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// unknownRefs are the references whose values the repository does not hold.
func (h *refHoles) unknownRefs() []string {
	var out []string
	for _, s := range h.strs {
		if !s.value.IsWhollyKnown() {
			out = append(out, s.ref)
		}
	}
	for _, n := range h.nums {
		if !n.value.IsWhollyKnown() {
			out = append(out, n.expr)
		}
	}
	return out
}
