package lexkit

import "github.com/sunsetscan/sunset/scanner/repo/code"

// Out collects what a reader finds into a code.File, turning offsets into positions. The
// small slices it hands out (callees, hole names, argument identifiers) are cut from shared
// chunks, so a file costs few allocations.
type Out struct {
	// File is the result.
	File *code.File
	// Lines counts positions in the source.
	Lines Lines
	names map[string]string
	// recent caches names by length and end bytes: most lookups repeat a recent name.
	recent [256]string
	src    []byte
	arena  []string
	// staged holds the argument identifiers of calls not yet ended, stagedCall their calls.
	staged     []string
	stagedCall []int
}

// NewOut starts the File of a reader of lang over src.
func NewOut(lang string, src []byte) *Out {
	return &Out{File: &code.File{Lang: lang}, Lines: NewLines(src), names: map[string]string{}, src: src}
}

// Reserve makes room for at most strs values and calls calls (a reader's count of string
// literals and opening parentheses), so that they are not copied as they grow.
func (o *Out) Reserve(strs, calls int) {
	o.File.Strings = make([]code.Str, 0, min(strs, 1<<16))
	o.File.Calls = make([]code.Call, 0, min(calls, 1<<16))
}

// Strs returns a copy of ss (nil when empty) cut from a shared chunk.
func (o *Out) Strs(ss ...string) []string {
	n := len(ss)
	if n == 0 {
		return nil
	}
	if len(o.arena)+n > cap(o.arena) {
		o.arena = make([]string, 0, max(256, n))
	}
	k := len(o.arena)
	o.arena = append(o.arena, ss...)
	return o.arena[k : k+n : k+n]
}

// Name returns src[a:b] as a string, allocating each distinct name once per file.
func (o *Out) Name(a, b int) string {
	if a < 0 || b > len(o.src) || a >= b {
		return ""
	}
	return o.Intern(o.src[a:b])
}

// Intern returns b as a string, allocating each distinct name once per file.
func (o *Out) Intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	h := (len(b)*31 + int(b[0])*7 + int(b[len(b)-1])) & 255
	if s := o.recent[h]; s == string(b) {
		return s
	}
	s, ok := o.names[string(b)]
	if !ok {
		s = string(b)
		o.names[s] = s
	}
	o.recent[h] = s
	return s
}

// Ctx is where a value stands: what it is given or assigned to, and the call it goes to.
type Ctx struct {
	Key, Assigned string
	Call, Arg     int
}

// NoCall is the context of a value that is not an argument of any call.
var NoCall = Ctx{Call: -1, Arg: -1}

// AddStr records the value built in f, read from src[start:end], unless it is only holes.
// It returns the value's index in File.Strings, or -1.
func (o *Out) AddStr(f *Fold, start, end int, c Ctx) int {
	if !f.Literal() {
		return -1
	}
	if c.Call < 0 {
		c.Arg = -1
	}
	s := code.Str{Value: f.Value(), Pos: o.Lines.Pos(start), Key: c.Key, Assigned: c.Assigned,
		Call: c.Call, Arg: c.Arg, HoleNames: o.Strs(f.names...)}
	s.End = o.end(start, end)
	o.File.Strings = append(o.File.Strings, s)
	return len(o.File.Strings) - 1
}

// end is the position of the last byte of src[start:end].
func (o *Out) end(start, end int) code.Pos {
	if end <= start {
		return o.Lines.Pos(start)
	}
	return o.Lines.Pos(end - 1)
}

// AddCall records a call of callee whose name (its last element) starts at nameOff, and
// returns its index. Its End is nameOff until EndCall says otherwise.
func (o *Out) AddCall(callee []string, isNew bool, nameOff int) int {
	p := o.Lines.Pos(nameOff)
	o.File.Calls = append(o.File.Calls, code.Call{Callee: o.Strs(callee...), New: isNew, Pos: p, End: p})
	return len(o.File.Calls) - 1
}

// EndCall sets the End of call i to the last byte before end, and gives it the argument
// identifiers recorded for it.
func (o *Out) EndCall(i, end int) {
	if i < 0 || i >= len(o.File.Calls) {
		return
	}
	c := &o.File.Calls[i]
	if p := o.Lines.Pos(max(end-1, 0)); p.Line > c.Pos.Line || (p.Line == c.Pos.Line && p.Col >= c.Pos.Col) {
		c.End = p
	}
	k := len(o.staged)
	for k > 0 && o.stagedCall[k-1] == i {
		k--
	}
	if k < len(o.staged) {
		c.ArgIdents = o.Strs(o.staged[k:]...)
		o.staged, o.stagedCall = o.staged[:k], o.stagedCall[:k]
	}
}

// AddKey records a keyword argument or member name passed to call i.
func (o *Out) AddKey(i int, name string, off, depth int) {
	if i < 0 || i >= len(o.File.Calls) || name == "" {
		return
	}
	c := &o.File.Calls[i]
	c.Keys = append(c.Keys, code.Key{Name: name, Pos: o.Lines.Pos(off), Depth: depth})
}

// AddArgIdent records the identifier passed as the next argument of call i ("" for an
// argument that is not a plain identifier). The call gets them when it ends (EndCall).
func (o *Out) AddArgIdent(i int, ident string) {
	if i < 0 || i >= len(o.File.Calls) {
		return
	}
	o.staged, o.stagedCall = append(o.staged, ident), append(o.stagedCall, i)
}

// Import records an import or a package, module or namespace declaration.
func (o *Out) Import(s string) {
	if s != "" {
		o.File.Imports = append(o.File.Imports, s)
	}
}

// Decl records the name of a function or method the file defines.
func (o *Out) Decl(s string) {
	if s != "" {
		o.File.Decls = append(o.File.Decls, s)
	}
}
