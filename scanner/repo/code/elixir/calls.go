package elixir

import (
	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

// op handles an operator token.
func (p *parser) op(i int) {
	t := &p.toks[i]
	switch t.op {
	case '(':
		p.open(i)
	case '[':
		if p.operandEnds(i-1) && !t.sp {
			p.fr.PushBlock('[', i) // opts[:key]
		} else {
			p.fr.PushList('[', i)
		}
	case '{':
		if p.is(i-1, '%') || p.toks[max(i-1, 0)].kind == tAlias && p.is(i-2, '%') {
			p.fr.PushLiteral('{', i) // a map or a struct
		} else {
			p.fr.PushList('{', i) // a tuple
		}
	case ')', ']', '}':
		p.close(i)
	case ',':
		f := p.fr.Top()
		if f.Own {
			p.argIdent(f, i)
			f.Arg++
		}
		f.ArgStart, f.Key = i+1, f.ItemKey
	case opPair:
		p.pair(i)
	case '=':
		if i > 0 && p.toks[i-1].kind == tIdent && p.IsName(i-1) && !p.is(i-2, '.') {
			p.assign, p.assignTok, p.attr = p.Text(i-1), i+1, false
		}
	case ';':
		p.endCommands(i)
		p.fr.Top().Key = p.fr.Top().ItemKey
	}
}

// operandEnds reports whether token i ends an operand.
func (p *parser) operandEnds(i int) bool {
	if i < 0 || i >= len(p.toks) {
		return false
	}
	switch t := &p.toks[i]; t.kind {
	case tOp:
		return t.op == ')' || t.op == ']' || t.op == '}'
	case tNL, tLabel:
		return false
	case tIdent:
		return p.IsName(i)
	}
	return true
}

// open handles '(': a call's arguments (a name right before it), or a group.
func (p *parser) open(i int) {
	prev := i - 1
	if prev < 0 || p.toks[i].sp || p.toks[prev].kind != tIdent || !p.IsName(prev) || p.declared(prev) {
		if p.operandStart(i) && p.concatAfter(i) {
			p.value(i)
		}
		p.fr.PushGroup('(', i)
		return
	}
	p.call(prev, '(', i)
}

// declared reports whether the name at token i is the one a def declares.
func (p *parser) declared(i int) bool {
	return i > 0 && p.toks[i-1].kind == tIdent && defines(p.src[p.toks[i-1].a:p.toks[i-1].b])
}

// defines reports whether b is a word that defines a function.
func defines(b []byte) bool {
	switch string(b) {
	case "def", "defp", "defmacro", "defmacrop", "defguard", "defguardp", "defdelegate":
		return true
	}
	return false
}

// call records the call whose name is token name and opens its arguments at token tok (its
// "(", or the name itself for a call without parentheses).
func (p *parser) call(name int, open byte, tok int) {
	callee, first := p.callee(name)
	c := p.out.AddCall(callee, false, int(p.toks[name].s))
	f := p.fr.PushCall(open, c, tok)
	whole := open != '(' || p.toks[tok].match < 0 || !p.is(int(p.toks[tok].match)+1, opConcat) // not an operand of "<>"
	if whole && first >= 2 && p.is(first-1, '=') && p.toks[first-2].kind == tIdent {
		f.Outer.Assigned = p.Text(first - 2)
	}
}

// command reports whether the name at token i is called without parentheses: a space, then
// something that starts an argument on the same line. A name without a module before it must
// not be a variable.
func (p *parser) command(i int) bool {
	j := i + 1
	if j >= len(p.toks) || !p.toks[j].sp || p.declared(i) || !p.is(i-1, '.') && p.vars.Has(p.Text(i)) {
		return false
	}
	switch t := &p.toks[j]; t.kind {
	case tStr, tAtom, tLabel, tNum, tAttr, tAlias, tLit:
		return true
	case tIdent:
		return !keyword(p.src[t.a:t.b]) || p.word(j, "true") || p.word(j, "false") || p.word(j, "nil") ||
			p.word(j, "fn") || p.word(j, "__MODULE__")
	case tOp:
		return t.op == '[' || t.op == '%' || t.op == '{' || t.op == '&'
	}
	return false
}

// callee is the chain of the call whose name is token j and its first token: see
// lexkit.Callee.
func (p *parser) callee(j int) ([]string, int) {
	callee, first := lexkit.Callee(p, j, p.scratch)
	p.scratch = callee
	return callee, first // valid until the next callee: AddCall copies it
}

// close handles a closing bracket: the frames down to its opener are closed.
func (p *parser) close(i int) {
	p.fr.CloseTo(int(p.toks[i].match), func(f lexkit.Frame, opener bool) {
		end := int(p.toks[i].b)
		if !opener {
			end = p.endBefore(i)
		}
		p.finish(&f, i, end)
	})
}

func (p *parser) endBefore(i int) int {
	if i <= 0 {
		return 0
	}
	return int(p.toks[i-1].b)
}

// endCommands ends the calls without parentheses open at the top, before token i.
func (p *parser) endCommands(i int) {
	for p.fr.Top().Open == frameCall {
		f, _ := p.fr.Pop()
		p.finish(&f, i, p.endBefore(i))
	}
}

// end handles "end": the frames down to the innermost do or fn block are closed, unless a
// bracket is open inside it.
func (p *parser) end(i int) {
	for k := p.fr.Len() - 1; k >= 1; k-- {
		switch p.fr.At(k).Open {
		case frameCall:
			continue
		case frameBlock:
			for {
				f, ok := p.fr.Pop()
				if !ok {
					return
				}
				p.finish(&f, i, p.endBefore(i))
				if f.Open == frameBlock {
					return
				}
			}
		}
		return
	}
}

// finish ends a frame closed at token i, whose last byte ends before end.
func (p *parser) finish(f *lexkit.Frame, i, end int) {
	if f.Scope {
		p.vars.Pop()
	}
	if !f.Own {
		return
	}
	if i > f.ArgStart {
		p.argIdent(f, i)
	}
	p.out.EndCall(f.Call, end)
	c := p.out.Call(f.Call)
	if len(c.Callee) != 2 || c.Callee[0] != "Path" || c.Callee[1] != "join" || f.Tok+1 >= i {
		return
	}
	if a := f.Tok + 1; p.is(a, '[') && int(p.toks[a].match) == i-1 {
		p.joinList(f, a, end)
		return
	}
	p.out.Join(f.Call, int(p.toks[f.Tok+1].s), end, f.Outer, &p.fold)
}

// joinList folds Path.join([...]) whose list opens at token open: its members joined with
// "/", a member that is no string a hole.
func (p *parser) joinList(f *lexkit.Frame, open, end int) {
	closeAt := int(p.toks[open].match)
	var piece lexkit.Fold
	p.fold.Reset()
	start := open + 1
	for k := open + 1; k <= closeAt; k++ {
		if k < closeAt && !p.is(k, ',') {
			if p.is(k, '(') || p.is(k, '[') || p.is(k, '{') {
				k = max(k, int(p.toks[k].match))
			}
			continue
		}
		switch t := &p.toks[start]; {
		case k-start == 1 && t.kind == tStr:
			piece.Reset()
			piece.Parts(p.parts[t.p0:t.p1], p.src, p.lookup)
			p.fold.JoinPiece(piece.Value(), piece.Names())
		case k-start == 1 && p.IsName(start):
			p.fold.JoinPiece(code.HoleString, []string{p.Text(start)})
		case k > start:
			p.fold.JoinPiece(code.HoleString, []string{""})
		}
		start = k + 1
	}
	p.out.DropCallStrs(f.Call)
	p.out.AddStr(&p.fold, int(p.toks[open].s), end, f.Outer)
}

// argIdent records the identifier passed as the argument ending before token end.
func (p *parser) argIdent(f *lexkit.Frame, end int) {
	a := f.ArgStart
	if a < end && p.toks[a].kind == tLabel {
		a++
	}
	ident := ""
	if end-a == 1 && p.IsName(a) {
		ident = p.Text(a)
	}
	p.out.AddArgIdent(f.Call, ident)
}
