package python

import "github.com/sunsetscan/sunset/scanner/repo/code"

// skip steps over one token, or a whole bracketed group, without reading it; it never
// steps over what ends the list being read.
func (p *parser) skip(v *val) {
	*v = val{start: p.tok.pos, end: p.tok.end}
	if p.closing() {
		return
	}
	if p.tok.kind != tOp || p.tok.op != "(" && p.tok.op != "[" && p.tok.op != "{" {
		p.next()
		return
	}
	d := 0
	for p.tok.kind != tEOF {
		if p.tok.kind == tOp {
			switch p.tok.op {
			case "(", "[", "{":
				d++
			case ")", "]", "}":
				d--
			}
		}
		p.next()
		if d == 0 {
			break
		}
	}
}

// atom reads a name, a literal, a bracketed expression or a display; it reads nothing
// when the token begins none.
func (p *parser) atom(v *val) {
	want := p.want
	p.want = false
	t := &p.tok
	switch t.kind {
	case tName:
		p.nameAtom(v)
		return
	case tNumber:
		*v = val{kind: vNum, start: t.pos, end: t.end}
		p.next()
		return
	case tString, tFStart:
		p.strings(v)
		return
	case tOp:
		switch t.op {
		case "(":
			p.paren(v, want)
			return
		case "[":
			p.list(v, want)
			return
		case "{":
			p.dict(v)
			return
		case "...":
			*v = val{start: t.pos, end: t.end}
			p.next()
			return
		}
	}
	*v = val{start: t.pos, end: t.pos}
}

// nameAtom reads a name (pushed on the chain) or a keyword that is a value.
func (p *parser) nameAtom(v *val) {
	t := &p.tok
	*v = val{start: t.pos, end: t.end}
	switch t.kw {
	case kwNone:
		v.kind, v.plain, v.name = vName, true, tokSpan(t)
		p.chain = append(p.chain, v.name)
		p.next()
	case kwNoneLit, kwTrue, kwFalse:
		p.next()
	case kwLambda:
		p.lambda(v)
	case kwYield:
		p.next()
		if p.isKw(kwFrom) {
			p.next()
		}
		if p.startsExpr() || p.tok.kind == tName && p.tok.kw == kwNone {
			start := v.start
			p.expr(v)
			p.flush(v)
			*v = val{start: start, end: v.end}
		}
	}
}

// strings reads adjacent string literals and f-strings, which Python joins into one.
func (p *parser) strings(v *val) {
	*v = val{kind: vStr, start: p.tok.pos, end: p.tok.end}
	for {
		switch p.tok.kind {
		case tString:
			if v.b == nil {
				v.b = p.tok.text
				v.lit = p.tok.body
			} else {
				p.grow(v, len(p.tok.text))
				v.b = append(v.b, p.tok.text...)
				v.lit = span{}
			}
			v.end = p.tok.end
			p.next()
		case tFStart:
			v.lit = span{}
			p.fstring(v)
		default:
			if v.b == nil {
				v.b = []byte{}
			}
			return
		}
	}
}

// fstring reads an f-string into v: its text, and a hole for each replacement field
// named after the field's expression when that is a name (the last element of a dotted
// one); a field that is a name assigned a string once is that string.
func (p *parser) fstring(v *val) {
	v.end = p.tok.end
	p.next()
	for {
		switch p.tok.kind {
		case tFText:
			p.grow(v, len(p.tok.text))
			v.b = append(v.b, p.tok.text...)
			v.end = p.tok.end
			p.next()
		case tFOpen:
			p.next()
			saved := p.cx
			p.cx = none
			before := p.count
			h := p.slots.take()
			p.expr(h)
			p.cx = saved
			if p.count == before {
				p.hole(v, "")
			} else {
				p.appendVal(v, h)
			}
			p.slots.release()
			p.skipField()
			v.end = p.tok.pos
		case tFEnd:
			v.end = p.tok.end
			p.next()
			return
		default:
			return
		}
	}
}

// skipField steps over the rest of a replacement field (a conversion, '=', a format spec,
// whose nested fields are read as expressions of their own) and its closing '}'.
func (p *parser) skipField() {
	d := 0
	for {
		switch p.tok.kind {
		case tEOF:
			return
		case tFOpen:
			if d == 0 && p.enter() {
				p.next()
				h := p.slots.take()
				p.expr(h)
				p.flush(h)
				p.slots.release()
				p.skipField()
				p.leave()
				continue
			}
			if d == 0 {
				p.leave()
			}
			d++
		case tFStart:
			d++
		case tFClose:
			if d == 0 {
				p.next()
				return
			}
			d--
		case tFEnd:
			if d == 0 {
				return
			}
			d--
		}
		p.next()
	}
}

// list is what elements read.
type list struct {
	first      val // the first element, not recorded
	n          int
	comma      bool // a comma (or a comprehension) makes it a tuple, not a parenthesized value
	comp       bool
	elems      []val
	start, end code.Pos
}

// isCompKw reports whether the token is a keyword of a comprehension.
func (p *parser) isCompKw() bool {
	t := &p.tok
	return t.kind == tName && (t.kw == kwFor || t.kw == kwAsync || t.kw == kwIn || t.kw == kwIf)
}

// elements reads the comma-separated elements of a bracketed list up to its closer,
// which it reads when it is there. It keeps the first element unrecorded (a parenthesized
// expression is its value), and all of them when want is set; otherwise it records the
// others given to what p.cx says. A comprehension's parts are read as values.
func (p *parser) elements(l *list, closer string, want bool) {
	l.start = p.tok.pos
	p.next()
	var e val
	for !p.closing() {
		switch {
		case p.is(","):
			l.comma = true
			p.next()
			continue
		case p.isCompKw():
			l.comma, l.comp = true, true
			p.next()
			continue
		}
		before := p.count
		p.expr(&e)
		if p.count == before {
			p.next()
			continue
		}
		switch {
		case want:
			l.elems = append(l.elems, e)
		case l.n == 0:
			l.first = e
		default:
			p.flush(&e)
		}
		l.n++
	}
	l.end = p.tok.end
	if p.is(closer) {
		p.next()
	}
	if len(l.elems) > 0 {
		l.first = l.elems[0]
	}
}

// paren reads a parenthesized expression (its value) or a tuple.
func (p *parser) paren(v *val, want bool) {
	var l list
	p.elements(&l, ")", want)
	if l.n == 1 && !l.comma {
		*v = l.first
		return
	}
	p.seq(v, &l, want)
}

// list reads a list display or comprehension.
func (p *parser) list(v *val, want bool) {
	saved := p.cx
	p.cx.arg, p.cx.assigned = -1, ""
	var l list
	p.elements(&l, "]", want)
	p.seq(v, &l, want)
	p.cx = saved
}

// seq makes a tuple or list value: the elements are kept when they were asked for, else
// the first one is recorded now (the others were).
func (p *parser) seq(v *val, l *list, want bool) {
	*v = val{kind: vSeq, start: l.start, end: l.end}
	if want && !l.comp {
		v.elems = l.elems
		if v.elems == nil {
			v.elems = []val{}
		}
		return
	}
	saved := p.cx
	p.cx.arg, p.cx.assigned = -1, ""
	if l.elems == nil {
		p.flush(&l.first)
	}
	for i := range l.elems {
		p.flush(&l.elems[i])
	}
	p.cx = saved
	if l.comp {
		v.kind = vOther
	}
}

// dict reads a dict or set display. A dict's literal keys passed to a call are its Keys,
// at the depth p.cx says; each value is recorded with its key.
func (p *parser) dict(v *val) {
	start := p.tok.pos
	saved := p.cx
	p.next()
	isDict := false
	var k, e val
	for !p.closing() {
		switch {
		case p.is(",") || p.is("**"):
			p.next()
			continue
		case p.isCompKw():
			p.next()
			continue
		}
		p.cx = ctx{call: saved.call, arg: -1, depth: saved.depth}
		before := p.count
		p.expr(&k)
		if p.count == before {
			p.next()
			continue
		}
		if !p.is(":") {
			p.flush(&k)
			continue
		}
		isDict = true
		p.next()
		name := ""
		if k.kind == vStr && len(k.names) == 0 {
			name = p.value(&k)
			if saved.call >= 0 { // the innermost call whose arguments are being read
				p.keyStack = append(p.keyStack, code.Key{Name: name, Pos: k.start, Depth: saved.depth})
			}
		}
		p.flush(&k)
		p.cx = ctx{call: saved.call, arg: -1, key: name, depth: saved.depth + 1}
		p.expr(&e)
		p.flush(&e)
	}
	p.cx = saved
	*v = val{start: start, end: p.tok.end}
	if p.is("}") {
		p.next()
	}
	if isDict {
		v.kind = vDict
	}
}

// subscript reads [index] after v into v; a literal string index is kept as v.lit.
func (p *parser) subscript(v *val) {
	p.flush(v)
	start := v.start
	saved := p.cx
	p.cx = none
	p.next()
	var sub span
	n := 0
	var e val
	for !p.closing() {
		if p.is(",") || p.is(":") {
			n++
			p.next()
			continue
		}
		before := p.count
		p.expr(&e)
		if p.count == before {
			p.next()
			continue
		}
		if n == 0 && e.kind == vStr {
			sub = e.lit
		}
		p.flush(&e)
		n++
	}
	p.cx = saved
	*v = val{start: start, end: p.tok.end}
	if n == 1 {
		v.lit = sub
	}
	if p.is("]") {
		p.next()
	}
}
