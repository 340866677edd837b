package elixir

import "github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"

// operandStart reports whether token i starts an operand rather than continuing one.
func (p *parser) operandStart(i int) bool {
	return i == 0 || p.toks[i-1].kind != tOp || p.toks[i-1].op != '.' && p.toks[i-1].op != opConcat
}

// concatAfter reports whether the operand starting at token i is followed by '<>'.
func (p *parser) concatAfter(i int) bool {
	e := p.operandEnd(i)
	return e > i && p.is(e, opConcat)
}

// value folds the concatenation starting at token i ("a" <> x <> "b") into one Str.
func (p *parser) value(i int) {
	spans := p.chain(i)
	if len(spans) == 0 || len(spans) == 1 && (p.toks[i].kind != tStr || p.is(spans[0].b, opPair)) {
		return // a lone name, or a map key (recorded as a key by the "=>")
	}
	p.fold.Reset()
	c := p.fr.Ctx()
	target, attr := p.target(i)
	c.Assigned = target
	for _, s := range spans {
		p.operand(s)
	}
	last := spans[len(spans)-1].b
	k := p.out.AddStr(&p.fold, int(p.toks[i].s), int(p.toks[last-1].b), c)
	if target != "" && p.assignTok == i {
		if k >= 0 {
			s := p.out.Str(k)
			p.setVar(target, attr, s.Value, s.HoleNames, true)
		} else {
			p.setVar(target, attr, "", nil, false)
		}
		p.assign = ""
	}
}

// target returns the variable ("x = ...") or module attribute ("@x ...") a value starting
// at token i is given, and whether it is an attribute.
func (p *parser) target(i int) (string, bool) {
	switch {
	case i >= 2 && p.is(i-1, '=') && p.toks[i-2].kind == tIdent && p.IsName(i-2):
		return p.Text(i - 2), false
	case i >= 1 && p.toks[i-1].kind == tAttr && p.toks[i].sp && p.statement(i-1):
		return p.Text(i - 1), true
	}
	return "", false
}

// statement reports whether token i starts an expression on its own.
func (p *parser) statement(i int) bool {
	return i == 0 || p.toks[i-1].kind == tNL || p.is(i-1, ';') || p.word(i-1, "do")
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
		if !p.is(e, opConcat) {
			break
		}
		i = e + 1
	}
	return p.spans
}

// operandEnd returns the token after the operand starting at token i (i when none starts
// there): a literal, or a name with its member accesses, calls and indexes.
func (p *parser) operandEnd(i int) int {
	if i < 0 || i >= len(p.toks) {
		return i
	}
	t := &p.toks[i]
	switch {
	case t.kind == tStr || t.kind == tNum || t.kind == tLit || t.kind == tAtom:
		return i + 1
	case p.IsName(i):
		return p.postfix(i + 1)
	case t.kind == tOp && t.op == '(' && t.match > int32(i):
		return p.postfix(int(t.match) + 1)
	}
	return i
}

// postfix skips member accesses, calls and indexes from token j.
func (p *parser) postfix(j int) int {
	for j < len(p.toks) {
		t := &p.toks[j]
		switch {
		case p.is(j, '.') && j+1 < len(p.toks) && (p.toks[j+1].kind == tIdent || p.toks[j+1].kind == tAlias):
			j += 2
		case t.kind == tOp && (t.op == '(' || t.op == '[') && !t.sp && t.match > int32(j):
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
	if s.b-s.a > 1 {
		p.fold.Hole(p.memberName(s))
		return
	}
	switch t.kind {
	case tStr:
		t.used = true
		p.fold.Parts(p.parts[t.p0:t.p1], p.src, p.lookup)
		return
	case tNum:
		p.fold.LitBytes(p.src[t.a:t.b])
		return
	case tIdent, tAttr:
		name := p.Text(s.a)
		store := &p.vars
		if t.kind == tAttr {
			store = &p.attrs
		}
		if v, names, ok := store.Get(name, false); ok {
			p.fold.Append(v, names)
			return
		}
		p.fold.Hole(name)
		return
	}
	p.fold.Hole("")
}

// memberName names an operand's hole: the key of an index with a literal key
// (opts[:zone_id]), the last name of a member chain without calls (conn.zone_id), "".
func (p *parser) memberName(s span) string {
	last := s.b - 1
	if p.is(last, ']') && int(p.toks[last].match) == last-2 {
		if k := &p.toks[last-1]; k.kind == tAtom {
			return p.Text(last - 1)
		} else if k.kind == tStr && k.p1-k.p0 == 1 && !p.parts[k.p0].Hole {
			return p.out.Intern([]byte(p.parts[k.p0].Literal(p.src)))
		}
	}
	return lexkit.LastMember(p, s.a, s.b)
}
