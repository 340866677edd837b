package seed

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
)

// ID returns the id the demo data gives an object: the first 32 hex digits of the SHA-256 of
// kind + "/" + key. Keys name the object readably (e.g. "shop.example/block-xmlrpc"), so a test
// can compute the id of any demo object without listing it first.
func ID(kind, key string) string {
	sum := sha256.Sum256([]byte(kind + "/" + key))
	return hex.EncodeToString(sum[:16])
}

// ids hands out object ids; Demo derives them from names, Generate from a seeded counter.
// scope is the zone name for zone objects and "" otherwise.
type ids interface {
	id(kind, scope, key string) string
}

// namedIDs is the demo's id source: ID(kind, scope + "/" + key).
type namedIDs struct{}

func (namedIDs) id(kind, scope, key string) string {
	if scope != "" {
		key = scope + "/" + key
	}
	return ID(kind, key)
}

// counterIDs is Generate's id source: deterministic for a seed, unique by construction and
// increasing in creation order within a scope, so generated lists come out sorted by id
// without a sort. An id is 16 hex digits naming the scope (a mix of the seed and the scope
// number), 8 of a global counter and 8 of a mix of that counter (so ids do not look serial).
type counterIDs struct {
	salt   uint64
	prefix uint64
	n      uint64
	arena  arena
}

// enter starts scope number k (a zone or an account): the ids that follow share its prefix.
func (c *counterIDs) enter(k uint64) { c.prefix = mix64(c.salt ^ (k * 0x9e3779b97f4a7c15)) }

func (c *counterIDs) id(string, string, string) string {
	c.n++
	var raw [16]byte
	putUint64(raw[:8], c.prefix)
	putUint64(raw[8:], c.n<<32|mix64(c.n)&0xffffffff)
	var out [32]byte
	hex.Encode(out[:], raw[:])
	return c.arena.bytes(out[:])
}

// mix64 is the SplitMix64 finalizer, a bijection on uint64 that scatters nearby inputs.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func putUint64(b []byte, v uint64) {
	for i := 7; i >= 0; i-- {
		b[i] = byte(v)
		v >>= 8
	}
}

func ptr[T any](v T) *T { return &v }

// arena packs many small strings into shared buffers. strings.Builder hands out its bytes
// without copying and never changes bytes once written (it copies when it grows), so every
// string it returned stays valid; a new Builder starts when one is full.
type arena struct {
	b     strings.Builder
	start int
	// chunk is the size of a new buffer; 0 means smallChunk.
	chunk int
}

// Arena buffer sizes: small for the demo's few names, large for generated accounts.
const (
	smallChunk = 1 << 10
	largeChunk = 32 << 10
)

// begin starts a string of about n bytes.
func (a *arena) begin(n int) {
	if a.b.Cap()-a.b.Len() < n {
		a.b = strings.Builder{}
		a.b.Grow(max(n, a.chunk, smallChunk))
	}
	a.start = a.b.Len()
}

func (a *arena) end() string { return a.b.String()[a.start:] }

// cat returns the concatenation of parts.
func (a *arena) cat(parts ...string) string {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	a.begin(n)
	for _, p := range parts {
		a.b.WriteString(p)
	}
	return a.end()
}

func (a *arena) bytes(p []byte) string {
	a.begin(len(p))
	a.b.Write(p)
	return a.end()
}

// slab hands out pointers carved from chunks: generated data needs millions of small
// pointers, and each still points at its own element (safe to write through, unlike a shared
// pointer) at a fraction of the allocations.
type slab[T any] struct{ free []T }

func (s *slab[T]) ptr(v T) *T {
	if len(s.free) == 0 {
		s.free = make([]T, 128)
	}
	p := &s.free[0]
	*p = v
	s.free = s.free[1:]
	return p
}

// raw copies a JSON literal into a fresh RawMessage, so no two snapshots share bytes.
func raw(s string) json.RawMessage { return json.RawMessage(s) }
