// Package php reads PHP source into a code.File on a hand-written tokenizer: the strings
// it builds (with interpolation, '.' concatenation and sprintf verbs folded into holes), the
// calls it makes ($this->client->get(...) is [this client get]; a qualified name is split at
// its backslashes: new Foo\Bar(...) is [Foo Bar]), namespace, use and require lines, and the
// functions it declares. Text outside <?php ... ?> is skipped.
package php

import (
	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

// Read reads one PHP file. It never fails: what it cannot make sense of it skips.
func Read(src []byte) *code.File {
	out := lexkit.NewOut("php", src)
	l := lex(src, out)
	p := &parser{src: src, toks: l.toks, parts: l.parts, out: out, assignTok: -1}
	out.Reserve(l.strs, l.parens)
	p.lookup = func(name string) (string, []string, bool) { return p.vars.Get(name, false) }
	p.run()
	l.release()
	return p.out.Done()
}

type parser struct {
	src     []byte
	toks    []token
	parts   []lexkit.Part
	out     *lexkit.Out
	fr      lexkit.Frames
	vars    lexkit.Vars
	fold    lexkit.Fold
	lookup  lexkit.Lookup
	spans   []span
	scratch []string
	callees []string
	// fnBody is true between "function" and the brace that opens its body; decl is the
	// declared name, recorded when the body opens (an abstract method has none).
	fnBody bool
	decl   string
	// assign is the plain variable assigned by the '=' just before token assignTok.
	assign    string
	assignTok int
}

// span is one operand of a concatenation: tokens [a, b).
type span struct{ a, b int }

func (p *parser) run() {
	p.fr.Reset()
	for i := 0; i < len(p.toks); i++ {
		switch t := &p.toks[i]; t.kind {
		case tStr:
			if !t.used {
				p.value(i)
			}
		case tVar:
			if p.operandStart(i) && p.concatAfter(i) {
				p.value(i)
			}
		case tName:
			p.name(i)
		case tOp:
			p.op(i)
		}
		if i == p.assignTok && p.assign != "" {
			p.vars.Set(p.assign, "", nil, false)
			p.assign = ""
		}
	}
	// Brackets left open at the end of the file: their calls end there.
	if len(p.toks) > 0 {
		p.fr.PopAll(func(f lexkit.Frame) {
			p.finish(&f, len(p.toks), len(p.src))
		})
	}
}

// Text is the source text of token i (a variable without its $).
func (p *parser) Text(i int) string {
	return p.out.Name(int(p.toks[i].a), int(p.toks[i].b))
}

// is reports whether token i is the operator op.
func (p *parser) is(i int, op byte) bool {
	return i >= 0 && i < len(p.toks) && p.toks[i].kind == tOp && p.toks[i].op == op
}

// IsName reports whether token i is a name or a variable a callee chain may hold.
func (p *parser) IsName(i int) bool {
	return i >= 0 && i < len(p.toks) && (p.toks[i].kind == tName || p.toks[i].kind == tVar)
}

// Opener returns the bracket the ")" or "]" at token k closes when it is before k, else -1
// (for lexkit.Callee).
func (p *parser) Opener(k int) int {
	if (p.is(k, ')') || p.is(k, ']')) && p.toks[k].match >= 0 && int(p.toks[k].match) < k {
		return int(p.toks[k].match)
	}
	return -1
}

// IsMember reports whether token i is a member operator.
func (p *parser) IsMember(i int) bool {
	if i < 0 || i >= len(p.toks) || p.toks[i].kind != tOp {
		return false
	}
	op := p.toks[i].op
	return op == opArrow || op == opNullsafe || op == opScope
}

// word reports whether token i is the name w.
func (p *parser) word(i int, w string) bool {
	return i >= 0 && i < len(p.toks) && p.toks[i].kind == tName && string(p.src[p.toks[i].a:p.toks[i].b]) == w
}

// operandStart reports whether token i starts an operand rather than continuing one.
func (p *parser) operandStart(i int) bool {
	if i == 0 {
		return true
	}
	switch t := &p.toks[i-1]; t.kind {
	case tOp:
		return !p.IsMember(i-1) && t.op != '.' && t.op != '$'
	case tName:
		return !p.word(i-1, "new")
	}
	return true
}

// concatAfter reports whether the operand starting at token i is followed by '.'.
func (p *parser) concatAfter(i int) bool {
	return p.is(p.operandEnd(i), '.')
}
