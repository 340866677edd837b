package ruby

import (
	"bytes"

	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/rubylike"
)

// quoted reads '...', "...", `...` (a command, read as a string) from the quote at l.I;
// sym makes it a quoted symbol (:"..."), whose start is one byte before.
func (l lexer) quoted(q byte, sym bool) {
	s := l.I
	if sym {
		s--
	}
	l.I++
	p0 := len(l.Parts)
	if q == '\'' {
		l.Plain(q, 0, len(l.Src))
	} else {
		l.Interp(q, 0, len(l.Src))
	}
	k := rubylike.Str
	if sym {
		k = rubylike.Sym
	} else if l.I < len(l.Src) && l.Src[l.I] == ':' && (l.I+1 >= len(l.Src) || l.Src[l.I+1] != ':') && !l.ternary() {
		k = rubylike.Label // "name": value
		l.I++
	}
	l.EmitStr(k, s, l.I, p0)
}

// percent reads %q(...), %Q(...), %(...), %w[...], %W[...], %i[...], %r{...}, %x(...),
// %s(...), and reports false when the % opens none.
func (l lexer) percent() bool {
	j := l.I + 1
	typ := byte('Q')
	if j < len(l.Src) && bytes.IndexByte([]byte("qQwWiIrsx"), l.Src[j]) >= 0 {
		typ = l.Src[j]
		j++
	}
	if j >= len(l.Src) || lexkit.IsIdent(l.Src[j]) || l.Src[j] == ' ' || l.Src[j] == '\n' || l.Src[j] == '=' && typ == 'Q' && j == l.I+1 {
		return false
	}
	open := l.Src[j]
	term, nests := rubylike.Closer(open)
	if !nests {
		open = 0
	}
	s := l.I
	l.I = j + 1
	switch typ {
	case 'w', 'W':
		l.words(s, term, open, typ == 'W')
		return true
	case 'i', 'I', 'r', 's':
		p0 := len(l.Parts)
		l.Plain(term, open, len(l.Src))
		l.Parts = l.Parts[:p0]
		kd := rubylike.Lit
		if typ == 's' {
			kd = rubylike.Sym
		}
		l.Emit(rubylike.Token{Kind: kd, S: int32(s), A: int32(j + 1), B: int32(max(l.I-1, j+1))})
		return true
	}
	p0 := len(l.Parts)
	if typ == 'q' {
		l.Plain(term, open, len(l.Src))
	} else {
		l.Interp(term, open, len(l.Src))
	}
	l.EmitStr(rubylike.Str, s, l.I, p0)
	return true
}

// words reads the words of %w[...] as an array literal of strings: "[", the words with
// "," between them, "]".
func (l lexer) words(s int, term, open byte, interp bool) {
	end := l.I
	depth := 0
	for end < len(l.Src) {
		c := l.Src[end]
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
	end = min(end, len(l.Src))
	l.OpAt('[', s, l.I)
	for l.I < end {
		for l.I < end && rubylike.IsBlank(l.Src[l.I]) {
			l.I++
		}
		if l.I >= end {
			break
		}
		w := l.I
		for l.I < end && !rubylike.IsBlank(l.Src[l.I]) {
			l.I++
		}
		p0 := len(l.Parts)
		stop := l.I
		l.I = w
		if interp {
			l.Interp(0, 0, stop)
		} else {
			l.Plain(0, 0, stop)
		}
		l.EmitStr(rubylike.Str, w, stop, p0)
		l.OpAt(',', stop, stop)
	}
	l.OpAt(']', end, min(end+1, len(l.Src)))
	l.I = min(end+1, len(l.Src))
}

// regexp reads /.../flags as an opaque literal.
func (l lexer) regexp() {
	s := l.I
	j := l.I + 1
	for j < len(l.Src) && l.Src[j] != '/' && l.Src[j] != '\n' {
		if l.Src[j] == '\\' {
			j++
		}
		j++
	}
	j++
	j = l.IdentEnd(min(j, len(l.Src)))
	l.I = min(j, len(l.Src))
	l.Emit(rubylike.Token{Kind: rubylike.Lit, S: int32(s), A: int32(s), B: int32(l.I)})
}
