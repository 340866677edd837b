// Package js reads JavaScript and TypeScript source (.js, .mjs, .cjs, .jsx, .ts, .tsx, .mts,
// .cts) into a code.File: a hand-written tokenizer (strings, templates with nested holes,
// regular expressions versus division, comments) and an expression-level reader on its
// tokens that folds string values, follows call chains and skips TypeScript types. It is
// not a full parser: it reads what it understands and steps over the rest, never failing.
//
// Positions: a string's Pos is its first piece (the opening quote, or the first operand of
// a concatenation), its End the last character of its last piece (the closing quote); a
// call's Pos is the last name of its callee, its End the closing parenthesis.
package js

import (
	"fmt"
	"math"

	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/repo/code/internal/lexkit"
)

// maxDepth bounds the reader's recursion: deeper nesting is stepped over token by token,
// and the file reported as not fully read (File.Stop).
const maxDepth = 2000

// Read reads one JavaScript or TypeScript file.
func Read(src []byte) *code.File {
	if len(src) > math.MaxInt32 {
		src = src[:math.MaxInt32]
	}
	s := getScratch()
	p := &parser{src: string(src), f: &code.File{Lang: "javascript"}}
	l := lex(p.src, lexkit.Room(s.toks, code.TokenEstimate(src)))
	p.toks = l.toks
	p.chain, p.argStack, p.keyStack, p.lines = s.chain[:0], s.args[:0], s.keys[:0], s.lines[:0]
	// Room for as many strings as there are string tokens (fewer are recorded: folded,
	// module names), and for calls in proportion to the parentheses.
	p.f.Strings = make([]code.Str, 0, l.strs*3/4+8)
	p.f.Calls = make([]code.Call, 0, l.parens*2/3+8)
	p.statements(false)
	p.finish()
	*s = scratch{toks: p.toks, chain: p.chain[:0], args: p.argStack[:0], keys: p.keyStack[:0], lines: p.lines[:0]}
	putScratch(s)
	return p.f
}

// scratch is the memory a Read needs only while it runs, kept for the next one.
type scratch struct {
	toks  []token
	chain []string
	args  []val
	keys  []callKey
	lines []int32
}

// scratches keeps a few scratch buffers for the next files. Unlike a sync.Pool it is not
// emptied by every garbage collection, which the reader's own allocations bring about
// often; buffers for very large files are not kept.
var scratches = make(chan *scratch, 8)

// maxKeptTokens bounds the token buffer kept for the next file (12 MB).
const maxKeptTokens = 1 << 20

func getScratch() *scratch {
	select {
	case s := <-scratches:
		return s
	default:
		return new(scratch)
	}
}

func putScratch(s *scratch) {
	if cap(s.toks) > maxKeptTokens {
		return
	}
	clear(s.args[:cap(s.args)]) // the values hold strings of the file just read
	select {
	case scratches <- s:
	default:
	}
}

// parser reads tokens into a code.File. While it runs, every code.Pos it writes holds a byte
// offset in Col (Line 0); finish turns them into lines and columns in one pass.
type parser struct {
	src  string
	toks []token
	i    int
	f    *code.File

	// chain holds the names of the member chains being read, innermost last.
	chain []string
	// argStack and keyStack hold the arguments and keys of the calls being read.
	argStack []val
	keyStack []callKey
	arena    []string
	// consts are the string constants declared so far (const NAME = "literal"); a name
	// declared twice with different values maps to notConst.
	consts map[string]string
	seen   map[string]bool // imports and decls already recorded
	depth  int
	// noTypes are the "<" tokens that do not open type arguments.
	noTypes map[int]bool
	lines   []int32 // the resolver's line starts
}

// notConst marks a constant name that cannot be substituted.
const notConst = "\x00"

// tok returns the current token.
func (p *parser) tok() token { return p.toks[p.i] }

// peek returns the token n places ahead (the tEOF token past the end).
func (p *parser) peek(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) text(t token) string { return p.src[t.start:t.end] }

// at reports whether the current token's text is s: one comparison of its kind for one
// byte of punctuation (s is a constant wherever at is inlined), of its text otherwise.
func (p *parser) at(s string) bool {
	t := p.toks[p.i]
	if len(s) == 1 {
		return t.kind == kind(s[0])
	}
	return int(t.end-t.start) == len(s) && p.src[t.start:t.end] == s
}

// peekIs reports whether the token n places ahead has text s (see at).
func (p *parser) peekIs(n int, s string) bool {
	t := p.peek(n)
	if len(s) == 1 {
		return t.kind == kind(s[0])
	}
	return int(t.end-t.start) == len(s) && p.src[t.start:t.end] == s
}

func (p *parser) eof() bool { return p.toks[p.i].kind == tEOF }

// advance moves past the current token, never past tEOF.
func (p *parser) advance() {
	if p.toks[p.i].kind != tEOF {
		p.i++
	}
}

// skip moves n tokens on, never past tEOF.
func (p *parser) skip(n int) {
	p.i = min(p.i+n, len(p.toks)-1)
}

// accept consumes the current token if its text is s.
func (p *parser) accept(s string) bool {
	if p.at(s) {
		p.advance()
		return true
	}
	return false
}

// nameAt reports whether the current token is an identifier or keyword.
func (p *parser) nameAt() bool { return p.toks[p.i].kind == tName }

// word reports whether the current token is a name the reader gives a meaning.
func (p *parser) word() bool { return p.toks[p.i].flags&fWord != 0 }

// nl reports whether a line break comes before the current token.
func (p *parser) nl() bool { return p.toks[p.i].flags&fNL != 0 }

// enter counts one level of recursion; false when the input nests too deep to follow.
func (p *parser) enter() bool {
	p.depth++
	if p.depth > maxDepth {
		p.tooDeep()
		return false
	}
	return true
}

// tooDeep records that the reader steps over the current token's nesting unread.
func (p *parser) tooDeep() {
	p.f.Stop(off(p.toks[p.i].start), fmt.Sprintf("nesting deeper than %d levels", maxDepth))
}

func (p *parser) leave() { p.depth-- }

// prevEnd returns the end offset of the token before the current one.
func (p *parser) prevEnd() int32 {
	if p.i == 0 {
		return 0
	}
	return p.toks[p.i-1].end
}

// off returns a code.Pos holding a byte offset until finish resolves it.
func off(o int32) code.Pos { return code.Pos{Col: int(o)} }

// lastChar returns the offset of the last character before end (exclusive), for End
// positions, which name the last character of a value.
func (p *parser) lastChar(start, end int32) int32 {
	if end <= start {
		return start
	}
	o := end - 1
	for o > start && p.src[o]&0xC0 == 0x80 {
		o--
	}
	return o
}

func (p *parser) addImport(s string) {
	if s == "" || p.seen["i"+s] {
		return
	}
	p.mark("i" + s)
	p.f.Imports = append(p.f.Imports, s)
}

func (p *parser) addDecl(s string) {
	if s == "" || p.seen["d"+s] {
		return
	}
	p.mark("d" + s)
	p.f.Decls = append(p.f.Decls, s)
}

func (p *parser) mark(k string) {
	if p.seen == nil {
		p.seen = map[string]bool{}
	}
	p.seen[k] = true
}

// setConst records a string constant, or spoils it when the name is declared again with
// another value.
func (p *parser) setConst(name, value string) {
	if p.consts == nil {
		p.consts = map[string]string{}
	}
	if old, ok := p.consts[name]; ok && old != value {
		value = notConst
	}
	p.consts[name] = value
}

// constant returns the value of a string constant declared earlier.
func (p *parser) constant(name string) (string, bool) {
	v, ok := p.consts[name]
	return v, ok && v != notConst
}
