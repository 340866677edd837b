package lexkit

// Room returns s emptied, with room for n elements: s itself when it has it.
func Room[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, 0, n)
	}
	return s[:0]
}
