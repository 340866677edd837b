// Package ruby reads Ruby source into a code.File on a hand-written tokenizer: the strings it
// builds (#{} interpolation, '+' and '<<' concatenation, format/sprintf/'%' verbs, File.join
// and URI.join joined with "/", heredocs, %q/%Q/%()/%w literals), the calls it makes with and
// without parentheses (client.get "zones/#{id}" is [client get]; Foo::Bar.new(x) is
// [Foo Bar new]), keyword arguments and hash keys passed (method: :post gives the value
// "post" with Key "method"), require/require_relative/load, the modules and classes it
// declares (class X < Y gives X and Y), and the methods it defines. Symbols are not strings,
// except as a key's value. Sigils are dropped from names (@client is "client"). What Ruby
// shares with Elixir is read by package rubylike; Ruby's own syntax is read here.
package ruby

import (
	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/rubylike"
)

// Read reads one Ruby file. It never fails: what it cannot make sense of it skips.
func Read(src []byte) *code.File {
	p := &parser{}
	return rubylike.Read(src, syntax, &p.Parser, p)
}

// Frames that no bracket opens, by their Open mark, besides rubylike.FrameCall and
// rubylike.FrameBlock (do ... end).
const (
	frameKw  = 'k' // if, unless, while, until, case, begin, for ... end
	frameDef = 'f' // def, class, module ... end: a scope of their own
)

// syntax is what Ruby tells the code it shares with Elixir.
var syntax = rubylike.NewSyntax(rubylike.Syntax{
	Lang:    "ruby",
	Tokens:  func(l *rubylike.Lexer) rubylike.Tokenizer { return lexer{l} },
	Keyword: keyword,
	Starts:  "=@$:'\"`%/<?",
	Self:    "self",
	Values:  []string{"end", "nil", "true", "false"},
	Ops: map[byte]string{
		rubylike.OpSafe: "&.", rubylike.OpPair: "=>", rubylike.OpShl: "<<", rubylike.OpArrow: "->",
		rubylike.OpAssign: "||= &&= <<= >>= **= += -= *= /= %= |= &= ^=",
		rubylike.OpOther:  "=== <=> ... !~= == != =~ !~ <= >= && || ** >> ..",
	},
	Sigils:    true,
	GoOn:      []string{"and", "or", "not"},
	Leading:   "&.",
	Concat:    []byte{'+'},
	StrConcat: []byte{rubylike.OpShl},
	Continues: []byte{'%'},
	Adjacent:  true,
	ArgWords:  []string{"self", "nil", "true", "false", "__FILE__"},
	ArgOps:    []byte{rubylike.OpArrow},
	Folds:     []string{"format", "sprintf", "join"},
	Ends:      []byte{frameKw, frameDef, rubylike.FrameBlock},
})

// parser reads Ruby's own syntax on rubylike.Parser. Its Head is a while, until or for,
// whose "do" opens no block.
type parser struct {
	rubylike.Parser
}

// Variable handles an instance or global variable: it may start a concatenation.
func (p *parser) Variable(i int) { p.Concatenation(i) }

// keyword reports whether b is a Ruby keyword.
func keyword(b []byte) bool {
	if len(b) < 2 || len(b) > 12 {
		return false
	}
	switch string(b) {
	case "alias", "and", "begin", "break", "case", "class", "def", "defined?", "do", "else", "elsif",
		"end", "ensure", "false", "for", "if", "in", "module", "next", "nil", "not", "or", "redo",
		"rescue", "retry", "return", "self", "super", "then", "true", "undef", "unless", "until",
		"when", "while", "yield", "__FILE__", "__LINE__", "__method__", "BEGIN", "END":
		return true
	}
	return false
}
