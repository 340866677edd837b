package php

import (
	"bytes"
	"sync"

	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

type kind uint8

const (
	tName kind = iota + 1 // identifier, keyword or qualified name (Foo\Bar, \Foo)
	tVar                  // $name; a and b leave the $ out
	tStr                  // a string literal of any form; parts[p0:p1] are its pieces
	tNum
	tOp // punctuation; op holds it
)

// Operators of more than one byte; a one-byte operator is its byte.
const (
	opArrow     = 0x80 + iota // ->
	opNullsafe                // ?->
	opScope                   // ::
	opPair                    // =>
	opCatAssign               // .=
	opOther                   // any other
)

type token struct {
	a, b   int32 // source range
	p0, p1 int32 // parts of a string
	match  int32 // partner bracket's index, -1
	kind   kind
	op     byte
	used   bool
}

// lexer splits PHP source into tokens. Text outside <?php ... ?> is skipped.
type lexer struct {
	src   []byte
	i     int
	toks  []token
	parts []lexkit.Part
	buf   []byte
	nest  lexkit.Nest
	out   *lexkit.Out
	// strs and parens count string literals and '(' for lexkit.Out.Reserve.
	strs, parens int
	// seg is where the literal text being read starts, esc whether it held an escape (then
	// buf holds it decoded).
	seg int
	esc bool
}

// lexers keeps the buffers of finished reads for the next one.
var lexers = sync.Pool{New: func() any { return new(lexer) }}

func lex(src []byte, out *lexkit.Out) *lexer {
	l := lexers.Get().(*lexer)
	l.out = out
	l.src, l.i, l.toks, l.parts, l.strs, l.parens = src, 0, lexkit.Room(l.toks, code.TokenEstimate(src)), l.parts[:0], 0, 0
	l.nest.Reset()
	for l.i < len(l.src) {
		l.html()
		l.code()
	}
	return l
}

// release returns the lexer's buffers to the pool, unless a huge file made them huge.
func (l *lexer) release() {
	clear(l.parts)
	l.src, l.out = nil, nil
	if cap(l.toks) <= 1<<20 {
		lexers.Put(l)
	}
}

// html skips text up to and past the next open tag.
func (l *lexer) html() {
	j := bytes.Index(l.src[l.i:], []byte("<?"))
	if j < 0 {
		l.i = len(l.src)
		return
	}
	l.i += j + 2
	if hasPrefixFold(l.src[l.i:], "php") {
		l.i += 3
	} else if l.i < len(l.src) && l.src[l.i] == '=' {
		l.i++
	}
}

func hasPrefixFold(b []byte, s string) bool {
	return len(b) >= len(s) && bytes.EqualFold(b[:len(s)], []byte(s))
}

// code reads tokens up to a close tag or the end of the file.
func (l *lexer) code() {
	src := l.src
	for l.i < len(src) {
		c := src[l.i]
		var next byte
		if l.i+1 < len(src) {
			next = src[l.i+1]
		}
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			l.i++
		case c == '$' && lexkit.IsIdentStart(next):
			l.word(tVar, l.i+1)
		case lexkit.IsIdentStart(c) || c == '\\' && lexkit.IsIdentStart(next):
			l.word(tName, l.i)
		case c >= '0' && c <= '9':
			l.number()
		case c == '\'':
			l.single()
		case c == '"' || c == '`':
			l.double(c)
		case !l.other(c, next):
			return
		}
	}
}

// other reads comments, heredocs, the close tag (then it reports false) and operators.
func (l *lexer) other(c, next byte) bool {
	switch {
	case c == '#' && next == '[': // an attribute: its bracket is read as tokens
		l.i++
	case c == '#' || c == '/' && next == '/':
		l.lineComment()
	case c == '/' && next == '*':
		l.blockComment()
	case c == '?' && next == '>':
		l.emitOp(';', l.i, l.i+2)
		l.i += 2
		return false
	case c == '<' && bytes.HasPrefix(l.src[l.i:], []byte("<<<")) && l.heredoc():
	default:
		l.operator()
	}
	return true
}

func (l *lexer) lineComment() {
	for l.i < len(l.src) && l.src[l.i] != '\n' {
		if l.src[l.i] == '?' && l.i+1 < len(l.src) && l.src[l.i+1] == '>' {
			return // a close tag ends a line comment
		}
		l.i++
	}
}

func (l *lexer) blockComment() {
	j := bytes.Index(l.src[l.i+2:], []byte("*/"))
	if j < 0 {
		l.i = len(l.src)
		return
	}
	l.i += j + 4
}

// word reads a name (with namespace separators) or a variable starting at from.
func (l *lexer) word(k kind, from int) {
	j := from
	for j < len(l.src) {
		c := l.src[j]
		if lexkit.IsIdent(c) {
			j++
			continue
		}
		if k == tName && c == '\\' && j+1 < len(l.src) && (lexkit.IsIdentStart(l.src[j+1]) || l.src[j+1] == '{') {
			j++ // Foo\Bar, and Foo\{ of a group use
			continue
		}
		break
	}
	l.toks = append(l.toks, token{kind: k, a: int32(from), b: int32(j), match: -1})
	l.i = j
}

func (l *lexer) number() {
	j := l.i
	for j < len(l.src) && (lexkit.IsIdent(l.src[j]) || l.src[j] == '.' && j+1 < len(l.src) && l.src[j+1] >= '0' && l.src[j+1] <= '9') {
		j++
	}
	l.toks = append(l.toks, token{kind: tNum, a: int32(l.i), b: int32(j), match: -1})
	l.i = j
}

func (l *lexer) emitOp(op byte, a, b int) {
	i := len(l.toks)
	l.toks = append(l.toks, token{kind: tOp, op: op, a: int32(a), b: int32(b), match: -1})
	switch op {
	case '(', '[', '{':
		if op == '(' {
			l.parens++
		}
		l.nest.Open(i, op)
	case ')', ']', '}':
		if m := l.nest.Close(lexkit.Opener(op)); m >= 0 {
			l.toks[i].match, l.toks[m].match = int32(m), int32(i)
		}
	}
}

// operator reads the longest operator that matters to the reader, or one byte.
func (l *lexer) operator() {
	rest := l.src[l.i:]
	n, op := 1, rest[0]
	if len(rest) >= 2 {
		n, op = twoOrThree(rest)
	}
	l.emitOp(op, l.i, l.i+n)
	l.i += n
}

// twoOrThree reads an operator from rest (at least two bytes long): its length and code.
func twoOrThree(rest []byte) (int, byte) {
	c, d := rest[0], rest[1]
	if c >= 0x80 || d >= 0x80 || pairs[c][d] == 0 {
		return 1, c
	}
	if len(rest) > 2 {
		switch string(rest[:3]) {
		case "?->":
			return 3, opNullsafe
		case "...", "===", "!==", "<=>", "??=", "**=", "<<=", ">>=":
			return 3, opOther
		}
	}
	if op := pairs[c][d]; op != '?' {
		return 2, op
	}
	return 1, c // "?-" of no "?->"
}

// pairs holds the code of each two-byte operator.
var pairs = func() (t [0x80][0x80]byte) {
	t['-']['>'], t[':'][':'], t['=']['>'], t['.']['='] = opArrow, opScope, opPair, opCatAssign
	t['?']['-'] = '?'
	for _, op := range []string{"==", "!=", "<=", ">=", "&&", "||", "??", "++", "+=", "-=", "*=", "/=",
		"%=", "&=", "|=", "^=", "<<", ">>", "**", "<>", ".."} {
		t[op[0]][op[1]] = opOther
	}
	return t
}()
