package ruby

import (
	"bytes"

	"github.com/sunsetscan/sunset/scanner/repo/code/internal/rubylike"
)

// lexer reads Ruby's own tokens on rubylike.Lexer.
type lexer struct {
	*rubylike.Lexer
}

// Token reads the token starting with c at l.I: a variable, a symbol, a string, a literal
// opened by an operator, or an operator.
func (l lexer) Token(c, next byte) {
	switch {
	case c == '=' && l.lineStart() && l.docs():
	case c == '@' || c == '$':
		l.variable()
	case c == ':':
		l.colon(next)
	case c == '\'' || c == '"' || c == '`':
		l.quoted(c, false)
	case !l.literal(c, next):
		l.Operator()
	}
}

// lineStart reports whether l.I starts a line.
func (l lexer) lineStart() bool { return l.I == 0 || l.Src[l.I-1] == '\n' }

// docs skips =begin ... =end and everything after __END__, reporting whether it did.
func (l lexer) docs() bool {
	rest := l.Src[l.I:]
	switch {
	case bytes.HasPrefix(rest, []byte("=begin")):
		k := bytes.Index(rest, []byte("\n=end"))
		if k < 0 {
			l.I = len(l.Src)
			return true
		}
		l.I += k + 5
		for l.I < len(l.Src) && l.Src[l.I] != '\n' {
			l.I++
		}
		return true
	case bytes.HasPrefix(rest, []byte("__END__")) && (len(rest) == 7 || rest[7] == '\n' || rest[7] == '\r'):
		l.I = len(l.Src)
		return true
	}
	return false
}

// command reports whether a literal may open here although an operand came before: after a
// method name and a space, with no space after (puts %w[a], get /re/).
func (l lexer) command() bool {
	if !l.Sp || len(l.Toks) == 0 || l.Toks[len(l.Toks)-1].Kind != rubylike.Ident {
		return false
	}
	n := l.Peek(1)
	return n != ' ' && n != '=' && n != '\n' && n != 0
}
