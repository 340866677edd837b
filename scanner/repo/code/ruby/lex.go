package ruby

import (
	"bytes"
	"sync"

	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

type kind uint8

const (
	tIdent kind = iota + 1 // a local or method name (foo, empty?, save!), keywords included
	tConst                 // a capitalised name
	tIVar                  // @x, @@x, $x: a and b leave the sigil out
	tSym                   // :name (a, b the name), :"name" (parts)
	tLabel                 // name: or "name": (a, b the name)
	tStr                   // a string literal; parts[p0:p1] are its pieces
	tNum
	tLit // another literal operand: a regular expression, a character, %i[...]
	tOp  // punctuation; op holds it
	tNL  // a newline that ends a statement
)

// Operators of more than one byte; a one-byte operator is its byte.
const (
	opScope  = 0x80 + iota // ::
	opSafe                 // &.
	opPair                 // =>
	opShl                  // <<
	opLambda               // ->
	opAssign               // ||=, +=, <<= and the other operator-assignments
	opOther                // any other
)

type token struct {
	s, a, b int32 // s where the token starts, [a, b) its name or text
	p0, p1  int32 // parts of a string
	match   int32 // partner bracket's index, -1
	kind    kind
	op      byte
	sp      bool // blank space before the token
	used    bool
}

// lexer splits Ruby source into tokens.
type lexer struct {
	src   []byte
	i     int
	toks  []token
	parts []lexkit.Part
	nest  lexkit.Nest
	out   *lexkit.Out
	body  lexkit.Body
	// here is where the next heredoc body starts (after the current line), -1 when no
	// heredoc is open on this line; resume is where reading goes on after those bodies.
	here, resume int
	sp           bool
	strs, parens int
}

var lexers = sync.Pool{New: func() any { return new(lexer) }}

func lex(src []byte, out *lexkit.Out) *lexer {
	l := lexers.Get().(*lexer)
	*l = lexer{src: src, toks: lexkit.Room(l.toks, code.TokenEstimate(src)), parts: l.parts[:0], nest: l.nest, out: out, body: l.body, here: -1}
	l.nest.Reset()
	l.run()
	return l
}

func (l *lexer) release() {
	clear(l.parts)
	l.src, l.out = nil, nil
	if cap(l.toks) <= 1<<20 {
		lexers.Put(l)
	}
}

func (l *lexer) peek(k int) byte {
	if l.i+k < len(l.src) {
		return l.src[l.i+k]
	}
	return 0
}

func (l *lexer) run() {
	for l.i < len(l.src) {
		c := l.src[l.i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			l.i++
			l.sp = true
			continue
		case c == '\\' && l.peek(1) == '\n':
			l.i += 2
		case c == '\n':
			l.newline()
		case c == '#':
			for l.i < len(l.src) && l.src[l.i] != '\n' {
				l.i++
			}
			continue
		case l.lineStart() && l.docs():
		default:
			l.token(c)
		}
		l.sp = false
	}
}

// lineStart reports whether l.i starts a line.
func (l *lexer) lineStart() bool { return l.i == 0 || l.src[l.i-1] == '\n' }

// docs skips =begin ... =end and everything after __END__, reporting whether it did.
func (l *lexer) docs() bool {
	rest := l.src[l.i:]
	switch {
	case bytes.HasPrefix(rest, []byte("=begin")):
		k := bytes.Index(rest, []byte("\n=end"))
		if k < 0 {
			l.i = len(l.src)
			return true
		}
		l.i += k + 5
		for l.i < len(l.src) && l.src[l.i] != '\n' {
			l.i++
		}
		return true
	case bytes.HasPrefix(rest, []byte("__END__")) && (len(rest) == 7 || rest[7] == '\n' || rest[7] == '\r'):
		l.i = len(l.src)
		return true
	}
	return false
}

// newline ends a statement unless the line goes on: after an operator or a comma, or
// before a line starting with .method.
func (l *lexer) newline() {
	at := l.i
	l.i++
	if l.here >= 0 {
		l.i, l.here = max(l.resume, l.i), -1
	}
	if len(l.toks) == 0 {
		return
	}
	last := &l.toks[len(l.toks)-1]
	if last.kind == tNL || last.kind == tOp && last.op != ')' && last.op != ']' && last.op != '}' {
		return
	}
	if last.kind == tIdent && (l.word(last, "and") || l.word(last, "or") || l.word(last, "not")) {
		return
	}
	j := l.i
	for j < len(l.src) {
		switch c := l.src[j]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			j++
			continue
		case c == '.' && j+1 < len(l.src) && l.src[j+1] != '.', c == '&' && j+1 < len(l.src) && l.src[j+1] == '.':
			return // a chain going on: .method on the next line
		}
		break
	}
	l.toks = append(l.toks, token{kind: tNL, s: int32(at), a: int32(at), b: int32(at + 1), match: -1})
}

func (l *lexer) word(t *token, w string) bool { return string(l.src[t.a:t.b]) == w }

func (l *lexer) emit(t token) {
	t.match = -1
	t.sp = l.sp
	l.toks = append(l.toks, t)
}

// operand reports whether the last token ends an operand (so that / and % after it divide
// and take the remainder instead of opening literals).
func (l *lexer) operand() bool {
	if len(l.toks) == 0 {
		return false
	}
	t := &l.toks[len(l.toks)-1]
	switch t.kind {
	case tOp:
		return t.op == ')' || t.op == ']' || t.op == '}'
	case tNL, tLabel:
		return false
	case tIdent:
		return !keyword(l.src[t.a:t.b]) || l.word(t, "end") || l.word(t, "self") || l.word(t, "nil") ||
			l.word(t, "true") || l.word(t, "false")
	}
	return true
}

// command reports whether a literal may open here although an operand came before: after a
// method name and a space, with no space after (puts %w[a], get /re/).
func (l *lexer) command() bool {
	if !l.sp || len(l.toks) == 0 || l.toks[len(l.toks)-1].kind != tIdent {
		return false
	}
	n := l.peek(1)
	return n != ' ' && n != '=' && n != '\n' && n != 0
}
