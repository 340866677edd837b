// Package ruby reads Ruby source into a code.File on a hand-written tokenizer: the strings it
// builds (#{} interpolation, '+' and '<<' concatenation, format/sprintf/'%' verbs, File.join
// and URI.join joined with "/", heredocs, %q/%Q/%()/%w literals), the calls it makes with and
// without parentheses (client.get "zones/#{id}" is [client get]; Foo::Bar.new(x) is
// [Foo Bar new]), keyword arguments and hash keys passed (method: :post gives the value
// "post" with Key "method"), require/require_relative/load, the modules and classes it
// declares (class X < Y gives X and Y), and the methods it defines. Symbols are not strings,
// except as a key's value. Sigils are dropped from names (@client is "client").
package ruby

import (
	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

// Read reads one Ruby file. It never fails: what it cannot make sense of it skips.
func Read(src []byte) *code.File {
	out := lexkit.NewOut("ruby", src)
	l := lex(src, out)
	out.Reserve(l.strs, l.parens)
	p := &parser{src: src, toks: l.toks, parts: l.parts, out: out, assignTok: -1}
	p.lookup = func(name string) (string, []string, bool) { return p.vars.Get(name, constant(name)) }
	p.run()
	l.release()
	return out.Done()
}

// Frames that no bracket opens, by their Open mark.
const (
	frameCall  = 'c' // the arguments of a call written without parentheses
	frameKw    = 'k' // if, unless, while, until, case, begin, for ... end
	frameDef   = 'f' // def, class, module ... end: a scope of their own
	frameBlock = 'd' // do ... end
)

type parser struct {
	src     []byte
	toks    []token
	parts   []lexkit.Part
	out     *lexkit.Out
	fr      lexkit.Frames
	vars    lexkit.Vars // locals and constants, scope by scope
	ivars   lexkit.Vars // instance variables, for the whole file
	fold    lexkit.Fold
	lookup  lexkit.Lookup
	spans   []span
	scratch []string
	// assign is the variable assigned by the '=' just before token assignTok; ivar says it is
	// an instance variable.
	assign    string
	assignTok int
	ivar      bool
	// loopDo is true between while/until/for and the end of its line, where "do" opens no
	// block.
	loopDo bool
}

// span is one operand of a concatenation: tokens [a, b).
type span struct{ a, b int }

func (p *parser) run() {
	p.fr.Reset()
	for i := 0; i < len(p.toks); i++ {
		switch t := &p.toks[i]; t.kind {
		case tNL:
			p.endStatement(i)
		case tStr:
			if !t.used {
				p.value(i)
			}
		case tIdent:
			p.ident(i)
		case tConst, tIVar:
			if p.operandStart(i) && p.concatAfter(i) {
				p.value(i)
			}
		case tSym:
			p.symbol(i)
		case tLabel:
			p.label(i)
		case tOp:
			p.op(i)
		}
		if i == p.assignTok && p.assign != "" {
			p.setVar(p.assign, p.ivar, "", nil, false)
			p.assign = ""
		}
	}
	p.fr.PopAll(func(f lexkit.Frame) {
		p.finish(&f, len(p.toks), len(p.src))
	})
}

// Text is the name of token i (without sigil or colon), interned.
func (p *parser) Text(i int) string {
	return p.out.Name(int(p.toks[i].a), int(p.toks[i].b))
}

// is reports whether token i is the operator op.
func (p *parser) is(i int, op byte) bool {
	return i >= 0 && i < len(p.toks) && p.toks[i].kind == tOp && p.toks[i].op == op
}

// IsMember reports whether token i is ".", "&." or "::".
func (p *parser) IsMember(i int) bool {
	if i < 0 || i >= len(p.toks) || p.toks[i].kind != tOp {
		return false
	}
	op := p.toks[i].op
	return op == '.' || op == opSafe || op == opScope
}

// word reports whether token i is the identifier w.
func (p *parser) word(i int, w string) bool {
	return i >= 0 && i < len(p.toks) && p.toks[i].kind == tIdent && string(p.src[p.toks[i].a:p.toks[i].b]) == w
}

// Opener returns the bracket the ")" or "]" at token k closes when it is before k, else -1
// (for lexkit.Callee).
func (p *parser) Opener(k int) int {
	if (p.is(k, ')') || p.is(k, ']')) && p.toks[k].match >= 0 && int(p.toks[k].match) < k {
		return int(p.toks[k].match)
	}
	return -1
}

// IsName reports whether token i is a name an operand or a callee may hold.
func (p *parser) IsName(i int) bool {
	if i < 0 || i >= len(p.toks) {
		return false
	}
	t := &p.toks[i]
	return t.kind == tConst || t.kind == tIVar || t.kind == tIdent && (!keyword(p.src[t.a:t.b]) || p.word(i, "self"))
}

// setVar remembers a variable's value.
func (p *parser) setVar(name string, ivar bool, value string, names []string, known bool) {
	if ivar {
		p.ivars.Set(name, value, names, known)
		return
	}
	p.vars.Set(name, value, names, known)
}

// endStatement ends what a newline or ";" ends: calls written without parentheses, and the
// line of a while/until/for.
func (p *parser) endStatement(i int) {
	p.endCommands(i)
	p.loopDo = false
	p.fr.Top().Key = p.fr.Top().ItemKey
}

// keyword reports whether b is a Ruby keyword.
func keyword(b []byte) bool {
	if len(b) < 2 || len(b) > 12 {
		return false
	}
	switch string(b) {
	case "alias", "and", "begin", "break", "case", "class", "def", "defined?", "do", "else", "elsif",
		"end", "ensure", "false", "for", "if", "in", "module", "next", "nil", "not", "or", "redo",
		"rescue", "retry", "return", "self", "super", "then", "true", "undef", "unless", "until",
		"when", "while", "yield", "__FILE__", "__LINE__", "__method__", "BEGIN", "END":
		return true
	}
	return false
}

// constant reports whether a name is a constant's (seen from nested scopes too).
func constant(name string) bool { return name != "" && name[0] >= 'A' && name[0] <= 'Z' }
