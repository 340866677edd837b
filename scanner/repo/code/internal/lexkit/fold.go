package lexkit

import "github.com/sunsetscan/sunset/scanner/repo/code"

// Fold builds one folded value: literal text, with code.Hole for every part the source does
// not write out. Consecutive holes collapse into one, so Names has exactly one entry per
// hole in the value: when two holes meet, the first name that is not "" is kept.
type Fold struct {
	buf   []byte
	names []string
	lit   bool
}

// Reset empties the builder, keeping its memory.
func (f *Fold) Reset() {
	f.buf, f.names, f.lit = f.buf[:0], f.names[:0], false
}

// Lit appends literal text. A NUL byte in it is taken for a hole, so that Names stays in
// step with the holes of the value.
func (f *Fold) Lit(s string) {
	for i := 0; i < len(s); i++ {
		if s[i] == code.Hole {
			f.Hole("")
			continue
		}
		f.buf = append(f.buf, s[i])
		f.lit = true
	}
}

// LitBytes appends literal text.
func (f *Fold) LitBytes(b []byte) {
	for _, c := range b {
		if c == code.Hole {
			f.Hole("")
			continue
		}
		f.buf = append(f.buf, c)
		f.lit = true
	}
}

// LitByte appends one literal byte.
func (f *Fold) LitByte(c byte) {
	if c == code.Hole {
		f.Hole("")
		return
	}
	f.buf = append(f.buf, c)
	f.lit = true
}

// Hole appends a hole the source names name ("" for an expression).
func (f *Fold) Hole(name string) {
	if n := len(f.buf); n > 0 && f.buf[n-1] == code.Hole {
		if last := len(f.names) - 1; last >= 0 && f.names[last] == "" {
			f.names[last] = name
		}
		return
	}
	f.buf = append(f.buf, code.Hole)
	f.names = append(f.names, name)
}

// Append appends a value folded earlier, with its hole names (a variable's known value).
func (f *Fold) Append(value string, names []string) {
	k := 0
	for i := 0; i < len(value); i++ {
		if value[i] != code.Hole {
			f.buf = append(f.buf, value[i])
			f.lit = true
			continue
		}
		name := ""
		if k < len(names) {
			name = names[k]
		}
		k++
		f.Hole(name)
	}
}

// Bytes is the value so far, valid until the next change.
func (f *Fold) Bytes() []byte { return f.buf }

// JoinPiece appends one piece of a path join: a "/" before it unless the value ends with
// one, and none of the piece's own leading slashes after one.
func (f *Fold) JoinPiece(value string, names []string) {
	if len(f.buf) > 0 {
		if f.buf[len(f.buf)-1] != '/' {
			f.LitByte('/')
		}
		for len(value) > 0 && value[0] == '/' {
			value = value[1:]
		}
	}
	f.Append(value, names)
}

// Len is the length of the value so far.
func (f *Fold) Len() int { return len(f.buf) }

// Drop removes the first n bytes of the value, which must be literal (a name= prefix).
func (f *Fold) Drop(n int) {
	n = min(max(n, 0), len(f.buf))
	for _, c := range f.buf[:n] {
		if c == code.Hole {
			return
		}
	}
	f.buf = append(f.buf[:0], f.buf[n:]...)
	f.lit = false
	for _, c := range f.buf {
		if c != code.Hole {
			f.lit = true
			break
		}
	}
}

// Empty reports whether nothing was appended.
func (f *Fold) Empty() bool { return len(f.buf) == 0 }

// Literal reports whether the value holds at least one literal byte.
func (f *Fold) Literal() bool { return f.lit }

// Value returns the folded value.
func (f *Fold) Value() string { return string(f.buf) }

// Names returns a copy of the hole names, nil when there are no holes.
func (f *Fold) Names() []string {
	if len(f.names) == 0 {
		return nil
	}
	return append([]string(nil), f.names...)
}
