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
