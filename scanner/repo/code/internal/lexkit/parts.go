package lexkit

// Part is one piece of a string literal: literal text, or a hole (an interpolation).
type Part struct {
	// Text is the literal text, or the hole's name ("" for an expression).
	Text string
	// A and B, when B > A, locate literal text written without escapes in the source; Text
	// is "" then.
	A, B int32
	// Hole is true for an interpolation.
	Hole bool
	// Var is true for a hole that is a plain variable, whose value may be known.
	Var bool
}

// Lookup returns the value a variable was assigned once, when known.
type Lookup func(name string) (value string, names []string, ok bool)

// Parts appends the pieces of a string literal read from src, replacing a plain variable's
// hole with its value when lookup knows it (lookup may be nil).
func (f *Fold) Parts(ps []Part, src []byte, lookup Lookup) {
	for _, p := range ps {
		switch {
		case !p.Hole && p.B > p.A:
			f.LitBytes(src[p.A:p.B])
		case !p.Hole:
			f.Lit(p.Text)
		case p.Var && lookup != nil:
			if v, names, ok := lookup(p.Text); ok {
				f.Append(v, names)
				continue
			}
			f.Hole(p.Text)
		default:
			f.Hole(p.Text)
		}
	}
}

// Nest pairs brackets as a reader meets them. A closer of a different kind than the
// innermost opener closes the nearest opener of its own kind, leaving the ones in between
// unmatched, but skips at most maxSkip of them, so that reading stays linear.
type Nest struct {
	at    []int32
	kinds []byte
}

// Reset forgets all openers.
func (n *Nest) Reset() { n.at, n.kinds = n.at[:0], n.kinds[:0] }

// Open records the opener of kind k ('(', '[', '{') at token i.
func (n *Nest) Open(i int, k byte) {
	n.at, n.kinds = append(n.at, int32(i)), append(n.kinds, k)
}

// Close returns the token index of the opener a closer of kind k (the opener's kind) closes,
// or -1 when it closes none.
func (n *Nest) Close(k byte) int {
	for j := len(n.at) - 1; j >= 0 && j >= len(n.at)-maxSkip; j-- {
		if n.kinds[j] == k {
			i := int(n.at[j])
			n.at, n.kinds = n.at[:j], n.kinds[:j]
			return i
		}
	}
	return -1
}

// maxSkip is how many unclosed brackets a closer of another kind may skip to find its own.
const maxSkip = 8

// Opener returns the opening bracket of a closing one.
func Opener(c byte) byte {
	switch c {
	case ')':
		return '('
	case ']':
		return '['
	case '}':
		return '{'
	}
	return 0
}

// Literal returns the literal text of a part that is no hole.
func (p Part) Literal(src []byte) string {
	if p.B > p.A {
		return string(src[p.A:p.B])
	}
	return p.Text
}
