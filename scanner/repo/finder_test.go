package repo

import (
	"bytes"
	"testing"
)

func TestFinderAgreesWithBytesContains(t *testing.T) {
	data := []byte("the transfer-encoding header, 0xcc13 and error_chain at the end: zq")
	for _, lit := range []string{"transfer-encoding", "0xcc1", "error_chain", "zq", "q", "missing", "the", ": zq", "zqx", ""} {
		if got, want := newFinder([]byte(lit)).in(data), bytes.Contains(data, []byte(lit)); got != want {
			t.Errorf("%q: %v, bytes.Contains %v", lit, got, want)
		}
	}
}

func FuzzFinder(f *testing.F) {
	f.Add([]byte("abcxyz"), []byte("xy"))
	f.Fuzz(func(t *testing.T, data, lit []byte) {
		if got, want := newFinder(lit).index(data, 0), bytes.Index(data, lit); got != want {
			t.Fatalf("%q in %q: %v, want %v", lit, data, got, want)
		}
		if len(data) > 2 {
			if got, want := newFinder(lit).index(data, 2), bytes.Index(data[2:], lit); (want < 0 && got != -1) || (want >= 0 && got != want+2) {
				t.Fatalf("%q in %q from 2: %v, want %v", lit, data, got, want)
			}
		}
	})
}
