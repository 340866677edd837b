package seed

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// ID returns the id the demo data gives an object: the first 32 hex digits of the SHA-256 of
// kind + "/" + key. Keys name the object readably (e.g. "shop.example/block-xmlrpc"), so a test
// can compute the id of any demo object without listing it first.
func ID(kind, key string) string {
	sum := sha256.Sum256([]byte(kind + "/" + key))
	return hex.EncodeToString(sum[:16])
}

// ids hands out object ids; Demo derives them from names, Generate from a seeded counter.
type ids interface {
	id(kind, key string) string
}

// namedIDs is the demo's id source: ID(kind, key).
type namedIDs struct{}

func (namedIDs) id(kind, key string) string { return ID(kind, key) }

// counterIDs is Generate's id source: unique by construction (a bijective mix of a counter),
// deterministic for a seed, and much cheaper than hashing a formatted name.
type counterIDs struct {
	salt uint64
	n    uint64
}

func (c *counterIDs) id(string, string) string {
	c.n++
	var raw [16]byte
	putUint64(raw[:8], mix64(c.salt^c.n*0x9e3779b97f4a7c15))
	putUint64(raw[8:], mix64(c.n))
	var out [32]byte
	hex.Encode(out[:], raw[:])
	return string(out[:])
}

// mix64 is the SplitMix64 finalizer: a bijection on uint64, so distinct counters give
// distinct halves and therefore distinct ids.
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

// raw copies a JSON literal into a fresh RawMessage, so no two snapshots share bytes.
func raw(s string) json.RawMessage { return json.RawMessage(s) }
