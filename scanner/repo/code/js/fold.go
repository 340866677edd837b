package js

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sunsetscan/sunset/scanner/repo/code"
)

// vkind says what an expression is, as far as folding strings and naming calls goes.
type vkind uint8

const (
	vEmpty  vkind = iota // nothing was read
	vNone                // an expression whose value is unknown
	vStr                 // a string value not yet recorded: str, names
	vIdent               // a plain identifier: name
	vMember              // a member access: name is its last element
	vCall                // a call's result
	vNum                 // a numeric literal: name is its text
	vFunc                // a function or arrow function
	vArray               // an array literal whose elements are not yet recorded
)

// val is what reading an expression gives back. Strings (and arrays holding them) stay
// pending until the reader knows where they go: the caller records them with flush, or
// folds them into a larger value first.
type val struct {
	kind       vkind
	start, end int32 // byte offsets of the expression
	namePos    int32 // start of the last name of a member chain
	// str is the value of a vStr, with Hole for each unknown part; the name of a vIdent,
	// the last name of a vMember, the text of a vNum.
	str string
	x   *extra // what few values need, kept apart to keep val small
}

// extra holds the parts of a val that few values have.
type extra struct {
	names []string // vStr: the names of the holes
	elems []val    // vArray: the elements
	recv  *val     // vMember: the literal receiver of .concat or .join
}

// holeNames returns the names of a string value's holes.
func (v *val) holeNames() []string {
	if v.x == nil {
		return nil
	}
	return v.x.names
}

// elements returns an array's elements.
func (v *val) elements() []val {
	if v.x == nil {
		return nil
	}
	return v.x.elems
}

// receiver returns the literal receiver of .concat or .join, or nil.
func (v *val) receiver() *val {
	if v.x == nil {
		return nil
	}
	return v.x.recv
}

// ctx is where a value goes: the key or variable and the call it is given to. The zero
// ctx is "nowhere"; call holds the index in File.Calls plus one. It is small, as it is
// passed down every level of an expression.
type ctx struct {
	name     string // the object key, or the variable when assigned
	call     int32
	arg      int32
	depth    int32
	assigned bool
}

// none is the context of a value given to nothing the reader follows.
var none = ctx{}

// argCtx is the context of argument i of call idx (-1 for a call not recorded).
func argCtx(idx, i int) ctx { return ctx{call: int32(idx + 1), arg: int32(i)} }

// member is the context of the value of key inside an object read in c.
func (c ctx) member(key string) ctx {
	return ctx{name: key, call: c.call, arg: -1, depth: c.depth + 1}
}

// inside is the context of an element of an array read in c: the array's key or variable,
// inside its call.
func (c ctx) inside() ctx {
	return ctx{name: c.name, assigned: c.assigned, call: c.call, arg: -1, depth: c.depth}
}

// flush records a pending string value, or the pending elements of an array, with c.
func (p *parser) flush(v val, c ctx) {
	switch v.kind {
	case vStr:
		if !literal(v.str) {
			return
		}
		s := code.Str{
			Value: v.str, Pos: off(v.start), End: off(p.lastChar(v.start, v.end)),
			Call: int(c.call) - 1, Arg: -1, HoleNames: v.holeNames(),
		}
		if c.call > 0 {
			s.Arg = int(c.arg)
		}
		if c.assigned {
			s.Assigned = c.name
		} else {
			s.Key = c.name
		}
		p.f.Strings = append(p.f.Strings, s)
	case vArray:
		in := c.inside()
		for _, e := range v.elements() {
			p.flush(e, in)
		}
	}
}

// literal reports whether s has a character that is not a hole.
func literal(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != code.Hole {
			return true
		}
	}
	return false
}

func hasHole(s string) bool { return strings.IndexByte(s, code.Hole) >= 0 }

// builder folds pieces into one value, one hole (and one name) for each run of unknown
// parts. A merged hole keeps the first name it was given.
type builder struct {
	b     []byte
	names []string
}

func (s *builder) lit(x string) { s.b = append(s.b, x...) }

func (s *builder) hole(name string) {
	if n := len(s.b); n > 0 && s.b[n-1] == code.Hole {
		if last := len(s.names) - 1; s.names[last] == "" {
			s.names[last] = name
		}
		return
	}
	s.b = append(s.b, code.Hole)
	s.names = append(s.names, name)
}

// folded adds a value that may hold holes, with their names.
func (s *builder) folded(str string, names []string) {
	k := 0
	for {
		j := strings.IndexByte(str, code.Hole)
		if j < 0 {
			s.lit(str)
			return
		}
		s.lit(str[:j])
		name := ""
		if k < len(names) {
			name = names[k]
		}
		s.hole(name)
		k++
		str = str[j+1:]
	}
}

func (s *builder) val(start, end int32) val {
	v := val{kind: vStr, start: start, end: end, str: string(s.b)}
	if len(s.names) > 0 {
		v.x = &extra{names: s.names}
	}
	return v
}

// add folds an operand into s: a string's text, a constant's value, a hole for anything
// else, named after the identifier or the member's last name.
func (p *parser) add(s *builder, v val) {
	switch v.kind {
	case vStr:
		s.folded(v.str, v.holeNames())
	case vIdent:
		if c, ok := p.constant(v.str); ok {
			s.lit(c)
		} else {
			s.hole(v.str)
		}
	case vMember:
		s.hole(v.str)
	case vNum:
		if isDecimal(v.str) {
			s.lit(v.str)
		} else {
			s.hole("")
		}
	default:
		p.flush(v, none)
		s.hole("")
	}
}

func isDecimal(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// strValue returns the value of a string token.
func (p *parser) strValue(t token) string {
	s := p.src[t.start+1 : t.end]
	if t.flags&fOpen == 0 && s != "" {
		s = s[:len(s)-1]
	}
	return decode(s)
}

// tmplValue returns the cooked text of a template token, without its delimiters.
func (p *parser) tmplValue(t token) string {
	s := p.src[t.start+1 : t.end]
	switch {
	case t.kind == tTHead || t.kind == tTMid:
		s = s[:len(s)-2]
	case t.flags&fOpen == 0 && s != "":
		s = s[:len(s)-1]
	}
	return decode(s)
}

// decode resolves the escapes of a string or template literal's text. A NUL character
// becomes U+FFFD, so that it is never taken for a hole.
func decode(s string) string {
	j := 0
	for j < len(s) && s[j] != '\\' && s[j] != 0 {
		j++
	}
	if j == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:j])
	for i := j; i < len(s); {
		switch c := s[i]; c {
		case 0:
			b.WriteRune(utf8.RuneError)
			i++
		case '\\':
			i = escape(&b, s, i+1)
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// escape writes the character escaped at s[i:] (just after the backslash) and returns where
// the escape ends.
func escape(b *strings.Builder, s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch c := s[i]; c {
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'v':
		b.WriteByte('\v')
	case '\r':
		if i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
	case '\n':
	case 'x':
		if r, ok := hexValue(s, i+1, i+3); ok {
			writeRune(b, r)
			return i + 3
		}
		b.WriteByte('x')
	case 'u':
		return unicodeEscape(b, s, i+1)
	default:
		switch {
		case c >= '0' && c <= '7':
			return octal(b, s, i)
		case c == 0:
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteByte(c)
		}
	}
	return i + 1
}

// unicodeEscape reads \uXXXX (joining a surrogate pair) or \u{X...} from s[i:], just after
// the u.
func unicodeEscape(b *strings.Builder, s string, i int) int {
	if i < len(s) && s[i] == '{' {
		if j := strings.IndexByte(s[i:], '}'); j > 0 {
			if r, ok := hexValue(s, i+1, i+j); ok {
				writeRune(b, r)
				return i + j + 1
			}
		}
		b.WriteByte('u')
		return i
	}
	r, ok := hexValue(s, i, i+4)
	if !ok {
		b.WriteByte('u')
		return i
	}
	i += 4
	if utf16.IsSurrogate(r) && strings.HasPrefix(s[i:], "\\u") {
		if r2, ok := hexValue(s, i+2, i+6); ok {
			if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
				writeRune(b, pair)
				return i + 6
			}
		}
	}
	writeRune(b, r)
	return i
}

// octal reads a legacy octal escape (\0, \12, \377) from s[i:].
func octal(b *strings.Builder, s string, i int) int {
	r := rune(0)
	j := i
	for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' && r*8+rune(s[j]-'0') <= 0xFF {
		r = r*8 + rune(s[j]-'0')
		j++
	}
	writeRune(b, r)
	return j
}

// hexValue reads the hexadecimal number s[i:j].
func hexValue(s string, i, j int) (rune, bool) {
	if i >= j || j > len(s) || j-i > 6 {
		return 0, false
	}
	r := rune(0)
	for k := i; k < j; k++ {
		c := s[k]
		switch {
		case c >= '0' && c <= '9':
			r = r*16 + rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r*16 + rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r*16 + rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// writeRune writes r, or U+FFFD for NUL and for what is not a character.
func writeRune(b *strings.Builder, r rune) {
	if r == 0 || !utf8.ValidRune(r) {
		r = utf8.RuneError
	}
	b.WriteRune(r)
}
