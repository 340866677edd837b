package fix

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// A firewall rule names its filter in many ways Terraform resolves to one filter's id:
// cloudflare_filter.F.id, F[each.key].id, F[count.index].id, F[0].id under a count toggle,
// splats (F[*].id, F.*.id) indexed or passed to one() or element(), try() around any of
// them, provider v5's filter = { id = ... }, and a for expression that looks the filter up by
// an attribute ([for f in values(cloudflare_filter.F) : f.id if f.description == X][0]).
// filterLinkOf reads those forms; pairs.go decides which instance they name for each
// instance of the rule, as Terraform would.

// filterLink is what a firewall rule's filter reference reads: the filter resource's name,
// the key it indexes the filter by (nil: the filter is not indexed), or the lookup that
// selects it.
type filterLink struct {
	name string
	// key indexes the filter (each.key, count.index, 0, or an expression of each.value).
	key hclsyntax.Expression
	// first: the reference takes the first of the filter's ids (a splat with [0], one()).
	first bool
	// lookup is set when a for expression selects the filter by comparing one attribute.
	lookup *filterLookup
}

// filterLookup is the condition of a for expression that selects a filter: the filter's
// attribute attr (or its key, byKey) equal to the rule's expression rule.
type filterLookup struct {
	attr  string
	byKey bool
	rule  hclsyntax.Expression
}

// filterLinkOf reads a filter reference; false when x is none of the forms above.
func filterLinkOf(x hclsyntax.Expression) (filterLink, bool) {
	switch e := x.(type) {
	case *hclsyntax.ParenthesesExpr:
		return filterLinkOf(e.Expression)
	case *hclsyntax.ObjectConsExpr: // provider v5: filter = { id = cloudflare_filter.F.id }
		if len(e.Items) == 1 && objectKey(e.Items[0].KeyExpr) == "id" {
			return filterLinkOf(e.Items[0].ValueExpr)
		}
	case *hclsyntax.FunctionCallExpr:
		return callLink(e)
	case *hclsyntax.ScopeTraversalExpr:
		return traversalLink(e.Traversal)
	case *hclsyntax.RelativeTraversalExpr:
		if len(e.Traversal) != 1 {
			break
		}
		if attrName(e.Traversal[0]) == "id" { // cloudflare_filter.F[KEY].id
			if idx, ok := e.Source.(*hclsyntax.IndexExpr); ok {
				if name := filterName(idx.Collection); name != "" {
					return filterLink{name: name, key: idx.Key}, true
				}
			}
		}
		if ti, ok := e.Traversal[0].(hcl.TraverseIndex); ok && isZero(ti.Key) { // cloudflare_filter.F.*.id[0]
			return pickFirst(e.Source)
		}
	case *hclsyntax.IndexExpr:
		if k, ok := e.Key.(*hclsyntax.LiteralValueExpr); ok && isZero(k.Val) {
			return pickFirst(e.Collection)
		}
		if name := idList(e.Collection); name != "" { // cloudflare_filter.F.*.id[count.index]
			return filterLink{name: name, key: e.Key}, true
		}
	}
	return filterLink{}, false
}

// callLink reads try(REF, ...), tostring(REF), one(IDS), join("", IDS) and element(IDS,
// KEY).
func callLink(e *hclsyntax.FunctionCallExpr) (filterLink, bool) {
	switch {
	case (e.Name == "try" || e.Name == "tostring") && len(e.Args) >= 1:
		// try's fallback is taken only when the filter does not exist, and then neither
		// does the rule (pairOf checks that they iterate alike).
		return filterLinkOf(e.Args[0])
	case e.Name == "one" && len(e.Args) == 1:
		return pickFirst(e.Args[0])
	case e.Name == "join" && len(e.Args) == 2 && isEmptyString(e.Args[0]) && idList(e.Args[1]) != "":
		// Terraform 0.11's way to read an optional resource: join("", F.*.id) is its one id
		// under a count of 0 or 1 (sameInstance checks that), and the rule is absent at 0.
		return filterLink{name: idList(e.Args[1]), first: true}, true
	case e.Name == "element" && len(e.Args) == 2:
		if k, ok := e.Args[1].(*hclsyntax.LiteralValueExpr); ok && isZero(k.Val) {
			return pickFirst(e.Args[0])
		}
		if name := idList(e.Args[0]); name != "" {
			return filterLink{name: name, key: e.Args[1]}, true
		}
	}
	return filterLink{}, false
}

// traversalLink reads cloudflare_filter.F.id and cloudflare_filter.F[LITERAL].id.
func traversalLink(tr hcl.Traversal) (filterLink, bool) {
	if tr.RootName() != typeFilter || len(tr) < 3 || attrName(tr[1]) == "" || attrName(tr[len(tr)-1]) != "id" {
		return filterLink{}, false
	}
	switch len(tr) {
	case 3:
		return filterLink{name: attrName(tr[1])}, true
	case 4:
		if ti, ok := tr[2].(hcl.TraverseIndex); ok {
			return filterLink{name: attrName(tr[1]), key: &hclsyntax.LiteralValueExpr{Val: ti.Key, SrcRange: ti.SrcRange}}, true
		}
	}
	return filterLink{}, false
}

// pickFirst reads the first element of a list of filter ids: a splat, or a for expression
// that looks a filter up.
func pickFirst(x hclsyntax.Expression) (filterLink, bool) {
	if p, ok := x.(*hclsyntax.ParenthesesExpr); ok {
		return pickFirst(p.Expression)
	}
	if name := idList(x); name != "" {
		return filterLink{name: name, first: true}, true
	}
	if fe, ok := x.(*hclsyntax.ForExpr); ok {
		return forLookup(fe)
	}
	return filterLink{}, false
}

// idList reads a list of a filter resource's ids: cloudflare_filter.F[*].id, F.*.id.
func idList(x hclsyntax.Expression) string {
	if p, ok := x.(*hclsyntax.ParenthesesExpr); ok {
		return idList(p.Expression)
	}
	s, ok := x.(*hclsyntax.SplatExpr)
	if !ok {
		return ""
	}
	each, ok := s.Each.(*hclsyntax.RelativeTraversalExpr)
	if !ok || len(each.Traversal) != 1 || attrName(each.Traversal[0]) != "id" {
		return ""
	}
	if _, anon := each.Source.(*hclsyntax.AnonSymbolExpr); !anon {
		return ""
	}
	return filterName(s.Source)
}

// forLookup reads [for v in values(cloudflare_filter.F) : v.id if v.ATTR == X] (also over
// values(...)[*], over the resource itself, with the sides swapped, ATTR read by lookup(),
// or the key compared: for k, v in cloudflare_filter.F : v.id if k == X).
func forLookup(fe *hclsyntax.ForExpr) (filterLink, bool) {
	name := filterCollection(fe.CollExpr)
	if name == "" || fe.CondExpr == nil || fe.Group || !isTraversal(fe.ValExpr, fe.ValVar, "id") {
		return filterLink{}, false
	}
	cond, ok := fe.CondExpr.(*hclsyntax.BinaryOpExpr)
	if !ok || cond.Op != hclsyntax.OpEqual {
		return filterLink{}, false
	}
	for _, sides := range [][2]hclsyntax.Expression{{cond.LHS, cond.RHS}, {cond.RHS, cond.LHS}} {
		mine, other := sides[0], sides[1]
		if refersTo(other, fe.KeyVar, fe.ValVar) {
			continue
		}
		if fe.KeyVar != "" && isRoot(mine, fe.KeyVar) {
			return filterLink{name: name, lookup: &filterLookup{byKey: true, rule: other}}, true
		}
		if attr := attrOf(mine, fe.ValVar); attr != "" {
			return filterLink{name: name, lookup: &filterLookup{attr: attr, rule: other}}, true
		}
	}
	return filterLink{}, false
}

// filterCollection reads cloudflare_filter.F, values(cloudflare_filter.F) and
// values(cloudflare_filter.F)[*] as the collection of the filters F.
func filterCollection(x hclsyntax.Expression) string {
	if s, ok := x.(*hclsyntax.SplatExpr); ok {
		if _, anon := s.Each.(*hclsyntax.AnonSymbolExpr); anon {
			return filterCollection(s.Source)
		}
		return ""
	}
	if c, ok := x.(*hclsyntax.FunctionCallExpr); ok && c.Name == "values" && len(c.Args) == 1 {
		return filterName(c.Args[0])
	}
	return filterName(x)
}

// filterName is F of the expression cloudflare_filter.F, "" for anything else.
func filterName(x hclsyntax.Expression) string {
	if t, ok := x.(*hclsyntax.ScopeTraversalExpr); ok && len(t.Traversal) == 2 && t.Traversal.RootName() == typeFilter {
		return attrName(t.Traversal[1])
	}
	return ""
}

// attrOf is ATTR of V.ATTR, V["ATTR"] or lookup(V, "ATTR"[, default]) (V a variable name),
// "" for anything else.
func attrOf(x hclsyntax.Expression, v string) string {
	switch e := x.(type) {
	case *hclsyntax.ScopeTraversalExpr:
		if len(e.Traversal) == 2 && e.Traversal.RootName() == v {
			switch t := e.Traversal[1].(type) {
			case hcl.TraverseAttr:
				return t.Name
			case hcl.TraverseIndex:
				if t.Key.Type() == cty.String {
					return t.Key.AsString()
				}
			}
		}
	case *hclsyntax.FunctionCallExpr:
		if e.Name == "lookup" && (len(e.Args) == 2 || len(e.Args) == 3) && isRoot(e.Args[0], v) {
			return stringLiteral(e.Args[1])
		}
	}
	return ""
}

// isRoot reports whether x is exactly the variable v.
func isRoot(x hclsyntax.Expression, v string) bool {
	t, ok := x.(*hclsyntax.ScopeTraversalExpr)
	return ok && len(t.Traversal) == 1 && t.Traversal.RootName() == v
}

// refersTo reports whether x refers to any of the names (a for expression's variables).
func refersTo(x hclsyntax.Expression, names ...string) bool {
	for _, tr := range x.Variables() {
		for _, n := range names {
			if n != "" && tr.RootName() == n {
				return true
			}
		}
	}
	return false
}

// stringLiteral is the value of a string written as a literal, "" for anything else.
func stringLiteral(x hclsyntax.Expression) string {
	t, ok := x.(*hclsyntax.TemplateExpr)
	if !ok || len(t.Parts) != 1 {
		return ""
	}
	if l, ok := t.Parts[0].(*hclsyntax.LiteralValueExpr); ok && l.Val.Type() == cty.String {
		return l.Val.AsString()
	}
	return ""
}

// objectKey is the name of an object item's key written as a bare word or a string.
func objectKey(x hclsyntax.Expression) string {
	if k, ok := x.(*hclsyntax.ObjectConsKeyExpr); ok {
		if name := hcl.ExprAsKeyword(k.Wrapped); name != "" {
			return name
		}
		return stringLiteral(k.Wrapped)
	}
	return ""
}

func isZero(v cty.Value) bool {
	return v.IsKnown() && !v.IsNull() && v.Type() == cty.Number && v.Equals(cty.Zero).True()
}

// isEmptyString reports whether x is the string literal "".
func isEmptyString(x hclsyntax.Expression) bool {
	t, ok := x.(*hclsyntax.TemplateExpr)
	if !ok {
		return false
	}
	if len(t.Parts) == 0 {
		return true
	}
	l, ok := t.Parts[0].(*hclsyntax.LiteralValueExpr)
	return ok && len(t.Parts) == 1 && l.Val.Type() == cty.String && l.Val.AsString() == ""
}
