package js

import "strings"

// kind is a token's kind.
type kind uint8

const (
	tEOF   kind = iota
	tName       // identifier or keyword, #private names included
	tNum        // numeric literal
	tStr        // '...' or "..."
	tTmpl       // `...` without substitutions
	tTHead      // `...${
	tTMid       // }...${
	tTTail      // }...`
	tRegex      // /.../flags
	tPunct      // an operator longer than one byte, or a control character
	// A one-byte punctuation token's kind is the byte itself ('(', ',', '>', ...), from '!'
	// on, so that the reader tests one with a single comparison.
)

// isPunct reports whether a kind is punctuation.
func isPunct(k kind) bool { return k == tPunct || k > ' ' }

// Token flags.
const (
	fNL   uint8 = 1 << iota // a line break comes before the token
	fOpen                   // a string, template or comment the file ends inside
	fWord                   // a name the reader gives a meaning (see isWord)
)

// token is a span of the source; its text is src[start:end]. For an opening bracket, span
// is how many tokens on its closing bracket is (farSpan when too far to say, 0 when none
// closes it), so that the reader steps over a bracketed stretch at once.
type token struct {
	start, end int32
	kind       kind
	flags      uint8
	span       uint16
}

// farSpan is the span of a bracket closed too far away for a token to say.
const farSpan = 0xFFFF

// lexer turns the source into tokens in one pass. braces remembers, for every open brace,
// whether it opened a template hole, so that the matching } resumes the template.
type lexer struct {
	src    string
	i      int
	toks   []token
	braces []bool
	open   []int32 // the opening brackets not yet closed
	nl     bool
	// parens and strs count the ( and string tokens: at most that many calls and strings.
	parens, strs int
}

// lex returns the tokens of src, ending with one tEOF token.
// The tokens are appended to buf.
func lex(src string, buf []token) *lexer {
	if want := len(src)/4 + 16; cap(buf) < want {
		buf = make([]token, 0, want)
	}
	l := &lexer{src: src, toks: buf}
	l.skipHashbang()
	for {
		l.skipSpace()
		if l.i >= len(l.src) {
			break
		}
		l.next()
	}
	l.toks = append(l.toks, token{start: int32(len(src)), end: int32(len(src)), kind: tEOF})
	return l
}

func (l *lexer) skipHashbang() {
	if strings.HasPrefix(l.src, "\ufeff") {
		l.i = 3
	}
	if strings.HasPrefix(l.src[l.i:], "#!") {
		l.skipLine()
	}
}

// skipLine moves to the next line break (not past it).
func (l *lexer) skipLine() {
	if j := strings.IndexByte(l.src[l.i:], '\n'); j >= 0 {
		l.i += j
	} else {
		l.i = len(l.src)
	}
}

// skipSpace skips white space and comments, noting line breaks.
func (l *lexer) skipSpace() {
	for l.i < len(l.src) {
		switch c := l.src[l.i]; c {
		case ' ', '\t', '\r', '\f', '\v':
			l.i++
		case '\n':
			l.nl = true
			l.i++
		case '/':
			if !l.skipComment() {
				return
			}
		default:
			if c < 0x80 || !l.skipUnicodeSpace() {
				return
			}
		}
	}
}

// skipComment skips a comment at l.i, if there is one.
func (l *lexer) skipComment() bool {
	if l.i+1 >= len(l.src) {
		return false
	}
	switch l.src[l.i+1] {
	case '/':
		l.skipLine()
		return true
	case '*':
		j := strings.Index(l.src[l.i+2:], "*/")
		end := len(l.src)
		if j >= 0 {
			end = l.i + 2 + j + 2
		}
		if strings.IndexByte(l.src[l.i:end], '\n') >= 0 {
			l.nl = true
		}
		l.i = end
		return true
	}
	return false
}

// skipUnicodeSpace skips a no-break space, a byte order mark or a line or paragraph
// separator.
func (l *lexer) skipUnicodeSpace() bool {
	s := l.src[l.i:]
	switch {
	case strings.HasPrefix(s, "\u00a0"):
		l.i += 2
	case strings.HasPrefix(s, "\ufeff"):
		l.i += 3
	case strings.HasPrefix(s, "\u2028"), strings.HasPrefix(s, "\u2029"):
		l.i += 3
		l.nl = true
	default:
		return false
	}
	return true
}

// Lexical classes of a token's first byte, for next's dispatch: one jump on a table
// rather than a chain of tests, whose branches a processor mispredicts on every token.
const (
	xOp     = iota // an operator punctLen measures
	xIdent         // starts an identifier
	xDigit         // starts a number
	xDot           // . ... or a number
	xQuote         // ' or "
	xTick          // `
	xHash          // # (a private name) or an operator
	xOpen          // ( [ {
	xClose         // ) ] }
	xSlash         // / /= or a regular expression
	xSingle        // a one-byte operator that never starts a longer one
)

var lexClass = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case classes[c]&cStart != 0:
			t[c] = xIdent
		case c >= '0' && c <= '9':
			t[c] = xDigit
		}
	}
	t['.'], t['\''], t['"'], t['`'], t['#'], t['/'] = xDot, xQuote, xQuote, xTick, xHash, xSlash
	t['('], t['['], t['{'], t[')'], t[']'], t['}'] = xOpen, xOpen, xOpen, xClose, xClose, xClose
	for _, c := range ",;:~@>\\" {
		t[c] = xSingle
	}
	return t
}()

// next reads one token at l.i.
func (l *lexer) next() {
	start := l.i
	c := l.src[l.i]
	k := kind(c)
	switch lexClass[c] {
	case xIdent:
		l.i = scanIdent(l.src, l.i+1)
		if isWord(l.src[start:l.i]) {
			l.emit(start, tName, fWord)
			return
		}
		k = tName
	case xDigit:
		l.i = scanNumber(l.src, l.i)
		k = tNum
	case xQuote:
		l.strs++
		l.string(start, c)
		return
	case xTick:
		l.strs++
		l.i++
		l.template(start, false)
		return
	case xOpen:
		l.opening(c)
	case xClose:
		if l.closing(start, c) {
			return
		}
	case xSingle:
		l.i++
	case xSlash:
		if l.regexOK() {
			l.regex(start)
			return
		}
		k = l.op(c)
	case xDot:
		if l.i+1 < len(l.src) && isDigit(l.src[l.i+1]) {
			l.i = scanNumber(l.src, l.i)
			k = tNum
		} else {
			k = l.op(c)
		}
	case xHash:
		if l.i+1 < len(l.src) && isIdentStart(l.src[l.i+1]) {
			l.i = scanIdent(l.src, l.i+1)
			k = tName
		} else {
			k = l.op(c)
		}
	default:
		k = l.op(c)
	}
	l.emit(start, k, 0)
}

// op reads an operator at l.i, whose first byte is c, and returns its kind.
func (l *lexer) op(c byte) kind {
	n := punctLen(l.src, l.i)
	l.i += n
	if n == 1 && c > ' ' {
		return kind(c)
	}
	return tPunct
}

// opening notes an opening bracket, about to be emitted.
func (l *lexer) opening(c byte) {
	switch c {
	case '{':
		l.braces = append(l.braces, false)
	case '(':
		l.parens++
	}
	l.open = append(l.open, int32(len(l.toks)))
	l.i++
}

// closing notes a closing bracket, about to be emitted; true when the brace closed a
// template hole, and the template's text that follows was read instead.
func (l *lexer) closing(start int, c byte) bool {
	if n := len(l.braces); c == '}' && n > 0 {
		hole := l.braces[n-1]
		l.braces = l.braces[:n-1]
		if hole {
			l.i++
			l.template(start, true)
			return true
		}
	}
	l.close()
	l.i++
	return false
}

// close matches the closing bracket about to be emitted with the innermost open one.
func (l *lexer) close() {
	n := len(l.open)
	if n == 0 {
		return
	}
	o := l.open[n-1]
	l.open = l.open[:n-1]
	l.toks[o].span = uint16(min(len(l.toks)-int(o), farSpan))
}

// emit appends a token. Its fields are stored one by one in place: a token assembled
// in a temporary and then copied would be read back wider than it was written, which
// stalls the processor's store forwarding on every token.
func (l *lexer) emit(start int, k kind, flags uint8) {
	if l.nl {
		flags |= fNL
		l.nl = false
	}
	n := len(l.toks)
	if n == cap(l.toks) {
		l.toks = append(l.toks, token{})
	} else {
		l.toks = l.toks[:n+1]
	}
	t := &l.toks[n]
	t.start, t.end, t.kind, t.flags, t.span = int32(start), int32(l.i), k, flags, 0
}

// string reads a quoted string; an unescaped line break ends an unterminated one.
func (l *lexer) string(start int, q byte) {
	i := l.i + 1
	for i < len(l.src) {
		switch l.src[i] {
		case q:
			l.i = i + 1
			l.emit(start, tStr, 0)
			return
		case '\\':
			i += 2
			if i < len(l.src) && l.src[i-1] == '\r' && l.src[i] == '\n' {
				i++
			}
		case '\n':
			l.i = i
			l.emit(start, tStr, fOpen)
			return
		default:
			i++
		}
	}
	l.i = len(l.src)
	l.emit(start, tStr, fOpen)
}

// template reads template text from l.i up to the closing backquote or the next ${.
// cont is true when the text follows the } that closes a hole.
func (l *lexer) template(start int, cont bool) {
	i := l.i
	for i < len(l.src) {
		switch l.src[i] {
		case '`':
			l.i = i + 1
			l.emit(start, pick(cont, tTTail, tTmpl), 0)
			return
		case '\\':
			i += 2
		case '$':
			if i+1 < len(l.src) && l.src[i+1] == '{' {
				l.i = i + 2
				l.braces = append(l.braces, true)
				l.emit(start, pick(cont, tTMid, tTHead), 0)
				return
			}
			i++
		default:
			i++
		}
	}
	l.i = len(l.src)
	l.emit(start, pick(cont, tTTail, tTmpl), fOpen)
}

func pick(c bool, a, b kind) kind {
	if c {
		return a
	}
	return b
}

// regex reads a regular expression literal: a / inside a [class] does not end it, a line
// break ends an unterminated one.
func (l *lexer) regex(start int) {
	i := l.i + 1
	class := false
	for i < len(l.src) {
		c := l.src[i]
		switch {
		case c == '\\':
			i += 2
			continue
		case c == '\n':
			l.i = i
			l.emit(start, tRegex, fOpen)
			return
		case c == '[':
			class = true
		case c == ']':
			class = false
		case c == '/' && !class:
			l.i = scanIdent(l.src, i+1)
			l.emit(start, tRegex, 0)
			return
		}
		i++
	}
	l.i = len(l.src)
	l.emit(start, tRegex, fOpen)
}

// regexOK reports whether a / here starts a regular expression rather than a division:
// it does at the start of an expression, after an operator, an opening bracket or a
// keyword such as return.
func (l *lexer) regexOK() bool {
	n := len(l.toks)
	if n == 0 {
		return true
	}
	t := l.toks[n-1]
	switch t.kind {
	case tNum, tStr, tTmpl, tTTail, tRegex:
		return false
	case tName:
		if n >= 2 && isPunct(l.toks[n-2].kind) {
			if p := l.src[l.toks[n-2].start:l.toks[n-2].end]; p == "." || p == "?." {
				return false
			}
		}
		return regexKeyword(l.src[t.start:t.end])
	default:
		switch l.src[t.start:t.end] {
		case ")", "]", "++", "--", "<":
			// "<" then "/" is a JSX closing tag.
			return false
		case "}":
			// "/>" after a JSX attribute's braces closes the tag.
			return l.i+1 >= len(l.src) || l.src[l.i+1] != '>'
		}
	}
	return true
}

// isWord reports whether a name is one the reader treats apart: a keyword that starts a
// statement or an expression, an operator word, a literal. Any other name is a plain
// identifier, which the reader then never compares with its keywords.
func isWord(w string) bool {
	if len(w) < 2 || len(w) > 10 || w[0] < 'a' || w[0] > 'y' || wordShapes[w[0]-'a']&(1<<len(w)) == 0 {
		return false
	}
	switch w {
	case "import", "export", "function", "async", "class", "abstract", "const", "var", "let",
		"if", "while", "for", "switch", "with", "catch", "else", "do", "try", "finally",
		"debugger", "return", "throw", "break", "continue", "case", "default", "interface",
		"type", "enum", "namespace", "module", "declare", "global",
		"new", "true", "false", "null", "typeof", "void", "delete", "await", "yield",
		"in", "instanceof", "as", "satisfies":
		return true
	}
	return false
}

// wordShapes has, for each first letter, a bit for each length of a word starting with it:
// most names are told apart from the words without comparing them.
var wordShapes = func() (t [26]uint16) {
	for _, w := range strings.Fields(`import export function async class abstract const var let
		if while for switch with catch else do try finally debugger return throw break continue
		case default interface type enum namespace module declare global new true false null
		typeof void delete await yield in instanceof as satisfies`) {
		t[w[0]-'a'] |= 1 << len(w)
	}
	return t
}()

// regexKeyword reports whether a / after this word starts a regular expression.
func regexKeyword(w string) bool {
	switch w {
	case "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw",
		"case", "do", "else", "yield", "await":
		return true
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// Character classes, by byte: what can start and continue an identifier (any byte of a
// non-ASCII character counts as a letter).
const (
	cStart = 1 << iota
	cPart
)

var classes = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c == '$', c >= 0x80:
			t[c] = cStart | cPart
		case c >= '0' && c <= '9':
			t[c] = cPart
		}
	}
	return t
}()

func isIdentStart(c byte) bool { return classes[c]&cStart != 0 }

// scanIdent returns the end of the identifier characters from i.
func scanIdent(s string, i int) int {
	for i < len(s) {
		c := s[i]
		if classes[c]&cPart == 0 || c >= 0x80 && isUnicodeSpace(s[i:]) {
			break
		}
		i++
	}
	return i
}

func isUnicodeSpace(s string) bool {
	return strings.HasPrefix(s, "\u00a0") || strings.HasPrefix(s, "\ufeff") ||
		strings.HasPrefix(s, "\u2028") || strings.HasPrefix(s, "\u2029")
}

// scanNumber returns the end of the numeric literal at i: decimal with fraction and
// exponent, 0x/0o/0b, separators and the BigInt suffix.
func scanNumber(s string, i int) int {
	if s[i] == '0' && i+1 < len(s) && strings.IndexByte("xXoObB", s[i+1]) >= 0 {
		return scanIdent(s, i+2)
	}
	i = scanDigits(s, i)
	if i < len(s) && s[i] == '.' {
		i = scanDigits(s, i+1)
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			i = scanDigits(s, j)
		}
	}
	if i < len(s) && s[i] == 'n' {
		i++
	}
	return i
}

func scanDigits(s string, i int) int {
	for i < len(s) && (isDigit(s[i]) || s[i] == '_') {
		i++
	}
	return i
}

// puncts lists, by first byte, the operators longer than one byte, longest first. ">" is
// always one byte long: the parser joins ">" ">" "=" itself, so that type arguments such as
// Map<string, Array<number>> close one at a time.
var puncts = [256][]string{
	'.': {"..."},
	'?': {"??=", "?.", "??"},
	'=': {"===", "==", "=>"},
	'!': {"!==", "!="},
	'<': {"<<=", "<<", "<="},
	'*': {"**=", "**", "*="},
	'&': {"&&=", "&&", "&="},
	'|': {"||=", "||", "|="},
	'+': {"++", "+="},
	'-': {"--", "-="},
	'/': {"/="},
	'%': {"%="},
	'^': {"^="},
}

// punctLen returns the length of the operator at i.
func punctLen(s string, i int) int {
	for _, p := range puncts[s[i]] {
		if strings.HasPrefix(s[i:], p) {
			if p == "?." && i+2 < len(s) && isDigit(s[i+2]) {
				continue // a ? .5 : b
			}
			return len(p)
		}
	}
	return 1
}
