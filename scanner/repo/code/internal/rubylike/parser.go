package rubylike

import (
	"bytes"

	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

// Parser is the part of a reader's parser the languages share: it walks the tokens and
// records the calls made (with and without parentheses), the values built (literals joined
// by concatenation, variables assigned once put in place of later uses), the keys given to
// them, and where each goes. A reader embeds it and handles the tokens of its own syntax
// (Lang).
type Parser struct {
	Src   []byte
	Toks  []Token
	Parts []lexkit.Part
	Out   *lexkit.Out
	Fr    lexkit.Frames
	// Vars are the variables, scope by scope; Sigiled those written with a sigil (Ruby's
	// instance variables, Elixir's module attributes), for the whole file.
	Vars, Sigiled lexkit.Vars
	Fold          lexkit.Fold
	// Lookup finds the value of a variable interpolated into a string.
	Lookup lexkit.Lookup
	// Assign is the variable assigned the value starting at token AssignTok; AssignSigil
	// says it is one of Sigiled.
	Assign      string
	AssignTok   int
	AssignSigil bool
	// Head is true from a keyword whose "do" on the same line is its own (Ruby's while,
	// Elixir's def) to that "do" or the end of the statement.
	Head    bool
	syn     *Syntax
	own     Lang
	spans   []span
	scratch []string
}

// span is one operand of a concatenation: tokens [a, b).
type span struct{ a, b int }

// Lang is a language's own parser: what the shared one asks of it.
type Lang interface {
	// Name handles token i, a name (Ident): a keyword, a call without parentheses, an
	// operand.
	Name(i int)
	// Variable handles token i, a name with a sigil (Var).
	Variable(i int)
	// Brace handles token i, a "{": a block, a hash, a map, a tuple.
	Brace(i int)
	// Declared reports whether the name at token i is the one a definition declares.
	Declared(i int) bool
	// Target returns the variable a value starting at token i is assigned to, "" for none,
	// and whether it is one of Parser.Sigiled.
	Target(i int) (string, bool)
	// Tail folds what follows the last operand of a concatenation starting at token first
	// and ending before token end that belongs to its value (Ruby's "format" % args), and
	// returns the token after it: end when nothing does.
	Tail(first, end int) int
	// Finish is told that the arguments of call f, named one of Syntax.Folds, closed at
	// token i; the call ends before end (a format or a path join is folded then).
	Finish(f lexkit.Frame, i, end int)
}

// Read reads one file of a language of syntax syn: its tokens through the Tokenizer
// syn.Tokens makes of a Lexer, then the tokens through p, the shared part of the language's
// own parser own.
func Read(src []byte, syn *Syntax, p *Parser, own Lang) *code.File {
	out := lexkit.NewOut(syn.Lang, src)
	l := newLexer(src, out, syn)
	l.run(syn.Tokens(l))
	out.Reserve(l.Strs, l.Parens)
	p.Src, p.Toks, p.Parts, p.Out, p.AssignTok, p.syn, p.own = l.Src, l.Toks, l.Parts, l.Out, -1, syn, own
	p.Lookup = p.lookup
	p.run()
	l.release()
	return out.Done()
}

// lookup returns the value a variable interpolated into a string was assigned once: a
// constant's (capitalised) from the enclosing scopes too.
func (p *Parser) lookup(name string) (string, []string, bool) {
	return p.Vars.Get(name, name != "" && name[0] >= 'A' && name[0] <= 'Z')
}

// run reads the tokens: strings, symbols, labels, capitalised names, newlines and operators
// here, names, variables and braces through Lang.
func (p *Parser) run() {
	p.Fr.Reset()
	for i := 0; i < len(p.Toks); i++ {
		switch t := &p.Toks[i]; t.Kind {
		case Str:
			if !t.Used {
				p.value(i)
			}
		case Sym:
			p.symbol(i)
		case Label:
			p.label(i)
		case Const:
			p.Concatenation(i)
		case NL:
			p.endStatement(i)
		case Ident:
			p.own.Name(i)
		case Var:
			p.own.Variable(i)
		case Op:
			if t.Op == '{' {
				p.own.Brace(i)
			} else {
				p.op(i)
			}
		}
		if i == p.AssignTok && p.Assign != "" {
			p.setVar(p.Assign, p.AssignSigil, "", nil, false)
			p.Assign = ""
		}
	}
	p.Fr.PopAll(func(f lexkit.Frame) {
		p.finish(&f, len(p.Toks), len(p.Src))
	})
}

// Text is the name of token i (without sigil or colon), interned.
func (p *Parser) Text(i int) string {
	return p.Out.Name(int(p.Toks[i].A), int(p.Toks[i].B))
}

// Is reports whether token i is the operator op.
func (p *Parser) Is(i int, op byte) bool {
	return i >= 0 && i < len(p.Toks) && p.Toks[i].Kind == Op && p.Toks[i].Op == op
}

// Word reports whether token i is the name w.
func (p *Parser) Word(i int, w string) bool {
	return i >= 0 && i < len(p.Toks) && p.Toks[i].Kind == Ident && string(p.Src[p.Toks[i].A:p.Toks[i].B]) == w
}

// Keyword reports whether token i is a name that is a keyword.
func (p *Parser) Keyword(i int) bool { return p.Toks[i].isKeyword() }

// Bytes is the text of token i.
func (p *Parser) Bytes(i int) []byte { return p.Src[p.Toks[i].A:p.Toks[i].B] }

// IsMember reports whether token i is a member operator: ".", and Ruby's "&." and "::".
func (p *Parser) IsMember(i int) bool {
	return i >= 0 && i < len(p.Toks) && p.Toks[i].Kind == Op && p.syn.class[p.Toks[i].Op]&opMember != 0
}

// Opener returns the bracket the ")" or "]" at token k closes when it is before k, else -1
// (for lexkit.Callee).
func (p *Parser) Opener(k int) int {
	if (p.Is(k, ')') || p.Is(k, ']')) && p.Toks[k].Match >= 0 && int(p.Toks[k].Match) < k {
		return int(p.Toks[k].Match)
	}
	return -1
}

// IsName reports whether token i is a name an operand or a callee may hold: a name that is
// no keyword (but Syntax.Self), capitalised or with a sigil.
func (p *Parser) IsName(i int) bool {
	if i < 0 || i >= len(p.Toks) {
		return false
	}
	t := &p.Toks[i]
	return t.Kind == Const || t.Kind == Var || t.Kind == Ident && p.syn.isName(t, p.Src)
}

// setVar remembers a variable's value (in Sigiled when sigil is set).
func (p *Parser) setVar(name string, sigil bool, value string, names []string, known bool) {
	if sigil {
		p.Sigiled.Set(name, value, names, known)
		return
	}
	p.Vars.Set(name, value, names, known)
}

// endStatement ends what a newline or ";" at token i ends: the calls written without
// parentheses, the Head; the key a list gives its members is given again.
func (p *Parser) endStatement(i int) {
	p.EndCommands(i)
	p.Head = false
	p.Fr.Top().Key = p.Fr.Top().ItemKey
}

// Command reports whether the name at token i is called without parentheses: blank space,
// then something that starts an argument on the same line (a literal, a name, a keyword of
// Syntax.ArgWords, an operator of Syntax.ArgOps). A name without a receiver must not be a
// variable.
func (p *Parser) Command(i int) bool {
	j := i + 1
	if j >= len(p.Toks) || !p.Toks[j].Sp || p.own.Declared(i) || !p.IsMember(i-1) && p.Vars.Has(p.Text(i)) {
		return false
	}
	switch t := &p.Toks[j]; t.Kind {
	case Str, Sym, Label, Num, Var, Const, Lit:
		return true
	case Ident:
		return !t.isKeyword() || oneOf(p.Bytes(j), p.syn.ArgWords)
	case Op:
		return bytes.IndexByte(p.syn.ArgOps, t.Op) >= 0
	}
	return false
}

// Scope opens a frame marked open at token i that no bracket opens, with a variable scope of
// its own (a function body).
func (p *Parser) Scope(open byte, i int) {
	f := p.Fr.PushBlock(open, i)
	f.Scope = true
	p.Vars.Push()
}
