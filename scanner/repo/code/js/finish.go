package js

import (
	"cmp"
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
	r := newResolver(p.src)
	for i := range f.Strings {
		s := &f.Strings[i]
		s.Pos, s.End = r.pos(s.Pos.Col), r.pos(s.End.Col)
	}
	for i := range f.Calls {
		c := &f.Calls[i]
		c.Pos, c.End = r.pos(c.Pos.Col), r.pos(c.End.Col)
		for k := range c.Keys {
			c.Keys[k].Pos = r.pos(c.Keys[k].Pos.Col)
		}
	}
}

// resolver turns byte offsets into lines and columns: the line by binary search over the
// line starts (tried first where the last one was), the column by subtracting the UTF-8
// continuation bytes before the offset on its line, counted per 64-byte block so that a
// long minified line costs no more than a short one.
type resolver struct {
	src   string
	lines []int32 // start offset of each line
	last  int     // the line of the last offset resolved
	ascii bool
	cont  []int32 // continuation bytes before each 64-byte block, when not ascii
}

func newResolver(src string) *resolver {
	r := &resolver{src: src, lines: []int32{0}, ascii: isASCII(src)}
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
		n := int32(0)
		for i := 0; i < len(src); i++ {
			if i%64 == 0 {
				r.cont[i/64] = n
			}
			if src[i]&0xC0 == 0x80 {
				n++
			}
		}
	}
	return r
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// continuations counts the UTF-8 continuation bytes before offset o.
func (r *resolver) continuations(o int) int {
	b := o / 64
	n := int(r.cont[b])
	for i := b * 64; i < o; i++ {
		if r.src[i]&0xC0 == 0x80 {
			n++
		}
	}
	return n
}

func (r *resolver) pos(o int) code.Pos {
	o = min(max(o, 0), len(r.src))
	line := r.last
	if int(r.lines[line]) > o || line+1 < len(r.lines) && o >= int(r.lines[line+1]) {
		line, _ = slices.BinarySearch(r.lines, int32(o))
		if line == len(r.lines) || int(r.lines[line]) > o {
			line--
		}
	}
	r.last = line
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
