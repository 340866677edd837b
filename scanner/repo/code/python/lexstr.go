package python

import (
	"unicode/utf8"

	"github.com/sunsetscan/sunset/scanner/repo/code"
)

// replacement stands in a value for a NUL character, which would read as a code.Hole.
const replacement = "\uFFFD"

// stop marks the bytes string scanning looks at: quotes, backslash, line breaks, NUL,
// braces (for f-strings) and UTF-8 continuation bytes (for columns).
var stop = func() (s [256]bool) {
	for _, c := range "'\"\\\n\r\x00{}" {
		s[c] = true
	}
	for i := 0x80; i < 0xC0; i++ {
		s[i] = true
	}
	return s
}()

// str reads a string literal whose prefix starts at start and whose quote is at l.i. An
// f-string only has its opening read: its insides come as later tokens.
func (l *lexer) str(t *token, start int, pos code.Pos, fl int) {
	src := l.src
	q := src[l.i]
	triple := l.i+2 < len(src) && src[l.i+1] == q && src[l.i+2] == q
	if triple {
		l.i += 3
	} else {
		l.i++
	}
	if fl&pF != 0 {
		l.modes = append(l.modes, fmode{kind: mStr, quote: q, triple: triple, raw: fl&pRaw != 0})
		l.emit(t, tFStart, start, pos)
		return
	}
	cs := l.i
	end, esc, nul := l.strBody(q, triple)
	l.emit(t, tString, start, pos)
	body := src[cs:end:end]
	switch {
	case esc && fl&pRaw == 0:
		t.text = decode(body, fl&pBytes != 0)
	case nul:
		t.text = replaceNUL(body)
	default:
		t.text = body
		t.body = span{int32(cs), int32(end)}
	}
}

// strBody scans a string's body from l.i up to its closing quote(s), leaving l.i after
// them (or at the line break or end that cuts it short). It returns where the body ends and
// whether it holds a backslash or a NUL.
func (l *lexer) strBody(q byte, triple bool) (end int, esc, nul bool) {
	src := l.src
	i := l.i
	for i < len(src) {
		c := src[i]
		if !stop[c] || c == '{' || c == '}' {
			i++
			continue
		}
		switch {
		case c == q:
			if !triple {
				l.i = i + 1
				return i, esc, nul
			}
			if i+2 < len(src) && src[i+1] == q && src[i+2] == q {
				l.i = i + 3
				return i, esc, nul
			}
			i++
		case c == '\\':
			esc = true
			i++
			if i < len(src) {
				nul = nul || src[i] == 0
				i = l.escaped(i)
			}
		case c == '\n' || c == '\r':
			if !triple {
				l.i = i
				return i, esc, nul
			}
			i = l.skipNewline(i)
		case c == 0:
			nul = true
			i++
		case c >= 0x80:
			l.cont++
			i++
		default: // the other quote
			i++
		}
	}
	l.i = len(src)
	return len(src), esc, nul
}

// escaped steps over the byte at i, which follows a backslash, and returns the index after
// it, keeping the line and column counts.
func (l *lexer) escaped(i int) int {
	switch c := l.src[i]; {
	case c == '\n' || c == '\r':
		return l.skipNewline(i)
	case c&0xC0 == 0x80:
		l.cont++
	}
	return i + 1
}

// decode returns the value of a string body with its escapes read.
func decode(s []byte, isBytes bool) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case 0:
			out = append(out, replacement...)
			i++
		case '\\':
			out, i = escape(out, s, i+1, isBytes)
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

// replaceNUL returns s with each NUL replaced.
func replaceNUL(s []byte) []byte {
	out := make([]byte, 0, len(s)+2)
	for _, c := range s {
		if c == 0 {
			out = append(out, replacement...)
			continue
		}
		out = append(out, c)
	}
	return out
}

// simpleEscapes maps the one-letter escapes to their byte.
var simpleEscapes = [128]byte{'n': '\n', 't': '\t', 'r': '\r', 'a': 7, 'b': 8, 'f': 12, 'v': 11,
	'\\': '\\', '\'': '\'', '"': '"'}

// escape appends the value of the escape whose letter is at i (the backslash before it)
// and returns the index after it. An unknown escape keeps its backslash, as Python does.
func escape(out, s []byte, i int, isBytes bool) ([]byte, int) {
	if i >= len(s) {
		return append(out, '\\'), i
	}
	c := s[i]
	switch {
	case c == '\n':
		return out, i + 1
	case c == '\r':
		if i+1 < len(s) && s[i+1] == '\n' {
			return out, i + 2
		}
		return out, i + 1
	case c < 128 && simpleEscapes[c] != 0:
		return append(out, simpleEscapes[c]), i + 1
	case c == 'x':
		return hexEscape(out, s, i, 2, isBytes)
	case c == 'u' && !isBytes:
		return hexEscape(out, s, i, 4, false)
	case c == 'U' && !isBytes:
		return hexEscape(out, s, i, 8, false)
	case c == 'N' && !isBytes && i+1 < len(s) && s[i+1] == '{':
		for j := i + 2; j < len(s); j++ {
			if s[j] == '}' {
				return append(out, replacement...), j + 1
			}
		}
	case c >= '0' && c <= '7':
		r, j := rune(0), i
		for ; j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7'; j++ {
			r = r*8 + rune(s[j]-'0')
		}
		return appendChar(out, r, isBytes), j
	}
	return append(out, '\\'), i
}

// hexEscape reads the n hex digits after the escape letter at i.
func hexEscape(out, s []byte, i, n int, isBytes bool) ([]byte, int) {
	if i+n >= len(s) {
		return append(out, '\\'), i
	}
	r := rune(0)
	for _, c := range s[i+1 : i+1+n] {
		d, ok := hexDigit(c)
		if !ok {
			return append(out, '\\'), i
		}
		r = r<<4 | rune(d)
	}
	return appendChar(out, r, isBytes), i + 1 + n
}

// appendChar appends the character r of an escape: a byte in a bytes literal, else UTF-8.
func appendChar(out []byte, r rune, isBytes bool) []byte {
	if isBytes && r > 0 && r < 256 {
		return append(out, byte(r))
	}
	return appendRune(out, r)
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c|0x20 >= 'a' && c|0x20 <= 'f':
		return c | 0x20 - 'a' + 10, true
	}
	return 0, false
}

// appendRune appends r as UTF-8; NUL and invalid code points become U+FFFD.
func appendRune(out []byte, r rune) []byte {
	if r == 0 || !utf8.ValidRune(r) {
		return append(out, replacement...)
	}
	return utf8.AppendRune(out, r)
}

// fstrText reads an f-string's literal text up to a replacement field, its closing quote,
// or the line break that cuts a single-quoted one short: a tFText token when there is text
// before it, else the tFOpen or tFEnd itself.
func (l *lexer) fstrText(t *token) {
	m := &l.modes[len(l.modes)-1]
	src, start := l.src, l.i
	pos := l.pos(start)
	var buf []byte // nil while the text is the source as is
	run, i := start, start
	for i < len(src) {
		c := src[i]
		if !stop[c] {
			i++
			continue
		}
		if l.fstrEnds(m, i) {
			if i > start {
				l.fstrEmit(t, start, pos, buf, run, i)
				return
			}
			l.fstrDelim(t, c)
			return
		}
		switch {
		case c == '\n' || c == '\r': // in a triple-quoted f-string
			i = l.skipNewline(i)
		case c == '{' || c == '}' && i+1 < len(src) && src[i+1] == '}':
			buf = append(buf, src[run:i+1]...)
			i += 2
			run = i
		case c == '\\':
			buf, run, i = l.fstrEscape(m, buf, run, i)
		case c == 0:
			buf = append(append(buf, src[run:i]...), replacement...)
			i++
			run = i
		case c >= 0x80:
			l.cont++
			i++
		default: // the other quote, a lone '}'
			i++
		}
	}
	if i > start {
		l.fstrEmit(t, start, pos, buf, run, i)
		return
	}
	l.eof(t)
}

// fstrEnds reports whether the byte at i ends a run of f-string text: the closing quote, a
// '{' opening a field, or a line break that ends a single-quoted f-string.
func (l *lexer) fstrEnds(m *fmode, i int) bool {
	src := l.src
	switch c := src[i]; c {
	case m.quote:
		return !m.triple || i+2 < len(src) && src[i+1] == c && src[i+2] == c
	case '\n', '\r':
		return !m.triple
	case '{':
		return i+1 >= len(src) || src[i+1] != '{'
	}
	return false
}

// fstrEmit emits the f-string text [start, i) as a tFText token; buf holds its value up to
// run when it differs from the source.
func (l *lexer) fstrEmit(t *token, start int, pos code.Pos, buf []byte, run, i int) {
	src := l.src
	l.i = i
	l.emit(t, tFText, start, pos)
	if buf == nil {
		t.text = src[start:i:i]
		return
	}
	t.text = append(buf, src[run:i]...)
}

// fstrDelim emits what the f-string delimiter c at l.i is: the opening of a replacement
// field, or the f-string's end (its closing quote, or a line break ending it unterminated,
// which is not read).
func (l *lexer) fstrDelim(t *token, c byte) {
	m := l.modes[len(l.modes)-1]
	start := l.i
	pos := l.pos(start)
	if c == '{' {
		l.i++
		l.modes = append(l.modes, fmode{kind: mField, quote: m.quote, triple: m.triple, raw: m.raw, depth: l.depth})
		l.emit(t, tFOpen, start, pos)
		return
	}
	l.modes = l.modes[:len(l.modes)-1]
	if c == m.quote {
		l.i++
		if m.triple {
			l.i += 2
		}
	}
	l.emit(t, tFEnd, start, pos)
}

// fstrEscape reads the backslash at i inside an f-string's text and returns the value so
// far, where the source run goes on, and the index after the escape.
func (l *lexer) fstrEscape(m *fmode, buf []byte, run, i int) ([]byte, int, int) {
	src := l.src
	if m.raw {
		i++
		if i < len(src) && (src[i] == m.quote || src[i] == '\\' || src[i] == '\n' || src[i] == '\r') {
			i = l.escaped(i)
		}
		return buf, run, i
	}
	buf = append(buf, src[run:i]...)
	if buf == nil {
		buf = make([]byte, 0, 16)
	}
	if i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r') {
		i = l.skipNewline(i + 1)
		return buf, i, i
	}
	buf, i = escape(buf, src, i+1, false)
	return buf, i, i
}

// fspec skips a replacement field's format spec: it emits the tFOpen of a field nested in
// it, or the tFClose that ends it. A closing quote or a line break that ends the f-string
// ends the spec and its field too.
func (l *lexer) fspec(t *token) {
	src := l.src
	m := l.modes[len(l.modes)-1]
	i := l.i
	for i < len(src) {
		c := src[i]
		switch {
		case c == '{' || c == '}':
			pos := l.pos(i)
			l.i = i + 1
			if c == '{' {
				l.modes = append(l.modes, fmode{kind: mField, quote: m.quote, triple: m.triple, raw: m.raw, depth: l.depth})
				l.emit(t, tFOpen, i, pos)
				return
			}
			l.modes = l.modes[:len(l.modes)-1]
			l.emit(t, tFClose, i, pos)
			return
		case c == m.quote && (!m.triple || i+2 < len(src) && src[i+1] == c && src[i+2] == c),
			(c == '\n' || c == '\r') && !m.triple:
			l.i = i
			l.unwindField()
			l.fstrText(t)
			return
		case c == '\n' || c == '\r':
			i = l.skipNewline(i)
		case c >= 0x80 && c < 0xC0:
			l.cont++
			i++
		default:
			i++
		}
	}
	l.i = len(src)
	l.eof(t)
}

// unwindField pops the fields and specs open inside the innermost f-string's text.
func (l *lexer) unwindField() {
	for n := len(l.modes); n > 0 && l.modes[n-1].kind != mStr; n-- {
		l.depth = l.modes[n-1].depth
		l.modes = l.modes[:n-1]
	}
}

// kw is a keyword the parser tells apart.
type kw uint8

const (
	kwNone kw = iota // not a keyword
	kwAnd
	kwAs
	kwAsync
	kwAwait
	kwClass
	kwDef
	kwElse
	kwFalse
	kwFor
	kwFrom
	kwIf
	kwImport
	kwIn
	kwIs
	kwLambda
	kwNoneLit
	kwNot
	kwOr
	kwTrue
	kwYield
	kwOther // a statement keyword: return, while, try, ...
)

// keywords are the keywords the parser tells apart.
var keywords = map[string]kw{
	"and": kwAnd, "as": kwAs, "async": kwAsync, "await": kwAwait, "class": kwClass,
	"def": kwDef, "else": kwElse, "False": kwFalse, "for": kwFor, "from": kwFrom, "if": kwIf,
	"import": kwImport, "in": kwIn, "is": kwIs, "lambda": kwLambda, "None": kwNoneLit,
	"not": kwNot, "or": kwOr, "True": kwTrue, "yield": kwYield,
	"assert": kwOther, "break": kwOther, "continue": kwOther, "del": kwOther, "elif": kwOther,
	"except": kwOther, "finally": kwOther, "global": kwOther, "nonlocal": kwOther,
	"pass": kwOther, "raise": kwOther, "return": kwOther, "try": kwOther, "while": kwOther,
	"with": kwOther,
}

// kwEntry is a keyword and what it is.
type kwEntry struct {
	word string
	kw   kw
}

// kwIndex lists the keywords by length and first letter, so that telling a name from a
// keyword takes a comparison or two.
var kwIndex = func() (ix [9][128][]kwEntry) {
	for k, v := range keywords {
		ix[len(k)][k[0]] = append(ix[len(k)][k[0]], kwEntry{k, v})
	}
	return ix
}()

// keyword returns the keyword b is, kwNone when it is a plain name.
func keyword(b []byte) kw {
	if len(b) < 2 || len(b) > 8 || b[0] >= 128 {
		return kwNone
	}
	for _, e := range kwIndex[len(b)][b[0]] {
		if string(b) == e.word {
			return e.kw
		}
	}
	return kwNone
}
