package js

import (
	"cmp"
	"math/bits"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/scanner/repo/code"
)

// finish puts strings and calls in source order and turns the byte offsets held in every
// position into lines and columns.
func (p *parser) finish() {
	f := p.f
	byPos := func(a, b code.Str) int { return cmp.Compare(a.Pos.Col, b.Pos.Col) }
	if !slices.IsSortedFunc(f.Strings, byPos) {
		slices.SortStableFunc(f.Strings, byPos)
	}
	p.sortCalls()
	r := newResolver(p.src, p.lines[:0])
	p.lines = r.lines
	// Each stream of positions (starts, ends, keys) runs mostly forward: one hint each.
	var h [5]int
	for i := range f.Strings {
		s := &f.Strings[i]
		s.Pos, s.End = r.pos(s.Pos.Col, &h[0]), r.pos(s.End.Col, &h[1])
	}
	if f.Unread != "" {
		f.UnreadAt = r.pos(f.UnreadAt.Col, &h[0])
	}
	for i := range f.Calls {
		c := &f.Calls[i]
		c.Pos, c.End = r.pos(c.Pos.Col, &h[2]), r.pos(c.End.Col, &h[3])
		for k := range c.Keys {
			c.Keys[k].Pos = r.pos(c.Keys[k].Pos.Col, &h[4])
		}
	}
}

// resolver turns byte offsets into lines and columns: the line by binary search over the
// line starts (after trying the hint's line and the next), the column by subtracting the UTF-8
// continuation bytes before the offset on its line, counted per 64-byte block so that a
// long minified line costs no more than a short one.
type resolver struct {
	src   string
	lines []int32 // start offset of each line
	ascii bool
	cont  []int32 // continuation bytes before each 64-byte block, when not ascii
}

func newResolver(src string, lines []int32) *resolver {
	r := &resolver{src: src, lines: append(lines, 0), ascii: isASCII(src)}
	for i := 0; ; {
		j := strings.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		r.lines = append(r.lines, int32(i))
	}
	if !r.ascii {
		r.cont = make([]int32, len(src)/64+1)
		n := 0
		for b := range r.cont {
			r.cont[b] = int32(n)
			n += countCont(src, b*64, min(b*64+64, len(src)))
		}
	}
	return r
}

// isASCII reports whether s is all ASCII, eight bytes at a time.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if word(s, i)&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// find returns the line of offset o: a few lines on from the hint (the next value of a
// stream is usually close after the last), else by binary search.
func (r *resolver) find(o, hint int) int {
	if hint < len(r.lines) && int(r.lines[hint]) <= o {
		for l := hint + 1; l < len(r.lines) && l <= hint+16; l++ {
			if r.onLine(o, l) {
				return l
			}
		}
	}
	line, _ := slices.BinarySearch(r.lines, int32(o))
	if line == len(r.lines) || int(r.lines[line]) > o {
		line--
	}
	return line
}

// onLine reports whether offset o is on line (0-based).
func (r *resolver) onLine(o, line int) bool {
	return line < len(r.lines) && int(r.lines[line]) <= o && (line+1 == len(r.lines) || o < int(r.lines[line+1]))
}

// continuations counts the UTF-8 continuation bytes (10xxxxxx) before offset o.
func (r *resolver) continuations(o int) int {
	b := o / 64
	return int(r.cont[b]) + countCont(r.src, b*64, o)
}

// countCont counts the continuation bytes in s[i:j], eight at a time.
func countCont(s string, i, j int) int {
	n := 0
	for ; i+8 <= j; i += 8 {
		w := word(s, i)
		n += bits.OnesCount64(w &^ (w << 1) & 0x8080808080808080)
	}
	for ; i < j; i++ {
		if s[i]&0xC0 == 0x80 {
			n++
		}
	}
	return n
}

// word returns the eight bytes of s from i, little-endian.
func word(s string, i int) uint64 {
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// pos resolves offset o; hint is the line of the last offset of the same stream.
func (r *resolver) pos(o int, hint *int) code.Pos {
	o = min(max(o, 0), len(r.src))
	line := *hint
	if !r.onLine(o, line) {
		line = r.find(o, line)
	}
	*hint = line
	start := int(r.lines[line])
	col := o - start + 1
	if !r.ascii {
		col -= r.continuations(o) - r.continuations(start)
	}
	return code.Pos{Line: line + 1, Col: col}
}

// sortCalls puts the calls in the order of their positions, which they are nearly always
// in already (a call inside a computed callee, a[f()](x), is read before it), and renumbers
// the strings' Call to match.
func (p *parser) sortCalls() {
	calls := p.f.Calls
	if slices.IsSortedFunc(calls, func(a, b code.Call) int { return cmp.Compare(a.Pos.Col, b.Pos.Col) }) {
		return
	}
	order := make([]int, len(calls))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(calls[a].Pos.Col, calls[b].Pos.Col) })
	to := make([]int, len(calls))
	sorted := make([]code.Call, len(calls))
	for n, i := range order {
		to[i] = n
		sorted[n] = calls[i]
	}
	p.f.Calls = sorted
	for i := range p.f.Strings {
		if c := p.f.Strings[i].Call; c >= 0 {
			p.f.Strings[i].Call = to[c]
		}
	}
}
