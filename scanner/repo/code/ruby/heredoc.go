package ruby

import (
	"bytes"

	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

// heredoc reads <<~ID, <<-ID, <<ID (quoted 'ID' for no interpolation) with its body, which
// starts on the next line (after the bodies of heredocs opened before on this line). It
// reports false when << opens no heredoc here.
func (l *lexer) heredoc() bool {
	j := l.i + 2
	var mode byte
	if j < len(l.src) && (l.src[j] == '~' || l.src[j] == '-') {
		mode = l.src[j]
		j++
	}
	var q byte
	if j < len(l.src) && (l.src[j] == '\'' || l.src[j] == '"' || l.src[j] == '`') {
		q = l.src[j]
		j++
	}
	n0 := j
	for j < len(l.src) && lexkit.IsIdent(l.src[j]) {
		j++
	}
	label := l.src[n0:j]
	switch {
	case len(label) == 0 || !lexkit.IsIdentStart(label[0]):
		return false
	case mode == 0 && q == 0 && (label[0] < 'A' || label[0] > 'Z'):
		return false // x <<y shifts
	case l.operand() && !l.command():
		return false
	}
	if q != 0 {
		if j >= len(l.src) || l.src[j] != q {
			return false
		}
		j++
	}
	body := l.here
	if body < 0 {
		nl := bytes.IndexByte(l.src[j:], '\n')
		if nl < 0 {
			return false
		}
		body = j + nl + 1
	}
	end, after := closing(l.src, body, label, mode != 0)
	s := l.i
	p0 := len(l.parts)
	l.i = body
	if q == '\'' {
		l.plain(0, 0, end)
	} else {
		l.interp(0, 0, end)
	}
	if mode == '~' {
		l.squiggly(p0)
	}
	l.here, l.resume, l.i = after, after, j
	l.strs++
	l.emit(token{kind: tStr, s: int32(s), a: int32(s), b: int32(j), p0: int32(p0), p1: int32(len(l.parts))})
	return true
}

// closing finds the line holding only the label (indented when indented is true) from
// body on; it returns where the body ends and where the line after the label starts.
func closing(src []byte, body int, label []byte, indented bool) (int, int) {
	line := body
	for line < len(src) {
		k := line
		for indented && k < len(src) && (src[k] == ' ' || src[k] == '\t') {
			k++
		}
		e := k + len(label)
		if bytes.HasPrefix(src[k:], label) && (e == len(src) || src[e] == '\n' || src[e] == '\r') {
			for e < len(src) && src[e] != '\n' {
				e++
			}
			return line, min(e+1, len(src))
		}
		nl := bytes.IndexByte(src[line:], '\n')
		if nl < 0 {
			break
		}
		line += nl + 1
	}
	return len(src), len(src)
}

// squiggly removes the smallest indentation of a <<~ body's lines from its literal parts.
func (l *lexer) squiggly(p0 int) {
	ps := l.parts[p0:]
	indent := -1
	atStart := true
	for _, p := range ps {
		if p.Hole {
			atStart = false
			continue
		}
		text := p.Literal(l.src)
		for i := 0; i < len(text); i++ {
			if !atStart {
				atStart = text[i] == '\n'
				continue
			}
			n := 0
			for i+n < len(text) && (text[i+n] == ' ' || text[i+n] == '\t') {
				n++
			}
			if i+n < len(text) && text[i+n] != '\n' && (indent < 0 || n < indent) {
				indent = n
			}
			i += n
			atStart = i < len(text) && text[i] == '\n'
		}
	}
	if indent <= 0 {
		return
	}
	atStart = true
	for k := range ps {
		if ps[k].Hole {
			atStart = false
			continue
		}
		text := ps[k].Literal(l.src)
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
		ps[k] = lexkit.Part{Text: string(out)}
	}
}
