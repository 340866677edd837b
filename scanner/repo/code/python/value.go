package python

import (
	"github.com/sunsetscan/sunset/scanner/repo/code"
)

// vkind is what an expression's value is, as far as folding strings cares.
type vkind uint8

const (
	vOther vkind = iota // anything else: a call's result, an operation
	vName               // a name or a dotted name
	vStr                // a string built from at least one literal (b holds it)
	vNum
	vSeq  // a tuple or list literal
	vDict // a dict literal
)

// val is an expression's value.
type val struct {
	kind       vkind
	start, end code.Pos
	// b is a vStr's value, with code.Hole for each unknown part, and names the names of
	// those holes, one each. b may be a capacity-limited slice of the source: appending to
	// it copies.
	b     []byte
	names []string
	// name is a vName's last element; for a vOther, the name a hole for it goes by (x for
	// str(x)), if any.
	name span
	self bool // a vName that is self.x or cls.x
	// plain is true for a vName of one identifier.
	plain bool
	// lit is where a vStr that is exactly one literal without escapes is in the source, so
	// its value can be a slice of the source; for a subscript (d["key"]), where its literal
	// key is.
	lit span
	// elems are a tuple or list literal's elements, kept when the % or join reading it
	// asked for them (parser.want); none of them has been recorded.
	elems []val
}

// binding is what a name was assigned. ok is false once the name was assigned something
// that is not a string, or a second time.
type binding struct {
	b     []byte
	names []string
	ok    bool
}

// scope is a def or class body, open until a line is indented no deeper than indent.
type scope struct {
	class  bool
	indent int
	params []string
	locals int // where the body's names start in parser.locals
}

// local is a name assigned in a def or class body.
type local struct {
	name string
	b    binding
}

// maxLocals bounds the names kept per body (each is looked up by a scan).
const maxLocals = 64

// vars returns the names assigned in the i-th open body.
func (p *parser) vars(i int) []local {
	end := len(p.locals)
	if i+1 < len(p.scopes) {
		end = p.scopes[i+1].locals
	}
	return p.locals[p.scopes[i].locals:end]
}

// find returns the binding of name in the i-th open body.
func (p *parser) find(i int, name []byte) (binding, bool) {
	vs := p.vars(i)
	for j := range vs {
		if vs[j].name == string(name) {
			return vs[j].b, true
		}
	}
	return binding{}, false
}

// set records an assignment of name in the innermost body; a second one spoils it.
func (p *parser) set(name string, b binding) {
	vs := p.vars(len(p.scopes) - 1)
	for j := range vs {
		if vs[j].name == name {
			vs[j].b = binding{}
			return
		}
	}
	if len(vs) < maxLocals {
		p.locals = append(p.locals, local{name: name, b: b})
	}
}

// maxScopes bounds the open bodies (CPython's own limit on indentation is 100).
const maxScopes = 100

// pushScope opens a def or class body.
func (p *parser) pushScope(s scope) {
	if len(p.scopes) >= maxScopes {
		return
	}
	s.locals = len(p.locals)
	p.scopes = append(p.scopes, s)
}

func (p *parser) popScopes(col int) {
	n := len(p.scopes)
	for n > 0 && p.scopes[n-1].indent >= col {
		n--
	}
	if n < len(p.scopes) {
		p.locals = p.locals[:p.scopes[n].locals]
	}
	p.scopes = p.scopes[:n]
}

func (v *val) nameBytes(src []byte) []byte { return src[v.name.a:v.name.b] }

// hole appends to v an unknown part named name; it joins a hole just before it.
func (p *parser) hole(v *val, name string) {
	if n := len(v.b); n > 0 && v.b[n-1] == code.Hole {
		if last := len(v.names) - 1; v.names[last] == "" {
			v.names[last] = name
		}
		return
	}
	p.grow(v, 1)
	p.growNames(v)
	v.b = append(v.b, code.Hole)
	v.names = append(v.names, name)
}

// appendPieces appends a folded value (b with its hole names) to v.
func (p *parser) appendPieces(v *val, b []byte, names []string) {
	p.grow(v, len(b))
	k := 0
	for i := 0; i < len(b); {
		if b[i] == code.Hole {
			name := ""
			if k < len(names) {
				name = names[k]
			}
			k++
			p.hole(v, name)
			i++
			continue
		}
		j := i
		for j < len(b) && b[j] != code.Hole {
			j++
		}
		v.b = append(v.b, b[i:j]...)
		i = j
	}
}

// hasLiteral reports whether b has a character that is not a hole.
func hasLiteral(b []byte) bool {
	for _, c := range b {
		if c != code.Hole {
			return true
		}
	}
	return false
}

// holeName is the name a hole standing for v goes by.
func (p *parser) holeName(v *val) string {
	if v.kind == vName || v.kind == vOther {
		return p.str(v.name)
	}
	return ""
}

// appendVal appends v to d as one operand of a concatenation: a string's pieces, a name's
// value when it was assigned a string once, else a hole.
func (p *parser) appendVal(d *val, v *val) {
	switch v.kind {
	case vStr:
		p.appendPieces(d, v.b, v.names)
		v.kind = vOther
		return
	case vName:
		if b, ok := p.lookup(v); ok {
			p.appendPieces(d, b.b, b.names)
			return
		}
	case vSeq:
		p.flush(v)
	}
	p.hole(d, p.holeName(v))
}

// value returns a vStr's value as a string.
func (p *parser) value(v *val) string {
	if v.lit.b > v.lit.a {
		return p.str(v.lit)
	}
	return string(v.b)
}

// pieces returns v's value as pieces without copying: a string's own, or the string a name
// was assigned once; ok is false for anything else.
func (p *parser) pieces(v *val) (b []byte, names []string, ok bool) {
	switch v.kind {
	case vStr:
		return v.b, v.names, true
	case vName:
		if bd, ok := p.lookup(v); ok {
			return bd.b, bd.names, true
		}
	}
	return nil, nil, false
}

// stringish reports whether v is a string: a literal, or a name assigned one.
func (p *parser) stringish(v *val) bool {
	if v.kind == vStr {
		return true
	}
	_, ok := p.lookup(v)
	return ok
}

// flush records v when it is a string with literal text (or the elements of a tuple or
// list kept for a fold that did not happen), given to what p.cx says. v is then spent.
func (p *parser) flush(v *val) {
	switch v.kind {
	case vSeq:
		for i := range v.elems {
			p.flush(&v.elems[i])
		}
		v.elems = nil
		return
	case vStr:
	default:
		return
	}
	v.kind = vOther
	if !hasLiteral(v.b) {
		return
	}
	value := ""
	if v.lit.b > v.lit.a {
		value = p.str(v.lit)
	} else {
		a := len(p.vals)
		p.vals = append(p.vals, v.b...)
		p.valEnds = append(p.valEnds, valEnd{i: len(p.f.Strings), a: a, b: len(p.vals)})
	}
	p.f.Strings = append(p.f.Strings, code.Str{
		Value:     value,
		Pos:       v.start,
		End:       v.end,
		Key:       p.cx.key,
		Assigned:  p.cx.assigned,
		Call:      p.cx.call,
		Arg:       p.cx.arg,
		HoleNames: p.nameArena.copy(v.names),
	})
}

// flushBare records v given to nothing: a string that is the receiver of a method is not
// what the method's result is given to.
func (p *parser) flushBare(v *val) {
	saved := p.cx
	p.cx = none
	p.flush(v)
	p.cx = saved
}

// lookup returns the string a name was assigned once: a local of the enclosing defs (a
// parameter hides it), a name of the class body being read, or a module-level name; self.x
// and cls.x look in the attributes.
func (p *parser) lookup(v *val) (binding, bool) {
	if v.kind != vName {
		return binding{}, false
	}
	name := p.src[v.name.a:v.name.b]
	if v.self {
		b, ok := p.attrs[string(name)]
		return b, ok && b.ok
	}
	if !v.plain {
		return binding{}, false
	}
	for i := len(p.scopes) - 1; i >= 0; i-- {
		s := &p.scopes[i]
		if s.class && i != len(p.scopes)-1 {
			continue
		}
		for _, q := range s.params {
			if q == string(name) {
				return binding{}, false
			}
		}
		if b, ok := p.find(i, name); ok {
			return b, b.ok
		}
	}
	b, ok := p.globals[string(name)]
	return b, ok && b.ok
}

// bind records that target was assigned rhs: a string value is kept for substitution
// when the name is assigned only once.
func (p *parser) bind(target *val, tuple bool, rhs *val) {
	if tuple || target.kind != vName || !target.plain && !target.self {
		return
	}
	name := p.str(target.name)
	b := binding{}
	if rhs.kind == vStr && hasLiteral(rhs.b) {
		b = binding{b: rhs.b[:len(rhs.b):len(rhs.b)], names: rhs.names[:len(rhs.names):len(rhs.names)], ok: true}
	}
	if target.self {
		p.attrs = setBinding(p.attrs, name, b)
		return
	}
	n := len(p.scopes)
	if n == 0 {
		p.globals = setBinding(p.globals, name, b)
		return
	}
	s := &p.scopes[n-1]
	if !b.ok && !s.class {
		// Only worth keeping when it hides a module-level string or spoils a local one.
		if _, ok := p.find(n-1, target.nameBytes(p.src)); !ok && (len(p.globals) == 0 || !p.globals[name].ok) {
			return
		}
	}
	p.set(name, b)
	if s.class {
		p.attrs = setBinding(p.attrs, name, b)
	}
}

// setBinding adds name to m; a second assignment spoils it.
func setBinding(m map[string]binding, name string, b binding) map[string]binding {
	if m == nil {
		m = make(map[string]binding)
	}
	if _, ok := m[name]; ok {
		b = binding{}
	}
	m[name] = b
	return m
}
