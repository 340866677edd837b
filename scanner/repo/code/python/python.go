// Package python reads Python source into a code.File: the string values it builds (folded
// across +, adjacent literals, % and str.format, f-strings and path joins), the calls it
// makes, what it imports and the functions it defines. It runs on a hand-written tokenizer
// and a small recursive descent over expressions: not a full Python parser, but one that
// decorators, lambdas, comprehensions, keyword arguments, annotations and async code do not
// confuse, and that never fails: a broken file yields what could be read.
package python

import (
	"slices"
	"sync"

	"github.com/sunsetscan/sunset/scanner/repo/code"
)

// Read reads Python source.
func Read(src []byte) *code.File {
	b := pool.Get().(*bufs)
	p := &parser{
		lx:   newLexer(src),
		src:  src,
		f:    &code.File{Lang: "python", Strings: b.strs, Calls: b.calls},
		cx:   none,
		bufs: *b,
	}
	p.lx.next(&p.tok)
	for p.tok.kind != tEOF {
		before := p.count
		p.statement()
		if p.count == before {
			p.next()
		}
	}
	f := p.finish()
	*b = p.bufs
	pool.Put(b)
	return f
}

// bufs are the parser's working buffers, kept from one file to the next: the values and
// calls are gathered in them and copied out at their exact size.
type bufs struct {
	strs  []code.Str
	calls []code.Call
	chain []span // names of the callee chains being read, innermost last
	// vals holds the values of the Strings that are not a slice of the source, one after the
	// other (valEnds says where and whose), to be made one string at the end.
	vals    []byte
	valEnds []valEnd
	// The ArgIdents and Keys of the calls being read, innermost call last; each call takes
	// its own from its mark when it ends.
	identStack []string
	keyStack   []code.Key
	scratch    []string
	ops        []pending // operands of the binary operators being read
	args       []argVal  // arguments of the special calls being read
	scopes     []scope
	// locals are the names assigned in the open def and class bodies (scope.locals says
	// where each body's start).
	locals []local
	slots  slots
}

var pool = sync.Pool{New: func() any { return new(bufs) }}

// finish makes the file: the values are set and put in source order, and the values and
// calls copied out of the buffers, which are left empty.
func (p *parser) finish() *code.File {
	// The values not in the source are slices of one string.
	all := string(p.vals)
	for _, e := range p.valEnds {
		p.f.Strings[e.i].Value = all[e.a:e.b]
	}
	// Values are recorded when they are complete, which can be after the values nested in
	// them ("a" + f("b")): put them back in source order.
	byPos := func(a, b code.Str) int {
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line - b.Pos.Line
		}
		return a.Pos.Col - b.Pos.Col
	}
	if !slices.IsSortedFunc(p.f.Strings, byPos) {
		slices.SortStableFunc(p.f.Strings, byPos)
	}
	f := *p.f
	f.Strings, p.strs = handOver(p.f.Strings)
	f.Calls, p.calls = handOver(p.f.Calls)
	p.vals, p.valEnds = p.vals[:0], p.valEnds[:0]
	p.chain, p.identStack, p.keyStack, p.ops, p.args = p.chain[:0], p.identStack[:0], p.keyStack[:0], p.ops[:0], p.args[:0]
	p.scopes, p.locals, p.slots.n = p.scopes[:0], p.locals[:0], 0
	return &f
}

// keptValues bounds the buffers of values and calls kept for the next file: a larger one
// (a minified file's) is handed over as the result instead of copied, which would hold
// two of it at once, and not kept.
const keptValues = 1 << 14

// handOver returns the result made of buf (a copy at its exact size, or buf itself when
// large) and the buffer to keep for the next file.
func handOver[T any](buf []T) (result, keep []T) {
	if cap(buf) > keptValues {
		return buf, nil
	}
	if len(buf) > 0 {
		result = slices.Clone(buf)
	}
	clear(buf)
	return result, buf[:0]
}

// ctx says what a value being read is given to.
type ctx struct {
	call, arg     int
	key, assigned string
	depth         int // Key depth of the members of a dict read here
}

var none = ctx{call: -1, arg: -1}

// maxNest bounds expression nesting, so that a pathological file cannot exhaust the stack
// (a level costs about 2 KB of it); deeper code is skipped and the file reported as not
// fully read.
const maxNest = 1000

type parser struct {
	lx    lexer
	src   []byte
	tok   token
	ahead token
	has   bool // ahead holds the next token
	count int  // tokens consumed, to make sure every loop moves on
	f     *code.File
	cx    ctx
	nest  int
	// want asks the next atom, when it is a tuple or list literal, to keep its elements
	// for the % or join reading it instead of recording them.
	want   bool
	srcStr string // a copy of the source the names are slices of, made when needed
	indent int    // column of the current logical line
	// globals and attrs hold the string values assigned once at module level and to
	// self.x (or in a class body).
	globals, attrs map[string]binding
	nameArena      arena[string]
	keyArena       arena[code.Key]
	byteArena      byteArena
	bufs
}

// valEnd says where in parser.vals the value of Strings[i] is.
type valEnd struct{ i, a, b int }

// span is a byte range of the source (a name); the zero span is no name.
type span struct{ a, b int32 }

func (p *parser) next() {
	p.count++
	if p.has {
		p.tok, p.has = p.ahead, false
		return
	}
	p.lx.next(&p.tok)
}

func (p *parser) peek() *token {
	if !p.has {
		p.lx.next(&p.ahead)
		p.has = true
	}
	return &p.ahead
}

// str returns the name s spans: a slice of one copy of the source, so names cost no
// allocation.
func (p *parser) str(s span) string {
	if s.b <= s.a {
		return ""
	}
	if p.srcStr == "" {
		p.srcStr = string(p.src)
	}
	return p.srcStr[s.a:s.b]
}

func (p *parser) is(op string) bool { return p.tok.kind == tOp && p.tok.op == op }

func (p *parser) isKw(k kw) bool { return p.tok.kind == tName && p.tok.kw == k }

func tokSpan(t *token) span { return span{int32(t.a), int32(t.b)} }

// closing reports whether the token ends a bracketed list: a closer, or something no list
// goes past.
func (p *parser) closing() bool {
	switch p.tok.kind {
	case tEOF, tNewline, tFClose, tFEnd:
		return true
	case tOp:
		switch p.tok.op {
		case ")", "]", "}":
			return true
		}
	}
	return false
}

// statement reads one statement (or the part of a line up to a ':' that opens a body).
func (p *parser) statement() {
	t := &p.tok
	if t.kind == tNewline || p.is(";") {
		p.next()
		return
	}
	if t.bol {
		p.indent = t.pos.Col
		p.popScopes(t.pos.Col)
	}
	p.cx = none
	if p.is("@") {
		p.next()
		var v val
		p.expr(&v)
		p.flush(&v)
		p.tail()
		return
	}
	switch {
	case t.kind != tName:
		p.exprStmt()
	case t.kw == kwImport:
		p.importStmt()
	case t.kw == kwFrom:
		p.next()
		p.addImport(p.dotted())
		p.tail()
	case t.kw == kwDef:
		p.defStmt()
	case t.kw == kwClass:
		p.classStmt()
	case t.kw == kwAsync:
		p.next() // def, for or with: the next statement reads it
	case t.kw == kwOther || t.kw == kwIf || t.kw == kwElse || t.kw == kwFor:
		p.next()
		p.tail()
	default:
		p.exprStmt()
	}
}

// tail reads the rest of a statement as expressions, up to its end or the ':' opening a
// body (which a following statement call reads on).
func (p *parser) tail() {
	for {
		switch {
		case p.tok.kind == tEOF || p.tok.kind == tNewline || p.is(";"):
			return
		case p.is(":"):
			p.next()
			return
		}
		before := p.count
		var v val
		p.expr(&v)
		if p.count == before {
			p.next()
			continue
		}
		p.flush(&v)
	}
}

// exprStmt reads an expression statement: an assignment (plain, chained, annotated or
// augmented) or an expression whose value, a docstring say, is kept as documentation.
func (p *parser) exprStmt() {
	var lhs val
	tuple := p.exprList(&lhs)
	if p.tok.kind == tOp {
		switch op := p.tok.op; {
		case op == "=":
			p.assign(lhs, tuple)
		case op == ":":
			p.next()
			var ann val
			p.expr(&ann)
			p.flush(&ann)
			if p.is("=") {
				p.assign(lhs, tuple)
			}
		case len(op) >= 2 && op[len(op)-1] == '=' && op != "==" && op != "<=" && op != ">=" && op != "!=":
			p.next()
			p.cx = ctx{call: -1, arg: -1, assigned: p.targetName(&lhs, tuple)}
			var v val
			p.exprList(&v)
			p.flush(&v)
			p.bind(&lhs, tuple, &val{})
		default:
			p.flushStatement(&lhs)
		}
	} else {
		p.flushStatement(&lhs)
	}
	p.tail()
}

// flushStatement records the value of an expression statement. A string standing alone as
// a statement is not used by the code: it is a docstring (whose examples are no usage) or
// a string written as a comment, and is recorded as such (code.Str.Comment).
func (p *parser) flushStatement(v *val) {
	n, doc := len(p.f.Strings), v.kind == vStr
	p.flush(v)
	for i := n; doc && i < len(p.f.Strings); i++ {
		p.f.Strings[i].Comment = true
	}
}

// assign reads the '=' and what follows; a = b = value assigns to the last target.
func (p *parser) assign(target val, tuple bool) {
	for p.is("=") {
		p.next()
		p.cx = ctx{call: -1, arg: -1, assigned: p.targetName(&target, tuple), key: p.str(target.lit)}
		var rhs val
		rtuple := p.exprList(&rhs)
		if p.is("=") {
			target, tuple = rhs, rtuple
			continue
		}
		p.bind(&target, tuple, &rhs)
		p.flush(&rhs)
	}
}

// targetName is the variable an assignment to v assigns: a name, or the last element of
// a dotted one (self.url is "url").
func (p *parser) targetName(v *val, tuple bool) string {
	if tuple || v.kind != vName {
		return ""
	}
	return p.str(v.name)
}

// exprList reads an expression, or a tuple without brackets, whose elements are recorded
// as they come.
func (p *parser) exprList(v *val) bool {
	p.expr(v)
	if !p.is(",") {
		return false
	}
	p.flush(v)
	start, end := v.start, v.end
	for p.is(",") {
		p.next()
		if !p.startsExpr() {
			break
		}
		p.expr(v)
		p.flush(v)
		end = v.end
	}
	*v = val{kind: vSeq, start: start, end: end}
	return true
}

// startsExpr reports whether the token can begin an expression.
func (p *parser) startsExpr() bool {
	t := &p.tok
	switch t.kind {
	case tName:
		switch t.kw {
		case kwNone, kwNoneLit, kwTrue, kwFalse, kwLambda, kwNot, kwAwait, kwYield:
			return true
		}
	case tNumber, tString, tFStart:
		return true
	case tOp:
		switch t.op {
		case "(", "[", "{", "-", "+", "~", "*", "**", "...":
			return true
		}
	}
	return false
}

// importStmt reads import a.b [as c], d.
func (p *parser) importStmt() {
	p.next()
	for {
		p.addImport(p.dotted())
		if p.isKw(kwAs) {
			p.next()
			if p.tok.kind == tName {
				p.next()
			}
		}
		if !p.is(",") {
			break
		}
		p.next()
	}
	p.tail()
}

func (p *parser) addImport(s string) {
	if s != "" {
		p.f.Imports = append(p.f.Imports, s)
	}
}

// dotted reads a module path as written, leading dots included (".", "..pkg.mod").
func (p *parser) dotted() string {
	var b []byte
	for {
		t := &p.tok
		switch {
		case t.kind == tOp && (t.op == "." || t.op == "..."):
			b = append(b, t.op...)
			p.next()
		case t.kind == tName && t.kw == kwNone:
			b = append(b, p.src[t.a:t.b]...)
			p.next()
			if !p.is(".") {
				return string(b)
			}
		default:
			return string(b)
		}
	}
}

// defStmt reads a def header: the name is declared, the parameters are local names from
// here on, and default values are values assigned to them.
func (p *parser) defStmt() {
	indent := p.indent
	p.next()
	if p.tok.kind == tName {
		p.f.Decls = append(p.f.Decls, p.str(tokSpan(&p.tok)))
		p.next()
	}
	if p.is("[") { // type parameters
		var v val
		p.subscript(&v)
		p.flush(&v)
	}
	var params []string
	if p.is("(") {
		params = p.params()
	}
	p.cx = none
	if p.is("->") {
		p.next()
		var r val
		p.expr(&r)
		p.flush(&r)
	}
	p.pushScope(scope{indent: indent, params: params})
	p.tail()
}

// params reads a parameter list and returns the parameter names.
func (p *parser) params() []string {
	p.next()
	mark := len(p.identStack)
	for !p.closing() {
		t := &p.tok
		if t.kind != tName || t.kw != kwNone {
			p.next()
			continue
		}
		name := p.str(tokSpan(t))
		p.identStack = append(p.identStack, name)
		p.next()
		if p.is(":") {
			p.next()
			p.cx = none
			var a val
			p.expr(&a)
			p.flush(&a)
		}
		if p.is("=") {
			p.next()
			p.cx = ctx{call: -1, arg: -1, assigned: name}
			var d val
			p.expr(&d)
			p.flush(&d)
		}
	}
	if p.is(")") {
		p.next()
	}
	names := p.nameArena.copy(p.identStack[mark:])
	p.identStack = p.identStack[:mark]
	return names
}

// classStmt reads a class header; its bases are read as values, not as a call.
func (p *parser) classStmt() {
	indent := p.indent
	p.next()
	if p.tok.kind == tName {
		p.next()
	}
	if p.is("[") {
		var v val
		p.subscript(&v)
		p.flush(&v)
	}
	if p.is("(") {
		var v val
		p.paren(&v, false)
		p.flush(&v)
	}
	p.pushScope(scope{class: true, indent: indent})
	p.tail()
}
