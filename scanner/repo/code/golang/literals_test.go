package golang

import (
	"slices"
	"testing"
)

func TestLiterals(t *testing.T) {
	src := "package p // \"no\"\n/* `no` */ var a, b = \"x\\\"y\", `r\naw`\nvar c = '\"'; d := \"open\nvar e = 1 / 2 // '\n`end"
	var got []string
	Literals([]byte(src), func(start, end int) { got = append(got, src[start:end]) })
	want := []string{`x\"y`, "r\naw", "open", "end"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestNextOpenFindsTheFirstQuoteOrSlash(t *testing.T) {
	src := []byte("abc\x80\xff\x00\x01 x.y = z\x22\x2e\x2f\x60\x27 é ü 0123456789abcdef'\x7f\xfe")
	for i := range src {
		want := len(src)
		for j := i; j < len(src); j++ {
			if c := src[j]; c == '"' || c == '/' || c == '`' || c == '\'' {
				want = j
				break
			}
		}
		if got := nextOpen(src, i); got != want {
			t.Errorf("nextOpen(src, %d) = %d, want %d", i, got, want)
		}
	}
}
