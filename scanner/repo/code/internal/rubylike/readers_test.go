package rubylike_test

import (
	"testing"

	"github.com/sunsetscan/sunset/scanner/repo/code/elixir"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/readertest"
	"github.com/sunsetscan/sunset/scanner/repo/code/ruby"
)

// TestPositions checks that both readers place a call without parentheses continued on the
// next line (its End, its keys) and its strings alike, columns counted in characters.
func TestPositions(t *testing.T) {
	src := "x = \"é\"; client.post \"zones/#{id}/filters\",\n  expression: \"ip.src eq 1.1.1.1\"\nputs 1\n"
	for _, read := range []readertest.Reader{ruby.Read, elixir.Read} {
		readertest.Spans(t, read, src, []string{
			`call client.post 1:17-2:33 keys=expression@2:3`,
			`call puts 3:1-3:6`,
			`str "é" 1:5-1:7`,
			`str "zones/\x00/filters" 1:22-1:42`,
			`str "ip.src eq 1.1.1.1" 2:15-2:33 key=expression`,
		})
	}
}

// TestBrokenSources checks that the readers on this package read sources that end early
// (unterminated strings, heredocs, sigils, blocks) or hold stray closers to what was read,
// every source in both languages: a row is a source, then the lexkit.Describe lines (joined
// with "|") Ruby, then Elixir makes of it.
func TestBrokenSources(t *testing.T) {
	for _, c := range [][3]string{
		{"get \"zones/#{id}/filters", `str 1:5 "zones/\x00/filters" call=0 arg=0 holes=id|call 1:1 get`,
			`str 1:5 "zones/\x00/filters" call=0 arg=0 holes=id|call 1:1 get`},
		{"get(\"zones/#{id}/filters", `str 1:5 "zones/\x00/filters" call=0 arg=0 holes=id|call 1:1 get`,
			`str 1:5 "zones/\x00/filters" call=0 arg=0 holes=id|call 1:1 get`},
		{"x = <<~EOS\n  a/#{b}\n", `str 1:5 "a/\x00\n" as=x holes=b`, ``},
		{"@doc \"\"\"\n  a #{b}\n", `str 1:6 "\n  a \x00\n" holes=b`, `str 1:6 "  a \x00\n" as=doc holes=b`},
		{"x = %q(a (b) c", `str 1:5 "a (b) c" as=x`, `call 1:6 q`},
		{"x = ~s(a (b) c", `call 1:6 s`, `str 1:5 "a (b) c" as=x`},
		{"def f\n  get(\"a\"\n", `decl f|str 2:7 "a" call=0 arg=0|call 2:3 get`, `decl f|str 2:7 "a" call=0 arg=0|call 2:3 get`},
		{"def f do\n  get(\"a\"\n", `decl f|str 2:7 "a" call=0 arg=0|call 2:3 get`, `decl f|str 2:7 "a" call=0 arg=0|call 2:3 get`},
		{"end end ) ] } get 'x'", `str 1:19 "x" call=0 arg=0|call 1:15 get`, `str 1:19 "x" call=0 arg=0|call 1:15 get`},
		{"x = \"#{", ``, ``},
		{"=begin\nnever ends", ``, `call 2:1 never args=ends`},
		{"a = :\"sym", ``, ``},
		{"~w(", `call 1:2 w`, ``},
		{"x = 1\nalias", ``, ``}, // a reader's keyword ending the file
		{"", ``, ``},
	} {
		readertest.Broken(t, ruby.Read, map[string]string{c[0]: c[1]})
		readertest.Broken(t, elixir.Read, map[string]string{c[0]: c[2]})
	}
}
