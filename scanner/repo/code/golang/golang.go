// Package golang reads Go source into a code.File with the standard library's parser: the
// string values the file builds (literals folded across +, fmt.Sprintf-like formats, path
// joins and the file's own string constants), the calls it makes, its package and imports,
// and the functions and methods it defines.
package golang

import (
	"bytes"
	"errors"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sunsetscan/sunset/scanner/repo/code"
)

// Read returns what the Go source src says. A file that does not parse fully is read as far
// as the parser got; one without even a package clause gives an empty File.
func Read(src []byte) *code.File {
	out := &code.File{Lang: "go"}
	fset := token.NewFileSet()
	base := fset.Base()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if f == nil {
		return out
	}
	stopAtBound(out, err)
	// Every value holds a quoted literal and every call a parenthesis: room for about all of
	// them at once (appending to large slices copies them many times over). Go code has about
	// 3 quotes a value (struct tags hold quotes and no value: generated code 7), 1.6
	// parentheses a call and 50 bytes a name of a call or its arguments; room for more than
	// that is memory the heap grows into for nothing.
	out.Strings = make([]code.Str, 0, (bytes.Count(src, []byte{'"'})+bytes.Count(src, []byte{'`'}))/4+1)
	out.Calls = make([]code.Call, 0, bytes.Count(src, []byte{'('})/2)
	w := &walker{out: out, emit: true, pos: newPositions(src, base), names: make([]string, 0, len(src)/32), budget: len(src) + 1<<20}
	w.defs = newDefs(f)
	w.header(f)
	w.walk(f, none)
	slices.SortStableFunc(out.Strings, func(a, b code.Str) int {
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line - b.Pos.Line
		}
		return a.Pos.Col - b.Pos.Col
	})
	return out
}

// stopAtBound records on out the parser's own bound, nesting past which it gives up the
// whole file (an empty one comes back): unlike a syntax error, the file may be valid.
func stopAtBound(out *code.File, err error) {
	var list scanner.ErrorList
	if !errors.As(err, &list) {
		return
	}
	for _, e := range list {
		if strings.Contains(e.Msg, "max nesting depth") {
			out.Stop(code.Pos{Line: e.Pos.Line, Col: e.Pos.Column}, "go/parser: "+e.Msg)
			return
		}
	}
}

// header fills Imports with the package name and the import paths.
func (w *walker) header(f *ast.File) {
	if f.Name != nil && f.Name.Name != "" && f.Name.Name != "_" {
		w.out.Imports = append(w.out.Imports, f.Name.Name)
	}
	for _, imp := range f.Imports {
		if imp.Path == nil {
			continue
		}
		if p := unquote(imp.Path.Value); p != "" {
			w.out.Imports = append(w.out.Imports, p)
		}
	}
}

// unquote returns the value of a Go string literal, or for one the scanner found broken
// (unterminated, bad escape) its text without the quotes.
func unquote(lit string) string {
	if len(lit) >= 2 && lit[0] == '`' && lit[len(lit)-1] == '`' {
		return strings.ReplaceAll(lit[1:len(lit)-1], "\r", "")
	}
	if s, err := strconv.Unquote(lit); err == nil {
		return s
	}
	if lit != "" && (lit[0] == '"' || lit[0] == '`') {
		lit = lit[1:]
	}
	if lit != "" && (lit[len(lit)-1] == '"' || lit[len(lit)-1] == '`') {
		lit = lit[:len(lit)-1]
	}
	return lit
}

// positions turns token.Pos values into lines and character columns. The parser counts
// columns in bytes and honours //line directives; findings want the file's own lines and
// characters.
type positions struct {
	src   []byte
	base  int
	lines []int // offset of the start of each line
	ascii bool
}

func newPositions(src []byte, base int) *positions {
	p := &positions{src: src, base: base, lines: make([]int, 1, len(src)/32+1), ascii: true}
	for i, c := range src {
		if c == '\n' {
			p.lines = append(p.lines, i+1)
		} else if c >= utf8.RuneSelf {
			p.ascii = false
		}
	}
	return p
}

// at returns the position of p, clamped into the file (a partial AST can hold positions
// the parser made up at its end).
func (p *positions) at(tp token.Pos) code.Pos {
	off := int(tp) - p.base
	if off < 0 || !tp.IsValid() {
		off = 0
	}
	if off > len(p.src) {
		off = len(p.src)
	}
	line, _ := slices.BinarySearch(p.lines, off+1)
	start := p.lines[line-1]
	if p.ascii {
		return code.Pos{Line: line, Col: off - start + 1}
	}
	// A position inside a character (the end of a file cut in one) is that character's.
	for off > start && off < len(p.src) && !utf8.RuneStart(p.src[off]) {
		off--
	}
	return code.Pos{Line: line, Col: utf8.RuneCount(p.src[start:off]) + 1}
}

// end returns the position of the last character of a node ending (exclusively) at tp.
func (p *positions) end(tp token.Pos) code.Pos {
	if tp.IsValid() && int(tp)-p.base > 0 {
		tp--
	}
	return p.at(tp)
}
