package python

// arena hands out short slices carved from large blocks, so that a file's many small lists
// (callee chains, argument names, keys, hole names) cost few allocations. Each slice is
// capacity-limited: appending to it copies.
type arena[T any] struct{ buf []T }

// reserve makes sure the current block has room for n more.
func (a *arena[T]) reserve(n int) {
	if cap(a.buf)-len(a.buf) < n {
		// Blocks double, so that a small file takes little and a large one few blocks.
		a.buf = make([]T, 0, max(min(2*cap(a.buf), 4096), 64, n))
	}
}

// take returns an empty slice of capacity n from the arena; reserve(n) must come first.
func (a *arena[T]) take(n int) []T {
	off := len(a.buf)
	a.buf = a.buf[:off+n]
	return a.buf[off : off : off+n]
}

// copy returns a copy of src from the arena (nil when src is empty).
func (a *arena[T]) copy(src []T) []T {
	if len(src) == 0 {
		return nil
	}
	a.reserve(len(src))
	n := len(a.buf)
	a.buf = append(a.buf, src...)
	return a.buf[n:len(a.buf):len(a.buf)]
}

// slots hands out values that stay put (a value whose address goes down the recursive
// descent and back would otherwise be moved to the heap by the compiler, one allocation
// each). take and release pair like a stack.
type slots struct {
	chunks []*[32]val
	n      int
}

func (s *slots) take() *val {
	if s.n == len(s.chunks)*32 {
		s.chunks = append(s.chunks, new([32]val))
	}
	v := &s.chunks[s.n/32][s.n%32]
	s.n++
	*v = val{}
	return v
}

func (s *slots) release() { s.n-- }

// byteArena hands out the buffers values are built in, carved from large blocks.
type byteArena struct{ buf []byte }

// take returns an empty buffer of capacity n.
func (a *byteArena) take(n int) []byte {
	if n > 4096 {
		return make([]byte, 0, n)
	}
	if cap(a.buf)-len(a.buf) < n {
		a.buf = make([]byte, 0, max(min(2*cap(a.buf), 64<<10), 1024, n))
	}
	off := len(a.buf)
	a.buf = a.buf[:off+n]
	return a.buf[off : off : off+n]
}

// grow makes room in v.b for n more bytes. A value's buffer is its own (values are
// consumed as they are folded), so appending within its capacity is safe.
func (p *parser) grow(v *val, n int) {
	if cap(v.b)-len(v.b) >= n {
		return
	}
	v.b = append(p.byteArena.take(max(2*(len(v.b)+n), 32)), v.b...)
}

// growNames makes room in v.names for one more name.
func (p *parser) growNames(v *val) {
	if len(v.names) < cap(v.names) {
		return
	}
	n := max(2*len(v.names), 4)
	p.nameArena.reserve(n)
	v.names = append(p.nameArena.take(n), v.names...)
}
