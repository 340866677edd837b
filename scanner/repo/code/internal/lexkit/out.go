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
	// staged holds the argument identifiers of calls not yet ended, stagedCall their calls;
	// keys and keyCall the same for keys. A call takes its own when it ends.
	staged     []string
	stagedCall []int
	keys       []code.Key
	keyCall    []int
	keyArena   []code.Key
}

// NewOut starts the File of a reader of lang over src.
func NewOut(lang string, src []byte) *Out {
	return &Out{File: &code.File{Lang: lang}, Lines: NewLines(src), names: map[string]string{}, src: src}
}

// Reserve makes room for about strs values and calls calls, a reader's estimate, so that
// they are copied less often as they grow.
func (o *Out) Reserve(strs, calls int) {
	o.File.Strings = make([]code.Str, 0, min(max(strs, 8), 1<<20))
	o.File.Calls = make([]code.Call, 0, min(max(calls, 8), 1<<20))
}

// Str returns value k (an index AddStr returned), valid until the next AddStr.
func (o *Out) Str(k int) *code.Str { return &o.File.Strings[k] }

// NumStrs is the number of values added so far.
func (o *Out) NumStrs() int { return len(o.File.Strings) }

// DropStr removes value k from the result (when Done).
func (o *Out) DropStr(k int) { o.File.Strings[k].Value = "" }

// Call returns call i (an index AddCall returned), valid until the next AddCall, or nil.
func (o *Out) Call(i int) *code.Call {
	if i < 0 || i >= len(o.File.Calls) {
		return nil
	}
	return &o.File.Calls[i]
}

// CallName returns the name of call i (the last element of its callee), "" for none.
func (o *Out) CallName(i int) string {
	if c := o.Call(i); c != nil {
		return c.Name()
	}
	return ""
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
// It returns the value's index (for Str), or -1. Values are kept in source order: one that
// starts before values recorded already (those of a substitution inside it) goes before
// them.
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
	if n := len(o.File.Strings); n == cap(o.File.Strings) { // doubled, where append would grow by a quarter
		o.File.Strings = append(make([]code.Str, 0, 2*n+16), o.File.Strings...)
	}
	strs := append(o.File.Strings, s)
	j := len(strs) - 1
	for j > 0 && before(s.Pos, strs[j-1].Pos) {
		j--
	}
	if j < len(strs)-1 {
		copy(strs[j+1:], strs[j:len(strs)-1])
		strs[j] = s
	}
	o.File.Strings = strs
	return j
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
	if n := len(o.File.Calls); n == cap(o.File.Calls) {
		o.File.Calls = append(make([]code.Call, 0, 2*n+16), o.File.Calls...)
	}
	o.File.Calls = append(o.File.Calls, code.Call{Callee: o.Strs(callee...), New: isNew, Pos: p, End: p})
	return len(o.File.Calls) - 1
}

// EndCall sets the End of call i to the last byte before end, and gives it the argument
// identifiers recorded for it.
func (o *Out) EndCall(i, end int) {
	c := o.Call(i)
	if c == nil {
		return
	}
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
	k = len(o.keys)
	for k > 0 && o.keyCall[k-1] == i {
		k--
	}
	if k < len(o.keys) {
		c.Keys = o.keySlice(o.keys[k:])
		o.keys, o.keyCall = o.keys[:k], o.keyCall[:k]
	}
}

// keySlice returns a copy of ks cut from a shared chunk.
func (o *Out) keySlice(ks []code.Key) []code.Key {
	n := len(ks)
	if len(o.keyArena)+n > cap(o.keyArena) {
		o.keyArena = make([]code.Key, 0, max(128, n))
	}
	k := len(o.keyArena)
	o.keyArena = append(o.keyArena, ks...)
	return o.keyArena[k : k+n : k+n]
}

// unstage gives calls that never ended (their file ended first) what was staged for them.
func (o *Out) unstage() {
	for k, i := range o.stagedCall {
		if c := o.Call(i); c != nil {
			c.ArgIdents = append(c.ArgIdents, o.staged[k])
		}
	}
	for k, i := range o.keyCall {
		if c := o.Call(i); c != nil {
			c.Keys = append(c.Keys, o.keys[k])
		}
	}
	o.staged, o.stagedCall, o.keys, o.keyCall = o.staged[:0], o.stagedCall[:0], o.keys[:0], o.keyCall[:0]
}

// AddKey records a keyword argument or member name passed to call i. The call gets them
// when it ends (EndCall).
func (o *Out) AddKey(i int, name string, off, depth int) {
	if o.Call(i) == nil || name == "" {
		return
	}
	o.keys = append(o.keys, code.Key{Name: name, Pos: o.Lines.Pos(off), Depth: depth})
	o.keyCall = append(o.keyCall, i)
}

// AddArgIdent records the identifier passed as the next argument of call i ("" for an
// argument that is not a plain identifier). The call gets them when it ends (EndCall).
func (o *Out) AddArgIdent(i int, ident string) {
	if i < 0 || i >= len(o.File.Calls) {
		return
	}
	o.staged, o.stagedCall = append(o.staged, ident), append(o.stagedCall, i)
}

// Done drops the values DropStr removed, gives calls that never ended their argument
// identifiers and keys, and returns the File.
func (o *Out) Done() *code.File {
	o.unstage()
	strs := o.File.Strings[:0]
	for _, s := range o.File.Strings {
		if s.Value != "" {
			strs = append(strs, s)
		}
	}
	clear(o.File.Strings[len(strs):])
	o.File.Strings = strs
	if len(strs) == 0 {
		o.File.Strings = nil
	}
	if len(o.File.Calls) == 0 {
		o.File.Calls = nil
	}
	return o.File
}

func before(a, b code.Pos) bool { return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col }

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

// Format folds the format string passed as argument arg of call again, with a hole at each
// printf verb named after the identifier passed for it; f is scratch space. The value then
// stands where the call does (outer: passed to another call, assigned). A format that is
// then only holes is dropped.
func (o *Out) Format(call, arg int, outer Ctx, f *Fold) {
	c := o.Call(call)
	if c == nil {
		return
	}
	for k := len(o.File.Strings) - 1; k >= 0; k-- {
		s := &o.File.Strings[k]
		if before(s.Pos, c.Pos) {
			return
		}
		if s.Call != call || s.Arg != arg || s.Value == "" {
			continue
		}
		var args []string
		if len(c.ArgIdents) > arg+1 {
			args = c.ArgIdents[arg+1:]
		}
		f.Reset()
		Printf(f, s.Value, s.HoleNames, args)
		if !f.Literal() {
			o.DropStr(k)
			return
		}
		s.Value, s.HoleNames = f.Value(), o.Strs(f.names...)
		s.Key, s.Assigned, s.Call, s.Arg = outer.Key, outer.Assigned, outer.Call, outer.Arg
		if s.Call < 0 {
			s.Arg = -1
		}
		return
	}
}

// Join replaces the values passed as arguments to a path-joining call (File.join, Path.join)
// by one value, its arguments joined with "/" (see Fold.JoinPiece), every argument that is
// no value a hole named after the identifier passed. The value spans src[start:end] and
// stands where the call does (c). f is scratch space.
func (o *Out) Join(call, start, end int, c Ctx, f *Fold) {
	cl := o.Call(call)
	if cl == nil {
		return
	}
	n := len(cl.ArgIdents)
	pieces := make([]int, n) // the value of each argument, -1 for none
	for i := range pieces {
		pieces[i] = -1
	}
	for k := len(o.File.Strings) - 1; k >= 0 && !before(o.File.Strings[k].Pos, cl.Pos); k-- {
		if s := &o.File.Strings[k]; s.Call == call && s.Arg >= 0 && s.Arg < n && pieces[s.Arg] < 0 && s.Value != "" {
			pieces[s.Arg] = k
		}
	}
	f.Reset()
	for i, k := range pieces {
		if k < 0 {
			f.JoinPiece(code.HoleString, cl.ArgIdents[i:i+1])
			continue
		}
		f.JoinPiece(o.File.Strings[k].Value, o.File.Strings[k].HoleNames)
		o.DropStr(k)
	}
	o.AddStr(f, start, end, c)
}

// DropCallStrs removes every value passed to call (as an argument or inside one).
func (o *Out) DropCallStrs(call int) {
	cl := o.Call(call)
	if cl == nil {
		return
	}
	for k := len(o.File.Strings) - 1; k >= 0 && !before(o.File.Strings[k].Pos, cl.Pos); k-- {
		if o.File.Strings[k].Call == call {
			o.DropStr(k)
		}
	}
}
