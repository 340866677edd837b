package ruby

import (
	"bytes"
	"unicode/utf8"

	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

// quoted reads '...', "...", `...` (a command, read as a string) from the quote at l.i;
// sym makes it a quoted symbol (:"..."), whose start is one byte before.
func (l *lexer) quoted(q byte, sym bool) {
	s := l.i
	if sym {
		s--
	}
	l.i++
	p0 := len(l.parts)
	if q == '\'' {
		l.plain(q, 0, len(l.src))
	} else {
		l.interp(q, 0, len(l.src))
	}
	k := kind(tStr)
	if sym {
		k = tSym
	} else if l.i < len(l.src) && l.src[l.i] == ':' && (l.i+1 >= len(l.src) || l.src[l.i+1] != ':') && !l.ternary() {
		k = tLabel // "name": value
		l.i++
	}
	l.strs++
	l.emit(token{kind: k, s: int32(s), a: int32(s), b: int32(l.i), p0: int32(p0), p1: int32(len(l.parts))})
}

// closer returns the delimiter closing open, and whether it nests.
func closer(open byte) (byte, bool) {
	switch open {
	case '(':
		return ')', true
	case '[':
		return ']', true
	case '{':
		return '}', true
	case '<':
		return '>', true
	}
	return open, false
}

// percent reads %q(...), %Q(...), %(...), %w[...], %W[...], %i[...], %r{...}, %x(...),
// %s(...), and reports false when the % opens none.
func (l *lexer) percent() bool {
	j := l.i + 1
	typ := byte('Q')
	if j < len(l.src) && bytes.IndexByte([]byte("qQwWiIrsx"), l.src[j]) >= 0 {
		typ = l.src[j]
		j++
	}
	if j >= len(l.src) || lexkit.IsIdent(l.src[j]) || l.src[j] == ' ' || l.src[j] == '\n' || l.src[j] == '=' && typ == 'Q' && j == l.i+1 {
		return false
	}
	open := l.src[j]
	term, nests := closer(open)
	if !nests {
		open = 0
	}
	s := l.i
	l.i = j + 1
	switch typ {
	case 'w', 'W':
		l.words(s, term, open, typ == 'W')
		return true
	case 'i', 'I', 'r', 's':
		p0 := len(l.parts)
		l.plain(term, open, len(l.src))
		l.parts = l.parts[:p0]
		kd := kind(tLit)
		if typ == 's' {
			kd = tSym
		}
		l.emit(token{kind: kd, s: int32(s), a: int32(j + 1), b: int32(max(l.i-1, j+1))})
		return true
	}
	p0 := len(l.parts)
	if typ == 'q' {
		l.plain(term, open, len(l.src))
	} else {
		l.interp(term, open, len(l.src))
	}
	l.strs++
	l.emit(token{kind: tStr, s: int32(s), a: int32(s), b: int32(l.i), p0: int32(p0), p1: int32(len(l.parts))})
	return true
}

// words reads the words of %w[...] as an array literal of strings: "[", the words with
// "," between them, "]".
func (l *lexer) words(s int, term, open byte, interp bool) {
	end := l.i
	depth := 0
	for end < len(l.src) {
		c := l.src[end]
		if c == '\\' {
			end += 2
			continue
		}
		if open != 0 && c == open {
			depth++
		} else if c == term {
			if depth == 0 {
				break
			}
			depth--
		}
		end++
	}
	end = min(end, len(l.src))
	l.opAt('[', s, l.i)
	for l.i < end {
		for l.i < end && isBlank(l.src[l.i]) {
			l.i++
		}
		if l.i >= end {
			break
		}
		w := l.i
		for l.i < end && !isBlank(l.src[l.i]) {
			l.i++
		}
		p0 := len(l.parts)
		stop := l.i
		l.i = w
		if interp {
			l.interp(0, 0, stop)
		} else {
			l.plain(0, 0, stop)
		}
		l.strs++
		l.emit(token{kind: tStr, s: int32(w), a: int32(w), b: int32(stop), p0: int32(p0), p1: int32(len(l.parts))})
		l.opAt(',', stop, stop)
	}
	l.opAt(']', end, min(end+1, len(l.src)))
	l.i = min(end+1, len(l.src))
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// opAt emits the operator op spanning [a, b) (for the brackets made up around %w words).
func (l *lexer) opAt(op byte, a, b int) {
	i := l.i
	l.i = a
	l.op(op, b-a)
	l.i = i
}

// regexp reads /.../flags as an opaque literal.
func (l *lexer) regexp() {
	s := l.i
	j := l.i + 1
	for j < len(l.src) && l.src[j] != '/' && l.src[j] != '\n' {
		if l.src[j] == '\\' {
			j++
		}
		j++
	}
	j++
	for j < len(l.src) && lexkit.IsIdent(l.src[j]) {
		j++
	}
	l.i = min(j, len(l.src))
	l.emit(token{kind: tLit, s: int32(s), a: int32(s), b: int32(l.i)})
}

// plain reads a body without interpolation up to the unescaped term byte (then past it),
// nesting open ... term pairs, or up to limit; only \\ and \term are escapes.
func (l *lexer) plain(term, open byte, limit int) {
	l.buf, l.seg, l.esc = l.buf[:0], l.i, false
	depth := 0
	for l.i < limit {
		c := l.src[l.i]
		switch {
		case c == term && term != 0 && depth == 0:
			l.flush()
			l.i++
			return
		case c == term && term != 0:
			depth--
		case c == open && open != 0:
			depth++
		case c == '\\' && l.i+1 < limit && (l.src[l.i+1] == '\\' || l.src[l.i+1] == term && term != 0):
			l.esc = true
			l.buf = append(l.buf, l.src[l.i+1])
			l.i += 2
			continue
		}
		l.buf = append(l.buf, c)
		l.i++
	}
	l.flush()
}

// flush ends the literal text read so far.
func (l *lexer) flush() {
	switch {
	case l.esc && len(l.buf) > 0:
		l.parts = append(l.parts, lexkit.Part{Text: string(l.buf)})
	case !l.esc && l.i > l.seg:
		l.parts = append(l.parts, lexkit.Part{A: int32(l.seg), B: int32(l.i)})
	}
	l.buf, l.esc = l.buf[:0], false
}

var escapes = [256]byte{'n': '\n', 't': '\t', 'r': '\r', 'v': '\v', 'f': '\f', 'e': 0x1b, 's': ' ',
	'a': 7, 'b': 8, '0': 0}

// escape decodes the escape at l.i in a double-quoted body.
func (l *lexer) escape() {
	l.esc = true
	n := l.src[l.i+1]
	switch {
	case n == '0' || escapes[n] != 0:
		l.buf = append(l.buf, escapes[n])
		l.i += 2
	case n == '\n':
		l.i += 2
	case n == 'u' && l.i+2 < len(l.src):
		j, v := l.i+2, 0
		braced := l.src[j] == '{'
		if braced {
			j++
		}
		for k := 0; j < len(l.src) && hexVal(l.src[j]) >= 0 && (braced || k < 4) && v < utf8.MaxRune; k++ {
			v = v*16 + hexVal(l.src[j])
			j++
		}
		if braced && j < len(l.src) && l.src[j] == '}' {
			j++
		}
		l.buf = utf8.AppendRune(l.buf, rune(v))
		l.i = j
	case n == 'x' && l.i+2 < len(l.src) && hexVal(l.src[l.i+2]) >= 0:
		v, j := 0, l.i+2
		for j < len(l.src) && j < l.i+4 && hexVal(l.src[j]) >= 0 {
			v = v*16 + hexVal(l.src[j])
			j++
		}
		l.buf = append(l.buf, byte(v))
		l.i = j
	default:
		l.buf = append(l.buf, n)
		l.i += 2
	}
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c|0x20 >= 'a' && c|0x20 <= 'f':
		return int(c|0x20-'a') + 10
	}
	return -1
}
