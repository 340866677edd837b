package rubylike

import "github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"

// operandStart reports whether token i starts an operand rather than continuing one (after
// a member operator, a concatenation or Syntax.Continues).
func (p *Parser) operandStart(i int) bool {
	return i == 0 || p.Toks[i-1].Kind != Op ||
		p.syn.class[p.Toks[i-1].Op]&(opMember|opConcat|opStrConcat|opContinues) == 0
}

// concatAfter reports whether the operand starting at token i is followed by a
// concatenation operator (Syntax.Concat, Syntax.StrConcat after a string literal).
func (p *Parser) concatAfter(i int) bool {
	e := p.OperandEnd(i)
	return e > i && p.joins(e, i)
}

// Concatenation folds the concatenation starting at token i into one value, when one starts
// there.
func (p *Parser) Concatenation(i int) {
	if p.operandStart(i) && p.concatAfter(i) {
		p.value(i)
	}
}

// concatOp reports whether token e is a concatenation operator.
func (p *Parser) concatOp(e int) bool {
	return e < len(p.Toks) && p.Toks[e].Kind == Op && p.syn.class[p.Toks[e].Op]&(opConcat|opStrConcat) != 0
}

// joins reports whether token e joins the operand before it to the next one in a
// concatenation starting at token first.
func (p *Parser) joins(e, first int) bool {
	if e >= len(p.Toks) || p.Toks[e].Kind != Op {
		return false
	}
	c := p.syn.class[p.Toks[e].Op]
	return c&opConcat != 0 || c&opStrConcat != 0 && p.Toks[first].Kind == Str
}

// value folds the concatenation starting at token i ("a" + x + "b", "a" <> x, "a" "b") into
// one value, with what Lang.Tail adds, and remembers it as the value of the variable it is
// assigned to.
func (p *Parser) value(i int) {
	spans := p.chain(i)
	if len(spans) == 0 || len(spans) == 1 && (p.Toks[i].Kind != Str || p.Is(spans[0].b, OpPair)) {
		return // a lone name, or a hash key (recorded as a key by the "=>")
	}
	p.Fold.Reset()
	c := p.Fr.Ctx()
	target, sigil := p.own.Target(i)
	c.Assigned = target
	for _, s := range spans {
		p.operand(s)
	}
	last := p.own.Tail(i, spans[len(spans)-1].b)
	k := p.Out.AddStr(&p.Fold, int(p.Toks[i].S), int(p.Toks[last-1].B), c)
	if target != "" && p.AssignTok == i {
		if k >= 0 {
			s := p.Out.Str(k)
			p.setVar(target, sigil, s.Value, s.HoleNames, true)
		} else {
			p.setVar(target, sigil, "", nil, false)
		}
		p.Assign = ""
	}
}

// chain returns the operands of the concatenation starting at token i.
func (p *Parser) chain(i int) []span {
	p.spans = p.spans[:0]
	first := i
	for len(p.spans) < 1<<16 {
		e := p.OperandEnd(i)
		if e <= i {
			break
		}
		p.spans = append(p.spans, span{i, e})
		switch {
		case p.joins(e, first):
			i = e + 1
		case p.syn.Adjacent && e < len(p.Toks) && p.Toks[e].Kind == Str && p.Toks[e-1].Kind == Str && !p.Toks[e].Used:
			i = e // "a" "b"
		default:
			return p.spans
		}
	}
	return p.spans
}

// OperandEnd returns the token after the operand starting at token i (i when none starts
// there): a literal, or a name with its member accesses, calls and indexes.
func (p *Parser) OperandEnd(i int) int {
	if i < 0 || i >= len(p.Toks) {
		return i
	}
	t := &p.Toks[i]
	switch {
	case t.Kind == Str || t.Kind == Num || t.Kind == Lit || t.Kind == Sym:
		return i + 1
	case p.IsName(i):
		return p.postfix(i + 1)
	case t.Kind == Op && t.Op == '(' && t.Match > int32(i):
		return p.postfix(int(t.Match) + 1)
	}
	return i
}

// postfix skips member accesses, calls and indexes from token j.
func (p *Parser) postfix(j int) int {
	for j < len(p.Toks) {
		t := &p.Toks[j]
		switch {
		case p.IsMember(j) && j+1 < len(p.Toks) && (p.Toks[j+1].Kind == Ident || p.Toks[j+1].Kind == Const):
			j += 2
		case t.Kind == Op && (t.Op == '(' || t.Op == '[') && !t.Sp && t.Match > int32(j):
			j = int(t.Match) + 1
		default:
			return j
		}
	}
	return j
}

// operand folds one operand of a concatenation: a variable's known value, or a hole named
// after it.
func (p *Parser) operand(s span) {
	t := &p.Toks[s.a]
	if s.b-s.a > 1 {
		p.Fold.Hole(p.memberName(s))
		return
	}
	switch t.Kind {
	case Str:
		t.Used = true
		p.Fold.Parts(p.Parts[t.P0:t.P1], p.Src, p.Lookup)
		return
	case Num:
		p.Fold.LitBytes(p.Src[t.A:t.B])
		return
	case Ident, Const, Var:
		name := p.Text(s.a)
		var v string
		var names []string
		ok := false
		switch t.Kind {
		case Ident:
			v, names, ok = p.Vars.Get(name, false)
		case Const:
			v, names, ok = p.Vars.Get(name, true) // a constant is seen from nested scopes
		default:
			v, names, ok = p.Sigiled.Get(name, false)
		}
		if ok {
			p.Fold.Append(v, names)
			return
		}
		p.Fold.Hole(name)
		return
	}
	p.Fold.Hole("")
}

// memberName names an operand's hole: the key of an index with a literal key
// (opts[:zone_id]), the last name of a member chain without calls (self.zone_id), "".
func (p *Parser) memberName(s span) string {
	last := s.b - 1
	if p.Is(last, ']') && int(p.Toks[last].Match) == last-2 {
		if k := &p.Toks[last-1]; k.Kind == Sym {
			return p.Text(last - 1)
		} else if name, ok := p.Literal(last - 1); ok && k.Kind == Str {
			return name
		}
	}
	return lexkit.LastMember(p, s.a, s.b)
}

// Literal returns the text of token i when it is written as a string (a string literal, a
// quoted label or symbol) of one piece of literal text, no interpolation; interned.
func (p *Parser) Literal(i int) (string, bool) {
	t := &p.Toks[i]
	if t.P1-t.P0 != 1 || p.Parts[t.P0].Hole {
		return "", false
	}
	return p.Out.Intern([]byte(p.Parts[t.P0].Literal(p.Src))), true
}
