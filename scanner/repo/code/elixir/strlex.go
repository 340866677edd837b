package elixir

import (
	"bytes"

	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

// plain reads a body without interpolation (see lexkit.Body.Plain).
func (l *lexer) plain(term, open byte, limit int) {
	l.body.Src, l.body.I, l.body.Parts, l.body.Out = l.src, l.i, l.parts, l.out
	l.body.Plain(term, open, limit)
	l.i, l.parts = l.body.I, l.body.Parts
}

// interp reads an interpolating body (see lexkit.Body.Interp).
func (l *lexer) interp(term, open byte, limit int) {
	l.body.Src, l.body.I, l.body.Parts, l.body.Out = l.src, l.i, l.parts, l.out
	l.body.Interp(term, open, limit)
	l.i, l.parts = l.body.I, l.body.Parts
}

// quoted reads "...", '...' (a charlist, read as a string) or a heredoc """...""" /
// ”'...”' from the quote at l.i; "name": is a label.
func (l *lexer) quoted(q byte) {
	s := l.i
	p0 := len(l.parts)
	if l.peek(1) == q && l.peek(2) == q {
		l.heredoc(q, true)
	} else {
		l.i++
		l.interp(q, 0, len(l.src))
	}
	k := kind(tStr)
	if l.i+1 < len(l.src) && l.src[l.i] == ':' && (l.src[l.i+1] == ' ' || l.src[l.i+1] == '\n') {
		k = tLabel
		l.i++
	}
	l.strs++
	l.emit(token{kind: k, s: int32(s), a: int32(s), b: int32(l.i), p0: int32(p0), p1: int32(len(l.parts))})
}

// heredoc reads the body of a """ or ”' heredoc opened at l.i: the lines after the opening
// line up to the one starting (after blanks) with the closing quotes, whose indentation is
// removed from every line.
func (l *lexer) heredoc(q byte, interp bool) {
	open := l.i + 3
	nl := bytes.IndexByte(l.src[open:], '\n')
	if nl < 0 {
		l.i = len(l.src)
		return
	}
	body := open + nl + 1
	end, indent, after := body, 0, len(l.src)
	delim := []byte{q, q, q}
	for line := body; line < len(l.src); {
		k := line
		for k < len(l.src) && (l.src[k] == ' ' || l.src[k] == '\t') {
			k++
		}
		if bytes.HasPrefix(l.src[k:], delim) {
			end, indent, after = line, k-line, k+3
			break
		}
		next := bytes.IndexByte(l.src[line:], '\n')
		if next < 0 {
			end = len(l.src)
			break
		}
		line += next + 1
		end = line
	}
	p0 := len(l.parts)
	l.i = body
	if interp {
		l.interp(0, 0, end)
	} else {
		l.plain(0, 0, end)
	}
	dedent(l, p0, indent)
	l.i = after
}

// dedent removes indent blanks from the start of every line of the parts from p0 on.
func dedent(l *lexer, p0, indent int) {
	if indent == 0 {
		return
	}
	atStart := true
	for k := p0; k < len(l.parts); k++ {
		p := &l.parts[k]
		if p.Hole {
			atStart = false
			continue
		}
		text := p.Literal(l.src)
		out := make([]byte, 0, len(text))
		skipped := 0
		for i := 0; i < len(text); i++ {
			c := text[i]
			if atStart && skipped < indent && (c == ' ' || c == '\t') {
				skipped++
				continue
			}
			atStart, skipped = c == '\n', 0
			out = append(out, c)
		}
		*p = lexkit.Part{Text: string(out)}
	}
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

// sigil reads ~s(...), ~S"...", ~w(...), ~c'...', ~r/.../ and the others, with their
// modifiers: string sigils are strings (lower case ones interpolate), ~w words a list of
// strings, others opaque literals.
func (l *lexer) sigil() {
	s := l.i
	j := l.i + 1
	for j < len(l.src) && (l.src[j] >= 'a' && l.src[j] <= 'z' && j == l.i+1 || l.src[j] >= 'A' && l.src[j] <= 'Z') {
		j++
	}
	name := l.src[l.i+1 : j]
	if j >= len(l.src) || bytes.IndexByte([]byte("/|\"'([{<"), l.src[j]) < 0 {
		l.operator()
		return
	}
	interp := name[0] >= 'a' && name[0] <= 'z'
	p0 := len(l.parts)
	l.i = j
	heredoc := l.peek(1) == l.src[j] && l.peek(2) == l.src[j] && (l.src[j] == '"' || l.src[j] == '\'')
	var end int
	if heredoc {
		l.heredoc(l.src[j], interp)
		end = l.i
	} else {
		term, nests := closer(l.src[j])
		open := byte(0)
		if nests {
			open = l.src[j]
		}
		l.i++
		if interp {
			l.interp(term, open, len(l.src))
		} else {
			l.plain(term, open, len(l.src))
		}
		end = l.i
	}
	for l.i < len(l.src) && lexkit.IsIdent(l.src[l.i]) {
		l.i++ // modifiers
	}
	mods := l.src[end:l.i]
	switch {
	case len(name) == 1 && (name[0]|0x20 == 's' || name[0]|0x20 == 'c'):
		l.strs++
		l.emit(token{kind: tStr, s: int32(s), a: int32(s), b: int32(l.i), p0: int32(p0), p1: int32(len(l.parts))})
	case len(name) == 1 && name[0]|0x20 == 'w' && bytes.IndexByte(mods, 'a') < 0:
		l.words(s, p0, end)
	default:
		l.parts = l.parts[:p0]
		l.emit(token{kind: tLit, s: int32(s), a: int32(s), b: int32(l.i)})
	}
}

// words turns the body of ~w(...) read into parts[p0:] into a list literal of strings:
// "[", the words with "," between them, "]". A word's value is split from the literal
// text; an interpolation stays in the word it is in.
func (l *lexer) words(s, p0, end int) {
	parts := append([]lexkit.Part(nil), l.parts[p0:]...)
	l.parts = l.parts[:p0]
	after := l.i
	l.opAt('[', s, s+1)
	var word []lexkit.Part
	start := -1
	at := func(p lexkit.Part, i int) int { // where byte i of part p stands, when the part says
		if p.B > p.A {
			return int(p.A) + i
		}
		return s
	}
	emit := func(at int) {
		if start < 0 {
			start = s
		}
		at = max(at, start+1)
		if len(word) > 0 {
			q0 := len(l.parts)
			l.parts = append(l.parts, word...)
			l.strs++
			l.emit(token{kind: tStr, s: int32(start), a: int32(start), b: int32(at), p0: int32(q0), p1: int32(len(l.parts))})
			l.opAt(',', at, at)
		}
		word, start = word[:0], -1
	}
	for _, p := range parts {
		if p.Hole {
			word = append(word, p)
			continue
		}
		text := p.Literal(l.src)
		for i := 0; i < len(text); {
			j := i
			for j < len(text) && !isBlank(text[j]) {
				j++
			}
			if j > i {
				if start < 0 {
					start = at(p, i)
				}
				word = append(word, lexkit.Part{Text: text[i:j]})
			}
			if j < len(text) {
				emit(at(p, j))
			}
			for j < len(text) && isBlank(text[j]) {
				j++
			}
			i = j
		}
	}
	emit(end - 1)
	l.opAt(']', end-1, end)
	l.i = after
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// opAt emits the operator op spanning [a, b) (for the brackets made up around ~w words).
func (l *lexer) opAt(op byte, a, b int) {
	i := l.i
	l.i = a
	l.op(op, b-a)
	l.i = i
}
