package php

import (
	"bytes"

	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

// single reads a '...' literal: no interpolation, only \\ and \' are escapes.
func (l *lexer) single() {
	start := l.i
	j := l.i + 1
	esc := false
	for j < len(l.src) && l.src[j] != '\'' {
		if l.src[j] == '\\' && j+1 < len(l.src) {
			esc = true
			j++
		}
		j++
	}
	a, b := min(start+1, len(l.src)), min(j, len(l.src))
	part := lexkit.Part{A: int32(a), B: int32(b)}
	if esc {
		l.buf = l.buf[:0]
		body := l.src[a:b]
		for k := 0; k < len(body); k++ {
			if body[k] == '\\' && k+1 < len(body) && (body[k+1] == '\\' || body[k+1] == '\'') {
				k++
			}
			l.buf = append(l.buf, body[k])
		}
		part = lexkit.Part{Text: string(l.buf)}
	}
	l.i = min(j+1, len(l.src))
	p0 := len(l.parts)
	l.parts = append(l.parts, part)
	l.strs++
	l.toks = append(l.toks, token{kind: tStr, a: int32(start), b: int32(l.i), p0: int32(p0), p1: int32(len(l.parts)), match: -1})
}

// double reads a "..." (or `...`) literal with its interpolations.
func (l *lexer) double(q byte) {
	start := l.i
	l.i++
	p0 := len(l.parts)
	l.interp(q, len(l.src), false)
	l.strs++
	l.toks = append(l.toks, token{kind: tStr, a: int32(start), b: int32(l.i), p0: int32(p0), p1: int32(len(l.parts)), match: -1})
}

// heredoc reads <<<EOT, <<<"EOT" (interpolating) or <<<'EOT' (nowdoc) with its body, and
// reports false when what follows <<< is no heredoc opener.
func (l *lexer) heredoc() bool {
	j := l.i + 3
	for j < len(l.src) && (l.src[j] == ' ' || l.src[j] == '\t') {
		j++
	}
	var q byte
	if j < len(l.src) && (l.src[j] == '\'' || l.src[j] == '"') {
		q = l.src[j]
		j++
	}
	n0 := j
	for j < len(l.src) && lexkit.IsIdent(l.src[j]) {
		j++
	}
	label := l.src[n0:j]
	if len(label) == 0 || !lexkit.IsIdentStart(label[0]) {
		return false
	}
	if q != 0 {
		if j >= len(l.src) || l.src[j] != q {
			return false
		}
		j++
	}
	if j < len(l.src) && l.src[j] == '\r' {
		j++
	}
	if j >= len(l.src) || l.src[j] != '\n' {
		return false
	}
	bodyStart := j + 1
	bodyEnd, closeAt, indent := findClose(l.src, bodyStart, label)
	start := l.i
	p0 := len(l.parts)
	if q == '\'' {
		l.parts = append(l.parts, lexkit.Part{A: int32(bodyStart), B: int32(bodyEnd)})
	} else {
		l.i = bodyStart
		l.interp(0, bodyEnd, true)
	}
	l.dedentParts(l.parts[p0:], indent)
	l.i = closeAt
	l.strs++
	l.toks = append(l.toks, token{kind: tStr, a: int32(start), b: int32(closeAt), p0: int32(p0), p1: int32(len(l.parts)), match: -1})
	return true
}

// findClose finds the line that closes a heredoc (the label after optional indentation,
// not followed by a name character). It returns where the body ends (before that line's
// newline), where the label ends, and the closing line's indentation.
func findClose(src []byte, from int, label []byte) (bodyEnd, closeAt, indent int) {
	line := from
	for line <= len(src) {
		k := line
		for k < len(src) && (src[k] == ' ' || src[k] == '\t') {
			k++
		}
		if bytes.HasPrefix(src[k:], label) && (k+len(label) == len(src) || !lexkit.IsIdent(src[k+len(label)])) {
			end := line - 1
			if end < from {
				end = from
			} else if end > from && src[end-1] == '\r' {
				end--
			}
			return end, k + len(label), k - line
		}
		nl := bytes.IndexByte(src[line:], '\n')
		if nl < 0 {
			break
		}
		line += nl + 1
	}
	return len(src), len(src), 0
}

// dedent removes up to indent bytes of leading blanks from every line of b; atStart says
// whether b starts a line.
func dedent(b []byte, indent int, atStart bool) string {
	if indent == 0 {
		return string(b)
	}
	out := make([]byte, 0, len(b))
	skipped := 0
	for _, c := range b {
		if atStart && skipped < indent && (c == ' ' || c == '\t') {
			skipped++
			continue
		}
		atStart = c == '\n'
		if atStart {
			skipped = 0
		}
		out = append(out, c)
	}
	return string(out)
}

// dedentParts removes a heredoc's closing indentation from the literal parts of its body.
func (l *lexer) dedentParts(ps []lexkit.Part, indent int) {
	if indent == 0 {
		return
	}
	for i := range ps {
		if !ps[i].Hole {
			ps[i] = lexkit.Part{Text: dedent([]byte(ps[i].Literal(l.src)), indent, i == 0)}
		}
	}
}
