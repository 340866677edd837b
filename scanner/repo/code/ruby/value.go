package ruby

import "github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"

// operandStart reports whether token i starts an operand rather than continuing one.
func (p *parser) operandStart(i int) bool {
	if i == 0 || p.toks[i-1].kind != tOp {
		return true
	}
	switch p.toks[i-1].op {
	case '.', opSafe, opScope, '+', opShl, '%':
		return false
	}
	return true
}

// concatAfter reports whether the operand starting at token i is followed by '+' or '<<'.
func (p *parser) concatAfter(i int) bool {
	e := p.operandEnd(i)
	return e > i && (p.is(e, '+') || p.is(e, opShl) && p.toks[i].kind == tStr)
}

// value folds the concatenation starting at token i ("a" + x + "b", "a" << x, "a" "b",
// "fmt" % args) into one Str.
func (p *parser) value(i int) {
	spans := p.chain(i)
	if len(spans) == 0 || len(spans) == 1 && (p.toks[i].kind != tStr || p.is(spans[0].b, opPair)) {
		return // a lone name, or a hash key (recorded as a key by the "=>")
	}
	p.fold.Reset()
	c := p.fr.Ctx()
	target, ivar := p.target(i)
	c.Assigned = target
	for _, s := range spans {
		p.operand(s)
	}
	last := spans[len(spans)-1].b
	if p.is(last, '%') && p.toks[i].kind == tStr {
		last = p.percent(last)
	}
	k := p.out.AddStr(&p.fold, int(p.toks[i].s), int(p.toks[last-1].b), c)
	if target != "" && p.assignTok == i {
		if k >= 0 {
			s := p.out.Str(k)
			p.setVar(target, ivar, s.Value, s.HoleNames, true)
		} else {
			p.setVar(target, ivar, "", nil, false)
		}
		p.assign = ""
	}
}

// target returns the variable a value starting at token i is assigned to ("x = ...",
// "@x = ...", "self.x = ..."), and whether it is an instance variable.
func (p *parser) target(i int) (string, bool) {
	if i < 2 || !p.is(i-1, '=') && !p.is(i-1, opAssign) || !p.IsName(i-2) {
		return "", false
	}
	return p.Text(i - 2), p.toks[i-2].kind == tIVar
}

// chain returns the operands of the concatenation starting at token i.
func (p *parser) chain(i int) []span {
	p.spans = p.spans[:0]
	first := i
	for len(p.spans) < 1<<16 {
		e := p.operandEnd(i)
		if e <= i {
			break
		}
		p.spans = append(p.spans, span{i, e})
		switch {
		case p.is(e, '+') || p.is(e, opShl) && p.toks[first].kind == tStr:
			i = e + 1
		case e < len(p.toks) && p.toks[e].kind == tStr && p.toks[e-1].kind == tStr && !p.toks[e].used:
			i = e // "a" "b"
		default:
			return p.spans
		}
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
	case t.kind == tStr || t.kind == tNum || t.kind == tLit || t.kind == tSym:
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
		case p.IsMember(j) && j+1 < len(p.toks) && (p.toks[j+1].kind == tIdent || p.toks[j+1].kind == tConst):
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
	case tIdent, tConst, tIVar:
		name := p.Text(s.a)
		var v string
		var names []string
		ok := false
		switch t.kind {
		case tIdent:
			v, names, ok = p.vars.Get(name, false)
		case tConst:
			v, names, ok = p.vars.Get(name, true)
		default:
			v, names, ok = p.ivars.Get(name, false)
		}
		if ok {
			p.fold.Append(v, names)
			return
		}
		p.fold.Hole(name)
		return
	}
	p.fold.Hole("")
}

// memberName names an operand's hole: the key of an index with a literal key
// (opts[:zone_id]), the last name of a member chain without calls (self.zone_id), "".
func (p *parser) memberName(s span) string {
	last := s.b - 1
	if p.is(last, ']') && int(p.toks[last].match) == last-2 {
		if k := &p.toks[last-1]; k.kind == tSym {
			return p.Text(last - 1)
		} else if k.kind == tStr && k.p1-k.p0 == 1 && !p.parts[k.p0].Hole {
			return p.out.Intern([]byte(p.parts[k.p0].Literal(p.src)))
		}
	}
	return lexkit.LastMember(p, s.a, s.b)
}

// percent folds "format" % args: the value so far is the format; args is one operand or
// an array of them. It returns the token after the arguments.
func (p *parser) percent(pct int) int {
	var args []string
	j := pct + 1
	end := p.operandEnd(j)
	if p.is(j, '[') && p.toks[j].match > int32(j) {
		end = int(p.toks[j].match) + 1
		start := j + 1
		for k := j + 1; k < end; k++ {
			if k == end-1 || p.is(k, ',') {
				name := ""
				if k-start == 1 && p.IsName(start) {
					name = p.Text(start)
				}
				args = append(args, name)
				start = k + 1
			}
		}
	} else if end == j+1 && p.IsName(j) {
		args = []string{p.Text(j)}
	}
	if end <= j {
		return pct
	}
	value, names := p.fold.Value(), p.fold.Names()
	p.fold.Reset()
	lexkit.Printf(&p.fold, value, names, args)
	return end
}
