package ruby

import (
	"bytes"

	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/rubylike"
)

// heredoc reads <<~ID, <<-ID, <<ID (quoted 'ID' for no interpolation) with its body, which
// starts on the next line (after the bodies of heredocs opened before on this line: then
// l.Resume says where). It reports false when << opens no heredoc here.
func (l lexer) heredoc() bool {
	j := l.I + 2
	var mode byte
	if j < len(l.Src) && (l.Src[j] == '~' || l.Src[j] == '-') {
		mode = l.Src[j]
		j++
	}
	var q byte
	if j < len(l.Src) && (l.Src[j] == '\'' || l.Src[j] == '"' || l.Src[j] == '`') {
		q = l.Src[j]
		j++
	}
	n0 := j
	j = l.IdentEnd(j)
	label := l.Src[n0:j]
	switch {
	case len(label) == 0 || !lexkit.IsIdentStart(label[0]):
		return false
	case mode == 0 && q == 0 && (label[0] < 'A' || label[0] > 'Z'):
		return false // x <<y shifts
	case l.Operand() && !l.command():
		return false
	}
	if q != 0 {
		if j >= len(l.Src) || l.Src[j] != q {
			return false
		}
		j++
	}
	body := l.Resume
	if body < 0 {
		nl := bytes.IndexByte(l.Src[j:], '\n')
		if nl < 0 {
			return false
		}
		body = j + nl + 1
	}
	end, after := closing(l.Src, body, label, mode != 0)
	s := l.I
	p0 := len(l.Parts)
	l.I = body
	if q == '\'' {
		l.Plain(0, 0, end)
	} else {
		l.Interp(0, 0, end)
	}
	if mode == '~' {
		l.Dedent(p0, l.indent(p0))
	}
	l.Resume, l.I = after, j
	l.EmitStr(rubylike.Str, s, j, p0)
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

// indent returns the smallest indentation of the lines of a <<~ body read into l.Parts[p0:]
// that hold more than blanks, -1 for none: <<~ removes it.
func (l lexer) indent(p0 int) int {
	indent := -1
	atStart := true
	for _, p := range l.Parts[p0:] {
		if p.Hole {
			atStart = false
			continue
		}
		text := p.Literal(l.Src)
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
	return indent
}
