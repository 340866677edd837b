package python

// arena hands out short slices carved from large blocks, so that a file's many small lists
// (callee chains, argument names, keys, hole names) cost few allocations. Each slice is
// capacity-limited: appending to it copies.
type arena[T any] struct{ buf []T }

// copy returns a copy of src from the arena (nil when src is empty).
func (a *arena[T]) copy(src []T) []T {
	if len(src) == 0 {
		return nil
	}
	if cap(a.buf)-len(a.buf) < len(src) {
		a.buf = make([]T, 0, max(1024, len(src)))
	}
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
