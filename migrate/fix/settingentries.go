package fix

import (
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/sunsetscan/sunset/scanner/repo"
)

// A settings block of cloudflare_zone_settings_override read as the settings it sets, each
// with the conditions under which it sets it. Provider v4 reads a null setting as "not
// managed": `x = cond ? v : null`, a lookup with a null default, a variable that may be null,
// a dynamic block whose collection may be empty all leave the setting alone when they come
// out null or empty. Provider v5's cloudflare_zone_setting requires its value, so that
// meaning moves to the resource's count (see countOf); a dynamic block's iterator becomes
// the one element of its collection.

// settingEntry is one setting of a settings block: its provider v4 name, where it is, its
// value as HCL source, and the conditions under which it is set.
type settingEntry struct {
	name  string
	line  int
	rng   [2]int               // its bytes: the attribute, or the (dynamic) block
	expr  hclsyntax.Expression // the attribute's whole value; nil for a block
	value hclsyntax.Expression // the value inside the conditions that may make it null
	block *hclsyntax.Block     // the block (a dynamic one for a dynamic block)
	body  *hclsyntax.Body      // the block's content
	// text is the value as HCL source (a block as an object), iterators replaced.
	text string
	// guards are the conditions, outermost first, under which it is set; mayBeNull says
	// that its value may still be null under them.
	guards    []guard
	mayBeNull bool
	scope     *settingsScope
	why       string // why it cannot be written again ("" when it can)
}

// guard is a condition (HCL source) under which a setting is set: when is the value that
// sets it.
type guard struct {
	cond string
	when bool
}

// iteratorOf is what a dynamic block's iterator stands for outside it: its one element.
type iteratorOf struct{ value, key string }

// settingsScope is where a settings body is read: its file, the iterators of the dynamic
// blocks around it, and their guards.
type settingsScope struct {
	file   *File
	ev     *evaluator
	iters  map[string]iteratorOf
	guards []guard
}

// settingsBody is a settings body, the block that holds it (a dynamic one for a dynamic
// block) and the scope it is read in.
type settingsBody struct {
	block *hclsyntax.Block
	body  *hclsyntax.Body
	scope *settingsScope
}

// settingsBodies are the override's settings bodies with their scopes: the settings block,
// or the content of a dynamic "settings" block (then under its collection's guard).
func settingsBodies(ev *evaluator, r *Resource) []settingsBody {
	var out []settingsBody
	top := &settingsScope{file: r.File, ev: ev}
	for _, b := range r.Block.Body.Blocks {
		switch {
		case b.Type == "settings":
			out = append(out, settingsBody{b, b.Body, top})
		case isDynamic(b, "settings"):
			if content, inner := top.dynamic(b); content != nil {
				out = append(out, settingsBody{b, content, inner})
			}
		}
	}
	return out
}

func isDynamic(b *hclsyntax.Block, label string) bool {
	return b.Type == "dynamic" && len(b.Labels) == 1 && b.Labels[0] == label
}

// dynamic is a dynamic block's content and the scope inside it: its iterator stands for the
// one element of its collection (provider v4's settings blocks hold one at most), set when
// the collection is not empty.
func (sc *settingsScope) dynamic(b *hclsyntax.Block) (*hclsyntax.Body, *settingsScope) {
	var content *hclsyntax.Body
	for _, c := range b.Body.Blocks {
		if c.Type == "content" {
			content = c.Body
		}
	}
	each, ok := b.Body.Attributes["for_each"]
	if content == nil || !ok {
		return nil, nil
	}
	it, g := sc.element(each.Expr)
	inner := &settingsScope{file: sc.file, ev: sc.ev, iters: map[string]iteratorOf{}, guards: append(slices.Clone(sc.guards), g)}
	for k, v := range sc.iters {
		inner.iters[k] = v
	}
	inner.iters[iteratorName(b)] = it
	return content, inner
}

// element is what a dynamic block's iterator stands for, given its collection, and the
// guard that the collection is not empty: X for `cond ? [X] : []` (then the guard is cond),
// else the one element of the collection, whatever its type.
func (sc *settingsScope) element(each hclsyntax.Expression) (iteratorOf, guard) {
	if c, ok := repo.Unparen(each).(*hclsyntax.ConditionalExpr); ok {
		cond := sc.condition(c.Condition)
		for _, branch := range []struct {
			one, none hclsyntax.Expression
			when      bool
		}{{c.TrueResult, c.FalseResult, true}, {c.FalseResult, c.TrueResult, false}} {
			one, isOne := repo.Unparen(branch.one).(*hclsyntax.TupleConsExpr)
			none, isNone := repo.Unparen(branch.none).(*hclsyntax.TupleConsExpr)
			if isOne && isNone && len(one.Exprs) == 1 && len(none.Exprs) == 0 {
				x, _ := sc.text(one.Exprs[0])
				return iteratorOf{value: parenthesized(one.Exprs[0], x), key: "0"}, guard{cond: cond, when: branch.when}
			}
		}
	}
	coll, _ := sc.text(each)
	coll = parenthesized(each, coll) // whole inside a for expression's "in ... :"
	return iteratorOf{value: "one([for s in " + coll + " : s])", key: "one([for k, s in " + coll + " : k])"},
		guard{cond: "length(" + coll + ") > 0", when: true}
}

// iteratorName is the name a dynamic block's content reads its element by.
func iteratorName(b *hclsyntax.Block) string {
	if it, ok := b.Body.Attributes["iterator"]; ok {
		return hcl.ExprAsKeyword(it.Expr)
	}
	return b.Labels[0]
}

// entries are the settings of a body, in file order.
func (sc *settingsScope) entries(b *hclsyntax.Body) []settingEntry {
	var out []settingEntry
	for name, a := range b.Attributes {
		e := settingEntry{name: name, line: a.SrcRange.Start.Line, rng: [2]int{a.SrcRange.Start.Byte, a.SrcRange.End.Byte}, expr: a.Expr, scope: sc}
		sc.attribute(&e)
		out = append(out, e)
	}
	for _, blk := range b.Blocks {
		rng := blk.Range()
		e := settingEntry{name: blk.Type, line: rng.Start.Line, rng: [2]int{rng.Start.Byte, rng.End.Byte}, block: blk, body: blk.Body, scope: sc, guards: slices.Clone(sc.guards)}
		in := sc
		if blk.Type == "dynamic" && len(blk.Labels) == 1 {
			e.name = blk.Labels[0]
			e.body, in = sc.dynamic(blk)
			if e.body == nil {
				e.why = "its dynamic block has no for_each or content"
				out = append(out, e)
				continue
			}
			e.guards = slices.Clone(in.guards)
		}
		e.text, e.why = in.object(e.body)
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rng[0] < out[j].rng[0] })
	return out
}

// attribute reads an attribute's value: the conditions that make it null become guards,
// and a value that may still be null (a variable, a lookup with a null default) says so.
func (sc *settingsScope) attribute(e *settingEntry) {
	var gs []guard
	e.value, gs = sc.nullBranches(e.expr)
	e.guards = append(slices.Clone(sc.guards), gs...)
	e.text, _ = sc.text(e.value)
	if _, ok := sc.text(e.expr); !ok {
		e.why = "its value reads a dynamic block's iterator otherwise than through .value or .key"
	}
	e.mayBeNull = !sc.provenNonNull(e.value)
}

// nullBranches takes off x the conditionals with a null branch (cond ? v : null, or
// cond ? null : v), as guards, outermost first; what is left is the value they set.
func (sc *settingsScope) nullBranches(x hclsyntax.Expression) (hclsyntax.Expression, []guard) {
	var gs []guard
	for {
		x = repo.Unparen(x)
		c, ok := x.(*hclsyntax.ConditionalExpr)
		if !ok {
			return x, gs
		}
		cond := sc.condition(c.Condition)
		switch {
		case isNullLiteral(c.FalseResult):
			gs, x = append(gs, guard{cond: cond, when: true}), c.TrueResult
		case isNullLiteral(c.TrueResult):
			gs, x = append(gs, guard{cond: cond, when: false}), c.FalseResult
		default:
			return x, gs
		}
	}
}

// provenNonNull reports whether the repository proves x is never null: nothing in it may
// come out null (see nullable), and its value is known not to be, or it is an expression
// that is never null (see neverNull).
func (sc *settingsScope) provenNonNull(x hclsyntax.Expression) bool {
	for _, tr := range x.Variables() {
		if _, ok := sc.iters[tr.RootName()]; ok {
			return false
		}
	}
	if nullable(sc.ev, x, 0) {
		return false
	}
	v := sc.ev.value(x, nil)
	return (v.IsKnown() && !v.IsNull()) || neverNull(x)
}

// neverNull reports whether x cannot be null whatever it reads: a literal, a template, an
// operation (each fails on a null rather than passing it on), a lookup with a default that
// is never null, or most function calls; not a variable, an attribute or an element.
func neverNull(x hclsyntax.Expression) bool {
	switch e := repo.Unparen(x).(type) {
	case *hclsyntax.LiteralValueExpr:
		return !e.Val.IsNull()
	case *hclsyntax.TemplateExpr, *hclsyntax.TemplateWrapExpr, *hclsyntax.BinaryOpExpr, *hclsyntax.UnaryOpExpr,
		*hclsyntax.ObjectConsExpr, *hclsyntax.TupleConsExpr, *hclsyntax.ForExpr:
		return true
	case *hclsyntax.ConditionalExpr:
		return neverNull(e.TrueResult) && neverNull(e.FalseResult)
	case *hclsyntax.FunctionCallExpr:
		switch {
		case e.Name == "lookup":
			return len(e.Args) == 3 && neverNull(e.Args[2])
		case e.Name == "try":
			return !slices.ContainsFunc(e.Args, func(a hclsyntax.Expression) bool { return !neverNull(a) })
		case strings.HasPrefix(e.Name, "to"):
			return len(e.Args) == 1 && neverNull(e.Args[0])
		case e.Name == "one" || e.Name == "element" || e.Name == "jsondecode" || e.Name == "yamldecode":
			return false
		}
		return true
	}
	return false
}

// nullable reports whether x may be null whatever the repository's values say: a null in a
// result position (a conditional's branch, a lookup's or try's fallback), a variable
// declared with a null default, a local that is so.
func nullable(ev *evaluator, x hclsyntax.Expression, depth int) bool {
	if depth > 8 {
		return true
	}
	switch e := repo.Unparen(x).(type) {
	case *hclsyntax.LiteralValueExpr:
		return e.Val.IsNull()
	case *hclsyntax.ConditionalExpr:
		return nullable(ev, e.TrueResult, depth+1) || nullable(ev, e.FalseResult, depth+1)
	case *hclsyntax.FunctionCallExpr:
		switch {
		case e.Name == "lookup" && len(e.Args) == 3:
			return nullable(ev, e.Args[2], depth+1)
		case e.Name == "try" && len(e.Args) > 0:
			return nullable(ev, e.Args[len(e.Args)-1], depth+1)
		case strings.HasPrefix(e.Name, "to") && len(e.Args) == 1: // tonumber(null) is null
			return nullable(ev, e.Args[0], depth+1)
		}
	case *hclsyntax.ScopeTraversalExpr:
		return traversalNullable(ev, e.Traversal, depth)
	}
	return false
}

// traversalNullable: var.X whose declared default is null, local.X that is nullable.
func traversalNullable(ev *evaluator, t hcl.Traversal, depth int) bool {
	if len(t) < 2 {
		return false
	}
	name := attrName(t[1])
	switch t.RootName() {
	case "var":
		if b, ok := ev.m.Vars[name]; ok {
			if d, ok := b.Body.Attributes["default"]; ok && isNullLiteral(d.Expr) {
				return true
			}
		}
	case "local":
		if x, ok := ev.m.Locals[name]; ok && len(t) == 2 {
			return nullable(ev, x, depth+1)
		}
	}
	return false
}

func isNullLiteral(x hclsyntax.Expression) bool {
	l, ok := repo.Unparen(x).(*hclsyntax.LiteralValueExpr)
	return ok && l.Val.IsNull()
}

// condition is x as the condition of count's conditional: in parentheses when it is a
// conditional itself, so that it stays whole.
func (sc *settingsScope) condition(x hclsyntax.Expression) string {
	text, _ := sc.text(x)
	if _, nested := repo.Unparen(x).(*hclsyntax.ConditionalExpr); nested {
		return "(" + text + ")"
	}
	return text
}

// parenthesized is text in parentheses when x is an operation or a conditional, so that it
// stays whole as an operand.
func parenthesized(x hclsyntax.Expression, text string) string {
	switch x.(type) {
	case *hclsyntax.ConditionalExpr, *hclsyntax.BinaryOpExpr, *hclsyntax.UnaryOpExpr:
		return "(" + text + ")"
	}
	return text
}

// text is x as written, with the iterators of the dynamic blocks around it replaced by what
// they stand for; false when an iterator is read otherwise than as ITER.value or ITER.key.
func (sc *settingsScope) text(x hclsyntax.Expression) (string, bool) {
	src := exprText(sc.file, x)
	if len(sc.iters) == 0 {
		return src, true
	}
	base := x.Range().Start.Byte
	type repl struct {
		start, end int
		text       string
	}
	var rs []repl
	ok := true
	_ = hclsyntax.VisitAll(x, func(n hclsyntax.Node) hcl.Diagnostics {
		tr, isTr := n.(*hclsyntax.ScopeTraversalExpr)
		if !isTr {
			return nil
		}
		it, found := sc.iters[tr.Traversal.RootName()]
		if !found {
			return nil
		}
		if len(tr.Traversal) < 2 || (attrName(tr.Traversal[1]) != "value" && attrName(tr.Traversal[1]) != "key") {
			ok = false
			return nil
		}
		with := it.value
		if attrName(tr.Traversal[1]) == "key" {
			with = it.key
		}
		rs = append(rs, repl{start: tr.Traversal[0].SourceRange().Start.Byte - base, end: tr.Traversal[1].SourceRange().End.Byte - base, text: with})
		return nil
	})
	sort.Slice(rs, func(i, j int) bool { return rs[i].start > rs[j].start })
	for _, r := range rs {
		src = src[:r.start] + r.text + src[r.end:]
	}
	return src, ok
}

// object is a block's body as an HCL object constructor, iterators replaced; why says why
// it cannot be ("" when it can).
func (sc *settingsScope) object(b *hclsyntax.Body) (string, string) {
	var parts []string
	for name, a := range b.Attributes {
		t, ok := sc.text(a.Expr)
		if !ok {
			return "", "its content reads a dynamic block's iterator otherwise than through .value or .key"
		}
		parts = append(parts, name+" = "+t)
	}
	for _, blk := range b.Blocks {
		if blk.Type == "dynamic" {
			return "", "it holds a dynamic block"
		}
		t, why := sc.object(blk.Body)
		if why != "" {
			return "", why
		}
		parts = append(parts, blk.Type+" = "+t)
	}
	sort.Strings(parts)
	return "{ " + strings.Join(parts, ", ") + " }", ""
}

// countOf is the count that sets a resource when every guard holds: base (the override's
// own count, or 1) inside the conditions, outermost first. Conditions nest rather than
// join with &&, so that an inner one is evaluated only when the outer ones hold (it may
// read the one element of a collection the outer one checks is not empty).
func countOf(guards []guard, base string) string { return nested(guards, base, "0") }

// forEachFilter is the condition of a for expression that keeps the instances of a for_each
// (each.key as k, each.value as v) for which every guard holds.
func forEachFilter(guards []guard) string {
	each := regexp.MustCompile(`\beach\.(key|value)\b`)
	gs := make([]guard, len(guards))
	for i, g := range guards {
		gs[i] = guard{cond: each.ReplaceAllStringFunc(g.cond, func(m string) string { return map[string]string{"each.key": "k", "each.value": "v"}[m] }), when: g.when}
	}
	if len(gs) == 1 && gs[0].when {
		return gs[0].cond
	}
	return nested(gs, "true", "false")
}

// nested is yes when every guard holds, else no, as conditionals nested outermost first.
func nested(guards []guard, yes, no string) string {
	inner := yes
	for i := len(guards) - 1; i >= 0; i-- {
		in := inner
		if strings.Contains(in, "?") {
			in = "(" + in + ")"
		}
		if guards[i].when {
			inner = guards[i].cond + " ? " + in + " : " + no
		} else {
			inner = guards[i].cond + " ? " + no + " : " + in
		}
	}
	return inner
}

// allGuards are the entry's guards with, when its value may be null, the check that it is
// not.
func (e settingEntry) allGuards() []guard {
	gs := slices.Clone(e.guards)
	if e.mayBeNull && e.value != nil {
		gs = append(gs, guard{cond: parenthesized(e.value, e.text) + " != null", when: true})
	}
	return gs
}

// typedValue is the entry's value as the API's type wants it: provider v4 converted a
// setting's value to its own schema's type (challenge_ttl = "1800" was the number 1800),
// while v5's value is dynamic and sent as written.
func (e settingEntry) typedValue(want string) string {
	if e.value == nil {
		return e.text
	}
	v := e.scope.ev.value(e.value, nil)
	literal := len(e.value.Variables()) == 0
	switch want {
	case "number":
		if v.IsKnown() && !v.IsNull() && v.Type() == cty.String && literal {
			if n, ok := new(big.Float).SetString(strings.TrimSpace(v.AsString())); ok {
				return n.Text('f', -1)
			}
		}
		if v.Type() == cty.Number || declaredType(e.scope.ev, e.value) == "number" {
			return e.text
		}
		return "tonumber(" + e.text + ")"
	case "string":
		if v.IsKnown() && !v.IsNull() && v.Type() == cty.Number {
			if literal {
				return fmt.Sprintf("%q", v.AsBigFloat().Text('f', -1))
			}
			return "tostring(" + e.text + ")"
		}
	}
	return e.text
}

// declaredType is the type keyword of the variable x is (var.X), "" otherwise.
func declaredType(ev *evaluator, x hclsyntax.Expression) string {
	tr, ok := x.(*hclsyntax.ScopeTraversalExpr)
	if !ok || len(tr.Traversal) != 2 || tr.Traversal.RootName() != "var" {
		return ""
	}
	if b, ok := ev.m.Vars[attrName(tr.Traversal[1])]; ok {
		if t, ok := b.Body.Attributes["type"]; ok {
			return hcl.ExprAsKeyword(t.Expr)
		}
	}
	return ""
}
