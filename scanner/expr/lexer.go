package expr

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

type tokKind uint8

const (
	tEOF tokKind = iota
	tIllegal
	tIdent
	tString // quoted string; val holds the decoded value
	tRaw    // raw string r#"..."#; val holds the content
	tValue  // unquoted value: integer, address, CIDR, range, byte string
	tList   // $name; val holds the name
	tLParen
	tRParen
	tLBrace
	tRBrace
	tLBrack
	tRBrack
	tComma
	tStar
	tEqEq
	tNe
	tLt
	tLe
	tGt
	tGe
	tTilde
	tAmp
	tAndAnd
	tOrOr
	tXorXor
	tBang
)

type token struct {
	kind   tokKind
	pos    Pos
	end    Pos
	text   string // the source text of the token
	val    string // decoded string value or list name
	hashes int    // raw strings
	msg    string // tIllegal: what is wrong
	errPos Pos    // tIllegal: where
}

// scan modes
const (
	modeValue = 1 << iota // a value is expected: letters may start an address or byte string
	modeRegex             // quoted strings are regular expression literals
)

// maxRawHashes is the engine's limit on # around a raw string.
const maxRawHashes = 255

type lexer struct {
	src string
	off int
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentChar(c byte) bool { return isLetter(c) || isDigit(c) }

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func isValueChar(c byte) bool {
	return isHex(c) || c == ':' || c == '.' || c == '/' || c == '-' || c == 'x' || c == 'X'
}

// scan returns the next token. The first character says which class of
// token it is, and each class has its own method; scan calls it directly,
// since a token is large and scan is the parser's hottest path.
func (l *lexer) scan(mode int) token {
	for l.off < len(l.src) && isSpace(l.src[l.off]) {
		l.off++
	}
	start := l.off
	if start >= len(l.src) {
		return token{kind: tEOF, pos: Pos(start), end: Pos(start)}
	}
	c := l.src[start]
	switch {
	case c == '"' && mode&modeRegex != 0:
		return l.scanRegex(start)
	case c == '"':
		return l.scanQuoted(start)
	case c == 'r' && start+1 < len(l.src) && (l.src[start+1] == '"' || l.src[start+1] == '#'):
		return l.scanRaw(start)
	case c == '$':
		return l.scanList(start)
	case isDigit(c), c == ':', c == '-' && start+1 < len(l.src) && isDigit(l.src[start+1]):
		return l.scanValue(start)
	case isLetter(c):
		return l.scanWord(start, mode)
	}
	if k, n := l.punctAt(start); n > 0 {
		return l.punct(start, n, k)
	}
	return l.scanStray(start)
}

// punct1 is the token of each one-character operator and bracket; tEOF
// (the zero) marks a byte that is none.
var punct1 = [256]tokKind{
	'(': tLParen, ')': tRParen, '{': tLBrace, '}': tRBrace, '[': tLBrack, ']': tRBrack,
	',': tComma, '*': tStar, '<': tLt, '>': tGt, '~': tTilde, '&': tAmp, '!': tBang,
}

// punct2 is the token of a two-character operator, or tEOF.
func punct2(two string) tokKind {
	switch two {
	case "==":
		return tEqEq
	case "!=":
		return tNe
	case "<=":
		return tLe
	case ">=":
		return tGe
	case "&&":
		return tAndAnd
	case "||":
		return tOrOr
	case "^^":
		return tXorXor
	}
	return tEOF
}

// punctAt is the operator or bracket at start and its length, or a length
// of 0. Two characters are tried first, so that <= is not read as <.
func (l *lexer) punctAt(start int) (tokKind, int) {
	if start+2 <= len(l.src) {
		if k := punct2(l.src[start : start+2]); k != tEOF {
			return k, 2
		}
	}
	if k := punct1[l.src[start]]; k != tEOF {
		return k, 1
	}
	return tEOF, 0
}

// scanStray makes an illegal token of what starts no token: a stray "..",
// or one character, naming the operator meant when it is half of one.
func (l *lexer) scanStray(start int) token {
	if strings.HasPrefix(l.src[start:], "..") {
		l.off += 2
		return l.illegal(start, start, "unexpected \"..\": a range a..b is only allowed between two values inside a set")
	}
	switch l.src[start] {
	case '=':
		l.off++
		return l.illegal(start, start, "unexpected \"=\": use == or eq to compare")
	case '|':
		l.off++
		return l.illegal(start, start, "unexpected \"|\": use || or or")
	case '^':
		l.off++
		return l.illegal(start, start, "unexpected \"^\": use ^^ or xor")
	}
	r, size := utf8.DecodeRuneInString(l.src[start:])
	l.off += size
	if r == utf8.RuneError && size == 1 {
		return l.illegal(start, start, "invalid UTF-8 byte")
	}
	return l.illegal(start, start, fmt.Sprintf("unexpected character %q", r))
}

func (l *lexer) punct(start, n int, k tokKind) token {
	l.off = start + n
	return token{kind: k, pos: Pos(start), end: Pos(l.off), text: l.src[start:l.off]}
}

func (l *lexer) illegal(start, errPos int, msg string) token {
	return token{kind: tIllegal, pos: Pos(start), end: Pos(l.off), text: l.src[start:l.off], msg: msg, errPos: Pos(errPos)}
}

// scanWord scans what starts with a letter: a field or function name, or
// an address or byte string that happens to (fe80::1, de:ad:be:ef).
func (l *lexer) scanWord(start, mode int) token {
	if isHex(l.src[start]) {
		if t, ok := l.tryLetterValue(start, mode); ok {
			return t
		}
	}
	i := start
	for i < len(l.src) && isIdentChar(l.src[i]) {
		i++
	}
	// Dotted segments: http.request.uri.path, ip.geoip.subdivision_1_iso_code.
	for i+1 < len(l.src) && l.src[i] == '.' && isIdentChar(l.src[i+1]) {
		i++
		for i < len(l.src) && isIdentChar(l.src[i]) {
			i++
		}
	}
	l.off = i
	return token{kind: tIdent, pos: Pos(start), end: Pos(i), text: l.src[start:i]}
}

func (l *lexer) valueRunEnd(start int) int {
	i := start
	if i < len(l.src) && l.src[i] == '-' {
		i++
	}
	for i < len(l.src) && isValueChar(l.src[i]) {
		i++
	}
	return i
}

func (l *lexer) scanValue(start int) token {
	l.off = l.valueRunEnd(start)
	return token{kind: tValue, pos: Pos(start), end: Pos(l.off), text: l.src[start:l.off]}
}

// tryLetterValue recognises an address or byte string that starts with a
// letter (fe80::1, de:ad:be:ef). Outside value mode only a run holding a
// colon qualifies, since a.b is a field name there.
func (l *lexer) tryLetterValue(start, mode int) (token, bool) {
	end := l.valueRunEnd(start)
	if end < len(l.src) && isIdentChar(l.src[end]) {
		return token{}, false
	}
	run := l.src[start:end]
	if mode&modeValue == 0 && !strings.Contains(run, ":") {
		return token{}, false
	}
	if _, err := classifyRun(run, Pos(start)); err != nil {
		return token{}, false
	}
	l.off = end
	return token{kind: tValue, pos: Pos(start), end: Pos(end), text: run}, true
}

func (l *lexer) scanList(start int) token {
	i := start + 1
	for i < len(l.src) && (l.src[i] >= 'a' && l.src[i] <= 'z' || isDigit(l.src[i]) || l.src[i] == '_' || l.src[i] == '.') {
		i++
	}
	name := l.src[start+1 : i]
	// Take in the rest of a would-be name so the error covers it.
	j := i
	for j < len(l.src) && (isIdentChar(l.src[j]) || l.src[j] == '.') {
		j++
	}
	l.off = j
	switch {
	case j > i:
		return l.illegal(start, i, "list names use lowercase letters, digits, _ and . only")
	case name == "":
		return l.illegal(start, start, "expected a list name after $")
	case name[0] == '.' || name[len(name)-1] == '.':
		return l.illegal(start, start, "a list name cannot start or end with \".\"")
	}
	return token{kind: tList, pos: Pos(start), end: Pos(j), text: l.src[start:j], val: name}
}

func (l *lexer) scanQuoted(start int) token {
	// Fast path: no escapes, the value is a slice of the source.
	if k := strings.IndexAny(l.src[start+1:], "\"\\"); k >= 0 && l.src[start+1+k] == '"' {
		l.off = start + 1 + k + 1
		return token{kind: tString, pos: Pos(start), end: Pos(l.off), text: l.src[start:l.off], val: l.src[start+1 : start+1+k]}
	}
	var b strings.Builder
	i := start + 1
	for i < len(l.src) {
		c := l.src[i]
		switch c {
		case '"':
			l.off = i + 1
			return token{kind: tString, pos: Pos(start), end: Pos(l.off), text: l.src[start:l.off], val: b.String()}
		case '\\':
			if i+1 >= len(l.src) {
				l.off = len(l.src)
				return l.illegal(start, start, "string is missing its closing quote")
			}
			e := l.src[i+1]
			switch {
			case e == '"' || e == '\\':
				b.WriteByte(e)
				i += 2
			case e == 'x':
				if i+4 > len(l.src) || !isHex(l.src[i+2]) || !isHex(l.src[i+3]) {
					l.off = l.skipString(i + 2)
					return l.illegal(start, i, "invalid escape: \\x needs two hex digits")
				}
				b.WriteByte(unhex(l.src[i+2])<<4 | unhex(l.src[i+3]))
				i += 4
			case e >= '0' && e <= '7':
				if i+4 > len(l.src) || !isOctal(l.src[i+2]) || !isOctal(l.src[i+3]) {
					l.off = l.skipString(i + 2)
					return l.illegal(start, i, "invalid escape: an octal escape needs three digits (\\OOO)")
				}
				v := int(e-'0')<<6 | int(l.src[i+2]-'0')<<3 | int(l.src[i+3]-'0')
				if v > 255 {
					l.off = l.skipString(i + 2)
					return l.illegal(start, i, fmt.Sprintf("invalid escape: \\%s is more than 255", l.src[i+1:i+4]))
				}
				b.WriteByte(byte(v))
				i += 4
			default:
				r, _ := utf8.DecodeRuneInString(l.src[i+1:])
				l.off = l.skipString(i + 2)
				return l.illegal(start, i, fmt.Sprintf("invalid escape \"\\%c\": use \\\", \\\\, \\xHH or \\OOO", r))
			}
		default:
			b.WriteByte(c)
			i++
		}
	}
	l.off = len(l.src)
	return l.illegal(start, start, "string is missing its closing quote")
}

// skipString moves past the rest of a bad quoted string so that scanning
// resumes after it rather than inside it.
func (l *lexer) skipString(i int) int {
	for i < len(l.src) {
		switch l.src[i] {
		case '\\':
			i += 2
		case '"':
			return i + 1
		default:
			i++
		}
	}
	return len(l.src)
}

// scanRegex lexes a quoted regular expression literal as the engine does:
// escapes stay as written for the regex engine except \" outside a
// character class, and a quote inside [...] does not end the string.
func (l *lexer) scanRegex(start int) token {
	val, end, ok := decodeRegexLiteral(l.src, start+1)
	if !ok {
		l.off = len(l.src)
		return l.illegal(start, start, "string is missing its closing quote")
	}
	l.off = end
	return token{kind: tString, pos: Pos(start), end: Pos(end), text: l.src[start:end], val: val}
}

// decodeRegexLiteral decodes from i (just past the opening quote) and
// returns the pattern and the offset just past the closing quote.
func decodeRegexLiteral(src string, i int) (string, int, bool) {
	// Fast path: no escape and no character class before the closing quote.
	if k := strings.IndexAny(src[i:], "\"\\["); k >= 0 && src[i+k] == '"' {
		return src[i : i+k], i + k + 1, true
	}
	var b strings.Builder
	inClass := false
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\\':
			if i+1 >= len(src) {
				return "", 0, false
			}
			_, size := utf8.DecodeRuneInString(src[i+1:])
			if inClass || src[i+1] != '"' {
				b.WriteByte('\\')
			}
			b.WriteString(src[i+1 : i+1+size])
			i += 1 + size
		case c == '"' && !inClass:
			return b.String(), i + 1, true
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			i++
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", 0, false
}

func (l *lexer) scanRaw(start int) token {
	i := start + 1
	n := 0
	for i < len(l.src) && l.src[i] == '#' {
		i++
		n++
	}
	if i >= len(l.src) || l.src[i] != '"' {
		l.off = i
		return l.illegal(start, i, "expected \" to open the raw string")
	}
	if n > maxRawHashes {
		l.off = len(l.src)
		return l.illegal(start, start, fmt.Sprintf("a raw string takes at most %d #, found %d", maxRawHashes, n))
	}
	body := i + 1
	closing := "\"" + strings.Repeat("#", n)
	k := strings.Index(l.src[body:], closing)
	if k < 0 {
		l.off = len(l.src)
		return l.illegal(start, start, "raw string is missing its closing "+closing)
	}
	l.off = body + k + len(closing)
	return token{kind: tRaw, pos: Pos(start), end: Pos(l.off), text: l.src[start:l.off], val: l.src[body : body+k], hashes: n}
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}
