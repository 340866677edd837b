package fix

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// A rule and its filter are rewritten together when every instance of the rule names the
// instance of the filter with the same key: both single, both over the same for_each (or
// the rule over the filter resource itself) indexed by each.key, both under the same count
// indexed by count.index, or by [0] when that count is a toggle (0 or 1: the only index is
// 0). A for expression that looks the filter up compares an attribute: it names the
// instance with the same key when the filter's attribute is the rule's value in the same
// iteration, and no two filters share it.

// sameInstance checks that each instance of r names the instance of f with its own key;
// via says that r's for_each is f itself (each.value is the filter). why is "" when they
// pair.
func sameInstance(ev *evaluator, r, f *Resource, l filterLink) (via bool, why string) {
	if l.lookup != nil {
		return false, lookupInstance(ev, r, f, l.lookup)
	}
	fe, n := r.Attr("for_each"), r.Attr("count")
	switch {
	case l.key == nil && !l.first && !r.Repeated() && !f.Repeated():
		return false, ""
	case l.key != nil && fe != nil && isResourceRef(fe, typeFilter, f.Name) && eachKey(l.key):
		return true, ""
	case l.key != nil && fe != nil && sameExpr(r, fe, f, f.Attr("for_each")) && isKeyOf(r, l.key):
		return false, ""
	case l.key != nil && n != nil && sameExpr(r, n, f, f.Attr("count")) && countIndex(l.key):
		return false, ""
	case (l.first || isZeroLiteral(l.key)) && n != nil && sameExpr(r, n, f, f.Attr("count")) && atMostOne(n):
		return false, "" // a toggle: the rule exists when the filter does, and [0] is its count.index
	}
	return false, fmt.Sprintf("it and cloudflare_filter.%s do not iterate alike (fix follows for_each over the same collection, for_each = cloudflare_filter.%s, or the same count, with filter_id indexed by each.key or count.index, or by [0] under a count of 0 or 1)", f.Name, f.Name)
}

// lookupInstance checks a for expression's lookup: "" when it names, for each instance of r,
// the instance of f with the same key.
func lookupInstance(ev *evaluator, r, f *Resource, lk *filterLookup) string {
	fe, n := r.Attr("for_each"), r.Attr("count")
	alike := (fe != nil && sameExpr(r, fe, f, f.Attr("for_each"))) || (n != nil && sameExpr(r, n, f, f.Attr("count")))
	if !alike {
		return fmt.Sprintf("it looks its filter up among cloudflare_filter.%s, which does not iterate as it does (same for_each or count): fix cannot tell which filter each rule gets", f.Name)
	}
	if lk.byKey {
		if (fe != nil && isKeyOf(r, lk.rule)) || (n != nil && countIndex(lk.rule)) {
			return ""
		}
		return fmt.Sprintf("it looks its filter up by a key (%s) fix cannot show is its own", exprText(r.File, lk.rule))
	}
	fx := filterAttr(f, lk.attr)
	if fx == nil {
		return fmt.Sprintf("it looks its filter up by %s, which cloudflare_filter.%s does not set", lk.attr, f.Name)
	}
	mine, theirs := canonical(f, fx), canonical(r, lk.rule)
	if mine != theirs {
		return fmt.Sprintf("it looks its filter up by %s (%s), and cloudflare_filter.%s sets it otherwise (%s): fix cannot show each rule gets the filter of its own key", lk.attr, theirs, f.Name, mine)
	}
	if mine == "each.key" || distinctValues(ev, f, fx) {
		return ""
	}
	return fmt.Sprintf("it looks its filter up by %s, and fix cannot show that no two filters of cloudflare_filter.%s share it (the first would be taken for both)", lk.attr, f.Name)
}

// canonical is x as r's iteration reads it: "each.key" for the key (and for each.value.A
// when r's for_each is keyed by A), "each.value.A" for each.value.A, each.value["A"],
// lookup(each.value, "A"); else its text. Two resources over the same for_each whose
// expressions read alike have the same value in the instances of the same key.
func canonical(r *Resource, x hclsyntax.Expression) string {
	if eachKey(x) {
		return "each.key"
	}
	if a, dflt := eachValueAttr(x); a != "" {
		if a == forEachKeyAttr(r) {
			return "each.key" // every element has A (the for_each needs it), so no default applies
		}
		if !dflt {
			return "each.value." + a
		}
	}
	return normalText(exprText(r.File, x))
}

// isKeyOf reports whether x is r's each.key, as written or as the attribute its for_each
// is keyed by.
func isKeyOf(r *Resource, x hclsyntax.Expression) bool { return canonical(r, x) == "each.key" }

// eachValueAttr is A of each.value.A, each.value["A"], lookup(each.value, "A"[, default])
// or try(each.value.A, default); dflt says a default may stand in for it.
func eachValueAttr(x hclsyntax.Expression) (attr string, dflt bool) {
	switch e := x.(type) {
	case *hclsyntax.ScopeTraversalExpr:
		tr := e.Traversal
		if len(tr) == 3 && tr.RootName() == "each" && attrName(tr[1]) == "value" {
			return traverserName(tr[2]), false
		}
	case *hclsyntax.FunctionCallExpr:
		switch {
		case e.Name == "lookup" && (len(e.Args) == 2 || len(e.Args) == 3) && isTraversal(e.Args[0], "each", "value"):
			return stringLiteral(e.Args[1]), len(e.Args) == 3
		case e.Name == "try" && len(e.Args) >= 1:
			a, _ := eachValueAttr(e.Args[0])
			return a, len(e.Args) > 1
		}
	}
	return "", false
}

// traverserName is the name of .A or ["A"].
func traverserName(t hcl.Traverser) string {
	switch s := t.(type) {
	case hcl.TraverseAttr:
		return s.Name
	case hcl.TraverseIndex:
		if s.Key.Type() == cty.String && s.Key.IsKnown() && !s.Key.IsNull() {
			return s.Key.AsString()
		}
	}
	return ""
}

// forEachKeyAttr is A when r's for_each is { for X in C : X.A => X } (each key is the
// element's A, and keys are unique or Terraform refuses the map), written there or in a
// local it names, the value X itself or merge(X, {...}) with an object that does not set A;
// "" otherwise.
func forEachKeyAttr(r *Resource) string {
	x := r.Attr("for_each")
	if tr, ok := x.(*hclsyntax.ScopeTraversalExpr); ok && len(tr.Traversal) == 2 && tr.Traversal.RootName() == "local" && r.Module != nil {
		x = r.Module.Locals[attrName(tr.Traversal[1])]
	}
	fe, ok := x.(*hclsyntax.ForExpr)
	if !ok || fe.KeyExpr == nil || fe.Group {
		return ""
	}
	a := attrOf(fe.KeyExpr, fe.ValVar)
	if a == "" || !isRoot(fe.ValExpr, fe.ValVar) && !mergeKeeps(fe.ValExpr, fe.ValVar, a) {
		return ""
	}
	return a
}

// mergeKeeps reports whether x is merge(v, {...}) whose object literals do not set a: the
// element's a comes through unchanged.
func mergeKeeps(x hclsyntax.Expression, v, a string) bool {
	call, ok := x.(*hclsyntax.FunctionCallExpr)
	if !ok || call.Name != "merge" || len(call.Args) < 1 || !isRoot(call.Args[0], v) {
		return false
	}
	for _, arg := range call.Args[1:] {
		obj, ok := arg.(*hclsyntax.ObjectConsExpr)
		if !ok {
			return false
		}
		for _, it := range obj.Items {
			if k := objectKey(it.KeyExpr); k == "" || k == a {
				return false
			}
		}
	}
	return true
}

// distinctValues reports whether x, an attribute of f, has known values that differ in
// every instance of f.
func distinctValues(ev *evaluator, f *Resource, x hclsyntax.Expression) bool {
	insts, ok := instancesOf(ev, f)
	if !ok {
		return false
	}
	seen := map[string]bool{}
	for _, in := range insts {
		v, ok := known(ev, x, in, cty.String)
		if !ok || v.IsNull() || seen[v.AsString()] {
			return false
		}
		seen[v.AsString()] = true
	}
	return true
}

// atMostOne reports whether a count is 0 or 1 whatever the values: a literal 0 or 1, or a
// conditional choosing between such.
func atMostOne(x hclsyntax.Expression) bool {
	switch e := x.(type) {
	case *hclsyntax.ParenthesesExpr:
		return atMostOne(e.Expression)
	case *hclsyntax.ConditionalExpr:
		return atMostOne(e.TrueResult) && atMostOne(e.FalseResult)
	case *hclsyntax.LiteralValueExpr:
		return isZero(e.Val) || (e.Val.Type() == cty.Number && e.Val.IsKnown() && !e.Val.IsNull() && e.Val.Equals(cty.NumberIntVal(1)).True())
	}
	return false
}

func isZeroLiteral(x hclsyntax.Expression) bool {
	l, ok := x.(*hclsyntax.LiteralValueExpr)
	return ok && isZero(l.Val)
}

// filterAttr is a filter's attribute: provider v4's (and the upgrade tool's) top-level
// one, or provider v5's inside body = [{ ... }] (one filter).
func filterAttr(f *Resource, name string) hclsyntax.Expression {
	if body, ok := f.Attr("body").(*hclsyntax.TupleConsExpr); ok && len(body.Exprs) == 1 {
		if obj, ok := body.Exprs[0].(*hclsyntax.ObjectConsExpr); ok {
			for _, it := range obj.Items {
				if objectKey(it.KeyExpr) == name {
					return it.ValueExpr
				}
			}
			return nil
		}
	}
	return f.Attr(name)
}

// ruleAttr is a firewall rule's attribute; provider v5's action = { mode = X } is read as
// its mode X, the action v4 writes as a string.
func ruleAttr(r *Resource, name string) hclsyntax.Expression {
	x := r.Attr(name)
	if obj, ok := x.(*hclsyntax.ObjectConsExpr); ok && name == "action" {
		for _, it := range obj.Items {
			if objectKey(it.KeyExpr) == "mode" {
				return it.ValueExpr
			}
		}
	}
	return x
}
