// Package elixir reads Elixir source into a code.File on a hand-written tokenizer: the
// strings it builds (#{} interpolation, '<>' concatenation, Path.join joined with "/",
// heredocs, string and word sigils, charlists), the calls it makes with and without
// parentheses and through pipes (client(opts).put(...) is [client put]; x |> Foo.bar() is
// [Foo bar], its arguments counted without the piped value), keyword lists and map keys
// passed (an atom given to a key is kept as a value, method: :post), module attributes
// (@endpoint "x" is a value assigned to "endpoint", put in place of later uses), the module
// it defines and the ones it aliases, imports, requires and uses, and the functions it
// defines. "use Restlax.Resource, endpoint: ..." is a call of [use Restlax Resource], so that
// its options keep their keys. Heredocs are kept as values (most are documentation). What
// Elixir shares with Ruby is read by package rubylike; Elixir's own syntax is read here.
package elixir

import (
	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/rubylike"
)

// Read reads one Elixir file. It never fails: what it cannot make sense of it skips.
func Read(src []byte) *code.File {
	p := &parser{}
	return rubylike.Read(src, syntax, &p.Parser, p)
}

// syntax is what Elixir tells the code it shares with Ruby.
var syntax = rubylike.NewSyntax(rubylike.Syntax{
	Lang:    "elixir",
	Tokens:  func(l *rubylike.Lexer) rubylike.Tokenizer { return lexer{l} },
	Keyword: keyword,
	Starts:  "@:\"'~?",
	Ops: map[byte]string{
		rubylike.OpPipe: "|>", rubylike.OpConcat: "<>", rubylike.OpPair: "=>", rubylike.OpArrow: "->",
		rubylike.OpShl: "<<", rubylike.OpShr: ">>",
		rubylike.OpOther: "=== !== <<< >>> ||| &&& ^^^ ~~~ ... <<~ ~>> <~> <|> " +
			`== != =~ <= >= && || ++ -- .. <- \\ :: // ~> <~`,
	},
	GoOn:        []string{"and", "or", "not", "when", "in"},
	Leading:     "|>",
	LabelGoesOn: true,
	Closes:      []byte{rubylike.OpShr}, // <<1>> ends a binary
	Concat:      []byte{rubylike.OpConcat},
	NotKeys:     []string{"do", "else", "after", "rescue", "catch"},
	ArgWords:    []string{"true", "false", "nil", "fn", "__MODULE__"},
	ArgOps:      []byte{'[', '%', '{', '&'},
	Folds:       []string{"join"},
	Ends:        []byte{rubylike.FrameBlock},
})

// parser reads Elixir's own syntax on rubylike.Parser. Its Head is a def, whose "do" opens
// a scope.
type parser struct {
	rubylike.Parser
}

// keyword reports whether b is a reserved word or a special form that is no call.
func keyword(b []byte) bool {
	if len(b) < 2 || len(b) > 12 {
		return false
	}
	switch string(b) {
	case "do", "end", "fn", "when", "and", "or", "not", "in", "true", "false", "nil", "else", "after",
		"catch", "rescue", "if", "unless", "case", "cond", "with", "for", "receive", "try", "quote",
		"unquote", "def", "defp", "defmacro", "defmacrop", "defguard", "defguardp", "defdelegate",
		"defmodule", "defstruct", "defexception", "defimpl", "defprotocol", "defoverridable",
		"import", "alias", "require", "use", "__MODULE__", "__DIR__", "__ENV__", "__CALLER__":
		return true
	}
	return false
}
