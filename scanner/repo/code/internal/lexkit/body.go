package lexkit

import (
	"bytes"
	"unicode/utf8"
)

// Body reads the bodies of string literals of the languages that interpolate with #{...}
// (Ruby, Elixir) into Parts: literal text, kept as a range of the source when written
// without escapes, and holes named after the interpolated expression.
type Body struct {
	// Src is the source, I where reading is, Parts where pieces go.
	Src   []byte
	I     int
	Parts []Part
	// Out interns hole names.
	Out *Out
	// Sigils makes #@var and #$var interpolations too (Ruby).
	Sigils bool
	buf    []byte
	seg    int
	esc    bool
}

// Plain reads a body without interpolation from I up to the unescaped term byte (then past
// it), nesting open ... term pairs (open 0 for none), or up to limit (term 0); only \\ and
// \term are escapes.
func (b *Body) Plain(term, open byte, limit int) {
	b.buf, b.seg, b.esc = b.buf[:0], b.I, false
	depth := 0
	for b.I < limit {
		c := b.Src[b.I]
		switch {
		case c == term && term != 0 && depth == 0:
			b.flush()
			b.I++
			return
		case c == term && term != 0:
			depth--
		case c == open && open != 0:
			depth++
		case c == '\\' && b.I+1 < limit && (b.Src[b.I+1] == '\\' || b.Src[b.I+1] == term && term != 0):
			b.esc = true
			b.buf = append(b.buf, b.Src[b.I+1])
			b.I += 2
			continue
		}
		b.buf = append(b.buf, c)
		b.I++
	}
	b.flush()
}

// Interp reads an interpolating body from I up to the unescaped term byte (then past it),
// nesting open ... term pairs, or up to limit (term 0).
func (b *Body) Interp(term, open byte, limit int) {
	b.buf, b.seg, b.esc = b.buf[:0], b.I, false
	depth := 0
	for b.I < limit {
		c := b.Src[b.I]
		var next byte
		if b.I+1 < limit {
			next = b.Src[b.I+1]
		}
		switch {
		case c == term && term != 0 && depth == 0:
			b.flush()
			b.I++
			return
		case c == '\\' && next != 0:
			b.escape()
			continue
		case c == '#' && next == '{':
			b.flush()
			b.braced(limit)
			continue
		case b.Sigils && c == '#' && (next == '@' || next == '$') && b.I+2 < limit && IsIdentStart(b.Src[b.I+2]):
			b.flush()
			b.sigil(limit)
			continue
		case c == term && term != 0:
			depth--
		case c == open && open != 0:
			depth++
		}
		b.buf = append(b.buf, c)
		b.I++
	}
	b.flush()
}

// flush ends the literal text read so far.
func (b *Body) flush() {
	switch {
	case b.esc && len(b.buf) > 0:
		b.Parts = append(b.Parts, Part{Text: string(b.buf)})
	case !b.esc && b.I > b.seg:
		b.Parts = append(b.Parts, Part{A: int32(b.seg), B: int32(b.I)})
	}
	b.buf, b.esc = b.buf[:0], false
}

// hole records an interpolation named name and starts the next literal text at end.
func (b *Body) hole(name []byte, isVar bool, end int) {
	b.Parts = append(b.Parts, Part{Text: b.Out.Intern(name), Hole: true, Var: isVar})
	b.I, b.seg = end, end
}

// braced reads #{expr}: a hole named after the expression's last name.
func (b *Body) braced(limit int) {
	end := MatchBrace(b.Src, b.I+1, limit)
	expr := bytes.TrimSpace(b.Src[b.I+2 : end])
	b.hole(LastName(expr), IsName(expr), min(end+1, limit))
}

// sigil reads #@var, #@@var and #$var.
func (b *Body) sigil(limit int) {
	j := b.I + 2
	for j < limit && b.Src[j] == '@' {
		j++
	}
	a := j
	for j < limit && IsIdent(b.Src[j]) {
		j++
	}
	b.hole(b.Src[a:j], false, j)
}

var escapes = [256]byte{'n': '\n', 't': '\t', 'r': '\r', 'v': '\v', 'f': '\f', 'e': 0x1b, 's': ' ',
	'a': 7, 'b': 8, '0': 0}

// escape decodes the escape at I: \n and its kin, \xHH, \uHHHH, \u{H...}, a line
// continuation; any other escaped byte stands for itself.
func (b *Body) escape() {
	b.esc = true
	n := b.Src[b.I+1]
	switch {
	case n == '0' || escapes[n] != 0:
		b.buf = append(b.buf, escapes[n])
		b.I += 2
	case n == '\n':
		b.I += 2
	case n == 'u' && b.I+2 < len(b.Src):
		j, v := b.I+2, 0
		braced := b.Src[j] == '{'
		if braced {
			j++
		}
		for k := 0; j < len(b.Src) && hexVal(b.Src[j]) >= 0 && (braced || k < 4) && v < utf8.MaxRune; k++ {
			v = v*16 + hexVal(b.Src[j])
			j++
		}
		if braced && j < len(b.Src) && b.Src[j] == '}' {
			j++
		}
		b.buf = utf8.AppendRune(b.buf, rune(v))
		b.I = j
	case n == 'x' && b.I+2 < len(b.Src) && hexVal(b.Src[b.I+2]) >= 0:
		v, j := 0, b.I+2
		for j < len(b.Src) && j < b.I+4 && hexVal(b.Src[j]) >= 0 {
			v = v*16 + hexVal(b.Src[j])
			j++
		}
		b.buf = append(b.buf, byte(v))
		b.I = j
	default:
		b.buf = append(b.buf, n)
		b.I += 2
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

// IsName reports whether s is a plain name (a variable or a constant): an identifier.
func IsName(s []byte) bool {
	if len(s) == 0 || !IsIdentStart(s[0]) {
		return false
	}
	for _, c := range s[1:] {
		if !IsIdent(c) {
			return false
		}
	}
	return true
}

// MatchBrace returns the index of the brace closing the one at open, skipping quoted
// strings, or limit when there is none before limit.
func MatchBrace(src []byte, open, limit int) int {
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
