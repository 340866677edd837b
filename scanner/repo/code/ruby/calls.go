package ruby

import (
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/rubylike"
)

// op handles an operator token: a brace (a block or a hash), an assignment, ';'; the others
// as rubylike reads them.
func (p *parser) op(i int) {
	switch p.Toks[i].Op {
	case '{':
		if p.blockBrace(i) {
			p.Fr.PushBlock('{', i)
		} else {
			p.Fr.PushLiteral('{', i)
		}
	case '=', rubylike.OpAssign:
		p.Assignment(i)
	case ';':
		p.endStatement(i)
	default:
		p.Op(i)
	}
}

// blockBrace reports whether the '{' at token i opens a block (after a method name, a
// call's ")" or "->") rather than a hash.
func (p *parser) blockBrace(i int) bool {
	switch {
	case i == 0:
		return false
	case p.Is(i-1, ')') || p.Is(i-1, rubylike.OpArrow):
		return true
	case p.Toks[i-1].Kind == rubylike.Ident:
		return p.IsName(i-1) && !p.Vars.Has(p.Text(i-1))
	}
	return false
}

// Declared reports whether the name at token i is the one a def declares.
func (p *parser) Declared(i int) bool {
	return p.Word(i-1, "def") || p.Is(i-1, '.') && p.Word(i-2, "self") && p.Word(i-3, "def")
}

// command reports whether the name at token i is called without parentheses: a space,
// then something that starts an argument on the same line. A name without receiver must not
// be a local variable.
func (p *parser) command(i int) bool {
	j := i + 1
	if j >= len(p.Toks) || !p.Toks[j].Sp || p.Declared(i) {
		return false
	}
	if !p.IsMember(i-1) && p.Vars.Has(p.Text(i)) {
		return false
	}
	switch t := &p.Toks[j]; t.Kind {
	case rubylike.Str, rubylike.Sym, rubylike.Label, rubylike.Num, rubylike.Var, rubylike.Const, rubylike.Lit:
		return true
	case rubylike.Ident:
		return !keyword(p.Bytes(j)) || p.Word(j, "self") || p.Word(j, "nil") || p.Word(j, "true") ||
			p.Word(j, "false") || p.Word(j, "__FILE__")
	case rubylike.Op:
		return t.Op == rubylike.OpArrow
	}
	return false
}

// Finish folds the value of a format or sprintf call, and of File.join and URI.join, when
// its arguments close at token i.
func (p *parser) Finish(f lexkit.Frame, i, end int) {
	c := p.Out.Call(f.Call)
	switch c.Name() {
	case "format", "sprintf":
		p.Out.Format(f.Call, 0, f.Outer, &p.Fold)
	case "join":
		if len(c.Callee) == 2 && (c.Callee[0] == "File" || c.Callee[0] == "URI") && f.Tok+1 < i {
			p.Out.Join(f.Call, int(p.Toks[f.Tok+1].S), end, f.Outer, &p.Fold)
		}
	}
}
