package python

import "github.com/sunsetscan/sunset/scanner/repo/code"

// special is a call folded into a value instead of (as well as) being recorded.
type special uint8

const (
	spNone     special = iota
	spFormat           // "...".format(...)
	spJoin             // "/".join([...])
	spKeep             // "...".encode(), .strip(): the same text
	spPathJoin         // os.path.join, posixpath.join, urljoin
	spStr              // str(x): one hole named x
	spImport           // importlib.import_module("mod"), __import__("mod")
)

// argVal is an argument of a call read for folding.
type argVal struct {
	v    val
	key  string
	star bool
	used bool // folded into the call's value
}

func (p *parser) spanIs(s span, name string) bool { return string(p.src[s.a:s.b]) == name }

// specialOf tells which special call the chain from mark is, given the receiver of its last
// name.
func (p *parser) specialOf(recv *val, hasRecv bool, mark int) special {
	n := len(p.chain) - mark
	if n == 0 {
		return spNone
	}
	last := p.chain[len(p.chain)-1]
	if hasRecv && p.stringish(recv) {
		switch string(p.src[last.a:last.b]) {
		case "format":
			return spFormat
		case "join":
			return spJoin
		case "encode", "decode", "strip", "lstrip", "rstrip":
			if recv.kind == vStr {
				return spKeep
			}
		}
	}
	switch string(p.src[last.a:last.b]) {
	case "urljoin":
		return spPathJoin
	case "join":
		if n >= 2 && (p.spanIs(p.chain[len(p.chain)-2], "path") || p.spanIs(p.chain[len(p.chain)-2], "posixpath")) {
			return spPathJoin
		}
	case "str":
		if n == 1 {
			return spStr
		}
	case "import_module", "__import__":
		return spImport
	}
	return spNone
}

// call reads a call of fn (the chain from mark, its last name at namePos) and records it;
// a special call is folded into the value it returns.
func (p *parser) call(fn *val, recv *val, hasRecv bool, mark int, namePos code.Pos) {
	sp := p.specialOf(recv, hasRecv, mark)
	if hasRecv && sp != spFormat && sp != spJoin && sp != spKeep {
		p.flushBare(recv)
	}
	idx := p.record(mark, namePos)
	if sp == spNone || sp == spKeep {
		end := p.readArgs(idx, false, false)
		if sp == spKeep {
			recv.end = end
			*fn = *recv
			return
		}
		*fn = val{start: fn.start, end: end}
		return
	}
	argMark := len(p.args)
	end := p.readArgs(idx, true, sp == spJoin)
	args := p.args[argMark:]
	defer func() { p.args = p.args[:argMark] }()
	var v val
	switch sp {
	case spFormat:
		v = p.strFormat(recv, args)
	case spJoin:
		v = p.strJoin(recv, args)
	case spPathJoin:
		v = p.pathJoin(args)
	case spStr:
		v = p.strCall(args)
	default:
		if len(args) > 0 && args[0].v.kind == vStr && len(args[0].v.names) == 0 {
			p.addImport(string(args[0].v.b))
		}
	}
	// What was not folded is recorded as an argument.
	saved := p.cx
	for i := range args {
		if !args[i].used {
			p.cx = ctx{call: idx, arg: i, key: args[i].key}
			p.flush(&args[i].v)
		}
	}
	p.cx = saved
	if v.kind == vStr {
		v.end = end
		if v.start == (code.Pos{}) {
			v.start = fn.start
		}
		*fn = v
		return
	}
	*fn = val{start: fn.start, end: end, name: v.name}
}

// record adds the call of the chain from mark to the file and returns its index.
func (p *parser) record(mark int, namePos code.Pos) int {
	p.scratch = p.scratch[:0]
	for _, s := range p.chain[mark:] {
		p.scratch = append(p.scratch, p.str(s))
	}
	callee := p.nameArena.copy(p.scratch)
	if callee == nil {
		callee = []string{}
	}
	p.f.Calls = append(p.f.Calls, code.Call{Callee: callee, Pos: namePos})
	return len(p.f.Calls) - 1
}

// readArgs reads the arguments of the call idx: keyword names are its Keys, plain names its
// ArgIdents. With keep, the arguments are kept on p.args unrecorded (wantSeq asks for a
// list literal's elements); otherwise each is recorded as it is read. A positional argument
// inherits the key its call is given to (expression=pulumi.Output.concat("...")). It
// returns the end of the call.
func (p *parser) readArgs(idx int, keep, wantSeq bool) code.Pos {
	p.next()
	saved := p.cx
	identMark, keyMark := len(p.identStack), len(p.keyStack)
	n := 0
	for !p.closing() {
		if p.is(",") || p.tok.kind == tName && (p.tok.kw == kwFor || p.tok.kw == kwAsync || p.tok.kw == kwIf || p.tok.kw == kwIn) {
			p.next()
			continue
		}
		a := argVal{}
		switch {
		case p.tok.kind == tName && p.tok.kw == kwNone && p.nextIsOp("="):
			a.key = p.str(tokSpan(&p.tok))
			p.keyStack = append(p.keyStack, code.Key{Name: a.key, Pos: p.tok.pos})
			p.next()
			p.next()
		case p.is("*") || p.is("**"):
			a.star = true
			p.next()
		}
		p.cx = ctx{call: idx, arg: n, key: a.key, depth: 1}
		if a.key == "" {
			p.cx.key, p.cx.depth = saved.key, 0
		}
		p.want = wantSeq
		before := p.count
		p.expr(&a.v)
		p.want = false
		if p.count == before {
			if !p.closing() {
				p.next()
			}
			continue
		}
		ident := ""
		if !a.star {
			ident = p.ident(&a.v)
		}
		p.identStack = append(p.identStack, ident)
		if keep {
			p.args = append(p.args, a)
		} else {
			p.flush(&a.v)
		}
		n++
	}
	p.cx = saved
	c := &p.f.Calls[idx]
	c.End = p.tok.pos
	c.ArgIdents = p.nameArena.copy(p.identStack[identMark:])
	c.Keys = p.keyArena.copy(p.keyStack[keyMark:])
	p.identStack, p.keyStack = p.identStack[:identMark], p.keyStack[:keyMark]
	end := p.tok.end
	if p.is(")") {
		p.next()
	}
	return end
}

// ident is the identifier an argument passes: a plain name, or x of self.x.
func (p *parser) ident(v *val) string {
	if v.kind == vName && (v.plain || v.self) {
		return p.str(v.name)
	}
	return ""
}

// strCall folds str(x): a string stays itself, anything else is a hole named after x.
func (p *parser) strCall(args []argVal) val {
	if len(args) != 1 || args[0].star {
		return val{}
	}
	a := &args[0].v
	if a.kind == vStr {
		args[0].used = true
		return *a
	}
	if a.kind == vName || a.kind == vOther {
		return val{name: a.name}
	}
	return val{}
}

// pathJoin folds os.path.join(...) and urljoin(...): the pieces joined by "/" (never
// doubled), an argument that is not a string a hole. It is positioned at its first
// argument.
func (p *parser) pathJoin(args []argVal) val {
	v := val{kind: vStr, b: p.byteArena.take(32)}
	lit := false
	for i := range args {
		a := &args[i]
		if i == 0 {
			v.start = a.v.start
		}
		if a.star || a.key != "" {
			p.hole(&v, "")
			continue
		}
		lit = lit || p.stringish(&a.v)
		p.joinPiece(&v, &a.v, i > 0, slash)
		a.used = true
	}
	if !lit {
		return val{}
	}
	return v
}

var slash = []byte{'/'}

// joinPiece appends w to v after the separator sep (when sepBefore); a "/" separator is
// never doubled: a seam that already has one keeps just one.
func (p *parser) joinPiece(v, w *val, sepBefore bool, sep []byte) {
	b, names, ok := p.pieces(w)
	if !ok {
		b, names = holeBytes, []string{p.holeName(w)}
	}
	switch w.kind {
	case vSeq:
		p.flush(w) // a tuple or list in a join is a hole; its strings are their own values
	case vStr:
		w.kind = vOther
	}
	if sepBefore {
		n := len(v.b)
		endSlash := n > 0 && v.b[n-1] == '/'
		startSlash := len(b) > 0 && b[0] == '/'
		switch {
		case string(sep) != "/":
			p.grow(v, len(sep))
			v.b = append(v.b, sep...)
		case endSlash && startSlash:
			v.b = v.b[:n-1]
		case !endSlash && !startSlash:
			p.grow(v, 1)
			v.b = append(v.b, '/')
		}
	}
	p.appendPieces(v, b, names)
}

var holeBytes = []byte(code.HoleString)

// strJoin folds sep.join([a, b, ...]) over a list or tuple literal; with anything else it
// is a call like any other.
func (p *parser) strJoin(recv *val, args []argVal) val {
	if len(args) != 1 || args[0].star || args[0].key != "" || args[0].v.kind != vSeq {
		p.flushBare(recv)
		return val{}
	}
	sep, names, _ := p.pieces(recv)
	if len(names) > 0 {
		p.flushBare(recv)
		return val{}
	}
	recv.kind = vOther
	elems := args[0].v.elems
	v := val{kind: vStr, start: recv.start, b: p.byteArena.take(32)}
	for i := range elems {
		p.joinPiece(&v, &elems[i], i > 0, sep)
	}
	args[0].used = true
	return v
}
