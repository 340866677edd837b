package shell

import "github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"

// word is one shell word just read; its value is in r.fold().
type word struct {
	start, end int
	quoted     bool // a part was quoted or escaped
	holes      bool // a part is an expansion
	// ident is the variable when the word is one expansion of it ("$ZONE", "${ZONE}").
	ident string
	// eq is where a leading unquoted name ends when "=" (eqLen 1) or ":=" (eqLen 2) follows
	// it, -1 otherwise; dashes counts the name's leading dashes (--data=...); nameOK says
	// whether the name is a shell variable name.
	eq, eqLen, dashes int
	nameOK            bool
	// parts counts the parts read, vars the expansions of a plain variable among them.
	parts, vars int
}

// assign reports whether the word is NAME=value.
func (w *word) assign() bool { return w.eq > 0 && w.eqLen == 1 && w.nameOK && w.dashes == 0 }

// option reports whether the word is an option (-E, --preserve-env).
func (w *word) option() bool { return w.dashes > 0 }

// key is the name of name=value, without its dashes.
func (w *word) key(src []byte) string {
	return string(src[w.start+w.dashes : w.start+w.eq])
}

// isMeta reports whether c ends an unquoted word.
func isMeta(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', ';', '&', '|', '<', '>', '(', ')':
		return true
	}
	return false
}

// word reads one word at r.i into r.fold(), up to a metacharacter or stop.
func (r *reader) word(stop byte) word {
	f := r.fold()
	f.Reset()
	w := word{start: r.i, eq: -1, nameOK: true}
	lead := true // still reading the unquoted name a word may start with
	for r.i < len(r.src) {
		c := r.src[r.i]
		if isMeta(c) || c == stop {
			break
		}
		if lead {
			var took bool
			took, lead = r.lead(&w, c)
			if took {
				continue
			}
		}
		switch c {
		case '\\':
			r.i++
			if r.i < len(r.src) && r.src[r.i] == '\n' {
				r.i++
				continue
			}
			w.quoted = true
			if r.i < len(r.src) {
				f.LitByte(r.src[r.i])
				r.i++
			}
		case '\'':
			w.quoted = true
			w.parts++
			r.single(f)
		case '"':
			w.quoted = true
			r.i++
			r.double(f, &w, '"', len(r.src))
		case '$':
			r.dollar(f, &w)
		case '`':
			r.backquote(f, &w)
		default:
			w.parts++
			f.LitByte(c)
			r.i++
		}
	}
	w.end = r.i
	if w.parts != 1 || w.vars != 1 {
		w.ident = ""
	}
	return w
}

// lead reads one byte of the unquoted name a word may start with (a variable's name, an
// option's, a field's): whether it took the byte, and whether the name goes on after it
// ("=" or ":=" ends it, and so does a byte no name holds, which it does not take).
func (r *reader) lead(w *word, c byte) (took, more bool) {
	f := r.fold()
	n := f.Len()
	ended := false
	switch {
	case c == '-' && n == w.dashes:
		w.dashes++
	case c == '=' && n > w.dashes:
		w.eq, w.eqLen, ended = n, 1, true
	case c == ':' && n > w.dashes && r.peek(1) == '=':
		w.eq, w.eqLen, ended = n, 2, true
		f.LitByte(':')
		r.i++
		c = '='
	case c < 0x80 && lexkit.IsIdent(c) || c == '.' || c == '-':
		if c >= '0' && c <= '9' && n == w.dashes || c == '.' || c == '-' {
			w.nameOK = false
		}
	default:
		return false, false
	}
	w.parts++
	f.LitByte(c)
	r.i++
	return true, !ended
}
