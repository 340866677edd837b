package php

import (
	"bytes"
	"strings"

	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

// open handles '(': a call's argument list, array( ... ), or a group.
func (p *parser) open(i int) {
	prev := i - 1
	if prev < 0 || (p.toks[prev].kind != tName && p.toks[prev].kind != tVar) {
		if p.operandStart(i) && p.concatAfter(i) {
			p.value(i) // ($a ?: 'b') . '/c'
		}
		p.fr.PushGroup('(', i)
		return
	}
	if t := &p.toks[prev]; t.kind == tName && keyword(p.src[t.a:t.b]) && !p.IsMember(prev-1) { // ->list() is a method
		if p.word(prev, "array") {
			p.fr.PushList('(', i)
		} else {
			p.fr.PushGroup('(', i)
		}
		return
	}
	if p.word(prev-1, "function") || p.word(prev-1, "fn") || p.is(prev-1, '&') && p.word(prev-2, "function") {
		p.fr.PushGroup('(', i) // a declaration's parameters
		return
	}
	callee, first, nameOff := p.callee(prev)
	if len(callee) == 0 {
		p.fr.PushGroup('(', i)
		return
	}
	call := p.out.AddCall(callee, p.word(first-1, "new"), nameOff)
	f := p.fr.PushCall('(', call, i)
	whole := p.toks[i].match < 0 || !p.is(int(p.toks[i].match)+1, '.') // not an operand of "."
	if whole && first >= 2 && p.is(first-1, '=') && (p.toks[first-2].kind == tVar || p.toks[first-2].kind == tName) {
		f.Outer.Assigned = p.Text(first - 2)
	}
}

// callee walks back from the called name at token j through member operators, skipping
// calls and indexes in between ($a->b()->c, $a['x']->b). It returns the chain, its first
// token, and where its last element starts.
func (p *parser) callee(j int) ([]string, int, int) {
	t := &p.toks[j]
	nameOff := int(t.a) + bytes.LastIndexByte(p.src[t.a:t.b], '\\') + 1
	rev, first := lexkit.Callee(p, j, p.scratch)
	p.scratch = rev
	callee := p.callees[:0]
	for _, name := range rev {
		callee = appendName(callee, name)
	}
	p.callees = callee
	return callee, first, nameOff // valid until the next callee: AddCall copies it
}

// appendName appends a name to a callee, splitting a qualified name at its backslashes.
func appendName(callee []string, name string) []string {
	for {
		k := strings.IndexByte(name, '\\')
		if k < 0 {
			break
		}
		if k > 0 {
			callee = append(callee, name[:k])
		}
		name = name[k+1:]
	}
	if name != "" {
		callee = append(callee, name)
	}
	return callee
}

// close handles a closing bracket: the frames down to its opener are closed.
func (p *parser) close(i int) {
	p.fr.CloseTo(int(p.toks[i].match), func(f lexkit.Frame, _ bool) {
		p.finish(&f, i, int(p.toks[i].b))
	})
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
	switch p.out.CallName(f.Call) {
	case "sprintf", "vsprintf", "printf", "vprintf":
		p.out.Format(f.Call, 0, f.Outer, &p.fold)
	case "fprintf":
		p.out.Format(f.Call, 1, f.Outer, &p.fold)
	}
}

// argIdent records the identifier passed as the argument ending before token end.
func (p *parser) argIdent(f *lexkit.Frame, end int) {
	a := f.ArgStart
	if p.toks[a].kind == tName && p.is(a+1, ':') {
		a += 2 // a named argument
	}
	ident := ""
	if end-a == 1 {
		switch t := &p.toks[a]; t.kind {
		case tVar:
			ident = p.Text(a)
		case tName:
			if !keyword(p.src[t.a:t.b]) {
				ident = p.Text(a)
			}
		}
	}
	p.out.AddArgIdent(f.Call, ident)
}
