package elixir

import (
	"sync"

	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

type kind uint8

const (
	tIdent kind = iota + 1 // a variable or function name, keywords included
	tAlias                 // a capitalised name (a module alias segment)
	tAttr                  // @name: a and b leave the @ out
	tAtom                  // :name (a, b the name), :"name" (parts)
	tLabel                 // name: or "name": (a, b the name)
	tStr                   // a string, charlist or string sigil; parts[p0:p1] are its pieces
	tNum
	tLit // another literal operand: a regex, a date sigil, a character
	tOp  // punctuation; op holds it
	tNL  // a newline that ends an expression
)

// Operators of more than one byte; a one-byte operator is its byte.
const (
	opPipe   = 0x80 + iota // |>
	opConcat               // <>
	opPair                 // =>
	opArrow                // ->
	opShl                  // <<
	opShr                  // >>
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

// lexer splits Elixir source into tokens.
type lexer struct {
	src          []byte
	i            int
	toks         []token
	parts        []lexkit.Part
	nest         lexkit.Nest
	out          *lexkit.Out
	body         lexkit.Body
	sp           bool
	strs, parens int
}

var lexers = sync.Pool{New: func() any { return new(lexer) }}

func lex(src []byte, out *lexkit.Out) *lexer {
	l := lexers.Get().(*lexer)
	*l = lexer{src: src, toks: lexkit.Room(l.toks, code.TokenEstimate(src)), parts: l.parts[:0], nest: l.nest, out: out, body: l.body}
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
		default:
			l.token(c)
		}
		l.sp = false
	}
}

// newline ends an expression unless the line goes on: after an operator or a comma, or
// before a line starting with |> or a '.'.
func (l *lexer) newline() {
	at := l.i
	l.i++
	if len(l.toks) == 0 {
		return
	}
	last := &l.toks[len(l.toks)-1]
	if last.kind == tNL || last.kind == tLabel || last.kind == tOp && last.op != ')' && last.op != ']' &&
		last.op != '}' && last.op != opShr {
		return
	}
	if last.kind == tIdent && (l.word(last, "and") || l.word(last, "or") || l.word(last, "not") ||
		l.word(last, "when") || l.word(last, "in")) {
		return
	}
	j := l.i
	for j < len(l.src) && (l.src[j] == ' ' || l.src[j] == '\t' || l.src[j] == '\r' || l.src[j] == '\n') {
		j++
	}
	if j+1 < len(l.src) && (l.src[j] == '|' && l.src[j+1] == '>' || l.src[j] == '.' && l.src[j+1] != '.') {
		return // a pipeline going on
	}
	l.toks = append(l.toks, token{kind: tNL, s: int32(at), a: int32(at), b: int32(at + 1), match: -1})
}

func (l *lexer) word(t *token, w string) bool { return string(l.src[t.a:t.b]) == w }

func (l *lexer) emit(t token) {
	t.match = -1
	t.sp = l.sp
	l.toks = append(l.toks, t)
}

// token reads the token starting with c at l.i.
func (l *lexer) token(c byte) {
	next := l.peek(1)
	switch {
	case lexkit.IsIdentStart(c):
		l.name()
	case c >= '0' && c <= '9':
		l.number()
	case c == '@' && lexkit.IsIdentStart(next):
		l.attr()
	case c == ':' && next != ':':
		l.colon(next)
	case c == '"' || c == '\'':
		l.quoted(c)
	case c == '~' && (next >= 'a' && next <= 'z' || next >= 'A' && next <= 'Z'):
		l.sigil()
	case c == '?' && next > ' ' && !l.operand():
		j := l.i + 2
		if next == '\\' {
			j++
		}
		l.emit(token{kind: tLit, s: int32(l.i), a: int32(l.i), b: int32(min(j, len(l.src)))})
		l.i = min(j, len(l.src))
	default:
		l.operator()
	}
}

// operand reports whether the last token ends an operand.
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
	}
	return true
}

// name reads an identifier, an alias segment or a label (name:).
func (l *lexer) name() {
	a := l.i
	j := l.i
	for j < len(l.src) && lexkit.IsIdent(l.src[j]) {
		j++
	}
	if j < len(l.src) && (l.src[j] == '?' || l.src[j] == '!') {
		j++
	}
	k := kind(tIdent)
	if c := l.src[a]; c >= 'A' && c <= 'Z' {
		k = tAlias
	}
	if j+1 < len(l.src) && l.src[j] == ':' && l.src[j+1] != ':' && (l.src[j+1] == ' ' || l.src[j+1] == '\n' ||
		l.src[j+1] == '\t' || l.src[j+1] == '\r') {
		l.emit(token{kind: tLabel, s: int32(a), a: int32(a), b: int32(j)})
		l.i = j + 1
		return
	}
	l.emit(token{kind: k, s: int32(a), a: int32(a), b: int32(j)})
	l.i = j
}

func (l *lexer) number() {
	j := l.i
	for j < len(l.src) && (lexkit.IsIdent(l.src[j]) || l.src[j] == '.' && j+1 < len(l.src) && l.src[j+1] >= '0' && l.src[j+1] <= '9') {
		j++
	}
	l.emit(token{kind: tNum, s: int32(l.i), a: int32(l.i), b: int32(j)})
	l.i = j
}

// attr reads @name.
func (l *lexer) attr() {
	j := l.i + 1
	for j < len(l.src) && lexkit.IsIdent(l.src[j]) {
		j++
	}
	l.emit(token{kind: tAttr, s: int32(l.i), a: int32(l.i + 1), b: int32(j)})
	l.i = j
}

// colon reads an atom (:name, :"name") or a ':' alone.
func (l *lexer) colon(next byte) {
	switch {
	case next == '"' || next == '\'':
		l.i++
		l.quoted(next)
		l.toks[len(l.toks)-1].kind = tAtom
		l.toks[len(l.toks)-1].s--
		l.strs--
	case lexkit.IsIdentStart(next):
		j := l.i + 1
		for j < len(l.src) && lexkit.IsIdent(l.src[j]) {
			j++
		}
		if j < len(l.src) && (l.src[j] == '?' || l.src[j] == '!') {
			j++
		}
		l.emit(token{kind: tAtom, s: int32(l.i), a: int32(l.i + 1), b: int32(j)})
		l.i = j
	default:
		j := l.i + 1 // :+, :<<>>, ...: an operator's atom
		for j < len(l.src) && j < l.i+4 && bytesIndex("+-*/<>=!&|^~.", l.src[j]) {
			j++
		}
		if j == l.i+1 {
			l.op(':', 1)
			return
		}
		l.emit(token{kind: tLit, s: int32(l.i), a: int32(l.i), b: int32(j)})
		l.i = j
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

func (l *lexer) op(op byte, n int) {
	i := len(l.toks)
	l.emit(token{kind: tOp, op: op, s: int32(l.i), a: int32(l.i), b: int32(l.i + n)})
	l.i += n
	switch op {
	case '(', '[', '{':
		if op == '(' {
			l.parens++
		}
		l.nest.Open(i, op)
	case ')', ']', '}':
		if m := l.nest.Close(lexkit.Opener(op)); m >= 0 {
			l.toks[i].match, l.toks[m].match = int32(m), int32(i)
		}
	}
}

// operator reads the operator at l.i.
func (l *lexer) operator() {
	rest := l.src[l.i:]
	if len(rest) >= 3 {
		switch string(rest[:3]) {
		case "===", "!==", "<<<", ">>>", "|||", "&&&", "^^^", "~~~", "...", "<<~", "~>>", "<~>", "<|>":
			l.op(opOther, 3)
			return
		}
	}
	if len(rest) >= 2 && rest[0] < 0x80 && rest[1] < 0x80 {
		if op := pairs[rest[0]][rest[1]]; op != 0 {
			l.op(op, 2)
			return
		}
	}
	l.op(rest[0], 1)
}

// pairs holds the code of each two-byte operator.
var pairs = func() (t [0x80][0x80]byte) {
	t['|']['>'], t['<']['>'], t['=']['>'], t['-']['>'], t['<']['<'], t['>']['>'] = opPipe, opConcat, opPair, opArrow, opShl, opShr
	for _, op := range []string{"==", "!=", "=~", "<=", ">=", "&&", "||", "++", "--", "..", "<-", "\\\\", "::", "//", "~>", "<~"} {
		t[op[0]][op[1]] = opOther
	}
	return t
}()
