package ruby

import (
	"bytes"

	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

// interp reads an interpolating body from l.i up to the unescaped term byte (then past it),
// nesting open ... term pairs, or up to limit (a heredoc's body, term 0): literal text,
// #{expr}, #@var and #$var.
func (l *lexer) interp(term, open byte, limit int) {
	l.buf, l.seg, l.esc = l.buf[:0], l.i, false
	depth := 0
	for l.i < limit {
		c := l.src[l.i]
		var next byte
		if l.i+1 < limit {
			next = l.src[l.i+1]
		}
		switch {
		case c == term && term != 0 && depth == 0:
			l.flush()
			l.i++
			return
		case c == '\\' && next != 0:
			l.escape()
			continue
		case c == '#' && next == '{':
			l.flush()
			l.braced(limit)
			continue
		case c == '#' && (next == '@' || next == '$') && l.i+2 < limit && lexkit.IsIdentStart(l.src[l.i+2]):
			l.flush()
			l.sigil(limit)
			continue
		case c == term && term != 0:
			depth--
		case c == open && open != 0:
			depth++
		}
		l.buf = append(l.buf, c)
		l.i++
	}
	l.flush()
}

// hole records an interpolation named name and starts the next literal text at end.
func (l *lexer) hole(name []byte, isVar bool, end int) {
	l.parts = append(l.parts, lexkit.Part{Text: l.out.Intern(name), Hole: true, Var: isVar})
	l.i, l.seg = end, end
}

// braced reads #{expr}: a hole named after the expression's last name.
func (l *lexer) braced(limit int) {
	end := matchBrace(l.src, l.i+1, limit)
	expr := bytes.TrimSpace(l.src[l.i+2 : end])
	l.hole(lexkit.LastName(expr), isName(expr), min(end+1, limit))
}

// sigil reads #@var, #@@var and #$var.
func (l *lexer) sigil(limit int) {
	j := l.i + 2
	for j < limit && l.src[j] == '@' {
		j++
	}
	a := j
	for j < limit && lexkit.IsIdent(l.src[j]) {
		j++
	}
	l.hole(l.src[a:j], false, j)
}

// isName reports whether s is a local variable's or a constant's name.
func isName(s []byte) bool {
	if len(s) == 0 || !lexkit.IsIdentStart(s[0]) {
		return false
	}
	for _, c := range s[1:] {
		if !lexkit.IsIdent(c) {
			return false
		}
	}
	return true
}

// matchBrace returns the index of the brace closing the one at open, skipping quoted
// strings, or limit when there is none before limit.
func matchBrace(src []byte, open, limit int) int {
	depth := 0
	for i := open; i < limit; i++ {
		switch c := src[i]; c {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i
			}
		case '\'', '"':
			for i++; i < limit && src[i] != c; i++ {
				if src[i] == '\\' {
					i++
				}
			}
		}
	}
	return limit
}
