// Package rubylike holds the lexer, call and value code of the readers of the languages
// that share Ruby's surface syntax (Ruby, and Elixir, which borrowed it): names, symbols or
// atoms, labels (name:), #{...} interpolation, calls with and without parentheses, blocks
// closed by "end", keyword arguments, values joined by a concatenation operator and
// variables assigned once. A reader embeds Lexer and Parser, tells them what differs in a
// Syntax (its keywords, operators and the few rules that differ), and reads its own syntax
// itself (Ruby's heredocs, %w[] and blocks; Elixir's sigils, pipes and module attributes).
package rubylike

import "strings"

// Kind is a token's kind.
type Kind uint8

// The kinds of tokens.
const (
	Ident Kind = iota + 1 // a lower-case name: a variable, method or function, keywords included
	Const                 // a capitalised name: a Ruby constant, an Elixir alias segment
	Var                   // a name with a sigil (Ruby's @x, @@x, $x; Elixir's @attr): A and B leave it out
	Sym                   // :name (A, B the name), :"name" (parts): a Ruby symbol, an Elixir atom
	Label                 // name: or "name": (A, B the name)
	Str                   // a string literal; Parts[P0:P1] are its pieces
	Num                   // a number
	Lit                   // another literal operand: a regular expression, a character, a sigil
	Op                    // punctuation; Token.Op holds it
	NL                    // a newline that ends a statement
)

// Operators of more than one byte; a one-byte operator is its byte. A language's
// Syntax.Ops say which of them it has, and which operators each stands for.
const (
	OpPair   = 0x80 + iota // =>
	OpShl                  // <<
	OpArrow                // -> (Ruby's lambda, Elixir's clause arrow)
	OpScope                // :: (Ruby)
	OpSafe                 // &. (Ruby)
	OpAssign               // ||=, +=, <<= and the other operator-assignments (Ruby)
	OpPipe                 // |> (Elixir)
	OpConcat               // <> (Elixir)
	OpShr                  // >> (Elixir)
	OpOther                // any other
)

// Token is one token of the source.
type Token struct {
	S, A, B int32 // S where the token starts, [A, B) its name or text
	P0, P1  int32 // parts of a string
	Match   int32 // partner bracket's index, -1
	Kind    Kind
	Op      byte // the operator of an Op token; KeywordOp on an Ident that is a keyword
	Sp      bool // blank space before the token
	Used    bool // a string folded into a value already
}

// KeywordOp marks, in Token.Op, a name of kind Ident that is a keyword (Syntax.Keyword): the
// lexer asks once, so the parser need not ask again at every look.
const KeywordOp = 1

// isKeyword reports whether t is a name that is a keyword.
func (t *Token) isKeyword() bool { return t.Kind == Ident && t.Op == KeywordOp }

// Frames that no bracket opens, by their lexkit.Frame Open mark. A language may add its own.
const (
	FrameCall  = 'c' // the arguments of a call written without parentheses
	FrameBlock = 'd' // do ... end
)

// Syntax is what differs between the languages in the code they share: their words and
// operators, and the few rules that tell them apart. A reader makes one with NewSyntax.
type Syntax struct {
	// Lang is the language's name (code.File.Lang); Tokens makes its own lexer on the shared
	// one.
	Lang   string
	Tokens func(l *Lexer) Tokenizer
	// Keyword reports whether a name is a reserved word: no variable, no call.
	Keyword func(b []byte) bool
	// Self is a keyword that names a value all the same (Ruby's "self"), "" for none;
	// Values are other keywords that end an operand (Ruby's nil, true, false, end).
	Self   string
	Values []string
	// Starts are the bytes that may start a token of the language's own, read by its
	// Tokenizer.Token: other punctuation is an operator. Ops are the operators of two and
	// three bytes, by code, separated by blanks; other runs of punctuation are operators of
	// one byte each.
	Starts string
	Ops    map[byte]string
	// Sigils makes #@var and #$var interpolate (Ruby).
	Sigils bool
	// GoOn are the words after which a line goes on; Leading is an operator of two bytes
	// that, starting the next line, continues the statement ("&." in Ruby, "|>" in Elixir),
	// as "." does in both; a line ending with a label goes on when LabelGoesOn is set; one
	// ending with an operator goes on, unless it is a closing bracket or in Closes.
	GoOn        []string
	Leading     string
	LabelGoesOn bool
	Closes      []byte
	// Concat are the operators that join strings ("+" in Ruby, "<>" in Elixir); StrConcat
	// join only what starts with a string literal (Ruby's "<<"); Continues are other
	// operators after which a name is no operand's start (Ruby's "%").
	Concat, StrConcat, Continues []byte
	// Adjacent is true when string literals side by side are one ("a" "b" in Ruby).
	Adjacent bool
	// NotKeys are the labels that are no keys (Elixir's do:, else:).
	NotKeys []string
	// ArgWords are the keywords and ArgOps the operators that may start the first argument of
	// a call without parentheses (Ruby's self and ->, Elixir's fn and %{}).
	ArgWords []string
	ArgOps   []byte
	// Folds are the names of the calls whose value a language folds when their arguments
	// close (Lang.Finish): Ruby's format and File.join, Elixir's Path.join.
	Folds []string
	// Ends are the Open marks of the frames "end" closes (FrameBlock, a language's own).
	Ends []byte

	pairs    [0x80][0x80]byte // the code of each operator of two bytes
	triStart [0x80][0x80]bool // which two bytes start an operator of three
	triples  []triple
	class    [256]uint8 // opMember, opConcat, ... bits by operator code
	starts   [256]bool  // Starts
}

// triple is an operator of three bytes and its code.
type triple struct {
	text [3]byte
	code byte
}

// Bits of Syntax.class.
const (
	opMember    = 1 << iota // ., &., ::
	opConcat                // joins strings
	opStrConcat             // joins what starts with a string literal
	opContinues             // a name after it is no operand's start
	opCloses                // a newline after it ends the statement
)

// NewSyntax fills the tables of s and returns it.
func NewSyntax(s Syntax) *Syntax {
	for code, ops := range s.Ops {
		for _, op := range strings.Fields(ops) {
			switch len(op) {
			case 2:
				s.pairs[op[0]][op[1]] = code
			case 3:
				s.triStart[op[0]][op[1]] = true
				s.triples = append(s.triples, triple{[3]byte([]byte(op)), code})
			}
		}
	}
	for i := 0; i < len(s.Starts); i++ {
		s.starts[s.Starts[i]] = true
	}
	for _, op := range []byte{'.', OpSafe, OpScope} {
		s.class[op] |= opMember
	}
	set := func(ops []byte, bit uint8) {
		for _, op := range ops {
			s.class[op] |= bit
		}
	}
	set(s.Concat, opConcat)
	set(s.StrConcat, opStrConcat)
	set(s.Continues, opContinues)
	set(s.Closes, opCloses)
	set([]byte{')', ']', '}'}, opCloses)
	return &s
}

// endsOperand reports whether token t of src ends an operand: a closing bracket, a
// literal, a name (a keyword only when Self or one of Values).
func (s *Syntax) endsOperand(t *Token, src []byte) bool {
	switch t.Kind {
	case Op:
		return t.Op == ')' || t.Op == ']' || t.Op == '}'
	case NL, Label:
		return false
	case Ident:
		return s.isName(t, src) || oneOf(src[t.A:t.B], s.Values)
	}
	return true
}

// isName reports whether token t of src, of kind Ident, names a value or a call: it is no
// keyword, or it is Self.
func (s *Syntax) isName(t *Token, src []byte) bool {
	return t.Op != KeywordOp || s.Self != "" && string(src[t.A:t.B]) == s.Self
}

// oneOf reports whether b is one of words.
func oneOf[S string | []byte](b S, words []string) bool {
	for _, w := range words {
		if string(b) == w {
			return true
		}
	}
	return false
}
