// Package readertest holds the checks the program-source readers' tests share: a table case
// compared through lexkit.Describe, unterminated sources, and the fuzz body. It is kept out of
// lexkit so that the readers do not link package testing.
package readertest

import (
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

// Reader is a language reader's Read.
type Reader func(src []byte) *code.File

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

// Fuzz returns the body of a FuzzRead: read must not panic and every position it gives must
// be inside the source.
func Fuzz(read Reader) func(*testing.T, string) {
	return func(t *testing.T, src string) {
		if err := lexkit.Check([]byte(src), read([]byte(src))); err != nil {
			t.Fatal(err)
		}
	}
}
