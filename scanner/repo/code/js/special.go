package js

import (
	"strings"

	"github.com/sunsetscan/sunset/scanner/repo/code"
)

// special handles the calls the reader knows more of: require and import() name a module;
// path joins, format calls, new URL(path, base), "literal".concat(...) and [...].join(sep)
// give a string built from their arguments, which stays pending as the call's value (so
// that const url = path.join(...) is assigned to url). ok is false for any other call,
// whose arguments the caller records.
func (p *parser) special(v val, base int, args []val, idx int, isNew bool) (val, bool) {
	chain := p.chain[base:]
	if len(chain) == 0 {
		return val{}, false
	}
	last := chain[len(chain)-1]
	switch {
	case v.receiver() != nil && last == "concat":
		return p.concat(*v.receiver(), args), true
	case v.receiver() != nil && last == "join":
		return p.joinArray(*v.receiver(), args, idx)
	case len(chain) == 1 && (last == "require" || last == "import"):
		if len(args) > 0 && args[0].kind == vStr && !hasHole(args[0].str) {
			p.addImport(args[0].str)
		}
	case isNew && last == "URL" && len(args) >= 2:
		p.flushFrom(args, 2, idx)
		return p.pathJoin([]val{args[1], args[0]}), true
	case !isNew && len(args) > 0 && isPathJoin(chain):
		return p.pathJoin(args), true
	case !isNew && (last == "format" || last == "sprintf") && len(args) > 0 && args[0].kind == vStr:
		return p.format(args, idx), true
	}
	return val{}, false
}

// flushFrom records the arguments from i on that a fold did not use.
func (p *parser) flushFrom(args []val, i, idx int) {
	for ; i < len(args); i++ {
		p.flush(args[i], argCtx(idx, i))
	}
}

// isPathJoin reports whether the callee joins path or URL pieces.
func isPathJoin(chain []string) bool {
	last := chain[len(chain)-1]
	if len(chain) == 1 {
		return last == "urljoin" || last == "urlJoin"
	}
	prev := chain[len(chain)-2]
	switch last {
	case "join":
		return prev == "path" || prev == "posix" || prev == "win32"
	case "resolve":
		return prev == "url"
	}
	return false
}

// span returns the smallest start and the largest end of the values.
func span(vs []val) (start, end int32) {
	start, end = vs[0].start, vs[0].end
	for _, v := range vs[1:] {
		start, end = min(start, v.start), max(end, v.end)
	}
	return start, end
}

// pathJoin joins the pieces with "/", without doubling the slashes between them; a piece
// that is not a literal is a hole.
func (p *parser) pathJoin(pieces []val) val {
	var b builder
	for _, v := range pieces {
		var piece builder
		p.add(&piece, v)
		if len(piece.b) == 0 {
			continue
		}
		if len(b.b) > 0 {
			for len(b.b) > 0 && b.b[len(b.b)-1] == '/' {
				b.b = b.b[:len(b.b)-1]
			}
			k := 0
			for k < len(piece.b) && piece.b[k] == '/' {
				k++
			}
			piece.b = piece.b[k:]
			b.lit("/")
		}
		b.folded(string(piece.b), piece.names)
	}
	start, end := span(pieces)
	return b.val(start, end)
}

// concat folds "literal".concat(a, b).
func (p *parser) concat(recv val, args []val) val {
	var b builder
	p.add(&b, recv)
	end := recv.end
	for _, a := range args {
		p.add(&b, a)
		end = max(end, a.end)
	}
	return b.val(recv.start, end)
}

// joinArray folds [a, b].join(sep) when sep is a literal (or absent: ","); otherwise the
// array and the arguments are recorded as they are.
func (p *parser) joinArray(recv val, args []val, idx int) (val, bool) {
	sep := ","
	if len(args) > 0 {
		if args[0].kind != vStr || hasHole(args[0].str) {
			p.flush(recv, none)
			return val{}, false
		}
		sep = args[0].str
	}
	var b builder
	for i, e := range recv.elements() {
		if i > 0 {
			b.lit(sep)
		}
		p.add(&b, e)
	}
	p.flushFrom(args, 1, idx)
	return b.val(recv.start, recv.end), true
}

// format folds a printf-style call (util.format, sprintf): each verb is the argument it
// takes, a literal kept, anything else a hole named after it; %(name)s is a hole named
// name. The value is positioned at the format string.
func (p *parser) format(args []val, idx int) val {
	f := args[0]
	used := make([]bool, len(args))
	used[0] = true
	var b builder
	next, k := 1, 0
	for s := f.str; s != ""; {
		switch s[0] {
		case code.Hole:
			name := ""
			if names := f.holeNames(); k < len(names) {
				name = names[k]
			}
			k++
			b.hole(name)
			s = s[1:]
		case '%':
			n, pos, named := verb(s)
			switch {
			case n == 0:
				b.lit("%")
				n = 1
			case pos < 0:
				b.lit("%")
			case named != "":
				b.hole(named)
			default:
				if pos == 0 {
					pos = next
					next++
				}
				if pos < len(args) {
					p.add(&b, args[pos])
					used[pos] = true
				} else {
					b.hole("")
				}
			}
			s = s[n:]
		default:
			j := strings.IndexAny(s, "%\x00")
			if j < 0 {
				j = len(s)
			}
			b.lit(s[:j])
			s = s[j:]
		}
	}
	for i, a := range args {
		if !used[i] {
			p.flush(a, argCtx(idx, i))
		}
	}
	return b.val(f.start, f.end)
}

// verb reads a printf verb at s[0] == '%': its length (0 when it is none), the argument it
// names (%2$s; 0 for the next one, -1 for %%) and the name of %(name)s.
func verb(s string) (n, pos int, named string) {
	if len(s) > 1 && s[1] == '%' {
		return 2, -1, ""
	}
	i := 1
	if i < len(s) && s[i] == '(' {
		j := strings.IndexByte(s[i:], ')')
		if j < 2 {
			return 0, 0, ""
		}
		named = s[i+1 : i+j]
		i += j + 1
	}
	d := scanDigits(s, i)
	if d > i && d < len(s) && s[d] == '$' {
		for _, c := range s[i:d] {
			pos = pos*10 + int(c-'0')
			if pos > 1000 {
				return 0, 0, ""
			}
		}
		i = d + 1
	}
	for i < len(s) && strings.IndexByte("-+ 0#", s[i]) >= 0 {
		i++
	}
	if i+1 < len(s) && s[i] == '\'' {
		i += 2
	}
	i = scanDigits(s, i)
	if i < len(s) && s[i] == '.' {
		i = scanDigits(s, i+1)
	}
	if i < len(s) && strings.IndexByte("sdifjoOcxXbeEuUgGtTv", s[i]) >= 0 {
		return i + 1, pos, named
	}
	return 0, 0, ""
}
