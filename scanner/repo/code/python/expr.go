package python

import "fmt"

// The expression readers write their value into *v (the values are large; passing them
// back up the descent would copy them at every level). Each one sets all of *v.

// enter counts one more level of nesting; past maxNest the caller skips instead, and the
// file says it was not fully read.
func (p *parser) enter() bool {
	p.nest++
	if p.nest > maxNest {
		p.f.Stop(p.tok.pos, fmt.Sprintf("expressions nested deeper than %d levels", maxNest))
		return false
	}
	return true
}

func (p *parser) leave() { p.nest-- }

// nextIsOp reports whether the token after the current one is the operator op. Outside
// f-strings it looks at the source instead of lexing ahead.
func (p *parser) nextIsOp(op string) bool {
	if p.has || len(p.lx.modes) > 0 {
		n := p.peek()
		return n.kind == tOp && n.op == op
	}
	i, src := p.tok.b, p.src
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	if len(src)-i < len(op) || string(src[i:i+len(op)]) != op {
		return false
	}
	j := i + len(op)
	return op != "=" || j >= len(src) || src[j] != '='
}

// expr reads an expression: a lambda, an assignment expression, or a conditional one.
func (p *parser) expr(v *val) {
	if !p.enter() {
		p.leave()
		p.skip(v)
		return
	}
	p.exprIn(v)
	p.leave()
}

// exprIn is expr once the nesting is counted.
func (p *parser) exprIn(v *val) {
	t := &p.tok
	if t.kind == tName && t.kw == kwLambda {
		p.lambda(v)
		return
	}
	if t.kind == tName && t.kw == kwNone && p.nextIsOp(":=") {
		saved := p.cx
		p.cx.assigned = p.str(tokSpan(t))
		p.next()
		p.next()
		p.expr(v)
		p.flush(v)
		p.cx = saved
		*v = val{start: v.start, end: v.end}
		return
	}
	p.binary(1, v)
	if !p.isKw(kwIf) {
		return
	}
	p.next()
	saved := p.cx
	p.cx = none
	var c val
	p.binary(1, &c)
	p.flush(&c)
	p.cx = saved
	p.flush(v)
	end := c.end
	if p.isKw(kwElse) {
		p.next()
		var e val
		p.expr(&e)
		p.flush(&e)
		end = e.end
	}
	*v = val{start: v.start, end: end}
}

// lambda reads a lambda; default values are read as values, the body as an expression.
func (p *parser) lambda(v *val) {
	start := p.tok.pos
	p.next()
	saved := p.cx
	for !p.closing() && !p.is(":") {
		if p.is("=") {
			p.next()
			p.cx = none
			p.expr(v)
			p.flush(v)
			continue
		}
		p.next()
	}
	p.cx = saved
	end := p.tok.end
	if p.is(":") {
		p.next()
		p.expr(v)
		p.flush(v)
		end = v.end
	}
	*v = val{start: start, end: end}
}

// binop returns the binding power of the binary operator at the token (0 for none) and
// its name.
func (p *parser) binop() (int, string) {
	t := &p.tok
	if t.kind == tName {
		switch t.kw {
		case kwOr:
			return 1, "or"
		case kwAnd:
			return 2, "and"
		case kwIn, kwIs:
			return 4, "in"
		case kwNot:
			if n := p.peek(); n.kind == tName && n.kw == kwIn {
				return 4, "not"
			}
		}
		return 0, ""
	}
	if t.kind != tOp {
		return 0, ""
	}
	switch t.op {
	case "|":
		return 5, t.op
	case "^":
		return 6, t.op
	case "&":
		return 7, t.op
	case "<<", ">>":
		return 8, t.op
	case "+", "-":
		return 9, t.op
	case "*", "/", "//", "%", "@":
		return 10, t.op
	case "<", ">", "==", ">=", "<=", "!=", "<>":
		return 4, t.op
	}
	return 0, ""
}

// pending is an operand waiting for the operand after its operator.
type pending struct {
	op   string
	prec int
	v    val
}

// binary reads operands joined by binary operators binding at least minPrec, by operator
// precedence (a stack of pending operands rather than a recursion, so that the operands
// stay on the stack): + folds strings, % formats them.
func (p *parser) binary(minPrec int, v *val) {
	base := len(p.ops)
	p.unary(v)
	for {
		prec, op := p.binop()
		if prec < minPrec {
			prec = 0
		}
		for n := len(p.ops); n > base && p.ops[n-1].prec >= prec; n-- {
			top := &p.ops[n-1]
			left := top.v
			p.combine(top.op, &left, v)
			*v = left
			p.ops = p.ops[:n-1]
		}
		if prec == 0 {
			return
		}
		p.next()
		if op == "not" || op == "in" && p.isKw(kwNot) { // not in, is not
			p.next()
		}
		p.ops = append(p.ops, pending{op: op, prec: prec, v: *v})
		p.want = op == "%" && p.stringish(v)
		p.unary(v)
		p.want = false
	}
}

// combine joins two operands into l.
func (p *parser) combine(op string, l, r *val) {
	switch {
	case op == "+":
		p.concat(l, r)
		return
	case op == "%" && p.stringish(l):
		p.printf(l, r)
		return
	}
	p.flush(l)
	p.flush(r)
	k := vOther
	if l.kind == vNum && r.kind == vNum {
		k = vNum
	}
	*l = val{kind: k, start: l.start, end: r.end}
}

// concat folds l + r into l. Two operands neither of which is a string give a value that
// is one hole should a string be added to it later (a + b + "/x").
func (p *parser) concat(l, r *val) {
	if l.kind == vNum || r.kind == vNum {
		p.flush(l)
		p.flush(r)
		*l = val{kind: vNum, start: l.start, end: r.end}
		return
	}
	if !p.stringish(l) && !p.stringish(r) {
		p.flush(l)
		p.flush(r)
		name := l.name
		if p.holeName(l) == "" {
			name = r.name
			if p.holeName(r) == "" {
				name = span{}
			}
		}
		*l = val{start: l.start, end: r.end, name: name}
		return
	}
	d := val{kind: vStr, start: l.start, end: r.end}
	if l.kind == vStr {
		d.b, d.names = l.b, l.names
	} else {
		p.appendVal(&d, l)
	}
	p.appendVal(&d, r)
	*l = d
}

// isPrefix reports whether the token is a prefix operator (or await, or a star).
func (p *parser) isPrefix() bool {
	t := &p.tok
	switch t.kind {
	case tOp:
		switch t.op {
		case "-", "+", "~", "*", "**":
			return true
		}
	case tName:
		return t.kw == kwNot || t.kw == kwAwait
	}
	return false
}

// unary reads an operand: prefix operators (not binds looser in Python, which folding
// does not mind), a primary, and the power operator.
func (p *parser) unary(v *val) {
	start := p.tok.pos
	prefixed := false
	for p.isPrefix() {
		prefixed = prefixed || p.tok.kind == tOp || p.tok.kw == kwNot
		p.want = false
		p.next()
	}
	p.primary(v)
	for p.is("**") {
		p.next()
		p.flush(v)
		for p.isPrefix() {
			p.next()
		}
		p.primary(v)
		p.flush(v)
		*v = val{start: start, end: v.end}
	}
	if prefixed {
		p.flush(v)
		k := vOther
		if v.kind == vNum {
			k = vNum
		}
		*v = val{kind: k, start: start, end: v.end}
	}
}

// primary reads an atom and its trailers: .name, calls and subscripts. The names of a
// chain go on p.chain (a call's result keeps the chain going: a.b().c.d(x) calls
// [a b c d]); a string receiver waits to see whether it is formatted or joined.
func (p *parser) primary(v *val) {
	mark := len(p.chain)
	p.atom(v)
	namePos := v.start
	var recv val
	hasRecv, broken := false, false
loop:
	for p.tok.kind == tOp {
		switch p.tok.op {
		case ".":
			p.next()
			if p.tok.kind != tName {
				continue
			}
			if hasRecv {
				p.flushBare(&recv)
			}
			recv, hasRecv = *v, true
			s := tokSpan(&p.tok)
			p.chain = append(p.chain, s)
			namePos = p.tok.pos
			*v = val{start: recv.start, end: p.tok.end, name: s}
			if recv.kind == vName && !broken {
				v.kind = vName
				v.self = recv.plain && (p.spanIs(recv.name, "self") || p.spanIs(recv.name, "cls"))
			}
			p.next()
		case "(":
			p.call(v, &recv, hasRecv, mark, namePos)
			hasRecv, broken = false, true
		case "[":
			if hasRecv {
				p.flushBare(&recv)
				hasRecv = false
			}
			p.subscript(v)
			broken = true
		default:
			break loop
		}
	}
	if hasRecv {
		p.flushBare(&recv)
	}
	p.chain = p.chain[:mark]
}
