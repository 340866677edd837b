package python

import (
	"strings"

	"github.com/sunsetscan/sunset/scanner/repo/code"
)

// strFormat folds recv.format(args): {} {0} {name} {name.attr} (with any conversion and
// spec) are holes, or the argument's string when it is one. A hole is named after the
// argument when it is a name, else after the field. The value is positioned at recv.
func (p *parser) strFormat(recv *val, args []argVal) val {
	b, names, _ := p.pieces(recv)
	recv.kind = vOther
	v := val{kind: vStr, start: recv.start, b: p.byteArena.take(len(b) + 16)}
	auto, k := 0, 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == code.Hole:
			p.hole(&v, nameAt(names, k))
			k++
		case (c == '{' || c == '}') && i+1 < len(b) && b[i+1] == c:
			p.grow(&v, 1)
			v.b = append(v.b, c)
			i++
		case c == '{':
			j := fieldEnd(b, i)
			if j < 0 {
				v.b = append(v.b, c)
				continue
			}
			p.formatField(&v, b[i+1:j], args, &auto)
			i = j
		default:
			v.b = append(v.b, c)
		}
	}
	return v
}

func nameAt(names []string, k int) string {
	if k < len(names) {
		return names[k]
	}
	return ""
}

// fieldEnd returns the index of the '}' closing the field opened at i (its spec may nest
// fields), or -1.
func fieldEnd(b []byte, i int) int {
	d := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '{':
			d++
		case '}':
			d--
			if d == 0 {
				return j
			}
		case code.Hole:
			return -1
		}
	}
	return -1
}

// formatField appends the value of one replacement field.
func (p *parser) formatField(v *val, field []byte, args []argVal, auto *int) {
	if k := strings.IndexAny(string(field), "!:"); k >= 0 {
		field = field[:k]
	}
	base, attr := field, ""
	if k := strings.IndexAny(string(field), ".["); k >= 0 {
		base = field[:k]
		if d := strings.LastIndexByte(string(field), '.'); d >= 0 {
			attr = string(field[d+1:])
			if e := strings.IndexByte(attr, '['); e >= 0 {
				attr = attr[:e]
			}
		}
	}
	var a *argVal
	named := false
	switch {
	case len(base) == 0:
		a = positional(args, *auto)
		*auto++
	case allDigits(base):
		n := 0
		for _, c := range base[:min(len(base), 6)] {
			n = n*10 + int(c-'0')
		}
		a = positional(args, n)
	default:
		named = true
		a = keywordArg(args, string(base))
	}
	switch {
	case attr != "" || len(field) > len(base):
		p.hole(v, attr)
	case a != nil && (a.v.kind == vStr || a.v.kind == vName):
		w := a.v
		p.appendVal(v, &w)
		a.used = a.used || a.v.kind == vStr
	case a != nil && p.holeName(&a.v) != "":
		p.hole(v, p.holeName(&a.v))
	case named:
		p.hole(v, string(base))
	default:
		p.hole(v, "")
	}
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// positional returns the n-th positional argument, or nil.
func positional(args []argVal, n int) *argVal {
	for i := range args {
		if args[i].key != "" || args[i].star {
			continue
		}
		if n == 0 {
			return &args[i]
		}
		n--
	}
	return nil
}

// keywordArg returns the keyword argument name, or nil.
func keywordArg(args []argVal, name string) *argVal {
	for i := range args {
		if args[i].key == name {
			return &args[i]
		}
	}
	return nil
}

// verb is a printf-style conversion in a % format.
type verb struct {
	end   int // index after it
	key   string
	conv  byte
	stars int
}

// parseVerb reads the conversion after the '%' before i: %s %d %5.2f %-*s %(name)s %%.
func parseVerb(b []byte, i int) (verb, bool) {
	v := verb{}
	j := i
	if j < len(b) && b[j] == '(' {
		k := j + 1
		for k < len(b) && b[k] != ')' && b[k] != code.Hole {
			k++
		}
		if k >= len(b) || b[k] != ')' {
			return v, false
		}
		v.key = string(b[j+1 : k])
		j = k + 1
	}
	for j < len(b) && strings.IndexByte("#0- +", b[j]) >= 0 {
		j++
	}
	j = width(b, j, &v)
	if j < len(b) && b[j] == '.' {
		j = width(b, j+1, &v)
	}
	if j < len(b) && (b[j] == 'h' || b[j] == 'l' || b[j] == 'L') {
		j++
	}
	if j >= len(b) || strings.IndexByte("diouxXeEfFgGcrsab%", b[j]) < 0 {
		return v, false
	}
	v.conv, v.end = b[j], j+1
	return v, true
}

// width reads a width or precision: '*' (an argument) or digits.
func width(b []byte, j int, v *verb) int {
	if j < len(b) && b[j] == '*' {
		v.stars++
		return j + 1
	}
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	return j
}

// printf folds l % r into l: each conversion is a hole, named after its argument when that is
// a name (or after the key of %(key)s), or the argument's string for a %s of one.
func (p *parser) printf(l, r *val) {
	b, names, _ := p.pieces(l)
	v := val{kind: vStr, start: l.start, end: r.end, b: p.byteArena.take(len(b) + 16)}
	var one [1]val
	var list []val
	switch r.kind {
	case vSeq:
		list = r.elems
	case vDict:
	default:
		one[0] = *r
		list = one[:]
	}
	k, next := 0, 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '%' {
			if c == code.Hole {
				p.hole(&v, nameAt(names, k))
				k++
			} else {
				v.b = append(v.b, c)
			}
			continue
		}
		vb, ok := parseVerb(b, i+1)
		if !ok {
			v.b = append(v.b, c)
			continue
		}
		i = vb.end - 1
		switch {
		case vb.conv == '%':
			v.b = append(v.b, '%')
		case r.kind == vDict || vb.key != "":
			p.hole(&v, vb.key)
		default:
			next += vb.stars
			if next < len(list) && vb.conv == 's' {
				p.appendVal(&v, &list[next])
			} else if next < len(list) {
				p.hole(&v, p.holeName(&list[next]))
			} else {
				p.hole(&v, "")
			}
			next++
		}
	}
	for i := range list {
		p.flush(&list[i])
	}
	*l = v
}
