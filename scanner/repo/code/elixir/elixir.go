// Package elixir reads Elixir source into a code.File on a hand-written tokenizer: the
// strings it builds (#{} interpolation, '<>' concatenation, Path.join joined with "/",
// heredocs, string and word sigils, charlists), the calls it makes with and without
// parentheses and through pipes (client(opts).put(...) is [client put]; x |> Foo.bar() is
// [Foo bar], its arguments counted without the piped value), keyword lists and map keys
// passed (an atom given to a key is kept as a value, method: :post), module attributes
// (@endpoint "x" is a value assigned to "endpoint", put in place of later uses), the module
// it defines and the ones it aliases, imports, requires and uses, and the functions it
// defines. "use Restlax.Resource, endpoint: ..." is a call of [use Restlax Resource], so that
// its options keep their keys. Heredocs are kept as values (most are documentation).
package elixir

import (
	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

// Read reads one Elixir file. It never fails: what it cannot make sense of it skips.
func Read(src []byte) *code.File {
	out := lexkit.NewOut("elixir", src)
	l := lex(src, out)
	out.Reserve(l.strs, l.parens)
	p := &parser{src: src, toks: l.toks, parts: l.parts, out: out, assignTok: -1}
	p.lookup = func(name string) (string, []string, bool) { return p.vars.Get(name, false) }
	p.run()
	l.release()
	return out.Done()
}

// Frames that no bracket opens, by their Open mark.
const (
	frameCall  = 'c' // the arguments of a call written without parentheses
	frameBlock = 'd' // do ... end, fn ... end
)

type parser struct {
	src     []byte
	toks    []token
	parts   []lexkit.Part
	out     *lexkit.Out
	fr      lexkit.Frames
	vars    lexkit.Vars // variables, function by function
	attrs   lexkit.Vars // module attributes, for the whole file
	fold    lexkit.Fold
	lookup  lexkit.Lookup
	spans   []span
	scratch []string
	// assign is the variable or attribute assigned the value starting at token assignTok.
	assign    string
	assignTok int
	attr      bool
	// inDef is true from def to the end of its head: its "do" opens a scope.
	inDef bool
}

// span is one operand of a concatenation: tokens [a, b).
type span struct{ a, b int }

func (p *parser) run() {
	p.fr.Reset()
	for i := 0; i < len(p.toks); i++ {
		switch t := &p.toks[i]; t.kind {
		case tNL:
			p.endCommands(i)
			p.inDef = false
			p.fr.Top().Key = p.fr.Top().ItemKey
		case tStr:
			if !t.used {
				p.value(i)
			}
		case tIdent:
			p.ident(i)
		case tAlias:
			if p.operandStart(i) && p.concatAfter(i) {
				p.value(i)
			}
		case tAttr:
			p.attribute(i)
		case tAtom:
			p.atom(i)
		case tLabel:
			p.label(i)
		case tOp:
			p.op(i)
		}
		if i == p.assignTok && p.assign != "" {
			p.setVar(p.assign, p.attr, "", nil, false)
			p.assign = ""
		}
	}
	p.fr.PopAll(func(f lexkit.Frame) {
		p.finish(&f, len(p.toks), len(p.src))
	})
}

// Text is the name of token i, interned.
func (p *parser) Text(i int) string {
	return p.out.Name(int(p.toks[i].a), int(p.toks[i].b))
}

func (p *parser) is(i int, op byte) bool {
	return i >= 0 && i < len(p.toks) && p.toks[i].kind == tOp && p.toks[i].op == op
}

func (p *parser) word(i int, w string) bool {
	return i >= 0 && i < len(p.toks) && p.toks[i].kind == tIdent && string(p.src[p.toks[i].a:p.toks[i].b]) == w
}

// IsMember reports whether token i is '.'.
func (p *parser) IsMember(i int) bool {
	return p.is(i, '.')
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
	return t.kind == tAlias || t.kind == tAttr || t.kind == tIdent && !keyword(p.src[t.a:t.b])
}

func (p *parser) setVar(name string, attr bool, value string, names []string, known bool) {
	if attr {
		p.attrs.Set(name, value, names, known)
		return
	}
	p.vars.Set(name, value, names, known)
}

// keyword reports whether b is a reserved word or a special form that is no call.
func keyword(b []byte) bool {
	if len(b) < 2 || len(b) > 12 {
		return false
	}
	switch string(b) {
	case "do", "end", "fn", "when", "and", "or", "not", "in", "true", "false", "nil", "else", "after",
		"catch", "rescue", "if", "unless", "case", "cond", "with", "for", "receive", "try", "quote",
		"unquote", "def", "defp", "defmacro", "defmacrop", "defguard", "defguardp", "defdelegate",
		"defmodule", "defstruct", "defexception", "defimpl", "defprotocol", "defoverridable",
		"import", "alias", "require", "use", "__MODULE__", "__DIR__", "__ENV__", "__CALLER__":
		return true
	}
	return false
}
