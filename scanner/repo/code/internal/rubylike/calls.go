package rubylike

import (
	"bytes"

	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

// op handles the operator at token i but "{" (Lang.Brace): parentheses (a call's arguments
// or a group), brackets (an index or a list), closing brackets, commas, "=>", assignments
// and ";".
func (p *Parser) op(i int) {
	t := &p.Toks[i]
	switch t.Op {
	case '(':
		p.open(i)
	case '[':
		if p.OperandEnds(i-1) && !t.Sp {
			p.Fr.PushBlock('[', i) // an index
		} else {
			p.Fr.PushList('[', i)
		}
	case ')', ']', '}':
		p.close(i)
	case ',':
		f := p.Fr.Top()
		if f.Own {
			p.argIdent(f, i)
			f.Arg++
		}
		f.ArgStart, f.Key = i+1, f.ItemKey
	case OpPair:
		p.pair(i)
	case '=', OpAssign:
		p.assignment(i)
	case ';':
		p.endStatement(i)
	}
}

// OperandEnds reports whether token i ends an operand.
func (p *Parser) OperandEnds(i int) bool {
	return i >= 0 && i < len(p.Toks) && p.syn.endsOperand(&p.Toks[i], p.Src)
}

// open handles '(': a call's arguments (a name right before it), or a group.
func (p *Parser) open(i int) {
	prev := i - 1
	callable := prev >= 0 && !p.Toks[i].Sp && (p.IsName(prev) && p.Toks[prev].Kind != Var || p.Word(prev, "super"))
	if !callable || p.own.Declared(prev) {
		p.Concatenation(i)
		p.Fr.PushGroup('(', i)
		return
	}
	p.Call(prev, '(', i)
}

// Call records the call whose name is token name and opens its arguments at token tok (its
// "(", or the name itself for a call without parentheses, open then a frame mark).
func (p *Parser) Call(name int, open byte, tok int) {
	callee, first := p.Callee(name)
	c := p.Out.AddCall(callee, false, int(p.Toks[name].S))
	f := p.Fr.PushCall(open, c, tok)
	after := int(p.Toks[tok].Match) + 1
	whole := open != '(' || after == 0 || !p.concatOp(after) // not an operand of a concatenation
	if target, _ := p.Assigned(first); whole && target != "" {
		f.Outer.Assigned = target
	}
}

// Callee is the chain of the call whose name is token j and its first token: see
// lexkit.Callee. The chain is valid until the next Callee: Out.AddCall copies it.
func (p *Parser) Callee(j int) ([]string, int) {
	callee, first := lexkit.Callee(p, j, p.scratch)
	p.scratch = callee
	return callee, first
}

// close handles a closing bracket: the frames down to its opener are closed.
func (p *Parser) close(i int) {
	p.Fr.CloseTo(int(p.Toks[i].Match), func(f lexkit.Frame, opener bool) {
		end := int(p.Toks[i].B)
		if !opener {
			end = p.endBefore(i)
		}
		p.finish(&f, i, end)
	})
}

// endBefore is where the token before i ends.
func (p *Parser) endBefore(i int) int {
	if i <= 0 {
		return 0
	}
	return int(p.Toks[i-1].B)
}

// EndCommands ends the calls without parentheses open at the top, before token i.
func (p *Parser) EndCommands(i int) {
	for p.Fr.Top().Open == FrameCall {
		f, _ := p.Fr.Pop()
		p.finish(&f, i, p.endBefore(i))
	}
}

// End handles "end" at token i: the frames down to the innermost one "end" closes
// (Syntax.Ends) are closed, unless a bracket is open inside it.
func (p *Parser) End(i int) {
	for k := p.Fr.Len() - 1; k >= 1; k-- {
		open := p.Fr.At(k).Open
		if open == FrameCall {
			continue
		}
		if bytes.IndexByte(p.syn.Ends, open) < 0 {
			return
		}
		for {
			f, ok := p.Fr.Pop()
			if !ok {
				return
			}
			p.finish(&f, i, p.endBefore(i))
			if f.Open != FrameCall {
				return
			}
		}
	}
}

// finish ends a frame closed at token i, whose last byte ends before end.
func (p *Parser) finish(f *lexkit.Frame, i, end int) {
	if f.Scope {
		p.Vars.Pop()
	}
	if !f.Own {
		return
	}
	if i > f.ArgStart {
		p.argIdent(f, i)
	}
	p.Out.EndCall(f.Call, end)
	if oneOf(p.Out.CallName(f.Call), p.syn.Folds) {
		p.own.Finish(*f, i, end)
	}
}

// argIdent records the identifier passed as the argument ending before token end.
func (p *Parser) argIdent(f *lexkit.Frame, end int) {
	a := f.ArgStart
	if a < end && p.Toks[a].Kind == Label {
		a++ // a keyword argument
	}
	ident := ""
	if end-a == 1 && p.IsName(a) && (p.syn.Self == "" || !p.Word(a, p.syn.Self)) {
		ident = p.Text(a)
	}
	p.Out.AddArgIdent(f.Call, ident)
}

// assignment notes "x = ..." at token i (and Ruby's "x ||= ..."): the value that follows is
// assigned to x.
func (p *Parser) assignment(i int) {
	if i == 0 || !p.IsName(i-1) || p.IsMember(i-2) {
		return
	}
	p.Assign, p.AssignTok, p.AssignSigil = p.Text(i-1), i+1, p.Toks[i-1].Kind == Var
}

// Assigned returns the variable a value or call starting at token i is assigned to by "=" (or
// an operator-assignment) before it, "" for none, and whether it has a sigil.
func (p *Parser) Assigned(i int) (string, bool) {
	if i < 2 || !p.Is(i-1, '=') && !p.Is(i-1, OpAssign) || !p.IsName(i-2) {
		return "", false
	}
	return p.Text(i - 2), p.Toks[i-2].Kind == Var
}
