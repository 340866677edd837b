package elixir

import (
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/rubylike"
)

// lexer reads Elixir's own tokens on rubylike.Lexer.
type lexer struct {
	*rubylike.Lexer
}

// Token reads the token starting with c at l.I: a module attribute, an atom, a string, a
// sigil, a character or an operator.
func (l lexer) Token(c, next byte) {
	switch {
	case c == '@' && lexkit.IsIdentStart(next):
		l.attr()
	case c == ':' && next != ':':
		l.colon(next)
	case c == '"' || c == '\'':
		l.quoted(c)
	case c == '~' && (next >= 'a' && next <= 'z' || next >= 'A' && next <= 'Z'):
		l.sigil()
	case c == '?' && next > ' ' && !l.Operand():
		j := l.I + 2
		if next == '\\' {
			j++
		}
		l.Emit(rubylike.Token{Kind: rubylike.Lit, S: int32(l.I), A: int32(l.I), B: int32(min(j, len(l.Src)))})
		l.I = min(j, len(l.Src))
	default:
		l.Operator()
	}
}

// Name reads an identifier, an alias segment or a label (name:).
func (l lexer) Name() {
	a := l.I
	j := l.IdentEnd(l.I)
	if j < len(l.Src) && (l.Src[j] == '?' || l.Src[j] == '!') {
		j++
	}
	k := rubylike.Ident
	if c := l.Src[a]; c >= 'A' && c <= 'Z' {
		k = rubylike.Const
	}
	if j+1 < len(l.Src) && l.Src[j] == ':' && l.Src[j+1] != ':' && (l.Src[j+1] == ' ' || l.Src[j+1] == '\n' ||
		l.Src[j+1] == '\t' || l.Src[j+1] == '\r') {
		l.Emit(rubylike.Token{Kind: rubylike.Label, S: int32(a), A: int32(a), B: int32(j)})
		l.I = j + 1
		return
	}
	l.EmitName(k, a, j)
}

// attr reads @name.
func (l lexer) attr() {
	j := l.IdentEnd(l.I + 1)
	l.Emit(rubylike.Token{Kind: rubylike.Var, S: int32(l.I), A: int32(l.I + 1), B: int32(j)})
	l.I = j
}

// colon reads an atom (:name, :"name") or a ':' alone.
func (l lexer) colon(next byte) {
	switch {
	case next == '"' || next == '\'':
		l.I++
		l.quoted(next)
		l.Toks[len(l.Toks)-1].Kind = rubylike.Sym
		l.Toks[len(l.Toks)-1].S--
		l.Strs--
	case lexkit.IsIdentStart(next):
		j := l.IdentEnd(l.I + 1)
		if j < len(l.Src) && (l.Src[j] == '?' || l.Src[j] == '!') {
			j++
		}
		l.Emit(rubylike.Token{Kind: rubylike.Sym, S: int32(l.I), A: int32(l.I + 1), B: int32(j)})
		l.I = j
	default:
		j := l.I + 1 // :+, :<<>>, ...: an operator's atom
		for j < len(l.Src) && j < l.I+4 && bytesIndex("+-*/<>=!&|^~.", l.Src[j]) {
			j++
		}
		if j == l.I+1 {
			l.EmitOp(':', 1)
			return
		}
		l.Emit(rubylike.Token{Kind: rubylike.Lit, S: int32(l.I), A: int32(l.I), B: int32(j)})
		l.I = j
	}
}

func bytesIndex(set string, c byte) bool {
	for i := 0; i < len(set); i++ {
		if set[i] == c {
			return true
		}
	}
	return false
}
