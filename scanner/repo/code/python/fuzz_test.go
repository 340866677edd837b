package python

import (
	"bytes"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/sunsetscan/sunset/scanner/repo/code"
)

// lineCount is the number of lines of src as the reader counts them ("\r\n", "\n" and a
// lone "\r" end a line; the text after the last break is a line, even when empty).
func lineCount(src []byte) int {
	n := 1
	for i, c := range src {
		if c == '\n' || c == '\r' && (i+1 >= len(src) || src[i+1] != '\n') {
			n++
		}
	}
	return n
}

// checkFile reports what in f breaks the reader's promises about src.
func checkFile(t *testing.T, src []byte, f *code.File) {
	t.Helper()
	lines := lineCount(src)
	check := func(what string, p code.Pos) {
		if p.Line < 1 || p.Col < 1 || p.Line > lines {
			t.Fatalf("%s at %d:%d, outside the file's %d lines", what, p.Line, p.Col, lines)
		}
	}
	if f == nil || f.Lang != "python" {
		t.Fatalf("Read returned %+v", f)
	}
	for _, s := range f.Strings {
		check("string "+s.Value, s.Pos)
		check("end of string "+s.Value, s.End)
		if !s.Literal() {
			t.Fatalf("a value with no literal text: %q", s.Value)
		}
		if n := strings.Count(s.Value, code.HoleString); n != len(s.HoleNames) {
			t.Fatalf("%q has %d holes and %d hole names", s.Value, n, len(s.HoleNames))
		}
		if strings.Contains(s.Value, code.HoleString+code.HoleString) {
			t.Fatalf("%q has holes side by side", s.Value)
		}
		if s.Call < -1 || s.Call >= len(f.Calls) || s.Call == -1 && s.Arg != -1 {
			t.Fatalf("%q given to call %d arg %d of %d calls", s.Value, s.Call, s.Arg, len(f.Calls))
		}
	}
	for _, c := range f.Calls {
		check("call "+strings.Join(c.Callee, "."), c.Pos)
		check("end of call "+strings.Join(c.Callee, "."), c.End)
		for _, k := range c.Keys {
			check("key "+k.Name, k.Pos)
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, tt := range stringTests {
		f.Add([]byte(tt.src))
	}
	for _, tt := range callTests {
		f.Add([]byte(tt.src))
	}
	for _, tt := range substitutionTests {
		f.Add([]byte(tt.src))
	}
	f.Add([]byte(importsSource))
	f.Add([]byte(clientSource))
	f.Add(generate(2000))
	for _, s := range []string{"f'{", "f'{x:", "f'{x:{", "f'''{\n", "f\"{'a' if b else f'{c!r:>{w}}'}\"", "(((", ")))",
		"'\\", "b'\\x", "'\\N{", "x = 'a' %", "'%(' % d", "'{'.format(", "\xff\xfe'é", "\\\r\n", "def", "@", "lambda", "f'{x\n}'"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkFile(t, src, Read(src))
	})
}

func TestDeepNesting(t *testing.T) {
	for _, s := range []string{"(", "[", "{", "-", "not ", "lambda: ", "f'{", "f'{x:{", "f'{x:{y}{", "x if y else ", "await ", "a.", "a(", "a[", "a + ", "x ** ", "{a: "} {
		src := bytes.Repeat([]byte(s), 100000)
		src = append(src, "'/zones'"...)
		checkFile(t, src, Read(src))
	}
}

// TestConcurrentReads reads files at the same time (the parser's buffers are pooled) and
// checks each gives what it gives alone.
func TestConcurrentReads(t *testing.T) {
	var srcs [][]byte
	for _, tt := range stringTests {
		srcs = append(srcs, []byte(tt.src))
	}
	srcs = append(srcs, generate(50000), []byte(importsSource))
	want := make([]*code.File, len(srcs))
	for i, s := range srcs {
		want[i] = Read(s)
	}
	var wg sync.WaitGroup
	errs := make(chan string, len(srcs)*4)
	for range 4 {
		wg.Go(func() {
			for i := len(srcs) - 1; i >= 0; i-- {
				if got := Read(srcs[i]); !reflect.DeepEqual(got, want[i]) {
					errs <- string(srcs[i])
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("a concurrent read differs for %q", e)
	}
}
