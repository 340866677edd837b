package ruby

import (
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/rubylike"
)

// Brace opens a block (after a method name, a call's ")" or "->") or a hash.
func (p *parser) Brace(i int) {
	if p.blockBrace(i) {
		p.Fr.PushBlock('{', i)
	} else {
		p.Fr.PushLiteral('{', i)
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
