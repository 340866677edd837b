package celcheck

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/operators"
	"cel.dev/cel-go/common/types"

	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/expr"
)

// Lowering turns the Rules AST into a CEL AST directly (no CEL source, no CEL
// parse). Every CEL node gets an id whose meta records the Rules node it
// stands for, so a checker error at any id maps back to the original token.
//
// Unpacking follows the engine: x[*] inside a function argument makes the
// enclosing comparisons and calls apply to each element, yielding an array;
// any() and all() reduce such an array, and [*] unpacks a mapped array again:
//
//	any(lower(h["a"][*])[*] == "x")  ->  h["a"].exists(i, v, lower(v) == "x")
//
// (a two-variable comprehension, so maps iterate their values and lists
// their elements without knowing which one the operand is).

type role uint8

const (
	roleOther   role = iota
	roleField        // an identifier naming a field
	roleCompare      // the call implementing a comparison
	roleCall         // a Rules function call
	roleJSONKey      // rules.json_key around an argument of lookup_json_*
	roleIndex        // rules.index for x[n] / m["k"]
	roleNot          // !_
	roleXor          // rules.xor
	roleLogical      // _&&_ / _||_
)

// meta is what lowering knows about one CEL node.
type meta struct {
	node expr.Node // the Rules node the CEL node stands for
	role role
	args []int64 // CEL ids of the call's arguments (comparison and call roles)
	// want describes the context that needs a Bool here ("and", "argument of any()").
	want string
	// rangeOf is the [*] whose array or map this node is.
	rangeOf *expr.UnpackExpr
}

// iteration is one [*]: the array or map iterated and the variable names.
type iteration struct {
	rng   ast.Expr
	key   string // index or map key (unused, required by the two-variable form)
	elem  string
	outer *iteration
	node  *expr.UnpackExpr
}

// val is a lowered operand: a scalar CEL expression (it == nil), or an
// expression evaluated per element of iteration it. collected marks a
// per-element value that the engine sees as an array (the result of a
// comparison or call on unpacked elements): it needs [*] to be unpacked
// again, any()/all() to be reduced, or it is used as a whole array.
type val struct {
	e         ast.Expr
	it        *iteration
	collected bool
}

type lowerer struct {
	fac   ast.ExprFactory
	metas []meta // indexed by CEL id; id 0 is unused
	env   *environment
	diags []Diagnostic
	src   string
	iters int
	// reported holds CEL ids whose errors lowering already explained.
	reported map[int64]bool
	// unpackFailed is set when a [*] escaped its function argument: the type
	// errors that follow from it are consequences, not news.
	unpackFailed bool
}

func newLowerer(env *environment, src string) *lowerer {
	// Sets lower to one node, so long expressions have few nodes per byte;
	// append grows the rest.
	return &lowerer{fac: ast.NewExprFactory(), metas: make([]meta, 1, 8+len(src)/24), env: env, src: src}
}

func (l *lowerer) id(n expr.Node, r role) int64 {
	l.metas = append(l.metas, meta{node: n, role: r})
	return int64(len(l.metas) - 1)
}

func (l *lowerer) errorf(code string, n expr.Node, format string, args ...any) {
	l.diags = append(l.diags, newDiag(l.src, SeverityError, code, n.Pos(), n.End(), fmt.Sprintf(format, args...)))
}

func (l *lowerer) markReported(id int64) {
	if l.reported == nil {
		l.reported = map[int64]bool{}
	}
	l.reported[id] = true
}

func (l *lowerer) lit(n expr.Node, v types.String) ast.Expr {
	return l.fac.NewLiteral(l.id(n, roleOther), v)
}

// lowerRoot lowers a whole filter.
func (l *lowerer) lowerRoot(root expr.Node) ast.Expr {
	v := l.lower(root)
	if v.it != nil {
		l.errorf(CodeUnpack, root, "the expression is an array of conditions, one per element of %s[*]; reduce it with any(...) or all(...)", l.text(v.it.node.X))
		l.unpackFailed = true
	}
	return v.e
}

func (l *lowerer) text(n expr.Node) string {
	if n == nil || int(n.End()) > len(l.src) || n.Pos() < 0 || n.Pos() > n.End() {
		return expr.Print(n)
	}
	return l.src[n.Pos():n.End()]
}

// lower turns one Rules node into its CEL expression: the connectives,
// indexing and [*] have a method each, as comparisons and calls do; names
// and literals are one CEL node.
func (l *lowerer) lower(n expr.Node) val {
	switch n := n.(type) {
	case *expr.Expr:
		return l.lower(n.Root)
	case *expr.BinaryExpr:
		return l.lowerBinary(n)
	case *expr.NotExpr:
		return l.lowerNot(n)
	case *expr.Comparison:
		return l.lowerComparison(n)
	case *expr.Field:
		return val{e: l.fac.NewIdent(l.id(n, roleField), n.Name)}
	case *expr.Call:
		return l.lowerCall(n)
	case *expr.IndexExpr:
		return l.lowerIndex(n)
	case *expr.UnpackExpr:
		return l.lowerUnpack(n)
	case *expr.StringLit:
		return val{e: l.lit(n, types.String(n.Value))}
	case *expr.BytesLit:
		return val{e: l.lit(n, types.String(n.Value))}
	case *expr.IntLit:
		return val{e: l.fac.NewLiteral(l.id(n, roleOther), types.Int(n.Value))}
	case *expr.BoolLit:
		return val{e: l.fac.NewLiteral(l.id(n, roleOther), types.Bool(n.Value))}
	case *expr.IPLit:
		if n.IsCIDR() {
			l.errorf(CodeSyntax, n, "a CIDR is only allowed inside a set")
		}
		arg := l.lit(n, types.String(n.Addr.String()))
		return val{e: l.fac.NewCall(l.id(n, roleOther), fnIP, arg)}
	}
	// Sets, lists and ranges outside a comparison, and unparsed input: the
	// parser has reported these; keep the tree well-formed.
	l.errorf(CodeSyntax, n, "unexpected %s here", describeNode(n))
	return val{e: l.fac.NewLiteral(l.id(n, roleOther), types.False)}
}

// lowerBinary lowers and, or and xor, whose sides are single conditions.
func (l *lowerer) lowerBinary(n *expr.BinaryExpr) val {
	x := l.scalar(l.lower(n.X), n.X, n.Op.String())
	y := l.scalar(l.lower(n.Y), n.Y, n.Op.String())
	switch n.Op {
	case expr.OpAnd, expr.OpOr:
		fn := operators.LogicalAnd
		if n.Op == expr.OpOr {
			fn = operators.LogicalOr
		}
		l.want(x, n.Op.String())
		l.want(y, n.Op.String())
		return val{e: l.fac.NewCall(l.call(n, roleLogical, x, y), fn, x, y)}
	default: // xor
		return val{e: l.fac.NewCall(l.call(n, roleXor, x, y), fnXor, x, y)}
	}
}

// lowerNot lowers not, which applies element by element to an unpacked or
// collected operand.
func (l *lowerer) lowerNot(n *expr.NotExpr) val {
	x := l.lower(n.X)
	if x.collected {
		// Reduce nothing: not applies to each element of the array.
		x.e = l.fac.NewCall(l.call(n, roleNot, x.e), operators.LogicalNot, x.e)
		return x
	}
	if x.it != nil {
		return val{e: l.fac.NewCall(l.call(n, roleNot, x.e), operators.LogicalNot, x.e), it: x.it, collected: true}
	}
	return val{e: l.fac.NewCall(l.call(n, roleNot, x.e), operators.LogicalNot, x.e)}
}

// lowerIndex lowers x["key"] and x[0].
func (l *lowerer) lowerIndex(n *expr.IndexExpr) val {
	x := l.materialize(l.lower(n.X), n.X)
	var key ast.Expr
	switch k := n.Index.(type) {
	case *expr.StringLit:
		key = l.lit(k, types.String(k.Value))
	case *expr.IntLit:
		key = l.fac.NewLiteral(l.id(k, roleOther), types.Int(k.Value))
	default:
		l.errorf(CodeSyntax, n.Index, "an index is a non-negative integer or a \"key\" string")
		key = l.fac.NewLiteral(l.id(n.Index, roleOther), types.Int(0))
	}
	x.e = l.fac.NewCall(l.call(n, roleIndex, x.e, key), fnIndex, x.e, key)
	return x
}

// lowerUnpack lowers x[*]: a new iteration over x, whose element variable
// stands for the unpacked value.
func (l *lowerer) lowerUnpack(n *expr.UnpackExpr) val {
	x := l.lower(n.X)
	if x.collected {
		// f(a[*])[*]: the mapped array is unpacked again, element by element.
		x.collected = false
		return x
	}
	l.iters++
	it := &iteration{rng: x.e, key: fmt.Sprintf("@k%d", l.iters), elem: fmt.Sprintf("@v%d", l.iters), outer: x.it, node: n}
	l.metas[x.e.ID()].rangeOf = n
	return val{e: l.fac.NewIdent(l.id(n, roleOther), it.elem), it: it}
}

func describeNode(n expr.Node) string {
	switch n.(type) {
	case *expr.SetLit:
		return "set"
	case *expr.ListRef:
		return "list"
	case *expr.RangeLit:
		return "range"
	}
	return "input"
}

// call records the meta of a call node with its argument ids.
func (l *lowerer) call(n expr.Node, r role, args ...ast.Expr) int64 {
	id := l.id(n, r)
	ids := make([]int64, len(args))
	for i, a := range args {
		ids[i] = a.ID()
	}
	l.metas[id].args = ids
	return id
}

func (l *lowerer) want(e ast.Expr, ctx string) {
	if l.metas[e.ID()].want == "" {
		l.metas[e.ID()].want = ctx
	}
}

// scalar requires a value that is not per-element (operands of and, or, xor).
func (l *lowerer) scalar(v val, n expr.Node, op string) ast.Expr {
	if v.it != nil {
		l.errorf(CodeUnpack, n, "%s is an array of conditions (it unpacks %s[*]); reduce it with any(...) or all(...) before %s", l.text(n), l.text(v.it.node.X), op)
		l.unpackFailed = true
		return l.fac.NewLiteral(l.id(n, roleOther), types.False)
	}
	return v.e
}

// materialize turns a collected value into the CEL list the engine sees:
// rng.transformList(k, v, e), built as its comprehension.
func (l *lowerer) materialize(v val, n expr.Node) val {
	if !v.collected {
		return v
	}
	it := v.it
	if it.outer != nil {
		l.errorf(CodeUnpack, n, "an array built from nested [*] cannot be used as a whole; reduce it with any(...) or all(...)")
		l.unpackFailed = true
		return val{e: v.e, it: it.outer}
	}
	accu := fmt.Sprintf("@a%d", l.iters)
	l.iters++
	mk := func() int64 { return l.id(n, roleOther) }
	init := l.fac.NewList(mk(), nil, nil)
	cond := l.fac.NewLiteral(mk(), types.True)
	step := l.fac.NewCall(mk(), operators.Add, l.fac.NewIdent(mk(), accu), l.fac.NewList(mk(), []ast.Expr{v.e}, nil))
	result := l.fac.NewIdent(mk(), accu)
	return val{e: l.fac.NewComprehensionTwoVar(mk(), it.rng, it.key, it.elem, accu, init, cond, step, result)}
}

// quantify reduces a per-element condition with exists (any) or all,
// innermost iteration first.
func (l *lowerer) quantify(v val, n *expr.Call, exists bool) ast.Expr {
	body := v.e
	l.want(body, "the argument of "+n.Name+"()")
	mk := func() int64 { return l.id(n, roleOther) }
	for it := v.it; it != nil; it = it.outer {
		accu := fmt.Sprintf("@a%d", l.iters)
		l.iters++
		var init, cond, step ast.Expr
		if exists {
			init = l.fac.NewLiteral(mk(), types.False)
			cond = l.fac.NewCall(mk(), operators.NotStrictlyFalse, l.fac.NewCall(mk(), operators.LogicalNot, l.fac.NewIdent(mk(), accu)))
			step = l.fac.NewCall(mk(), operators.LogicalOr, l.fac.NewIdent(mk(), accu), body)
		} else {
			init = l.fac.NewLiteral(mk(), types.True)
			cond = l.fac.NewCall(mk(), operators.NotStrictlyFalse, l.fac.NewIdent(mk(), accu))
			step = l.fac.NewCall(mk(), operators.LogicalAnd, l.fac.NewIdent(mk(), accu), body)
		}
		body = l.fac.NewComprehensionTwoVar(mk(), it.rng, it.key, it.elem, accu, init, cond, step, l.fac.NewIdent(mk(), accu))
	}
	return body
}

var compareFns = map[expr.Op]string{
	expr.OpEq: operators.Equals, expr.OpNe: operators.NotEquals,
	expr.OpLt: operators.Less, expr.OpLe: operators.LessEquals,
	expr.OpGt: operators.Greater, expr.OpGe: operators.GreaterEquals,
	expr.OpBitwiseAnd: fnBitwiseAnd,
}

func (l *lowerer) lowerComparison(c *expr.Comparison) val {
	x := l.materialize(l.lower(c.X), c.X)
	var e ast.Expr
	switch c.Op {
	case expr.OpEq, expr.OpNe, expr.OpLt, expr.OpLe, expr.OpGt, expr.OpGe, expr.OpBitwiseAnd:
		y := l.lower(c.Y).e
		e = l.fac.NewCall(l.call(c, roleCompare, x.e, y), compareFns[c.Op], x.e, y)
	case expr.OpContains:
		y := l.lower(c.Y).e
		e = l.fac.NewMemberCall(l.call(c, roleCompare, x.e, y), "contains", x.e, y)
	case expr.OpMatches:
		if s, ok := c.Y.(*expr.StringLit); ok {
			if _, err := regexp.Compile(s.Value); err != nil {
				l.errorf(CodeBadRegex, s, "invalid regular expression: %s", regexMessage(err))
			}
		}
		y := l.lower(c.Y).e
		e = l.fac.NewMemberCall(l.call(c, roleCompare, x.e, y), "matches", x.e, y)
	case expr.OpWildcard, expr.OpStrictWildcard:
		if s, ok := c.Y.(*expr.StringLit); ok {
			if err := checkWildcard(s.Value); err != nil {
				l.errorf(CodeBadWildcard, s, "%v", err)
			}
		}
		fn := fnWildcard
		if c.Op == expr.OpStrictWildcard {
			fn = fnStrictWildcard
		}
		y := l.lower(c.Y).e
		e = l.fac.NewCall(l.call(c, roleCompare, x.e, y), fn, x.e, y)
	case expr.OpIn:
		e = l.lowerIn(c, x.e)
	default:
		l.errorf(CodeSyntax, c, "unknown operator %q", c.OpText)
		e = l.fac.NewLiteral(l.id(c, roleOther), types.False)
	}
	if x.it != nil {
		return val{e: e, it: x.it, collected: true}
	}
	return val{e: e}
}

// setKind is what a set literal holds.
type setKind uint8

const (
	setEmpty setKind = iota
	setStrings
	setInts
	setIPs
	setMixed
)

func kindOfSet(s *expr.SetLit) setKind {
	k := setEmpty
	for _, el := range s.Elems {
		var ek setKind
		switch el := el.(type) {
		case *expr.StringLit, *expr.BytesLit:
			ek = setStrings
		case *expr.IntLit:
			ek = setInts
		case *expr.IPLit:
			ek = setIPs
		case *expr.RangeLit:
			if _, ok := el.Lo.(*expr.IntLit); ok {
				ek = setInts
			} else {
				ek = setIPs
			}
		default:
			return setMixed
		}
		if k != setEmpty && k != ek {
			return setMixed
		}
		k = ek
	}
	return k
}

func (l *lowerer) lowerIn(c *expr.Comparison, x ast.Expr) ast.Expr {
	switch y := c.Y.(type) {
	case *expr.ListRef:
		lists := l.fac.NewIdent(l.id(y, roleOther), varLists)
		name := l.lit(y, types.String(y.Name))
		return l.fac.NewCall(l.call(c, roleCompare, x, lists, name), fnInList, x, lists, name)
	case *expr.SetLit:
		switch kindOfSet(y) {
		case setInts, setIPs:
			var b strings.Builder
			fn := fnInInt
			for i, el := range y.Elems {
				if i > 0 {
					b.WriteByte(' ')
				}
				switch el := el.(type) {
				case *expr.IntLit:
					b.WriteString(strconv.FormatInt(el.Value, 10))
				case *expr.IPLit:
					fn = fnInIP
					if el.IsCIDR() {
						b.WriteString(el.Prefix().Masked().String())
					} else {
						b.WriteString(el.Addr.String())
					}
				case *expr.RangeLit:
					if lo, ok := el.Lo.(*expr.IntLit); ok {
						fmt.Fprintf(&b, "%d..%d", lo.Value, el.Hi.(*expr.IntLit).Value)
					} else {
						fn = fnInIP
						fmt.Fprintf(&b, "%s..%s", el.Lo.(*expr.IPLit).Addr, el.Hi.(*expr.IPLit).Addr)
					}
				}
			}
			set := l.lit(y, types.String(b.String()))
			return l.fac.NewCall(l.call(c, roleCompare, x, set), fn, x, set)
		case setMixed:
			l.errorf(CodeTypeMismatch, y, "a set holds values of one type: strings, integers or IP addresses")
		}
		elems := make([]ast.Expr, 0, len(y.Elems))
		for _, el := range y.Elems {
			switch el := el.(type) {
			case *expr.StringLit:
				elems = append(elems, l.lit(el, types.String(el.Value)))
			case *expr.BytesLit:
				elems = append(elems, l.lit(el, types.String(el.Value)))
			}
		}
		list := l.fac.NewList(l.id(y, roleOther), elems, nil)
		return l.fac.NewCall(l.call(c, roleCompare, x, list), operators.In, x, list)
	}
	l.errorf(CodeSyntax, c.Y, "in needs a {...} set or a $list")
	return l.fac.NewLiteral(l.id(c, roleOther), types.False)
}

func (l *lowerer) lowerCall(c *expr.Call) val {
	def, known := l.env.funcDefs[c.Name]
	if !known {
		l.errorf(CodeUnknownFunction, c, "unknown function %s()%s", c.Name, suggestFunction(l.env, c.Name))
	} else if n := len(c.Args); n < def.MinArgs() || (def.MaxArgs() >= 0 && n > def.MaxArgs()) {
		l.errorf(CodeArity, c, "%s() takes %s, found %d", c.Name, arityText(def), n)
		known = false
	}
	if (c.Name == "any" || c.Name == "all") && len(c.Args) == 1 {
		a := l.lower(c.Args[0])
		if a.it != nil {
			return val{e: l.quantify(a, c, c.Name == "any")}
		}
		id := l.call(c, roleCall, a.e)
		if !known {
			l.markReported(id)
		}
		return val{e: l.fac.NewCall(id, c.Name, a.e)}
	}
	args := make([]ast.Expr, len(c.Args))
	var it *iteration
	for i, a := range c.Args {
		v := l.lower(a)
		if v.collected {
			// An argument that is a mapped array is passed as a whole array.
			v = l.materialize(v, a)
		}
		if v.it != nil {
			if it != nil && it != v.it {
				l.errorf(CodeUnpack, a, "the arguments of %s() unpack different arrays with [*]", c.Name)
				l.unpackFailed = true
			}
			it = v.it
		}
		if (c.Name == "lookup_json_string" || c.Name == "lookup_json_integer") && i > 0 {
			v.e = l.fac.NewCall(l.call(a, roleJSONKey, v.e), fnJSONKey, v.e)
		}
		args[i] = v.e
	}
	id := l.call(c, roleCall, args...)
	if !known {
		l.markReported(id)
	}
	e := l.fac.NewCall(id, c.Name, args...)
	if it != nil {
		return val{e: e, it: it, collected: true}
	}
	return val{e: e}
}

func arityText(def catalog.FuncDef) string {
	plural := func(n int) string {
		if n == 1 {
			return "1 argument"
		}
		return fmt.Sprintf("%d arguments", n)
	}
	switch {
	case def.MaxArgs() < 0:
		return "at least " + plural(def.MinArgs())
	case def.MinArgs() == def.MaxArgs():
		return plural(def.MinArgs())
	}
	return fmt.Sprintf("%d to %d arguments", def.MinArgs(), def.MaxArgs())
}

// regexMessage is the regexp error without Go's "error parsing regexp: " prefix.
func regexMessage(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}
