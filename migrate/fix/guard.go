package fix

import (
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// What is driven stays driven: rules under count or for_each may be none (a module toggled
// off, a map of rules empty in some environment), and then there were no firewall rules
// at all. The ruleset that replaces them gets the same condition as a count, so it is not
// created then, with a zone_id that may be null too.

// guardNotePrefix starts the note that says the ruleset carries the old rules' condition.
const guardNotePrefix = "created only when the old rules' count or for_each leaves a rule"

// groupGuard is the count of a group's new ruleset: "" when a rule is always there (a
// single resource, or a count or collection fix knows is not empty whatever the
// variables), else an expression of the old counts and collections that is 1 when any rule
// is there and 0 when none is.
func groupGuard(ev *evaluator, g *group) string {
	var terms []string
	var toggles []hclsyntax.Expression
	for _, p := range g.pairs {
		it := p.rule
		if p.viaFilter {
			it = p.filter // its instances are the filter's
		}
		fe, n := it.Attr("for_each"), it.Attr("count")
		switch {
		case fe != nil && staticSize(ev, fe) > 0, n != nil && staticSize(ev, n) > 0:
			return ""
		case fe != nil:
			terms = append(terms, "length("+exprText(it.File, fe)+")")
		case n != nil:
			terms = append(terms, parenthesized(n, exprText(it.File, n)))
			toggles = append(toggles, n)
		default:
			return ""
		}
	}
	if len(terms) == 1 && len(toggles) == 1 && atMostOne(toggles[0]) {
		return strings.TrimSpace(exprText(g.pairs[0].rule.File, toggles[0]))
	}
	return strings.Join(terms, " + ") + " > 0 ? 1 : 0"
}

// staticSize is the size of a count or for_each collection decided by the repository alone
// (literals and locals of literals: no variable another environment may set), -1 when it
// is not.
func staticSize(ev *evaluator, x hclsyntax.Expression) int {
	if !static(ev.m, x, map[string]bool{}) {
		return -1
	}
	v := ev.value(x, nil)
	switch {
	case !v.IsWhollyKnown() || v.IsNull():
		return -1
	case v.Type() == cty.Number:
		n, _ := v.AsBigFloat().Int64()
		return int(n)
	case v.CanIterateElements():
		return v.LengthInt()
	}
	return -1
}

// static reports whether x depends only on literals, path, on locals that do, and on variables
// of a module called once that its caller sets so or leaves at their defaults (a root
// module's variables are set per environment). active holds the names being followed,
// against cycles.
func static(m *Module, x hclsyntax.Expression, active map[string]bool) bool {
	for _, tr := range x.Variables() {
		if tr.RootName() == "path" {
			continue // the module's own directory
		}
		if len(tr) < 2 {
			return false
		}
		name := m.Dir + ":" + tr.RootName() + "." + attrName(tr[1])
		next, in := staticSource(m, tr.RootName(), attrName(tr[1]))
		if next == nil || active[name] {
			return false
		}
		active[name] = true
		isStatic := static(in, next, active)
		delete(active, name)
		if !isStatic {
			return false
		}
	}
	return true
}

// staticSource is the expression a local or a variable of m takes its value from, and the
// module it is written in; nil when it comes from outside the repository.
func staticSource(m *Module, root, name string) (hclsyntax.Expression, *Module) {
	switch root {
	case "local":
		return m.Locals[name], m
	case "var":
		b := m.Vars[name]
		if b == nil || len(m.CalledBy) != 1 {
			return nil, nil
		}
		call := m.CalledBy[0]
		if a, ok := call.Block.Body.Attributes[name]; ok {
			return a.Expr, call.Caller
		}
		if d, ok := b.Body.Attributes["default"]; ok {
			return d.Expr, m
		}
	}
	return nil, nil
}

// pairStatic reports whether a pair's rules are decided by the repository alone: the
// filter's expression and the iteration of both depend on nothing another environment sets.
func pairStatic(p *pair) bool {
	xs := []hclsyntax.Expression{filterAttr(p.filter, "expression"), p.filter.Attr("for_each"), p.filter.Attr("count"), p.rule.Attr("count")}
	if !p.viaFilter { // else the rule's for_each is the filter resource itself
		xs = append(xs, p.rule.Attr("for_each"))
	}
	for _, x := range xs {
		if x != nil && !static(p.filter.Module, withoutIteration(x), map[string]bool{}) {
			return false
		}
	}
	return true
}

// withoutIteration is x when it does not read each or count; else an expression with the
// same other references (each and count are the iteration's, checked on their own).
func withoutIteration(x hclsyntax.Expression) hclsyntax.Expression {
	if !mentionsIteration(x) {
		return x
	}
	var keep []hclsyntax.Expression
	for _, tr := range x.Variables() {
		if tr.RootName() != "each" && tr.RootName() != "count" {
			keep = append(keep, &hclsyntax.ScopeTraversalExpr{Traversal: tr})
		}
	}
	return &hclsyntax.TupleConsExpr{Exprs: keep}
}
