package ruby

// ident handles an identifier: keywords, requires, and names that start a concatenation or
// call a method without parentheses.
func (p *parser) ident(i int) {
	t := &p.toks[i]
	if keyword(p.src[t.a:t.b]) {
		p.keyword(i)
		return
	}
	switch string(p.src[t.a:t.b]) {
	case "require", "require_relative", "load":
		j := i + 1
		if p.is(j, '(') {
			j++
		}
		if j < len(p.toks) && p.toks[j].kind == tStr && p.toks[j].p1-p.toks[j].p0 == 1 && !p.parts[p.toks[j].p0].Hole {
			p.out.Import(p.parts[p.toks[j].p0].Literal(p.src))
		}
	}
	if p.operandStart(i) && p.concatAfter(i) {
		p.value(i)
	}
	if !p.is(i+1, '(') && p.command(i) {
		p.call(i, frameCall, i)
	}
}

// keyword handles a keyword.
func (p *parser) keyword(i int) {
	switch string(p.src[p.toks[i].a:p.toks[i].b]) {
	case "def":
		p.def(i)
	case "class", "module":
		p.module(i)
	case "if", "unless", "while", "until":
		p.endCommands(i)
		if !p.operandEnds(i - 1) {
			p.fr.PushBlock(frameKw, i)
			p.loopDo = p.word(i, "while") || p.word(i, "until")
		}
	case "case", "begin", "for":
		p.fr.PushBlock(frameKw, i)
		p.loopDo = p.word(i, "for")
	case "do":
		if p.loopDo {
			p.loopDo = false
			return
		}
		p.endCommands(i)
		p.fr.PushBlock(frameBlock, i)
	case "end":
		p.end(i)
	case "and", "or", "then", "rescue":
		p.endCommands(i)
	case "super":
		if !p.is(i+1, '(') && p.command(i) {
			p.call(i, frameCall, i)
		}
	}
}

// def reads "def name", "def self.name", "def name=" and opens the method's scope (an
// endless "def name(args) = expr" has none).
func (p *parser) def(i int) {
	j := i + 1
	if p.word(j, "self") && p.is(j+1, '.') {
		j += 2
	}
	if j >= len(p.toks) || p.toks[j].kind != tIdent && p.toks[j].kind != tConst {
		p.push(frameDef, i)
		return
	}
	name := p.Text(j)
	k := j + 1
	if p.is(k, '=') && p.toks[k].s == p.toks[j].b && p.is(k+1, '(') {
		name += "="
		k++
	}
	p.out.Decl(name)
	if p.is(k, '(') && p.toks[k].match > int32(k) {
		k = int(p.toks[k].match) + 1
	}
	if p.is(k, '=') {
		return // endless
	}
	p.push(frameDef, i)
}

// push opens a keyword frame with a scope of its own.
func (p *parser) push(open byte, i int) {
	f := p.fr.PushBlock(open, i)
	f.Scope = true
	p.vars.Push()
}

// module reads "module A::B" and "class A::B < C::D": the names are imports; the body is a
// scope of its own.
func (p *parser) module(i int) {
	if p.is(i+1, opShl) { // class << self
		p.push(frameDef, i)
		return
	}
	j := p.path(i + 1)
	if p.is(j, '<') {
		p.path(j + 1)
	}
	p.push(frameDef, i)
}

// path records the constant path starting at token j (A::B) as an import and returns the
// token after it.
func (p *parser) path(j int) int {
	start := j
	for j < len(p.toks) && (p.toks[j].kind == tConst || p.is(j, opScope)) {
		j++
	}
	if j > start {
		p.out.Import(p.out.Name(int(p.toks[start].a), int(p.toks[j-1].b)))
	}
	return j
}

// label handles "name:" (a keyword argument or a hash key).
func (p *parser) label(i int) {
	t := &p.toks[i]
	name := ""
	if t.p1 > t.p0 { // "name":
		if t.p1-t.p0 == 1 && !p.parts[t.p0].Hole {
			name = p.out.Intern([]byte(p.parts[t.p0].Literal(p.src)))
		}
	} else {
		name = p.Text(i)
	}
	p.key(name, int(t.s))
}

// pair handles "=>": the single token before it in the frame is a key.
func (p *parser) pair(i int) {
	f := p.fr.Top()
	if i-f.ArgStart != 1 {
		return
	}
	k := f.ArgStart
	t := &p.toks[k]
	name := ""
	switch t.kind {
	case tStr:
		if t.p1-t.p0 == 1 && !p.parts[t.p0].Hole {
			name = p.out.Intern([]byte(p.parts[t.p0].Literal(p.src)))
		}
	case tSym, tIdent, tConst:
		name = p.Text(k)
	}
	p.key(name, int(t.s))
}

// key gives the next value in the innermost frame a key, and records it on its call.
func (p *parser) key(name string, off int) {
	f := p.fr.Top()
	f.Key = name
	if f.Call >= 0 {
		p.out.AddKey(f.Call, name, off, f.Depth)
	}
}

// symbol handles a symbol: the value of a key (method: :post) is recorded as a value, its
// name; other symbols are not strings.
func (p *parser) symbol(i int) {
	f := p.fr.Top()
	if f.Key == "" || i == 0 || p.toks[i-1].kind != tLabel && !p.is(i-1, opPair) {
		return
	}
	p.fold.Reset()
	t := &p.toks[i]
	if t.p1 > t.p0 {
		p.fold.Parts(p.parts[t.p0:t.p1], p.src, nil)
	} else {
		p.fold.LitBytes(p.src[t.a:t.b])
	}
	p.out.AddStr(&p.fold, int(t.s), int(t.b), p.fr.Ctx())
}

// assignment notes "x = ..." (and ||=): the value that follows is assigned to x.
func (p *parser) assignment(i int) {
	if i == 0 || !p.IsName(i-1) || p.IsMember(i-2) {
		return
	}
	p.assign, p.assignTok, p.ivar = p.Text(i-1), i+1, p.toks[i-1].kind == tIVar
}
