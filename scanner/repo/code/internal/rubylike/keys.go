package rubylike

// label handles "name:" or "name": (a keyword argument or a hash key); Syntax.NotKeys are
// no keys.
func (p *Parser) label(i int) {
	t := &p.Toks[i]
	name := ""
	if t.P1 > t.P0 { // "name":
		name, _ = p.Literal(i)
	} else {
		if oneOf(p.Src[t.A:t.B], p.syn.NotKeys) {
			return
		}
		name = p.Text(i)
	}
	p.key(name, int(t.S))
}

// pair handles "=>": the single token before it in the frame is a key.
func (p *Parser) pair(i int) {
	f := p.Fr.Top()
	if i-f.ArgStart != 1 {
		return
	}
	k := f.ArgStart
	name := ""
	switch p.Toks[k].Kind {
	case Str:
		name, _ = p.Literal(k)
	case Sym, Ident, Const:
		name = p.Text(k)
	}
	p.key(name, int(p.Toks[k].S))
}

// key gives the next value in the innermost frame a key, and records it on its call.
func (p *Parser) key(name string, off int) {
	f := p.Fr.Top()
	f.Key = name
	if f.Call >= 0 {
		p.Out.AddKey(f.Call, name, off, f.Depth)
	}
}

// symbol handles a symbol or an atom: the value of a key (method: :post) is recorded as a
// value, its name; others are no strings.
func (p *Parser) symbol(i int) {
	f := p.Fr.Top()
	if f.Key == "" || i == 0 || p.Toks[i-1].Kind != Label && !p.Is(i-1, OpPair) {
		return
	}
	p.Fold.Reset()
	t := &p.Toks[i]
	if t.P1 > t.P0 {
		p.Fold.Parts(p.Parts[t.P0:t.P1], p.Src, nil)
	} else {
		p.Fold.LitBytes(p.Src[t.A:t.B])
	}
	p.Out.AddStr(&p.Fold, int(t.S), int(t.B), p.Fr.Ctx())
}
