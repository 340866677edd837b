package python

import "github.com/sunsetscan/sunset/scanner/repo/code"

// tkind is what a token is.
type tkind uint8

const (
	tEOF     tkind = iota
	tNewline       // the end of a logical line (never inside brackets or an f-string)
	tName
	tNumber
	tString // a whole literal that is not an f-string; text is its value
	tFStart // the prefix and opening quote of an f-string
	tFText  // literal text of an f-string; text is its value
	tFOpen  // '{' opening a replacement field
	tFClose // '}' closing a replacement field (its format spec is not a token)
	tFEnd   // the closing quote of an f-string
	tOp
)

// token is one token. The lexer fills every field on each token, so a token can be
// copied and kept.
type token struct {
	kind tkind
	kw   kw   // the keyword a tName is, kwNone otherwise
	bol  bool // first token of a logical line
	op   string
	a, b int // byte span in the source
	// pos is where the token starts, end just after it.
	pos, end code.Pos
	// text is a literal's value. It never shares writable memory with anything (a slice of
	// the source is capacity-limited), so the parser may append to it.
	text []byte
	// body is where text is in the source when it is the source as is (no escapes).
	body span
}

// Modes of an f-string on the lexer's stack.
const (
	mStr   = iota // literal text
	mField        // the expression of a replacement field
	mSpec         // the format spec of a replacement field
)

// fmode is one f-string state; quote, triple and raw are those of the enclosing string.
type fmode struct {
	kind   uint8
	quote  byte
	triple bool
	raw    bool
	depth  int // bracket depth at the field's '{'
}

// lexer turns Python source into tokens, one per next call. Columns are counted in
// characters: cont counts the UTF-8 continuation bytes between lineStart and i, so every
// loop that steps over a byte >= 0x80 counts it.
type lexer struct {
	src       []byte
	i         int
	line      int
	lineStart int
	cont      int
	depth     int // open brackets
	modes     []fmode
	ends      int  // tFEnd tokens owed for f-strings cut short by a newline
	lineToks  bool // a token was emitted on this logical line
	bol       bool
}

func newLexer(src []byte) lexer {
	l := lexer{src: src, line: 1, bol: true}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		// A byte order mark is not a character of the first line.
		l.i, l.lineStart = 3, 3
	}
	return l
}

// pos is the position of byte i, which must be on the current line and not before the
// last byte counted.
func (l *lexer) pos(i int) code.Pos {
	return code.Pos{Line: l.line, Col: i - l.lineStart - l.cont + 1}
}

// newlineAt records that the byte at i ends a line.
func (l *lexer) newlineAt(i int) {
	l.line++
	l.lineStart = i + 1
	l.cont = 0
}

// skipNewline steps over the line break at i ("\r\n", "\n" or "\r") and returns the index
// after it.
func (l *lexer) skipNewline(i int) int {
	if l.src[i] == '\r' && i+1 < len(l.src) && l.src[i+1] == '\n' {
		i++
	}
	l.newlineAt(i)
	return i + 1
}

// emit fills t as a token of kind k spanning [a, l.i) starting at pos.
func (l *lexer) emit(t *token, k tkind, a int, pos code.Pos) {
	t.kind, t.a, t.b, t.pos, t.end = k, a, l.i, pos, l.pos(l.i)
	t.kw, t.op, t.text, t.body = kwNone, "", nil, span{}
	t.bol = l.bol && k != tNewline
	if k != tNewline && k != tEOF {
		l.bol = false
		l.lineToks = true
	}
}

// next reads the next token into t.
func (l *lexer) next(t *token) {
	if l.ends > 0 {
		l.ends--
		l.emit(t, tFEnd, l.i, l.pos(l.i))
		return
	}
	if n := len(l.modes); n > 0 {
		switch l.modes[n-1].kind {
		case mStr:
			l.fstrText(t)
			return
		case mSpec:
			l.fspec(t)
			return
		}
	}
	l.scan(t)
}

// Character classes for scan.
const (
	cOp = iota
	cSpace
	cNewline
	cHash
	cBackslash
	cIdent
	cDigit
	cQuote
	cDot
)

var class = func() (c [256]uint8) {
	for i := range 256 {
		switch {
		case i >= 0x80 || i == '_' || i >= 'a' && i <= 'z' || i >= 'A' && i <= 'Z':
			c[i] = cIdent
		case i >= '0' && i <= '9':
			c[i] = cDigit
		}
	}
	c[' '], c['\t'], c['\f'], c['\v'], c[0] = cSpace, cSpace, cSpace, cSpace, cSpace
	c['\n'], c['\r'] = cNewline, cNewline
	c['#'], c['\\'], c['"'], c['\''], c['.'] = cHash, cBackslash, cQuote, cQuote, cDot
	return c
}()

// scan reads a token in ordinary mode (also inside an f-string's replacement field).
func (l *lexer) scan(t *token) {
	src := l.src
	for l.i < len(src) {
		c := src[l.i]
		switch class[c] {
		case cSpace:
			l.i++
			for l.i < len(src) && class[src[l.i]] == cSpace {
				l.i++
			}
		case cNewline:
			if l.newline(t) {
				return
			}
		case cHash:
			i := l.i
			for i < len(src) && src[i] != '\n' && src[i] != '\r' {
				i++
			}
			l.i = i
		case cBackslash:
			l.i++
			if l.i < len(src) && (src[l.i] == '\n' || src[l.i] == '\r') {
				l.i = l.skipNewline(l.i)
			}
		case cIdent:
			l.ident(t)
			return
		case cDigit:
			l.number(t)
			return
		case cQuote:
			l.str(t, l.i, l.pos(l.i), 0)
			return
		case cDot:
			if l.i+1 < len(src) && class[src[l.i+1]] == cDigit {
				l.number(t)
				return
			}
			l.op(t)
			return
		default:
			if l.op(t) {
				return
			}
		}
	}
	l.eof(t)
}

// eof emits the last NEWLINE, then EOF.
func (l *lexer) eof(t *token) {
	l.modes = l.modes[:0]
	if l.lineToks {
		l.emit(t, tNewline, l.i, l.pos(l.i))
		l.lineToks = false
		return
	}
	l.emit(t, tEOF, l.i, l.pos(l.i))
}

// newline handles the line break at l.i. It reports whether it emitted a token: a NEWLINE
// ending a logical line, or the ends of single-quoted f-strings a line break cuts short.
func (l *lexer) newline(t *token) bool {
	if n := len(l.modes); n > 0 {
		if m := l.modes[n-1]; m.kind == mField && !m.triple && l.depth <= m.depth {
			l.cutFString()
			l.next(t)
			return true
		}
		l.i = l.skipNewline(l.i)
		return false
	}
	if l.depth == 0 && l.lineToks {
		l.emit(t, tNewline, l.i, l.pos(l.i))
		l.i = l.skipNewline(l.i)
		l.lineToks = false
		l.bol = true
		return true
	}
	l.i = l.skipNewline(l.i)
	return false
}

// cutFString ends the innermost single-quoted f-string (and what is open inside it) at an
// unescaped line break, which Python reports as unterminated; the tFEnd is owed.
func (l *lexer) cutFString() {
	for n := len(l.modes); n > 0; n-- {
		m := l.modes[n-1]
		l.modes = l.modes[:n-1]
		if m.kind == mField {
			l.depth = m.depth
		}
		if m.kind == mStr {
			l.ends++
			if !m.triple {
				return
			}
		}
	}
}

// identChar is true for the bytes an identifier goes on with (below 0x80).
var identChar = func() (c [128]bool) {
	for i := range 128 {
		c[i] = i == '_' || i >= 'a' && i <= 'z' || i >= 'A' && i <= 'Z' || i >= '0' && i <= '9'
	}
	return c
}()

// ident reads a name, or a string literal when the name is a string prefix followed by a
// quote.
func (l *lexer) ident(t *token) {
	src, start := l.src, l.i
	pos := l.pos(start)
	i, cont := start, 0
	for i < len(src) {
		c := src[i]
		if c < 0x80 {
			if !identChar[c] {
				break
			}
		} else if c&0xC0 == 0x80 {
			cont++
		}
		i++
	}
	l.i, l.cont = i, l.cont+cont
	if i < len(src) && (src[i] == '"' || src[i] == '\'') && i-start <= 2 {
		if fl, ok := prefix(src[start:i]); ok {
			l.str(t, start, pos, fl)
			return
		}
	}
	l.emit(t, tName, start, pos)
	t.kw = keyword(src[start:i])
}

// Flags of a string prefix.
const (
	pRaw = 1 << iota
	pBytes
	pF // f and t (template) strings: both have replacement fields
)

// prefix reports the flags of a string prefix, or false when p is not one.
func prefix(p []byte) (int, bool) {
	fl := 0
	for _, c := range p {
		var f int
		switch c | 0x20 {
		case 'r':
			f = pRaw
		case 'b':
			f = pBytes
		case 'f', 't':
			f = pF
		case 'u': // alone, or ur (Python 2)
			if len(p) != 1 && (len(p) != 2 || p[1]|0x20 != 'r') {
				return 0, false
			}
			continue
		default:
			return 0, false
		}
		if fl&f != 0 || fl&(pBytes|pF) != 0 && f&(pBytes|pF) != 0 {
			return 0, false
		}
		fl |= f
	}
	return fl, true
}

// number reads a numeric literal (ints, floats, exponents, imaginary, underscores).
func (l *lexer) number(t *token) {
	src, start := l.src, l.i
	hex := src[start] == '0' && start+1 < len(src) && src[start+1]|0x20 == 'x'
	i := start
	for i < len(src) {
		c := src[i]
		if c >= 0x80 || !identChar[c] && c != '.' {
			break
		}
		if (c == 'e' || c == 'E') && !hex && i+1 < len(src) && (src[i+1] == '+' || src[i+1] == '-') {
			i++
		}
		i++
	}
	pos := l.pos(start)
	l.i = i
	l.emit(t, tNumber, start, pos)
}

// ops3 and ops2 are the operators longer than one character.
var ops3 = [...]string{"**=", "//=", ">>=", "<<=", "..."}
var ops2 = [...]string{"**", "//", ">>", "<<", "<=", ">=", "==", "!=", "->", ":=", "+=", "-=",
	"*=", "/=", "%=", "&=", "|=", "^=", "@=", "<>"}

// opSecond marks the bytes a longer operator goes on with.
var opSecond = [256]bool{'=': true, '*': true, '/': true, '<': true, '>': true, '.': true}

// ops1 holds each ASCII byte as an operator string, so operators cost no allocation.
var ops1 = func() (o [128]string) {
	for i := range 128 {
		o[i] = string(rune(i))
	}
	return o
}()

// op reads an operator. Brackets count towards the depth; inside a replacement field, '}'
// at the field's depth closes it and ':' starts its format spec. It reports false when it
// emitted nothing (a stray byte).
func (l *lexer) op(t *token) bool {
	src, start := l.src, l.i
	pos := l.pos(start)
	c := src[start]
	if c >= 0x80 {
		l.i++
		return false
	}
	if n := len(l.modes); n > 0 && l.modes[n-1].kind == mField && l.depth <= l.modes[n-1].depth {
		switch c {
		case '}':
			l.i++
			l.modes = l.modes[:n-1]
			l.emit(t, tFClose, start, pos)
			return true
		case ':':
			l.i++
			l.modes[n-1].kind = mSpec
			l.fspec(t)
			return true
		}
	}
	l.i, t.op = start+1, ops1[c]
	if start+1 < len(src) && opSecond[src[start+1]] {
		if s := l.longOp(start); s != "" {
			l.i, t.op = start+len(s), s
		}
	}
	l.bracket(c)
	op := t.op
	l.emit(t, tOp, start, pos)
	t.op = op
	return true
}

// longOp returns the operator of two or three characters at i, or "".
func (l *lexer) longOp(i int) string {
	rest := l.src[i:]
	if len(rest) >= 3 {
		for _, o := range ops3 {
			if string(rest[:3]) == o {
				return o
			}
		}
	}
	if len(rest) >= 2 {
		for _, o := range ops2 {
			if string(rest[:2]) == o {
				return o
			}
		}
	}
	return ""
}

// bracket counts an opening or closing bracket; a closer never goes below the innermost
// replacement field's depth (or zero).
func (l *lexer) bracket(c byte) {
	switch c {
	case '(', '[', '{':
		l.depth++
	case ')', ']', '}':
		floor := 0
		if n := len(l.modes); n > 0 {
			floor = l.modes[n-1].depth
		}
		if l.depth > floor {
			l.depth--
		}
	}
}
