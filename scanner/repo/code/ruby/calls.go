package ruby

import "github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"

// op handles an operator token.
func (p *parser) op(i int) {
	t := &p.toks[i]
	switch t.op {
	case '(':
		p.open(i)
	case '[':
		if p.operandEnds(i-1) && !t.sp {
			p.fr.PushBlock('[', i) // an index
		} else {
			p.fr.PushList('[', i)
		}
	case '{':
		if p.blockBrace(i) {
			p.fr.PushBlock('{', i)
		} else {
			p.fr.PushLiteral('{', i)
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
	case '=', opAssign:
		p.assignment(i)
	case ';':
		p.endStatement(i)
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
		return p.IsName(i) || p.word(i, "end") || p.word(i, "nil") || p.word(i, "true") || p.word(i, "false")
	}
	return true
}

// blockBrace reports whether the '{' at token i opens a block (after a method name, a
// call's ")" or "->") rather than a hash.
func (p *parser) blockBrace(i int) bool {
	switch {
	case i == 0:
		return false
	case p.is(i-1, ')') || p.is(i-1, opLambda):
		return true
	case p.toks[i-1].kind == tIdent:
		return p.IsName(i-1) && !p.vars.Has(p.Text(i-1))
	}
	return false
}

// open handles '(': a call's arguments (a name right before it), or a group.
func (p *parser) open(i int) {
	prev := i - 1
	t := &p.toks[i]
	callable := prev >= 0 && !t.sp && (p.IsName(prev) && p.toks[prev].kind != tIVar || p.word(prev, "super"))
	if !callable || p.declared(prev) {
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
	return p.word(i-1, "def") || p.is(i-1, '.') && p.word(i-2, "self") && p.word(i-3, "def")
}

// call records the call whose name is token name and opens its arguments at token tok
// (its "(", or the name itself for a call without parentheses).
func (p *parser) call(name int, open byte, tok int) {
	callee, first := p.callee(name)
	c := p.out.AddCall(callee, false, int(p.toks[name].s))
	f := p.fr.PushCall(open, c, tok)
	after := int(p.toks[tok].match) + 1
	whole := open != '(' || after == 0 || !p.is(after, '+') && !p.is(after, opShl) // not an operand of "+"
	if whole && first >= 2 && (p.is(first-1, '=') || p.is(first-1, opAssign)) && p.IsName(first-2) {
		f.Outer.Assigned = p.Text(first - 2)
	}
}

// command reports whether the name at token i is called without parentheses: a space,
// then something that starts an argument on the same line. A name without receiver must not
// be a local variable.
func (p *parser) command(i int) bool {
	j := i + 1
	if j >= len(p.toks) || !p.toks[j].sp || p.declared(i) {
		return false
	}
	if !p.IsMember(i-1) && p.vars.Has(p.Text(i)) {
		return false
	}
	switch t := &p.toks[j]; t.kind {
	case tStr, tSym, tLabel, tNum, tIVar, tConst, tLit:
		return true
	case tIdent:
		return !keyword(p.src[t.a:t.b]) || p.word(j, "self") || p.word(j, "nil") || p.word(j, "true") ||
			p.word(j, "false") || p.word(j, "__FILE__")
	case tOp:
		return t.op == opLambda
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

// endBefore is where the token before i ends.
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

// end handles "end": the frames down to the innermost keyword frame are closed, unless a
// bracket is open inside it.
func (p *parser) end(i int) {
	for k := p.fr.Len() - 1; k >= 1; k-- {
		switch p.fr.At(k).Open {
		case frameCall:
			continue
		case frameKw, frameDef, frameBlock:
			for {
				f, ok := p.fr.Pop()
				if !ok {
					return
				}
				p.finish(&f, i, p.endBefore(i))
				if f.Open != frameCall {
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
	switch c.Name() {
	case "format", "sprintf":
		p.out.Format(f.Call, 0, f.Outer, &p.fold)
	case "join":
		if len(c.Callee) == 2 && (c.Callee[0] == "File" || c.Callee[0] == "URI") && f.Tok+1 < i {
			p.out.Join(f.Call, int(p.toks[f.Tok+1].s), end, f.Outer, &p.fold)
		}
	}
}

// argIdent records the identifier passed as the argument ending before token end.
func (p *parser) argIdent(f *lexkit.Frame, end int) {
	a := f.ArgStart
	if a < end && p.toks[a].kind == tLabel {
		a++ // a keyword argument
	}
	ident := ""
	if end-a == 1 && p.IsName(a) && !p.word(a, "self") {
		ident = p.Text(a)
	}
	p.out.AddArgIdent(f.Call, ident)
}
