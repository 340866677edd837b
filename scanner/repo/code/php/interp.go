package php

import (
	"unicode/utf8"

	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

// interp reads an interpolating body from l.i: up to the unescaped term byte (then past it)
// or, for a heredoc (term 0), up to limit. Literal text and holes go to l.parts.
func (l *lexer) interp(term byte, limit int, heredoc bool) {
	l.buf, l.seg, l.esc = l.buf[:0], l.i, false
	src := l.src
	for l.i < limit {
		c := src[l.i]
		var next byte
		if l.i+1 < limit {
			next = src[l.i+1]
		}
		switch {
		case term != 0 && c == term:
			l.flush()
			l.i++
			return
		case c == '\\' && next != 0:
			l.escape(term, heredoc)
		case c == '$' && lexkit.IsIdentStart(next):
			l.flush()
			l.simpleVar(limit)
		case c == '$' && next == '{':
			l.flush()
			l.braced(l.i+1, limit)
		case c == '{' && next == '$':
			l.flush()
			l.braced(l.i, limit)
		default:
			l.buf = append(l.buf, c)
			l.i++
		}
	}
	l.flush()
}

// flush ends the literal text read so far: a range of the source, or the decoded text when
// it held an escape.
func (l *lexer) flush() {
	switch {
	case l.esc && len(l.buf) > 0:
		l.parts = append(l.parts, lexkit.Part{Text: string(l.buf)})
	case !l.esc && l.i > l.seg:
		l.parts = append(l.parts, lexkit.Part{A: int32(l.seg), B: int32(l.i)})
	}
	l.buf, l.esc = l.buf[:0], false
}

// hole records an interpolation named name (bytes of the source) and starts the next
// literal text at end.
func (l *lexer) hole(name []byte, isVar bool, end int) {
	l.parts = append(l.parts, lexkit.Part{Text: l.out.Intern(name), Hole: true, Var: isVar})
	l.i, l.seg = end, end
}

var escapes = [256]byte{'n': '\n', 't': '\t', 'r': '\r', 'v': '\v', 'f': '\f', 'e': 0x1b, '\\': '\\', '$': '$'}

// escape decodes the escape sequence at l.i; an unknown one is kept as written.
func (l *lexer) escape(term byte, heredoc bool) {
	l.esc = true
	n := l.src[l.i+1]
	switch {
	case escapes[n] != 0:
		l.buf = append(l.buf, escapes[n])
		l.i += 2
	case n == term && !heredoc:
		l.buf = append(l.buf, n)
		l.i += 2
	case n >= '0' && n <= '7':
		v, j := 0, l.i+1
		for j < len(l.src) && j < l.i+4 && l.src[j] >= '0' && l.src[j] <= '7' {
			v = v*8 + int(l.src[j]-'0')
			j++
		}
		l.buf = append(l.buf, byte(v))
		l.i = j
	case n == 'x' && l.i+2 < len(l.src) && hexVal(l.src[l.i+2]) >= 0:
		v, j := 0, l.i+2
		for j < len(l.src) && j < l.i+4 && hexVal(l.src[j]) >= 0 {
			v = v*16 + hexVal(l.src[j])
			j++
		}
		l.buf = append(l.buf, byte(v))
		l.i = j
	case n == 'u' && l.i+2 < len(l.src) && l.src[l.i+2] == '{':
		v, j := 0, l.i+3
		for j < len(l.src) && hexVal(l.src[j]) >= 0 && v < utf8.MaxRune {
			v = v*16 + hexVal(l.src[j])
			j++
		}
		if j < len(l.src) && l.src[j] == '}' {
			l.buf = utf8.AppendRune(l.buf, rune(v))
			l.i = j + 1
			return
		}
		l.buf = append(l.buf, '\\')
		l.i++
	default:
		l.buf = append(l.buf, '\\', n)
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

// simpleVar reads "$name", "$name[key]", "$name->prop" inside a string.
func (l *lexer) simpleVar(limit int) {
	a := l.i + 1
	j := a
	for j < limit && lexkit.IsIdent(l.src[j]) {
		j++
	}
	switch {
	case j < limit && l.src[j] == '[':
		k := j + 1
		for k < limit && l.src[k] != ']' && l.src[k] != '"' {
			k++
		}
		if k < limit && l.src[k] == ']' {
			l.hole(lexkit.LastName(l.src[l.i:k+1]), false, k+1)
			return
		}
	case j+2 < limit && l.src[j] == '-' && l.src[j+1] == '>' && lexkit.IsIdentStart(l.src[j+2]):
		k := j + 2
		for k < limit && lexkit.IsIdent(l.src[k]) {
			k++
		}
		l.hole(l.src[j+2:k], false, k)
		return
	}
	l.hole(l.src[a:j], true, j)
}

// braced reads {$expr} (open at the brace) or ${name} / ${expr} (open at the brace after $).
func (l *lexer) braced(open, limit int) {
	end := lexkit.MatchBrace(l.src, open, limit)
	expr := l.src[open+1 : end]
	dollarBrace := open > l.i
	next := min(end+1, limit)
	switch {
	case dollarBrace && lexkit.IsName(expr):
		l.hole(expr, true, next)
	case !dollarBrace && len(expr) > 1 && expr[0] == '$' && lexkit.IsName(expr[1:]):
		l.hole(expr[1:], true, next)
	default:
		l.hole(lexkit.LastName(expr), false, next)
	}
}
