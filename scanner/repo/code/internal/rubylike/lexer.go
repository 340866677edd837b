package rubylike

import (
	"bytes"
	"sync"

	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

// Lexer is the part of a tokenizer the languages share: blank space, comments and newlines,
// numbers, operators and their brackets, string bodies. A reader embeds it and reads the
// tokens of its own syntax (Tokenizer).
type Lexer struct {
	// Src is the source, I where reading is, Toks the tokens read and Parts the pieces of
	// their strings.
	Src   []byte
	I     int
	Toks  []Token
	Parts []lexkit.Part
	Out   *lexkit.Out
	// Sp is true when blank space came before the token being read.
	Sp bool
	// Strs and Parens count string literals and '(' for lexkit.Out.Reserve.
	Strs, Parens int
	// Resume, when not -1, is where reading goes on after the next newline: past text read
	// already (Ruby's heredoc bodies, which start on the line after the one opening them).
	Resume int
	syn    *Syntax
	nest   lexkit.Nest
	body   lexkit.Body
}

// Tokenizer is a language's own lexer. It reads the token at Lexer.I, moving I past it.
type Tokenizer interface {
	// Name reads a token starting with a byte that may start an identifier.
	Name()
	// Token reads a token starting with c, one of Syntax.Starts; next is the byte after it,
	// 0 at the end.
	Token(c, next byte)
}

// lexers keeps the buffers of finished reads for the next one.
var lexers = sync.Pool{New: func() any { return new(Lexer) }}

// newLexer returns a lexer ready to read src for out in syntax syn, with the buffers of a
// finished read when there is one.
func newLexer(src []byte, out *lexkit.Out, syn *Syntax) *Lexer {
	l := lexers.Get().(*Lexer)
	*l = Lexer{Src: src, Toks: lexkit.Room(l.Toks, code.TokenEstimate(src)), Parts: l.Parts[:0], Out: out,
		Resume: -1, syn: syn, nest: l.nest, body: l.body}
	l.nest.Reset()
	return l
}

// release lets go of the source and keeps l for the next read, unless a huge file made its
// buffers huge.
func (l *Lexer) release() {
	clear(l.Parts)
	l.Src, l.Out = nil, nil
	l.body.Src, l.body.Parts, l.body.Out = nil, nil, nil
	if cap(l.Toks) <= 1<<20 {
		lexers.Put(l)
	}
}

// run reads the source: blank space, line continuations, newlines, # comments, numbers and
// operators here, names and what starts with a byte of Syntax.Starts through tok.
func (l *Lexer) run(tok Tokenizer) {
	for l.I < len(l.Src) {
		c := l.Src[l.I]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			l.I++
			l.Sp = true
			continue
		case c == '\\' && l.Peek(1) == '\n':
			l.I += 2
		case c == '\n':
			l.newline()
		case c == '#':
			if k := bytes.IndexByte(l.Src[l.I:], '\n'); k >= 0 {
				l.I += k
			} else {
				l.I = len(l.Src)
			}
			continue
		case lexkit.IsIdentStart(c):
			tok.Name()
		case c >= '0' && c <= '9':
			l.number()
		case l.syn.starts[c]:
			tok.Token(c, l.Peek(1))
		default:
			l.Operator()
		}
		l.Sp = false
	}
}

// Peek returns the byte k bytes after I, 0 past the end.
func (l *Lexer) Peek(k int) byte {
	if l.I+k < len(l.Src) {
		return l.Src[l.I+k]
	}
	return 0
}

// newline ends a statement unless the line goes on: after an operator that is no closing
// bracket (Syntax.Closes), a word of Syntax.GoOn or a label (Syntax.LabelGoesOn), or before
// a line starting with "." or Syntax.Leading.
func (l *Lexer) newline() {
	at := l.I
	l.I++
	if l.Resume >= 0 {
		l.I, l.Resume = max(l.Resume, l.I), -1
	}
	if len(l.Toks) == 0 {
		return
	}
	switch last := &l.Toks[len(l.Toks)-1]; last.Kind {
	case NL:
		return
	case Op:
		if l.syn.class[last.Op]&opCloses == 0 {
			return
		}
	case Label:
		if l.syn.LabelGoesOn {
			return
		}
	case Ident:
		if oneOf(l.Src[last.A:last.B], l.syn.GoOn) {
			return
		}
	}
	j := l.I
	for j < len(l.Src) && (l.Src[j] == ' ' || l.Src[j] == '\t' || l.Src[j] == '\r' || l.Src[j] == '\n') {
		j++
	}
	if lead := l.syn.Leading; j+1 < len(l.Src) && (l.Src[j] == '.' && l.Src[j+1] != '.' ||
		len(lead) == 2 && l.Src[j] == lead[0] && l.Src[j+1] == lead[1]) {
		return // a chain going on: .method on the next line
	}
	l.Toks = append(l.Toks, Token{Kind: NL, S: int32(at), A: int32(at), B: int32(at + 1), Match: -1})
}

// Word reports whether token t is the name w.
func (l *Lexer) Word(t *Token, w string) bool { return string(l.Src[t.A:t.B]) == w }

// Emit appends t, with no partner bracket and the blank space read before it.
func (l *Lexer) Emit(t Token) {
	t.Match = -1
	t.Sp = l.Sp
	l.Toks = append(l.Toks, t)
}

// EmitName appends a name of kind k (Ident, Const) spanning [a, b) and moves I past it; an
// Ident that is a keyword is marked so (KeywordOp).
func (l *Lexer) EmitName(k Kind, a, b int) {
	t := Token{Kind: k, S: int32(a), A: int32(a), B: int32(b)}
	if k == Ident && l.syn.Keyword(l.Src[a:b]) {
		t.Op = KeywordOp
	}
	l.Emit(t)
	l.I = b
}

// EmitStr appends a string token of kind k (Str, or a Label or Sym written as a string)
// spanning [s, b), whose pieces are Parts[p0:], and counts it.
func (l *Lexer) EmitStr(k Kind, s, b, p0 int) {
	l.Strs++
	l.Emit(Token{Kind: k, S: int32(s), A: int32(s), B: int32(b), P0: int32(p0), P1: int32(len(l.Parts))})
}

// Operand reports whether the last token ends an operand (so that what follows is an
// operator rather than the start of a literal: / divides, % takes the remainder).
func (l *Lexer) Operand() bool {
	return len(l.Toks) > 0 && l.syn.endsOperand(&l.Toks[len(l.Toks)-1], l.Src)
}

// IdentEnd returns where the identifier bytes from j end.
func (l *Lexer) IdentEnd(j int) int {
	for j < len(l.Src) && lexkit.IsIdent(l.Src[j]) {
		j++
	}
	return j
}

// number reads a number at I.
func (l *Lexer) number() {
	j := l.I
	for j < len(l.Src) && (lexkit.IsIdent(l.Src[j]) || l.Src[j] == '.' && j+1 < len(l.Src) && l.Src[j+1] >= '0' && l.Src[j+1] <= '9') {
		j++
	}
	l.Emit(Token{Kind: Num, S: int32(l.I), A: int32(l.I), B: int32(j)})
	l.I = j
}

// EmitOp appends the operator op of n bytes at I and moves past it, pairing brackets.
func (l *Lexer) EmitOp(op byte, n int) {
	i := len(l.Toks)
	l.Emit(Token{Kind: Op, Op: op, S: int32(l.I), A: int32(l.I), B: int32(l.I + n)})
	l.I += n
	switch op {
	case '(', '[', '{':
		if op == '(' {
			l.Parens++
		}
		l.nest.Open(i, op)
	case ')', ']', '}':
		if m := l.nest.Close(lexkit.Opener(op)); m >= 0 {
			l.Toks[i].Match, l.Toks[m].Match = int32(m), int32(i)
		}
	}
}

// OpAt appends the operator op spanning [a, b) (the brackets and commas made up around the
// words of a word list), leaving I where it is.
func (l *Lexer) OpAt(op byte, a, b int) {
	i := l.I
	l.I = a
	l.EmitOp(op, b-a)
	l.I = i
}

// Operator reads the operator at I: of three bytes, two (Syntax.Ops) or one.
func (l *Lexer) Operator() {
	rest := l.Src[l.I:]
	if s := l.syn; len(rest) >= 2 && rest[0] < 0x80 && rest[1] < 0x80 {
		if len(rest) >= 3 && s.triStart[rest[0]][rest[1]] {
			for _, t := range s.triples {
				if t.text == [3]byte(rest) {
					l.EmitOp(t.code, 3)
					return
				}
			}
		}
		if op := s.pairs[rest[0]][rest[1]]; op != 0 {
			l.EmitOp(op, 2)
			return
		}
	}
	l.EmitOp(rest[0], 1)
}

// Plain reads a string body without interpolation from I (see lexkit.Body.Plain).
func (l *Lexer) Plain(term, open byte, limit int) {
	l.body.Src, l.body.I, l.body.Parts, l.body.Out, l.body.Sigils = l.Src, l.I, l.Parts, l.Out, l.syn.Sigils
	l.body.Plain(term, open, limit)
	l.I, l.Parts = l.body.I, l.body.Parts
}

// Interp reads an interpolating string body from I (see lexkit.Body.Interp).
func (l *Lexer) Interp(term, open byte, limit int) {
	l.body.Src, l.body.I, l.body.Parts, l.body.Out, l.body.Sigils = l.Src, l.I, l.Parts, l.Out, l.syn.Sigils
	l.body.Interp(term, open, limit)
	l.I, l.Parts = l.body.I, l.body.Parts
}

// Dedent removes up to indent blanks from the start of every line of the pieces of a
// heredoc, Parts[p0:]. A line starts after a newline in literal text, not after a hole.
func (l *Lexer) Dedent(p0, indent int) {
	if indent <= 0 {
		return
	}
	atStart := true
	for k := p0; k < len(l.Parts); k++ {
		p := &l.Parts[k]
		if p.Hole {
			atStart = false
			continue
		}
		text := p.Literal(l.Src)
		out := make([]byte, 0, len(text))
		skipped := 0
		for i := 0; i < len(text); i++ {
			c := text[i]
			if atStart && skipped < indent && (c == ' ' || c == '\t') {
				skipped++
				continue
			}
			atStart, skipped = c == '\n', 0
			out = append(out, c)
		}
		*p = lexkit.Part{Text: string(out)}
	}
}

// Closer returns the delimiter closing a literal opened by open (%w[...], ~s(...)), and
// whether it nests.
func Closer(open byte) (byte, bool) {
	switch open {
	case '(':
		return ')', true
	case '[':
		return ']', true
	case '{':
		return '}', true
	case '<':
		return '>', true
	}
	return open, false
}

// IsBlank reports whether c separates the words of a word list.
func IsBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
