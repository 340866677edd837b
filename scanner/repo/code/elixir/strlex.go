package elixir

import (
	"bytes"

	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/rubylike"
)

// quoted reads "...", '...' (a charlist, read as a string) or a heredoc """...""" /
// ”'...”' from the quote at l.I; "name": is a label.
func (l lexer) quoted(q byte) {
	s := l.I
	p0 := len(l.Parts)
	if l.Peek(1) == q && l.Peek(2) == q {
		l.heredoc(q, true)
	} else {
		l.I++
		l.Interp(q, 0, len(l.Src))
	}
	k := rubylike.Str
	if l.I+1 < len(l.Src) && l.Src[l.I] == ':' && (l.Src[l.I+1] == ' ' || l.Src[l.I+1] == '\n') {
		k = rubylike.Label
		l.I++
	}
	l.EmitStr(k, s, l.I, p0)
}

// heredoc reads the body of a """ or ”' heredoc opened at l.I: the lines after the opening
// line up to the one starting (after blanks) with the closing quotes, whose indentation is
// removed from every line.
func (l lexer) heredoc(q byte, interp bool) {
	open := l.I + 3
	nl := bytes.IndexByte(l.Src[open:], '\n')
	if nl < 0 {
		l.I = len(l.Src)
		return
	}
	body := open + nl + 1
	end, indent, after := body, 0, len(l.Src)
	delim := []byte{q, q, q}
	for line := body; line < len(l.Src); {
		k := line
		for k < len(l.Src) && (l.Src[k] == ' ' || l.Src[k] == '\t') {
			k++
		}
		if bytes.HasPrefix(l.Src[k:], delim) {
			end, indent, after = line, k-line, k+3
			break
		}
		next := bytes.IndexByte(l.Src[line:], '\n')
		if next < 0 {
			end = len(l.Src)
			break
		}
		line += next + 1
		end = line
	}
	p0 := len(l.Parts)
	l.I = body
	if interp {
		l.Interp(0, 0, end)
	} else {
		l.Plain(0, 0, end)
	}
	l.Dedent(p0, indent)
	l.I = after
}

// sigil reads ~s(...), ~S"...", ~w(...), ~c'...', ~r/.../ and the others, with their
// modifiers: string sigils are strings (lower case ones interpolate), ~w words a list of
// strings, others opaque literals.
func (l lexer) sigil() {
	s := l.I
	j := l.I + 1
	for j < len(l.Src) && (l.Src[j] >= 'a' && l.Src[j] <= 'z' && j == l.I+1 || l.Src[j] >= 'A' && l.Src[j] <= 'Z') {
		j++
	}
	name := l.Src[l.I+1 : j]
	if j >= len(l.Src) || bytes.IndexByte([]byte("/|\"'([{<"), l.Src[j]) < 0 {
		l.Operator()
		return
	}
	interp := name[0] >= 'a' && name[0] <= 'z'
	p0 := len(l.Parts)
	l.I = j
	heredoc := l.Peek(1) == l.Src[j] && l.Peek(2) == l.Src[j] && (l.Src[j] == '"' || l.Src[j] == '\'')
	if heredoc {
		l.heredoc(l.Src[j], interp)
	} else {
		term, nests := rubylike.Closer(l.Src[j])
		open := byte(0)
		if nests {
			open = l.Src[j]
		}
		l.I++
		if interp {
			l.Interp(term, open, len(l.Src))
		} else {
			l.Plain(term, open, len(l.Src))
		}
	}
	end := l.I
	l.I = l.IdentEnd(l.I) // modifiers
	mods := l.Src[end:l.I]
	switch {
	case len(name) == 1 && (name[0]|0x20 == 's' || name[0]|0x20 == 'c'):
		l.EmitStr(rubylike.Str, s, l.I, p0)
	case len(name) == 1 && name[0]|0x20 == 'w' && bytes.IndexByte(mods, 'a') < 0:
		l.words(s, p0, end)
	default:
		l.Parts = l.Parts[:p0]
		l.Emit(rubylike.Token{Kind: rubylike.Lit, S: int32(s), A: int32(s), B: int32(l.I)})
	}
}

// words turns the body of ~w(...) read into Parts[p0:] into a list literal of strings:
// "[", the words with "," between them, "]". A word's value is split from the literal
// text; an interpolation stays in the word it is in.
func (l lexer) words(s, p0, end int) {
	parts := append([]lexkit.Part(nil), l.Parts[p0:]...)
	l.Parts = l.Parts[:p0]
	after := l.I
	l.OpAt('[', s, s+1)
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
			q0 := len(l.Parts)
			l.Parts = append(l.Parts, word...)
			l.EmitStr(rubylike.Str, start, at, q0)
			l.OpAt(',', at, at)
		}
		word, start = word[:0], -1
	}
	for _, p := range parts {
		if p.Hole {
			word = append(word, p)
			continue
		}
		text := p.Literal(l.Src)
		for i := 0; i < len(text); {
			j := i
			for j < len(text) && !rubylike.IsBlank(text[j]) {
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
			for j < len(text) && rubylike.IsBlank(text[j]) {
				j++
			}
			i = j
		}
	}
	emit(end - 1)
	l.OpAt(']', end-1, end)
	l.I = after
}
