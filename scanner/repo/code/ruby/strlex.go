package ruby

import (
	"bytes"

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

// plain reads a body without interpolation (see lexkit.Body.Plain).
func (l *lexer) plain(term, open byte, limit int) {
	l.body.Src, l.body.I, l.body.Parts, l.body.Out, l.body.Sigils = l.src, l.i, l.parts, l.out, true
	l.body.Plain(term, open, limit)
	l.i, l.parts = l.body.I, l.body.Parts
}

// interp reads an interpolating body (see lexkit.Body.Interp).
func (l *lexer) interp(term, open byte, limit int) {
	l.body.Src, l.body.I, l.body.Parts, l.body.Out, l.body.Sigils = l.src, l.i, l.parts, l.out, true
	l.body.Interp(term, open, limit)
	l.i, l.parts = l.body.I, l.body.Parts
}
