package php

// value folds the concatenation starting at token i into one Str.
func (p *parser) value(i int) {
	spans := p.chain(i)
	if len(spans) == 0 {
		return
	}
	if len(spans) == 1 {
		if p.toks[i].kind != tStr || p.is(spans[0].b, opPair) {
			return // a lone variable, or an array key (recorded as a key by the "=>")
		}
	}
	p.fold.Reset()
	c := p.fr.Ctx()
	plain := ""
	switch {
	case i < 2:
	case p.is(i-1, '=') && (p.toks[i-2].kind == tVar || p.toks[i-2].kind == tName):
		c.Assigned = p.Text(i - 2)
		if p.toks[i-2].kind == tVar && !p.IsMember(i-3) {
			plain = c.Assigned
		}
	case p.is(i-1, opCatAssign) && (p.toks[i-2].kind == tVar || p.toks[i-2].kind == tName):
		c.Assigned = p.Text(i - 2)
		if v, names, ok := p.vars.Get(c.Assigned, false); ok && p.toks[i-2].kind == tVar {
			p.fold.Append(v, names)
		} else {
			p.fold.Hole(c.Assigned)
		}
	}
	for _, s := range spans {
		p.operand(s)
	}
	last := spans[len(spans)-1].b - 1
	k := p.out.AddStr(&p.fold, int(p.toks[i].a), int(p.toks[last].b), c)
	if plain != "" && p.assignTok == i {
		if k >= 0 {
			s := p.out.Str(k)
			p.vars.Set(plain, s.Value, s.HoleNames, true)
		} else {
			p.vars.Set(plain, "", nil, false)
		}
		p.assign = ""
	}
}

// chain returns the operands of the concatenation starting at token i.
func (p *parser) chain(i int) []span {
	p.spans = p.spans[:0]
	for len(p.spans) < 1<<16 {
		e := p.operandEnd(i)
		if e <= i {
			break
		}
		p.spans = append(p.spans, span{i, e})
		if !p.is(e, '.') {
			break
		}
		i = e + 1
	}
	return p.spans
}

// operandEnd returns the token after the operand starting at token i (i when none starts
// there): a literal, or a variable or name with its member accesses, calls and indexes.
func (p *parser) operandEnd(i int) int {
	if i < 0 || i >= len(p.toks) {
		return i
	}
	t := &p.toks[i]
	switch t.kind {
	case tStr, tNum:
		return i + 1
	case tVar:
	case tName:
		if keyword(p.src[t.a:t.b]) {
			return i
		}
	default:
		if t.op == '(' && t.match > int32(i) {
			return p.postfix(int(t.match) + 1)
		}
		return i
	}
	return p.postfix(i + 1)
}

// postfix skips member accesses, calls and indexes from token j.
func (p *parser) postfix(j int) int {
	for j < len(p.toks) {
		t := &p.toks[j]
		switch {
		case p.IsMember(j) && j+1 < len(p.toks) && (p.toks[j+1].kind == tName || p.toks[j+1].kind == tVar):
			j += 2
		case t.kind == tOp && (t.op == '(' || t.op == '[') && t.match > int32(j):
			j = int(t.match) + 1
		default:
			return j
		}
	}
	return j
}

// operand folds one operand of a concatenation.
func (p *parser) operand(s span) {
	t := &p.toks[s.a]
	if s.b-s.a == 1 {
		switch t.kind {
		case tStr:
			t.used = true
			p.fold.Parts(p.parts[t.p0:t.p1], p.src, p.lookup)
			return
		case tNum:
			p.fold.Lit(string(p.src[t.a:t.b]))
			return
		case tVar:
			name := p.Text(s.a)
			if v, names, ok := p.vars.Get(name, false); ok {
				p.fold.Append(v, names)
				return
			}
			p.fold.Hole(name)
			return
		case tName:
			if name := p.Text(s.a); len(name) < 4 || name[:2] != "__" {
				p.fold.Hole(name)
				return
			}
		}
		p.fold.Hole("")
		return
	}
	p.fold.Hole(p.memberName(s))
}

// memberName is the last name of a member chain without calls ($this->zoneId, self::BASE),
// "" for any other operand.
func (p *parser) memberName(s span) string {
	for k := s.a; k < s.b; k++ {
		if t := &p.toks[k]; t.kind != tVar && t.kind != tName && !p.IsMember(k) {
			return ""
		}
	}
	if last := &p.toks[s.b-1]; last.kind == tVar || last.kind == tName {
		return p.Text(s.b - 1)
	}
	return ""
}
