// Package readertest holds the checks the program-source readers' tests share: a table case
// compared through lexkit.Describe, the positions of what a reader finds, unterminated
// sources, the fuzz body and the benchmark loop. It is kept out of lexkit so that the
// readers do not link package testing.
package readertest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

// Reader is a language reader's Read.
type Reader func(src []byte) *code.File

// Named is a table case: a source, the lexkit.Describe lines wanted of it and, when not nil,
// the Spans lines.
type Named struct {
	Name, Src   string
	Want, Spans []string
}

// Table checks each case as a subtest (Case, and Spans when the case has them).
func Table(t *testing.T, read Reader, lang string, cases []Named) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			Case(t, read, lang, c.Src, c.Want)
			if c.Spans != nil {
				Spans(t, read, c.Src, c.Spans)
			}
		})
	}
}

// Spans checks where read places what it finds in src, a line each, the calls first:
//
//	call client.post 1:17-2:33 keys=expression@2:3
//	str "zones/\x00/filters" 1:22-1:42 key=url
func Spans(t *testing.T, read Reader, src string, want []string) {
	t.Helper()
	f := read([]byte(src))
	var got []string
	for _, c := range f.Calls {
		line := fmt.Sprintf("call %s %d:%d-%d:%d", strings.Join(c.Callee, "."), c.Pos.Line, c.Pos.Col, c.End.Line, c.End.Col)
		for i, k := range c.Keys {
			sep := ","
			if i == 0 {
				sep = " keys="
			}
			line += fmt.Sprintf("%s%s@%d:%d", sep, k.Name, k.Pos.Line, k.Pos.Col)
		}
		got = append(got, line)
	}
	for _, s := range f.Strings {
		line := fmt.Sprintf("str %q %d:%d-%d:%d", s.Value, s.Pos.Line, s.Pos.Col, s.End.Line, s.End.Col)
		if s.Key != "" {
			line += " key=" + s.Key
		}
		got = append(got, line)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// Case checks that read gives a file of language lang whose lexkit.Describe lines are want,
// with every position inside src.
func Case(t *testing.T, read Reader, lang, src string, want []string) {
	t.Helper()
	f := read([]byte(src))
	if f.Lang != lang {
		t.Fatalf("Lang %q", f.Lang)
	}
	got := lexkit.Describe(f)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
	if err := lexkit.Check([]byte(src), f); err != nil {
		t.Error(err)
	}
}

// Broken checks sources that end early (unterminated strings, blocks...): each source of
// want maps to its lexkit.Describe lines joined with "|".
func Broken(t *testing.T, read Reader, want map[string]string) {
	t.Helper()
	for src, w := range want {
		f := read([]byte(src))
		if got := strings.Join(lexkit.Describe(f), "|"); got != w {
			t.Errorf("%q:\n got %s\nwant %s", src, got, w)
		}
		if err := lexkit.Check([]byte(src), f); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}

// FuzzCases fuzzes read (Fuzz), seeded with the sources of cases and extra.
func FuzzCases(f *testing.F, read Reader, cases []Named, extra ...string) {
	for _, c := range cases {
		f.Add(c.Src)
	}
	for _, src := range extra {
		f.Add(src)
	}
	f.Fuzz(Fuzz(read))
}

// Repeat returns head, then chunk over and over until there are size bytes, then tail: a
// generated source for a benchmark. Each chunk is formatted with its number (%[1]d).
func Repeat(size int, head, chunk, tail string) []byte {
	var b strings.Builder
	b.WriteString(head)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, chunk, i)
	}
	b.WriteString(tail)
	return []byte(b.String())
}

// Bench reads src with read b.N times, counting its bytes.
func Bench(b *testing.B, read Reader, src []byte) {
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for b.Loop() {
		read(src)
	}
}

// Fuzz returns the body of a FuzzRead: read must not panic and every position it gives must
// be inside the source.
func Fuzz(read Reader) func(*testing.T, string) {
	return func(t *testing.T, src string) {
		if err := lexkit.Check([]byte(src), read([]byte(src))); err != nil {
			t.Fatal(err)
		}
	}
}
