package js

import (
	"strings"
	"sync"
	"testing"
)

// FuzzRead checks that Read never panics and that what it returns holds together
// (positions inside the file, a name per hole, calls in range) on any input.
func FuzzRead(f *testing.F) {
	for _, cases := range allCases {
		for _, tc := range cases {
			f.Add(tc.src)
		}
	}
	f.Add(string(benchSource(2000)))
	for _, s := range []string{"`${", "`${`${`", "/[/", "a<b<c<d>>>(", "((((", "{{{{", "'\\", "#!", "x = /=/; y", "</", "<a b={<c/>}>{'}</a>", "\ufeff#!x\n'\u2028'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkFile(t, src, Read([]byte(src)))
	})
}

// TestDeepNesting reads inputs nested far deeper than the reader follows: it must neither
// overflow its stack nor take long.
func TestDeepNesting(t *testing.T) {
	for _, unit := range []string{"(", "[", "{", "a<", "`${", "<a>", "f(", "x=>", "async (", "new ", "!", "a?b:", "<T>(", "class A{", "function(", "a.b.", "(a,", "{a(", "typeof ", "-"} {
		src := strings.Repeat(unit, 100000)
		checkFile(t, src, Read([]byte(src)))
	}
}

// TestResolver checks line and column against a count character by character, on text
// with long lines and characters of every UTF-8 length, for every offset.
func TestResolver(t *testing.T) {
	var b strings.Builder
	pieces := []string{"a", "é", "☃", "😀", "\n", "bc", "\n\n", strings.Repeat("x", 70)}
	for i := 0; b.Len() < 5000; i++ {
		b.WriteString(pieces[(i*7+i/3)%len(pieces)])
	}
	src := b.String()
	r := newResolver(src, nil)
	line, col, hint := 1, 1, 0
	for o := 0; o <= len(src); o++ {
		if o == len(src) || src[o]&0xC0 != 0x80 { // only character starts are positions
			if got := r.pos(o, &hint); got.Line != line || got.Col != col {
				t.Fatalf("offset %d: got %d:%d, want %d:%d", o, got.Line, got.Col, line, col)
			}
		}
		if o < len(src) {
			switch c := src[o]; {
			case c == '\n':
				line, col = line+1, 1
			case c&0xC0 != 0x80:
				col++
			}
		}
	}
	// Backwards, with the hint far off.
	for o := len(src) - 1; o >= 0; o -= 97 {
		hint = 0
		if got, want := r.pos(o, &hint), strings.Count(src[:o], "\n")+1; got.Line != want {
			t.Fatalf("offset %d: line %d, want %d", o, got.Line, want)
		}
	}
}

// TestConcurrentRead reads the fixtures from several goroutines at once (the scanner reads
// files in parallel, and Read shares scratch buffers between calls): every result must be
// what a lone Read gives.
func TestConcurrentRead(t *testing.T) {
	var srcs []string
	for _, cases := range allCases {
		for _, tc := range cases {
			srcs = append(srcs, tc.src)
		}
	}
	want := make([]string, len(srcs))
	for i, s := range srcs {
		want[i] = strings.Join(dump(Read([]byte(s))), "\n")
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(srcs))
	for range 8 {
		wg.Go(func() {
			for i, s := range srcs {
				if got := strings.Join(dump(Read([]byte(s))), "\n"); got != want[i] {
					errs <- got
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for got := range errs {
		t.Errorf("a concurrent Read differs:\n%s", got)
	}
}
