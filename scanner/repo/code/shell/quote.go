package shell

import "github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"

// single reads '...' (no escapes, no expansions) from the opening quote at r.i.
func (r *reader) single(f *lexkit.Fold) {
	j := r.i + 1
	for j < len(r.src) && r.src[j] != '\'' {
		j++
	}
	f.LitBytes(r.src[r.i+1 : j])
	r.i = min(j+1, len(r.src))
}

// double reads the inside of "..." from r.i up to the closing quote (then past it), or of a
// heredoc line (quote 0) up to limit.
func (r *reader) double(f *lexkit.Fold, w *word, quote byte, limit int) {
	for r.i < limit {
		c := r.src[r.i]
		switch {
		case c == quote:
			r.i++
			return
		case c == '\\' && r.i+1 < limit:
			n := r.src[r.i+1]
			switch {
			case n == '\n':
			case n == '$' || n == '`' || n == '\\' || n == quote && quote != 0:
				w.parts++
				f.LitByte(n)
			default:
				w.parts++
				f.LitByte('\\')
				f.LitByte(n)
			}
			r.i += 2
		case c == '$':
			r.dollar(f, w)
		case c == '`':
			r.backquote(f, w)
		default:
			w.parts++
			f.LitByte(c)
			r.i++
		}
	}
}

// dollar reads what starts with $ at r.i: $'...', $"...", $((...)), $(...), ${...},
// $NAME, special parameters, or a lone $.
func (r *reader) dollar(f *lexkit.Fold, w *word) {
	next := r.peek(1)
	switch {
	case next == '\'':
		r.i++
		w.quoted = true
		w.parts++
		r.ansi(f)
	case next == '"':
		r.i += 2
		w.quoted = true
		r.double(f, w, '"', len(r.src))
	case next == '(' && r.peek(2) == '(':
		r.i = skipParens(r.src, r.i+1)
		r.hole(f, w, "", false)
	case next == '(':
		r.i += 2
		r.nested(')')
		r.hole(f, w, "", false)
	case next == '{':
		r.braced(f, w)
	case lexkit.IsIdentStart(next) && next < 0x80:
		j := r.i + 1
		for j < len(r.src) && r.src[j] < 0x80 && lexkit.IsIdent(r.src[j]) {
			j++
		}
		name := r.out.Name(r.i+1, j)
		r.i = j
		r.hole(f, w, name, true)
	case next >= '0' && next <= '9' || next == '@' || next == '*' || next == '#' || next == '?' ||
		next == '$' || next == '!' || next == '-':
		r.i += 2
		r.hole(f, w, "", false)
	default:
		w.parts++
		f.LitByte('$')
		r.i++
	}
}

// hole puts an expansion in the value: a plain variable's known value, or a hole.
func (r *reader) hole(f *lexkit.Fold, w *word, name string, plain bool) {
	w.parts++
	w.holes = true
	if plain {
		if w.vars == 0 {
			w.ident = name
		}
		w.vars++
		if v, names, ok := r.vars.Get(name, true); ok {
			f.Append(v, names)
			return
		}
	}
	f.Hole(name)
}

// nested reads the commands of $(...) or `...` up to stop, with their own value builder.
func (r *reader) nested(stop byte) {
	if r.depth >= 64 {
		for r.i < len(r.src) && r.src[r.i] != stop {
			r.i++
		}
		r.i = min(r.i+1, len(r.src))
		return
	}
	r.depth++
	r.list(stop)
	r.depth--
}

// backquote reads `...`.
func (r *reader) backquote(f *lexkit.Fold, w *word) {
	r.i++
	r.nested('`')
	r.hole(f, w, "", false)
}

// braced reads ${NAME}, ${NAME:-default} and the other ${...} forms. ${NAME} and
// ${NAME:-...} take NAME's known value; the others are holes named NAME.
func (r *reader) braced(f *lexkit.Fold, w *word) {
	j := r.i + 2
	a := j
	for j < len(r.src) && r.src[j] < 0x80 && lexkit.IsIdent(r.src[j]) {
		j++
	}
	name := r.out.Name(a, j)
	plain := name != "" && j < len(r.src) && (r.src[j] == '}' || r.src[j] == ':' && j+1 < len(r.src) && r.src[j+1] == '-')
	depth := 0
	for ; j < len(r.src); j++ {
		if c := r.src[j]; c == '{' {
			depth++
		} else if c == '}' {
			if depth == 0 {
				break
			}
			depth--
		}
	}
	r.i = min(j+1, len(r.src))
	r.hole(f, w, name, plain)
}

var ansiEscapes = [256]byte{'n': '\n', 't': '\t', 'r': '\r', 'a': 7, 'b': 8, 'e': 0x1b, 'E': 0x1b,
	'f': '\f', 'v': '\v', '\\': '\\', '\'': '\'', '"': '"', '?': '?'}

// ansi reads $'...' with its C escapes, from the quote at r.i.
func (r *reader) ansi(f *lexkit.Fold) {
	j := r.i + 1
	for j < len(r.src) && r.src[j] != '\'' {
		c := r.src[j]
		if c == '\\' && j+1 < len(r.src) {
			if e := ansiEscapes[r.src[j+1]]; e != 0 {
				f.LitByte(e)
			} else {
				f.LitByte('\\')
				f.LitByte(r.src[j+1])
			}
			j += 2
			continue
		}
		f.LitByte(c)
		j++
	}
	r.i = min(j+1, len(r.src))
}
