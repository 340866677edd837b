package js

import (
	"github.com/sunsetscan/sunset/scanner/repo/code"
)

// postfix reads an operand and what follows it: members, calls, indexes, type arguments,
// tagged templates. The names of the member chain pile up on p.chain from base; a call in
// the middle of a chain is left out of it (a.b().c() is [a b c]). Values are passed and
// returned, never pointed to, so that they stay in registers.
func (p *parser) postfix(c ctx) val {
	base := len(p.chain)
	var v val
	if t := p.toks[p.i]; t.kind == tName && t.flags&fWord == 0 && !p.peekIs(1, "=>") {
		// A plain name, the commonest operand, read here rather than by primary.
		p.i++
		s := p.text(t)
		p.chain = append(p.chain, s)
		v = val{kind: vIdent, str: s, start: t.start, end: t.end, namePos: t.start}
	} else {
		v = p.primary(c)
	}
	for more := v.kind != vEmpty; more; {
		switch t := p.toks[p.i]; {
		case t.kind == '.' && p.toks[p.i+1].kind == tName:
			v = p.member(v, p.toks[p.i+1])
		case t.kind == '(':
			v = p.call(v, base, false)
		default:
			v, more = p.postfixOp(v, base)
		}
	}
	p.chain = p.chain[:base]
	return v
}

// postfixOp reads one postfix operation after v; false when there is none.
func (p *parser) postfixOp(v val, base int) (val, bool) {
	t := p.tok()
	switch t.kind {
	case tTmpl, tTHead:
		return p.tagged(v, base), true
	case '.':
		return p.dot(v, base), true
	case '(':
		return p.call(v, base, false), true
	case '[':
		p.advance()
		return p.index(v), true
	case '<':
		return v, p.typeArgsCall(v)
	case tPunct, '!':
		return p.postfixPunct(v, t, base)
	}
	return v, false
}

// postfixPunct reads ?., the non-null assertion ! and postfix ++ and --.
func (p *parser) postfixPunct(v val, t token, base int) (val, bool) {
	switch p.text(t) {
	case "?.":
		return p.dot(v, base), true
	case "!", "++", "--":
		if t.flags&fNL != 0 {
			return v, false
		}
		p.advance()
		if p.text(t) != "!" { // ! is TypeScript's non-null assertion
			p.flush(v, none)
			v = val{kind: vNone, start: v.start, end: t.end}
		}
		return v, true
	}
	return v, false
}

// dot reads .name, ?.name, ?.(...) and ?.[...].
func (p *parser) dot(v val, base int) val {
	n := p.peek(1)
	switch {
	case n.kind == tName:
		return p.member(v, n)
	case p.at("?.") && p.peekIs(1, "("):
		p.advance()
		return p.call(v, base, false)
	case p.at("?.") && p.peekIs(1, "["):
		p.skip(2)
		return p.index(v)
	}
	p.advance()
	return v
}

// member adds .name to the chain. The literal receiver of .concat( and .join( stays
// pending for the call to fold.
func (p *parser) member(v val, n token) val {
	name := p.text(n)
	var recv *val
	if v.kind == vStr && name == "concat" || v.kind == vArray && name == "join" {
		if p.peekIs(2, "(") {
			r := v
			recv = &r
		}
	}
	if recv == nil {
		p.flush(v, none)
	}
	p.skip(2)
	p.chain = append(p.chain, name)
	out := val{kind: vMember, str: name, start: v.start, end: n.end, namePos: n.start}
	if recv != nil {
		out.x = &extra{recv: recv}
	}
	return out
}

// index reads [expr] after the "["; a literal string index is a member name (a["b"] is
// a.b).
func (p *parser) index(v val) val {
	p.flush(v, none)
	e := p.assign(none)
	p.flush(e, none)
	p.accept("]")
	out := val{kind: vMember, start: v.start, end: p.prevEnd(), namePos: v.namePos}
	if e.kind == vStr && !hasHole(e.str) {
		p.chain = append(p.chain, e.str)
		out.str, out.namePos = e.str, e.start
	}
	return out
}

// typeArgsCall reads f<T>( as a call with type arguments; a < that does not close before
// a call's parenthesis is the less-than operator, left alone.
func (p *parser) typeArgsCall(v val) bool {
	if v.kind != vIdent && v.kind != vMember {
		return false
	}
	save := p.i
	if p.typeList() {
		switch t := p.tok(); {
		case t.kind == tTmpl || t.kind == tTHead, p.at("("):
			return true
		}
	}
	p.i = save
	return false
}

// record appends a call of the chain from base, if there is one, and returns its index,
// -1 otherwise.
func (p *parser) record(base int, namePos int32, isNew bool) int {
	if len(p.chain) <= base {
		return -1
	}
	callee := p.strings(len(p.chain) - base)
	copy(callee, p.chain[base:])
	p.f.Calls = append(p.f.Calls, code.Call{Callee: callee, New: isNew, Pos: off(namePos)})
	return len(p.f.Calls) - 1
}

// call reads a call's arguments at "(" (or "?.(" just passed). The arguments and the keys
// of the objects passed pile up on p.argStack and p.keyStack while they are read (a call
// inside an argument takes its own off the top before the next argument is added).
func (p *parser) call(v val, base int, isNew bool) val {
	idx := p.record(base, v.namePos, isNew)
	p.advance()
	argBase, keyBase := len(p.argStack), len(p.keyStack)
	end := p.args(idx)
	args := p.argStack[argBase:]
	if idx >= 0 {
		cl := &p.f.Calls[idx]
		cl.End = off(end)
		cl.ArgIdents = p.strings(len(args))
		for i, a := range args {
			if a.kind == vIdent {
				cl.ArgIdents[i] = a.str
			}
		}
		cl.Keys = p.keys(keyBase, idx)
	}
	out, ok := p.special(v, base, args, idx, isNew)
	if !ok {
		for i, a := range args {
			p.flush(a, argCtx(idx, i))
		}
		out = val{kind: vCall, start: v.start, end: p.prevEnd(), namePos: v.namePos}
	}
	clear(p.argStack[argBase:])
	p.argStack = p.argStack[:argBase]
	p.keyStack = p.keyStack[:keyBase]
	return out
}

// keys returns the keys recorded for call idx from base on.
func (p *parser) keys(base, idx int) []code.Key {
	n := 0
	for _, k := range p.keyStack[base:] {
		if k.call == idx {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]code.Key, 0, n)
	for _, k := range p.keyStack[base:] {
		if k.call == idx {
			out = append(out, k.Key)
		}
	}
	return out
}

// strings returns n empty strings from an arena, one allocation for many calls' callees
// and argument names.
func (p *parser) strings(n int) []string {
	if n == 0 {
		return nil
	}
	if len(p.arena)+n > cap(p.arena) {
		p.arena = make([]string, 0, max(1024, n))
	}
	l := len(p.arena)
	p.arena = p.arena[:l+n]
	return p.arena[l : l+n : l+n]
}

// args reads arguments up to the closing parenthesis onto p.argStack, leaving their values
// pending, and returns the offset of that parenthesis (or of the last character read, when
// there is none).
func (p *parser) args(idx int) int32 {
	n := 0
	for !p.eof() {
		if p.at(")") {
			end := p.tok().start
			p.advance()
			return end
		}
		if p.at(",") {
			p.advance()
			continue
		}
		if p.at(";") || p.at("}") || p.at("]") {
			break
		}
		start := p.i
		c := argCtx(idx, n)
		spread := p.accept("...")
		v := p.assign(c)
		if spread {
			p.flush(v, c)
			v = val{kind: vNone, start: v.start, end: v.end}
		}
		p.argStack = append(p.argStack, v)
		n++
		if p.i == start {
			p.advance()
		}
	}
	return p.lastChar(0, p.prevEnd())
}

// tagged reads a tagged template (gql`...`) as a call whose argument is the template.
func (p *parser) tagged(v val, base int) val {
	idx := p.record(base, v.namePos, false)
	tv := p.template()
	if idx >= 0 {
		p.f.Calls[idx].End = off(p.lastChar(tv.start, tv.end))
	}
	p.flush(tv, argCtx(idx, 0))
	return val{kind: vCall, start: v.start, end: tv.end, namePos: v.namePos}
}

// newExpr reads new X.Y<T>(...); new X without arguments is a constructor call too.
func (p *parser) newExpr(c ctx) val {
	t := p.tok()
	p.advance()
	if p.at(".") { // new.target
		p.skip(2)
		return val{kind: vNone, start: t.start, end: p.prevEnd()}
	}
	base := len(p.chain)
	v := p.primary(c)
	for (p.at(".") || p.at("?.")) && p.peek(1).kind == tName {
		v = p.member(v, p.peek(1))
	}
	v.start = t.start
	if p.at("<") {
		save := p.i
		if !p.typeList() {
			p.i = save
		}
	}
	if p.at("(") {
		return p.call(v, base, true)
	}
	if idx := p.record(base, v.namePos, true); idx >= 0 {
		p.f.Calls[idx].End = off(p.lastChar(v.start, v.end))
	}
	return val{kind: vCall, start: t.start, end: v.end, namePos: v.namePos}
}

// property reads one member of an object literal.
func (p *parser) property(c ctx) {
	if p.accept("...") {
		p.expr(c.inside())
		return
	}
	for p.nameAt() && isPropModifier(p.text(p.tok())) && p.startsKey(1) {
		p.advance()
	}
	p.accept("*")
	key, kt, ok := p.propKey(c)
	if !ok {
		return
	}
	if key != "" && c.call > 0 {
		p.keyStack = append(p.keyStack, callKey{code.Key{Name: key, Pos: off(kt.start), Depth: int(c.depth)}, int(c.call) - 1})
	}
	switch {
	case p.at(":"):
		p.advance()
		vc := c.member(key)
		v := p.assign(vc)
		if v.kind == vFunc {
			p.addDecl(key)
		}
		p.flush(v, vc)
	case p.at("(") || p.at("<"):
		if p.funcRest() {
			p.addDecl(key)
		}
	case p.at("="): // a default in a destructuring pattern
		p.advance()
		p.expr(ctx{name: key, assigned: true})
	}
}

func isPropModifier(s string) bool { return s == "get" || s == "set" || s == "async" }

// startsKey reports whether the token n places ahead can start a property or member name.
func (p *parser) startsKey(n int) bool {
	switch p.peek(n).kind {
	case tName, tStr, tNum, '[', '*':
		return true
	}
	return false
}

// propKey reads an object key: a name, a string (recorded as a string too), a number or a
// computed [key] (named when it is a literal).
func (p *parser) propKey(c ctx) (string, token, bool) {
	t := p.tok()
	switch t.kind {
	case tName, tNum:
		p.advance()
		return p.text(t), t, true
	case tStr:
		p.advance()
		s := p.strValue(t)
		p.flush(val{kind: vStr, start: t.start, end: t.end, str: s}, ctx{call: c.call, arg: -1})
		return s, t, true
	}
	if !p.at("[") {
		return "", t, false
	}
	p.advance()
	e := p.assign(none)
	p.flush(e, none)
	p.accept("]")
	if e.kind == vStr && !hasHole(e.str) {
		return e.str, t, true
	}
	return "", t, true
}

// callKey is a key waiting on p.keyStack for the end of its call.
type callKey struct {
	code.Key
	call int
}
