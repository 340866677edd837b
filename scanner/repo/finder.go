package repo

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"strings"
)

// finder searches for one literal. bytes.Index looks for the literal's first byte and then
// compares; when that byte is common (a letter such as e, or '/'), it stops at nearly every
// position. finder looks for the literal's rarest byte instead (by a fixed ranking of how
// common bytes are in code and configuration) and compares around it, which keeps the many
// prefilter searches of each file close to memory speed. A folding finder (newFoldFinder)
// finds its lowercase literal in any ASCII case, so that files need no lowercase copy.
type finder struct {
	lit  []byte
	rare int  // index in lit of the byte searched for
	fold bool // lit is lowercase and matches in any ASCII case
	// next is the index of a byte beside rare, compared before the rest: most places where
	// a common byte stops the search fail there, without a call to compare.
	next int
}

// commonBytes ranks the printable bytes from most to least common in source and
// configuration text (measured over Go, Terraform, Python, JavaScript, PHP, Ruby, Elixir,
// shell, JSON and YAML files of public repositories, each byte by the product of its
// frequencies in Go and in the rest); bytes not listed count as rare.
const commonBytes = " etrsaonil\ncupd\"\tf.mgh/=,y:)(RSb_T{}vwCEIPA-NDOk[]x01L`MF2Ujz4GqB>3*6H5V#97<8WZJ&;K'\\!Q%X+|$Y@~?^"

// byteFreq estimates how often each byte occurs in code, from its rank in commonBytes: the
// measured frequencies fall about as exp(-rank/16)/20 (one byte in 70 for '.', at rank 18;
// one in a thousand near rank 70).
var byteFreq = func() [256]float64 {
	var f [256]float64
	for c := range f {
		rank := len(commonBytes) + 1
		if i := strings.IndexByte(commonBytes, byte(c)); i >= 0 {
			rank = i
		}
		f[c] = math.Exp(-float64(rank)/16) / 20
	}
	return f
}()

// stopFreq is how often a search for c stops in code: in any case (fold), at either case of
// a letter.
func stopFreq(c byte, fold bool) float64 {
	if fold && c >= 'a' && c <= 'z' {
		return byteFreq[c] + byteFreq[c-('a'-'A')]
	}
	return byteFreq[c]
}

func newFinder(lit []byte) finder {
	return newFinderOf(lit, false)
}

// newFoldFinder returns a finder of lit (lowercased) in any ASCII case.
func newFoldFinder(lit []byte) finder {
	return newFinderOf(toLower(nil, lit), true)
}

func newFinderOf(lit []byte, fold bool) finder {
	f := finder{lit: lit, fold: fold}
	f.rare, _ = rarest(lit, fold)
	if f.next = f.rare - 1; f.next < 0 {
		f.next = min(f.rare+1, max(len(lit)-1, 0))
	}
	return f
}

// rarest returns the index in lit of the byte a search stops at least often (the first of
// equals), and how often (stopFreq).
func rarest(lit []byte, fold bool) (at int, freq float64) {
	freq = math.Inf(1)
	for i, c := range lit {
		if f := stopFreq(c, fold); f < freq {
			at, freq = i, f
		}
	}
	return at, freq
}

// in reports whether the literal occurs in data.
func (f finder) in(data []byte) bool { return f.index(data, 0) >= 0 }

// index returns the offset of the first occurrence of the literal at or after from, or -1.
// A folding finder of a letter looks for both its cases, each with bytes.IndexByte, and
// takes the nearer.
func (f finder) index(data []byte, from int) int {
	if len(f.lit) == 0 {
		return min(from, len(data))
	}
	c, alt := f.lit[f.rare], f.lit[f.rare]
	if f.fold && c >= 'a' && c <= 'z' {
		alt = c - ('a' - 'A')
	}
	off := from + f.rare
	nc, na := off-1, off-1 // the next occurrence of c and alt known so far; before off: not searched
	if alt == c {
		na = len(data)
	}
	for off < len(data) {
		if nc < off {
			nc = nextByte(data, off, c)
		}
		if na < off {
			na = nextByte(data, off, alt)
		}
		i := min(nc, na)
		if i >= len(data) {
			return -1
		}
		at := i - f.rare
		if at+len(f.lit) > len(data) {
			return -1
		}
		if f.matchAt(data, at) {
			return at
		}
		off = i + 1
	}
	return -1
}

// matchAt reports whether the literal is at data[at:] (at >= 0, and the literal fits),
// looking at its next byte first.
func (f *finder) matchAt(data []byte, at int) bool {
	w := data[at : at+len(f.lit)]
	if f.fold {
		return lowerByte(w[f.next]) == f.lit[f.next] && equalFold(w, f.lit)
	}
	return w[f.next] == f.lit[f.next] && bytes.Equal(w, f.lit)
}

// nextByte is the offset of the first c in data at or after off, len(data) when none.
func nextByte(data []byte, off int, c byte) int {
	if i := bytes.IndexByte(data[off:], c); i >= 0 {
		return off + i
	}
	return len(data)
}

// equalFold reports whether s equals lower (lowercase) in ASCII case.
func equalFold(s, lower []byte) bool {
	if len(s) != len(lower) {
		return false
	}
	for i, c := range lower {
		if lowerByte(s[i]) != c {
			return false
		}
	}
	return true
}

// byteGroup is finders that search the same byte (folding ones both its cases): one pass
// over that byte finds the occurrences of all of them, where a pass per finder would stop at
// each of its bytes once per finder.
type byteGroup struct {
	c, alt byte  // the byte searched, and its upper case for folding finders of a letter
	ids    []int // indices of the finders in the slice they were grouped from
}

// groupByByte groups fs (all folding or none) by the byte each searches, in the order of
// their first finders.
func groupByByte(fs []finder) []byteGroup {
	var gs []byteGroup
	for k, f := range fs {
		c := f.lit[f.rare]
		i := slices.IndexFunc(gs, func(g byteGroup) bool { return g.c == c })
		if i < 0 {
			i = len(gs)
			g := byteGroup{c: c, alt: c}
			if f.fold && c >= 'a' && c <= 'z' {
				g.alt = c - ('a' - 'A')
			}
			gs = append(gs, g)
		}
		gs[i].ids = append(gs[i].ids, k)
	}
	return gs
}

// scan calls fn with the index in fs and the offset of each occurrence in data of a literal
// of the group, in the order of their searched bytes (each literal's in its order), until
// fn returns true; it reports whether one did.
func (g byteGroup) scan(data []byte, fs []finder, fn func(k, at int) bool) bool {
	nc, na := -1, -1 // the next c and alt known so far; before off: not searched
	if g.alt == g.c {
		na = len(data)
	}
	for off := 0; off < len(data); {
		if nc < off {
			nc = nextByte(data, off, g.c)
		}
		if na < off {
			na = nextByte(data, off, g.alt)
		}
		p := min(nc, na)
		if p >= len(data) {
			return false
		}
		for _, k := range g.ids {
			f := &fs[k]
			if at := p - f.rare; at >= 0 && at+len(f.lit) <= len(data) && f.matchAt(data, at) && fn(k, at) {
				return true
			}
		}
		off = p + 1
	}
	return false
}

// searchCost estimates the time one pass of the groups takes per byte of code, in
// nanoseconds (measured on the Go of real SDKs): a stop costs about 15 (bytes.IndexByte's
// start and the comparison), the search between stops 0.05 a byte per case searched.
func searchCost(gs []byteGroup) float64 {
	cost := 0.0
	for _, g := range gs {
		cost += 15*stopFreq(g.c, g.alt != g.c) + 0.05
		if g.alt != g.c {
			cost += 0.05
		}
	}
	return cost
}

// anyIn reports whether one of the finders' literals occurs in data.
func anyIn(data []byte, fs []finder) bool {
	for _, f := range fs {
		if f.in(data) {
			return true
		}
	}
	return false
}

// multiFinder tells whether any of many literals (lowercase) occurs in data, in any ASCII
// case, in one pass: each position's two bytes index a table of the literals' first two bytes
// in every case, and only positions whose pair starts a literal are compared (their first
// four bytes at once, lowercased, then the rest). Separate searches would pass over the file
// once per literal; folding the case spares the file a lowercase copy.
type multiFinder struct {
	slot   [1 << 16]uint8 // 1 + the index in groups of the literals starting with a pair
	groups [][]headed
	short  []finder // literals of fewer than four bytes (or past the table), searched apart
	// shortID is the index of each of short in the literals the finder was made of.
	shortID []int
	// few, when searching the literals by their rarest bytes (one pass per byte, few)
	// costs less than the table's one pass (tableCost), holds a folding finder per literal
	// and fewGroups those by byte.
	few       []finder
	fewGroups []byteGroup
}

// tableCost is what the table's pass costs per byte of code, in nanoseconds (as
// searchCost): a look-up at every position, 0.7 for a few literals, more for many.
const tableCost = 0.9

// headed is a literal with its first four bytes as one word (lowercase), and its index in the
// literals the finder was made of.
type headed struct {
	head uint32
	lit  []byte
	id   int
}

func newMultiFinder(lits [][]byte) *multiFinder {
	m := &multiFinder{}
	for _, l := range lits {
		m.few = append(m.few, newFoldFinder(l))
	}
	m.fewGroups = groupByByte(m.few)
	if len(lits) == 0 || slices.ContainsFunc(m.few, func(f finder) bool { return len(f.lit) == 0 }) || searchCost(m.fewGroups) >= tableCost {
		m.few, m.fewGroups = nil, nil
	}
	for id, l := range lits {
		l = toLower(nil, l)
		if len(l) < 4 {
			m.short, m.shortID = append(m.short, newFoldFinder(l)), append(m.shortID, id)
			continue
		}
		k := pairKey(l[0], l[1])
		if m.slot[k] == 0 {
			if len(m.groups) == 255 {
				m.short, m.shortID = append(m.short, newFoldFinder(l)), append(m.shortID, id) // the table is full: searched on its own
				continue
			}
			m.groups = append(m.groups, nil)
			for _, a := range caseVariants(l[0]) {
				for _, b := range caseVariants(l[1]) {
					m.slot[pairKey(a, b)] = uint8(len(m.groups))
				}
			}
		}
		g := &m.groups[m.slot[k]-1]
		*g = append(*g, headed{head: binary.LittleEndian.Uint32(l), lit: l, id: id})
	}
	return m
}

func pairKey(a, b byte) uint16 { return uint16(a)<<8 | uint16(b) }

// caseVariants is c and, for a lowercase letter, its upper case.
func caseVariants(c byte) []byte {
	if c >= 'a' && c <= 'z' {
		return []byte{c, c - ('a' - 'A')}
	}
	return []byte{c}
}

// anyIn reports whether one of the literals occurs in data.
func (m *multiFinder) anyIn(data []byte) bool {
	if m.few != nil {
		for _, g := range m.fewGroups {
			if g.scan(data, m.few, func(int, int) bool { return true }) {
				return true
			}
		}
		return false
	}
	return m.scan(data, func(int, int) bool { return true })
}

// scan calls found with the index of each literal and its offset at each place it occurs
// in data, until found returns true; it reports whether one did.
func (m *multiFinder) scan(data []byte, found func(id, at int) bool) bool {
	for k, f := range m.short {
		for off := 0; off < len(data); {
			i := f.index(data, off)
			if i < 0 {
				break
			}
			if found(m.shortID[k], i) {
				return true
			}
			off = i + 1
		}
	}
	for i := 0; i+4 <= len(data); i++ {
		s := m.slot[pairKey(data[i], data[i+1])]
		if s == 0 {
			continue
		}
		head := uint32(lowerWord(uint64(binary.LittleEndian.Uint32(data[i:]))))
		for _, h := range m.groups[s-1] {
			if h.head == head && len(data)-i >= len(h.lit) && equalFold(data[i:i+len(h.lit)], h.lit) && found(h.id, i) {
				return true
			}
		}
	}
	return false
}

// setFinder tells whether data holds every word of one of several sets, in one pass; with
// accept, only the occurrences it accepts count. A word may carry a tag after a NUL byte
// (two words then differ by their tags alone): the text looked for is what comes before it,
// accept is given the whole word.
type setFinder struct {
	words  *multiFinder // the text of every word of the sets once
	keys   []string     // per word, the word with its tag
	lens   []int        // per word, the length of its text
	sets   [][]int      // per set, the indices of its words in words
	of     [][]int      // per word, the sets holding it
	accept func(data []byte, at, end int, word string) bool
}

func newSetFinder(sets [][]string, accept func(data []byte, at, end int, word string) bool) *setFinder {
	f := &setFinder{accept: accept}
	index := map[string]int{}
	var lits [][]byte
	for si, set := range sets {
		var ids []int
		for _, w := range set {
			id, ok := index[w]
			if !ok {
				id = len(lits)
				index[w] = id
				text, _, _ := strings.Cut(w, "\x00")
				lits = append(lits, []byte(text))
				f.keys = append(f.keys, w)
				f.lens = append(f.lens, len(text))
				f.of = append(f.of, nil)
			}
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
				f.of[id] = append(f.of[id], si)
			}
		}
		f.sets = append(f.sets, ids)
	}
	f.words = newMultiFinder(lits)
	return f
}

// anyIn reports whether data holds all the words of one of the sets (a set without words
// never counts). Its counts are made at the first word found: most data holds none.
func (f *setFinder) anyIn(data []byte) bool {
	var seen []bool
	var missing []int
	return f.words.scan(data, func(id, at int) bool {
		if seen != nil && seen[id] || f.accept != nil && !f.accept(data, at, at+f.lens[id], f.keys[id]) {
			return false
		}
		if seen == nil {
			seen, missing = make([]bool, len(f.of)), make([]int, len(f.sets))
			for i, ids := range f.sets {
				missing[i] = len(ids)
			}
		}
		seen[id] = true
		done := false
		for _, si := range f.of[id] {
			missing[si]--
			done = done || missing[si] == 0
		}
		return done
	})
}
