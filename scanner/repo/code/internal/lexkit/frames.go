package lexkit

// Frame is one open bracket of the code being read (or a call written without parentheses):
// which call the values written in it go to, and as what.
type Frame struct {
	// Open is the bracket ('(', '[', '{') or a reader's own mark for a frame without one.
	Open byte
	// Call is the index in File.Calls of the call values here are passed to, -1 for none.
	Call int
	// Direct is true when values here are the call's arguments themselves, counted by Arg;
	// false inside an array, hash or object literal passed to it.
	Direct bool
	// Own is true for the argument list of Call itself (not a bracket inside it).
	Own bool
	// Arg is the current argument number when Direct.
	Arg int
	// Depth is the Key depth of members written here.
	Depth int
	// Tok is the reader's token index of the opening bracket, ArgStart where the current
	// argument or member starts.
	Tok, ArgStart int
	// Key is the key the next value here is given to, "" when none; ItemKey is the key every
	// member of a list gets unless it has one of its own (the key the list is given to).
	Key, ItemKey string
	// Scope is true when closing this frame ends a function's variable scope.
	Scope bool
	// Mark is free for a reader's own use (what kind of frame this is).
	Mark byte
	// Outer is where the call expression itself stands, for a call's own frame: what its
	// result is given to (File.join(...) passed to another call).
	Outer Ctx
}

// Frames is the stack of open frames. Its bottom frame (the file itself) is never popped.
// Brackets nested deeper than maxDepth open no frame (their closers then close none), so
// that a pathological file costs no more than an ordinary one.
type Frames struct {
	s    []Frame
	over Frame // what a push beyond maxDepth returns, on no stack
}

const maxDepth = 1 << 12

// push appends f and returns it, unless the stack is full.
func (fs *Frames) push(f Frame) *Frame {
	if len(fs.s) >= maxDepth {
		fs.over = f
		fs.over.Tok = -2
		return &fs.over
	}
	fs.s = append(fs.s, f)
	return &fs.s[len(fs.s)-1]
}

// Reset empties the stack down to the file's frame.
func (fs *Frames) Reset() {
	fs.s = append(fs.s[:0], Frame{Call: -1, Arg: -1, Tok: -1})
}

// Top returns the innermost frame.
func (fs *Frames) Top() *Frame {
	if len(fs.s) == 0 {
		fs.Reset()
	}
	return &fs.s[len(fs.s)-1]
}

// Len is the number of open frames, the file's own included.
func (fs *Frames) Len() int { return len(fs.s) }

// At returns the frame at index i (0 is the file's frame), or nil.
func (fs *Frames) At(i int) *Frame {
	if i < 0 || i >= len(fs.s) {
		return nil
	}
	return &fs.s[i]
}

// PushCall opens the argument list of call at token tok.
func (fs *Frames) PushCall(open byte, call, tok int) *Frame {
	outer := fs.Ctx()
	return fs.push(Frame{Open: open, Call: call, Direct: true, Own: true, Tok: tok, ArgStart: tok + 1, Outer: outer})
}

// PushLiteral opens (at token tok) an array, hash or object literal: its members go to the call the
// enclosing frame's values go to, one level deeper.
func (fs *Frames) PushLiteral(open byte, tok int) *Frame {
	p := *fs.Top()
	f := Frame{Open: open, Call: p.Call, Arg: -1, Tok: tok, ArgStart: tok + 1, Depth: p.Depth}
	if p.Call >= 0 && (!p.Direct || p.Key != "") { // inside another literal, or a keyword's value
		f.Depth = p.Depth + 1
	}
	return fs.push(f)
}

// PushList opens (at token tok) an array literal: as PushLiteral, and its members are
// given the key the array is given to, unless they have their own.
func (fs *Frames) PushList(open byte, tok int) *Frame {
	key := fs.Top().Key
	f := fs.PushLiteral(open, tok)
	f.Key, f.ItemKey = key, key
	return f
}

// PushGroup opens (at token tok) a bracket that is neither a call nor a literal (a parenthesised
// expression): values inside go where the enclosing frame's go.
func (fs *Frames) PushGroup(open byte, tok int) *Frame {
	p := *fs.Top()
	return fs.push(Frame{Open: open, Call: p.Call, Direct: p.Direct, Arg: p.Arg, Depth: p.Depth,
		Tok: tok, ArgStart: tok + 1})
}

// PushBlock opens (at token tok) a block or an index: values inside go to no call.
func (fs *Frames) PushBlock(open byte, tok int) *Frame {
	fs.Top()
	return fs.push(Frame{Open: open, Call: -1, Arg: -1, Tok: tok, ArgStart: tok + 1})
}

// Pop closes the innermost frame and returns it; the file's frame is never closed (ok is
// false then).
func (fs *Frames) Pop() (Frame, bool) {
	if len(fs.s) <= 1 {
		fs.Top()
		return Frame{Call: -1, Arg: -1}, false
	}
	f := fs.s[len(fs.s)-1]
	fs.s = fs.s[:len(fs.s)-1]
	return f, true
}

// Ctx is the context of a value written in the innermost frame now: its call, argument
// number (-1 inside a literal) and pending key.
func (fs *Frames) Ctx() Ctx {
	f := fs.Top()
	c := Ctx{Call: f.Call, Arg: -1, Key: f.Key}
	if f.Direct && f.Call >= 0 {
		c.Arg = f.Arg
	}
	return c
}

// Opened reports whether an open frame was opened at token tok (so that a closer matched
// to it may pop the frames down to it).
func (fs *Frames) Opened(tok int) bool {
	for i := len(fs.s) - 1; i >= 1; i-- {
		if fs.s[i].Tok == tok {
			return true
		}
	}
	return false
}

// CloseTo closes the frames down to the one opened at token m, as the bracket matched to
// token m does: each, innermost first, goes to finish with whether it is the one opened at m.
// Nothing is closed when no open frame was opened at m (m < 0: the closer has no partner).
func (fs *Frames) CloseTo(m int, finish func(f Frame, opener bool)) {
	if m < 0 || !fs.Opened(m) {
		return
	}
	for {
		f, ok := fs.Pop()
		if !ok {
			return
		}
		finish(f, f.Tok == m)
		if f.Tok == m {
			return
		}
	}
}

// PopAll closes every open frame, innermost first, handing each to finish: the brackets
// and blocks still open where the file ends. Frames go by value: a pointer handed to finish
// would make each popped frame escape to the heap.
func (fs *Frames) PopAll(finish func(f Frame)) {
	for {
		f, ok := fs.Pop()
		if !ok {
			return
		}
		finish(f)
	}
}
