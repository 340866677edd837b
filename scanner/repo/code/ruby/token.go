package ruby

import (
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/rubylike"
)

// colon reads "::", a quoted symbol, a symbol, or a ':' of a conditional expression.
func (l lexer) colon(next byte) {
	switch {
	case next == ':':
		l.EmitOp(rubylike.OpScope, 2)
	case next == '"' || next == '\'':
		l.I++
		l.quoted(next, true)
	case lexkit.IsIdentStart(next) || next == '@' || next == '$':
		l.symbol()
	default:
		l.Operator()
	}
}

// literal reads what %, /, << and ? open when they open a literal (%w[], a regular
// expression, a heredoc, a character), and reports whether they did.
func (l lexer) literal(c, next byte) bool {
	switch {
	case c == '%' && (!l.Operand() || l.command()):
		return l.percent()
	case c == '/' && (!l.Operand() || l.command()):
		l.regexp()
		return true
	case c == '<' && next == '<':
		return l.heredoc()
	case c == '?' && !l.Operand() && next > ' ' && (l.I+2 >= len(l.Src) || !lexkit.IsIdent(l.Src[l.I+2])):
		l.Emit(rubylike.Token{Kind: rubylike.Lit, S: int32(l.I), A: int32(l.I), B: int32(l.I + 2)})
		l.I += 2
		return true
	}
	return false
}

// Name reads an identifier, a constant or a label (name:); __END__ at the start of a line
// ends the code.
func (l lexer) Name() {
	if l.Src[l.I] == '_' && l.lineStart() && l.docs() {
		return
	}
	a := l.I
	j := l.IdentEnd(l.I)
	if j < len(l.Src) && (l.Src[j] == '?' || l.Src[j] == '!') && (j+1 >= len(l.Src) ||
		l.Src[j+1] != '=' && (l.Src[j] != '?' || !lexkit.IsIdent(l.Src[j+1]))) {
		j++ // empty?, save!
	}
	k := rubylike.Ident
	if c := l.Src[a]; c >= 'A' && c <= 'Z' {
		k = rubylike.Const
	}
	if j < len(l.Src) && l.Src[j] == ':' && (j+1 >= len(l.Src) || l.Src[j+1] != ':') && !l.ternary() {
		l.Emit(rubylike.Token{Kind: rubylike.Label, S: int32(a), A: int32(a), B: int32(j)})
		l.I = j + 1
		return
	}
	l.EmitName(k, a, j)
}

// ternary reports whether a '?' of a conditional expression is open on this line (so that
// "a ? b:c" is no label).
func (l lexer) ternary() bool {
	for k := len(l.Toks) - 1; k >= 0 && len(l.Toks)-k < 16; k-- {
		switch t := &l.Toks[k]; {
		case t.Kind == rubylike.NL:
			return false
		case t.Kind == rubylike.Op && t.Op == '?':
			return true
		}
	}
	return false
}

// variable reads @x, @@x, $x and the special globals ($1, $~).
func (l lexer) variable() {
	s := l.I
	j := l.I + 1
	if j < len(l.Src) && l.Src[j] == '@' {
		j++
	}
	a := j
	j = l.IdentEnd(j)
	if j == a && l.Src[s] == '$' && j < len(l.Src) {
		j++ // $~, $!
	}
	if j == a {
		l.Operator()
		return
	}
	l.Emit(rubylike.Token{Kind: rubylike.Var, S: int32(s), A: int32(a), B: int32(j)})
	l.I = j
}

// symbol reads :name, :@x, :name=, :name?.
func (l lexer) symbol() {
	s := l.I
	j := l.I + 1
	for j < len(l.Src) && (l.Src[j] == '@' || l.Src[j] == '$') {
		j++
	}
	a := j
	j = l.IdentEnd(j)
	if j < len(l.Src) && (l.Src[j] == '?' || l.Src[j] == '!' || l.Src[j] == '=') && (j+1 >= len(l.Src) || l.Src[j+1] != '=' && l.Src[j+1] != '>') {
		j++
	}
	l.Emit(rubylike.Token{Kind: rubylike.Sym, S: int32(s), A: int32(a), B: int32(j)})
	l.I = j
}
