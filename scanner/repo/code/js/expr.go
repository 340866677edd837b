package js

// expr reads an assignment expression and records its string value with c.
func (p *parser) expr(c ctx) val {
	v := p.assign(c)
	p.flush(v, c)
	return v
}

// empty is the value of nothing read at the current token.
func (p *parser) empty() val {
	t := p.tok()
	return val{kind: vEmpty, start: t.start, end: t.start}
}

// assign reads an assignment expression; its value is left pending for the caller. The
// right side of an assignment is recorded as assigned to the target's (last) name, and
// names a function when it is one.
func (p *parser) assign(c ctx) val {
	if v, ok := p.quick(); ok {
		return v
	}
	if p.depth >= maxDepth {
		p.tooDeep()
		v := p.empty()
		p.advance()
		return v
	}
	p.depth++
	left := p.binary(c, 0)
	if closes[p.toks[p.i].kind] {
		p.depth--
		return left
	}
	if p.at("?") && left.kind != vEmpty {
		left = p.cond(left, c)
	}
	n := p.assignOp()
	if n == 0 || left.kind == vEmpty {
		p.depth--
		return left
	}
	v := p.assignRest(left, n)
	p.depth--
	return v
}

// assignRest reads the right side of an assignment whose target is left and whose
// operator is n tokens long.
func (p *parser) assignRest(left val, n int) val {
	target := ""
	if left.kind == vIdent || left.kind == vMember {
		target = left.str
	}
	p.flush(left, none)
	p.skip(n)
	rc := ctx{name: target, assigned: true}
	right := p.assign(rc)
	if right.kind == vFunc {
		p.addDecl(target)
	}
	p.flush(right, rc)
	return val{kind: vNone, start: left.start, end: right.end}
}

// closes marks the tokens that end an expression outright (no operator can follow them).
var closes = func() (t [256]bool) {
	for _, c := range ",;)]}:" {
		t[c] = true
	}
	t[tEOF] = true
	return t
}()

// quick reads, without the whole descent, the commonest operands: a plain name or a
// string or number literal directly followed by a comma or a closing bracket.
func (p *parser) quick() (val, bool) {
	t := p.toks[p.i]
	if t.kind != tName && t.kind != tStr && t.kind != tNum || p.i+1 >= len(p.toks) {
		return val{}, false
	}
	switch p.toks[p.i+1].kind {
	case ',', ')', ']', '}', ';':
	default:
		return val{}, false
	}
	switch t.kind {
	case tStr:
		p.i++
		return val{kind: vStr, start: t.start, end: t.end, str: p.strValue(t)}, true
	case tNum:
		p.i++
		return val{kind: vNum, start: t.start, end: t.end, str: p.text(t)}, true
	}
	if t.flags&fWord != 0 {
		return val{}, false
	}
	p.i++
	return val{kind: vIdent, str: p.text(t), start: t.start, end: t.end, namePos: t.start}, true
}

// assignOp returns the number of tokens of the assignment operator at the current token,
// 0 when there is none (">" ">" "=" is one operator written as three tokens).
func (p *parser) assignOp() int {
	t := p.tok()
	switch t.kind {
	case '=':
		return 1
	case tPunct, '>':
	default:
		return 0
	}
	switch p.text(t) {
	case "+=", "-=", "*=", "/=", "%=", "**=", "<<=", "&=", "|=", "^=", "&&=", "||=", "??=":
		return 1
	case ">":
		n := p.gts()
		if n >= 2 && p.adjacent(n) && p.peekIs(n, "=") {
			return n + 1
		}
	}
	return 0
}

// gts counts the adjacent ">" tokens from the current one, at most three.
func (p *parser) gts() int {
	n := 1
	for n < 3 && p.adjacent(n) && p.peekIs(n, ">") {
		n++
	}
	return n
}

// adjacent reports whether the token n places ahead starts where the one before it ends.
func (p *parser) adjacent(n int) bool { return p.peek(n).start == p.peek(n-1).end }

// cond reads the rest of a conditional expression after its condition v, at "?". Both
// branches are recorded with c; the result is unknown. A "?" before ":", ",", ")" or "=" is
// TypeScript's optional marker.
func (p *parser) cond(v val, c ctx) val {
	switch p.text(p.peek(1)) {
	case ":", ",", ")", "=":
		p.advance()
		return v
	}
	p.flush(v, none)
	p.advance()
	p.expr(c)
	if p.accept(":") {
		p.expr(c)
	}
	return val{kind: vNone, start: v.start, end: p.prevEnd()}
}

// binary reads operators by precedence from least up. A chain of + that involves a string is
// folded into one value, in one builder, however long the chain.
func (p *parser) binary(c ctx, least int) val {
	var left val
	if p.prefixAt() {
		left = p.unary(c)
	} else {
		left = p.postfix(c)
	}
	if left.kind == vEmpty || closes[p.toks[p.i].kind] {
		return left
	}
	var acc builder
	concat := false
	for {
		if p.castAt() {
			p.advance()
			p.skipType()
			left.end = p.prevEnd()
			continue
		}
		op, prec, n := p.binop()
		if n == 0 || prec < least {
			break
		}
		p.skip(n)
		right := p.binary(c, prec+1)
		if op == "+" && (concat || p.stringy(left) || p.stringy(right)) {
			if !concat {
				acc = builder{}
				p.add(&acc, left)
				concat = true
			}
			p.add(&acc, right)
			left.end = right.end
			continue
		}
		if concat {
			left = acc.val(left.start, left.end)
			concat = false
		}
		left = p.combine(op, left, right, c)
	}
	if concat {
		left = acc.val(left.start, left.end)
	}
	return left
}

// stringy reports whether v is known to be a string: a literal or a string constant.
func (p *parser) stringy(v val) bool {
	if v.kind == vIdent {
		_, ok := p.constant(v.str)
		return ok
	}
	return v.kind == vStr
}

// castAt reports whether the current token is TypeScript's "as" or "satisfies".
func (p *parser) castAt() bool {
	return p.word() && !p.nl() && (p.at("as") || p.at("satisfies"))
}

// combine records the operands of a binary operator other than a string +. Both sides of
// ||, && and ?? may be the value (url = env.URL || "https://..."), so they keep c.
func (p *parser) combine(op string, left, right val, c ctx) val {
	switch op {
	case "||", "&&", "??":
	default:
		c = none
	}
	p.flush(left, c)
	p.flush(right, c)
	return val{kind: vNone, start: left.start, end: right.end}
}

// binop returns the binary operator at the current token, its precedence and its number of
// tokens; n is 0 when there is none.
func (p *parser) binop() (op string, prec, n int) {
	t := p.tok()
	switch t.kind {
	case tName:
		if s := p.text(t); t.flags&fWord != 0 && (s == "instanceof" || s == "in") {
			return s, 8, 1
		}
		return "", 0, 0
	case '>':
		return p.gtOp()
	case tPunct:
	default:
		if t.kind > ' ' && onePrec[t.kind] > 0 {
			return p.text(t), int(onePrec[t.kind]), 1
		}
		return "", 0, 0
	}
	s := p.text(t)
	if prec := precedence(s); prec > 0 {
		return s, prec, 1
	}
	return "", 0, 0
}

// onePrec is the precedence of the one-byte binary operators.
var onePrec = [256]uint8{'|': 4, '^': 5, '&': 6, '<': 8, '+': 10, '-': 10, '*': 11, '/': 11, '%': 11}

// gtOp reads >, >=, >> and >>> out of single ">" tokens.
func (p *parser) gtOp() (string, int, int) {
	n := p.gts()
	if p.adjacent(n) && p.peekIs(n, "=") {
		if n == 1 {
			return ">=", 8, 2
		}
		return "", 0, 0 // >>= and >>>= assign
	}
	switch n {
	case 1:
		return ">", 8, 1
	case 2:
		return ">>", 9, 2
	}
	return ">>>", 9, 3
}

func precedence(s string) int {
	switch s {
	case "??":
		return 1
	case "||":
		return 2
	case "&&":
		return 3
	case "|":
		return 4
	case "^":
		return 5
	case "&":
		return 6
	case "==", "!=", "===", "!==":
		return 7
	case "<", "<=":
		return 8
	case "<<":
		return 9
	case "+", "-":
		return 10
	case "*", "/", "%":
		return 11
	case "**":
		return 12
	}
	return 0
}

// unary reads prefix operators. await passes its operand's value on (await fetch(...) is
// still that call); the others make it unknown.
func (p *parser) unary(c ctx) val {
	t := p.tok()
	s := p.text(t)
	switch {
	case isPunct(t.kind) && (s == "!" || s == "~" || s == "+" || s == "-" || s == "++" || s == "--"),
		t.kind == tName && (s == "typeof" || s == "void" || s == "delete") && p.operandNext():
		p.advance()
		v := p.nested(none)
		p.flush(v, none)
		return val{kind: vNone, start: t.start, end: p.prevEnd()}
	case t.kind == tName && (s == "await" || s == "yield") && p.operandNext():
		p.advance()
		if s == "yield" {
			p.accept("*")
		}
		v := p.nested(c)
		if v.kind == vEmpty {
			v = val{kind: vNone, start: t.start, end: t.end}
		}
		return v
	}
	return p.postfix(c)
}

// prefixAt reports whether the current token may be a prefix operator (unary decides).
func (p *parser) prefixAt() bool {
	t := p.toks[p.i]
	switch t.kind {
	case '!', '~', '+', '-':
		return true
	case tPunct: // ++ and --
		c := p.src[t.start]
		return c == '+' || c == '-'
	case tName:
		return t.flags&fWord != 0
	}
	return false
}

// nested reads a unary operand, within the recursion bound.
func (p *parser) nested(c ctx) val {
	if !p.enter() {
		p.leave()
		return p.empty()
	}
	defer p.leave()
	return p.unary(c)
}

// operandNext reports whether the token after the current one can start an operand, so
// that a word such as await or typeof is an operator rather than a name.
func (p *parser) operandNext() bool {
	n := p.peek(1)
	switch n.kind {
	case tEOF, ')', ']', '}', ',', ';', ':', '=', '.', '?':
		return false
	case tPunct:
		switch p.text(n) {
		case "?.", "=>":
			return false
		}
	}
	return true
}

// primary reads an operand. Names start a member chain (see postfix).
func (p *parser) primary(c ctx) val {
	if p.depth >= maxDepth {
		p.tooDeep()
		v := p.empty()
		p.advance()
		return v
	}
	p.depth++
	v := p.operand(c)
	p.depth--
	return v
}

// operand is primary within the recursion bound.
func (p *parser) operand(c ctx) val {
	t := p.tok()
	switch t.kind {
	case tName:
		return p.name(c)
	case tNum:
		p.advance()
		return val{kind: vNum, start: t.start, end: t.end, str: p.text(t)}
	case tStr:
		p.advance()
		return val{kind: vStr, start: t.start, end: t.end, str: p.strValue(t)}
	case tTmpl, tTHead:
		return p.template()
	case tRegex:
		p.advance()
		return val{kind: vNone, start: t.start, end: t.end}
	}
	if isPunct(t.kind) {
		return p.punctPrimary(c, t)
	}
	return p.empty()
}

func (p *parser) punctPrimary(c ctx, t token) val {
	switch t.kind {
	case '(':
		if p.isArrow() {
			return p.arrow(t.start)
		}
		return p.paren(c)
	case '[':
		return p.array(c)
	case '{':
		return p.object(c)
	case '<':
		return p.angle(c, t)
	case '@':
		p.advance() // a decorator before a class expression
		p.flush(p.postfix(none), none)
		return val{kind: vNone, start: t.start, end: p.prevEnd()}
	}
	return p.empty()
}

// name reads an identifier or a keyword that starts an expression.
func (p *parser) name(c ctx) val {
	t := p.tok()
	s := p.text(t)
	if t.flags&fWord != 0 {
		if v, ok := p.keyword(c, s); ok {
			return v
		}
	}
	if p.peekIs(1, "=>") {
		p.skip(2)
		p.arrowBody()
		return val{kind: vFunc, start: t.start, end: p.prevEnd()}
	}
	p.advance()
	p.chain = append(p.chain, s)
	return val{kind: vIdent, str: s, start: t.start, end: t.end, namePos: t.start}
}

// keyword reads an expression that starts with a keyword; ok is false for a word read as
// a plain name.
func (p *parser) keyword(c ctx, s string) (val, bool) {
	t := p.tok()
	switch s {
	case "function":
		return p.function(), true
	case "class":
		return p.class(), true
	case "new":
		return p.newExpr(c), true
	case "async":
		return p.async()
	case "true", "false", "null":
		p.advance()
		return val{kind: vNone, start: t.start, end: t.end}, true
	}
	if refused(s) {
		return p.empty(), true
	}
	return val{}, false
}

// refused reports whether a word cannot start an expression: the statement keywords an
// expression stops at.
func refused(s string) bool {
	switch s {
	case "if", "else", "for", "while", "do", "switch", "case", "default", "return", "throw",
		"try", "catch", "finally", "var", "const", "break", "continue", "export", "debugger",
		"with", "in", "instanceof":
		return true
	}
	return false
}

// async reads an async function or arrow function.
func (p *parser) async() (val, bool) {
	t := p.tok()
	n := p.peek(1)
	if n.flags&fNL != 0 {
		return val{}, false
	}
	switch {
	case p.peekIs(1, "function"):
		p.advance()
		v := p.function()
		v.start = t.start
		return v, true
	case p.peekIs(1, "(") || p.peekIs(1, "<"):
		save := p.i
		p.advance()
		if p.at("<") && !p.typeList() {
			p.i = save
			return val{}, false
		}
		if p.isArrow() {
			return p.arrow(t.start), true
		}
		p.i = save
	case n.kind == tName && p.peekIs(2, "=>"):
		p.advance()
		v := p.name(none)
		v.start = t.start
		return v, true
	}
	return val{}, false
}

// angle reads what starts with "<" in operand position: a generic arrow function
// (<T>(x: T) => x), a type assertion (<T>x), or a JSX element.
func (p *parser) angle(c ctx, t token) val {
	save := p.i
	if p.typeList() {
		if p.at("(") && p.isArrow() {
			return p.arrow(t.start)
		}
		if p.castFollows() {
			return p.nested(c)
		}
	}
	p.i = save
	if p.peek(1).kind == tName || p.peekIs(1, ">") {
		return p.jsx(t)
	}
	p.advance()
	return val{kind: vNone, start: t.start, end: t.end}
}

// castFollows reports whether the tokens after <T> read as the operand of a type assertion
// rather than as JSX text: a name followed by something other than a word or a tag, a
// literal, a parenthesis or a bracket.
func (p *parser) castFollows() bool {
	switch t := p.tok(); t.kind {
	case tStr, tNum:
		return true
	case tName:
		n := p.peek(1)
		return n.kind != tName && !p.peekIs(1, "<")
	}
	return p.at("(") || p.at("[")
}

// paren reads a parenthesised expression. A single expression keeps its pending value
// ("a" + (b) + "c" folds); in a comma list only the last one does.
func (p *parser) paren(c ctx) val {
	open := p.tok()
	p.advance()
	last := p.empty()
	for !p.eof() {
		if p.accept(")") {
			break
		}
		if p.at(",") {
			p.flush(last, none)
			last = p.empty()
			p.advance()
			continue
		}
		if p.at(";") || p.at("}") || p.at("]") {
			break
		}
		start := p.i
		last = p.assign(c)
		if p.i == start {
			p.advance()
		}
	}
	if last.kind == vEmpty {
		return val{kind: vNone, start: open.start, end: p.prevEnd()}
	}
	return last
}

// isArrow reports, without moving, whether the parenthesis at the current token opens an
// arrow function's parameters: its match is followed by => or by a return type and =>.
func (p *parser) isArrow() bool {
	save := p.i
	ok := p.skipBalanced() && !p.nl() && (p.at("=>") || p.at(":") && p.returnType() && p.at("=>"))
	p.i = save
	return ok
}

// returnType steps over ": Type" at the current token.
func (p *parser) returnType() bool {
	p.advance()
	return p.skipType()
}

// arrow reads an arrow function from its parameter list.
func (p *parser) arrow(start int32) val {
	p.params()
	if p.at(":") {
		p.returnType()
	}
	p.accept("=>")
	p.arrowBody()
	return val{kind: vFunc, start: start, end: p.prevEnd()}
}

// arrowBody reads an arrow function's body, a block or an expression, in a fresh context.
func (p *parser) arrowBody() {
	if p.at("{") {
		p.body()
		return
	}
	p.expr(none)
}

// array reads an array literal; its elements stay pending (see val).
func (p *parser) array(c ctx) val {
	open := p.tok()
	p.advance()
	in := c.inside()
	var elems []val
	for !p.eof() {
		if p.accept("]") {
			break
		}
		if p.at(",") {
			p.advance()
			continue
		}
		if p.at(")") || p.at("}") || p.at(";") {
			break
		}
		start := p.i
		spread := p.accept("...")
		e := p.assign(in)
		if spread {
			p.flush(e, in)
			e = val{kind: vNone, start: e.start, end: e.end}
		}
		elems = append(elems, e)
		if p.i == start {
			p.advance()
		}
	}
	return val{kind: vArray, start: open.start, end: p.prevEnd(), x: &extra{elems: elems}}
}

// template reads a template literal, folding its holes: a string or a constant is kept, a
// name or member names its hole.
func (p *parser) template() val {
	t := p.tok()
	p.advance()
	if t.kind == tTmpl {
		return val{kind: vStr, start: t.start, end: t.end, str: p.tmplValue(t)}
	}
	var b builder
	b.lit(p.tmplValue(t))
	for {
		p.hole(&b)
		cur := p.tok()
		if cur.kind != tTMid && cur.kind != tTTail {
			break // the file ended inside the hole
		}
		p.advance()
		b.lit(p.tmplValue(cur))
		if cur.kind == tTTail {
			break
		}
	}
	return b.val(t.start, p.prevEnd())
}

// hole reads the expression of a template hole up to the template text that follows it.
func (p *parser) hole(b *builder) {
	v := p.assign(none)
	extra := false
	for k := p.tok().kind; k != tTMid && k != tTTail && k != tEOF; k = p.tok().kind {
		start := p.i
		p.expr(none)
		if p.i == start {
			p.advance()
		}
		extra = true
	}
	if extra {
		p.flush(v, none)
		b.hole("")
		return
	}
	p.add(b, v)
}

// object reads an object literal in c: its keys are the call's keys, its values are
// recorded under their key.
func (p *parser) object(c ctx) val {
	open := p.tok()
	p.advance()
	for !p.eof() {
		if p.accept("}") {
			break
		}
		if p.at(",") || p.at(";") {
			p.advance()
			continue
		}
		if p.at(")") || p.at("]") {
			break
		}
		start := p.i
		p.property(c)
		if p.i == start {
			p.advance()
		}
	}
	return val{kind: vNone, start: open.start, end: p.prevEnd()}
}
