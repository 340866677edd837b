package meaning

// Index finds, among objects that exist, one that does what a wanted object does. Each
// existing object stands for one wanted object at most: two wanted rules that do the same
// need two existing ones.
type Index struct {
	byKey   map[Key][]int
	claimed []bool
}

// NewIndex indexes n existing objects by their keys (key(i) is the key of the i-th).
func NewIndex(n int, key func(i int) Key) *Index {
	x := &Index{byKey: make(map[Key][]int, n), claimed: make([]bool, n)}
	for i := 0; i < n; i++ {
		k := key(i)
		x.byKey[k] = append(x.byKey[k], i)
	}
	return x
}

// Claim returns the first existing object of key k not claimed yet, and claims it; false
// when there is none.
func (x *Index) Claim(k Key) (int, bool) {
	for _, i := range x.byKey[k] {
		if !x.claimed[i] {
			x.claimed[i] = true
			return i, true
		}
	}
	return 0, false
}

// Reserve claims the existing object i (one that stands for a wanted object already, found
// another way), so that Claim does not hand it out again.
func (x *Index) Reserve(i int) {
	if i >= 0 && i < len(x.claimed) {
		x.claimed[i] = true
	}
}

// Claimed reports whether the existing object i stands for a wanted object.
func (x *Index) Claimed(i int) bool { return i >= 0 && i < len(x.claimed) && x.claimed[i] }
