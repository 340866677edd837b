package repo

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
)

// finder searches for one literal. bytes.Index looks for the literal's first byte and then
// compares; when that byte is common (a letter such as e, or '/'), it stops at nearly every
// position. finder looks for the literal's rarest byte instead (by a fixed ranking of how
// common bytes are in code and configuration) and compares around it, which keeps the many
// prefilter searches of each file close to memory speed.
type finder struct {
	lit  []byte
	rare int // index in lit of the byte searched for
}

// commonBytes ranks bytes from most to least common in source and configuration text;
// bytes not listed count as rare.
const commonBytes = " etaoinsrlcdh\"u/p_m.f=g-:,ybw\n0\t12v(){}k[]3x4#5'9678;$@zjq"

var byteRank = func() [256]int {
	var r [256]int
	for i := range r {
		r[i] = len(commonBytes) + 1
	}
	for i := 0; i < len(commonBytes); i++ {
		r[commonBytes[i]] = i
	}
	return r
}()

func newFinder(lit []byte) finder {
	f := finder{lit: lit}
	best := -1
	for i, c := range lit {
		if rk := byteRank[c]; rk > best {
			best, f.rare = rk, i
		}
	}
	return f
}

// in reports whether the literal occurs in data.
func (f finder) in(data []byte) bool { return f.index(data, 0) >= 0 }

// index returns the offset of the first occurrence of the literal at or after from, or -1.
func (f finder) index(data []byte, from int) int {
	if len(f.lit) == 0 {
		return min(from, len(data))
	}
	c := f.lit[f.rare]
	for off := from + f.rare; off < len(data); {
		i := bytes.IndexByte(data[off:], c)
		if i < 0 {
			return -1
		}
		at := off + i - f.rare
		if at+len(f.lit) > len(data) {
			return -1
		}
		if bytes.Equal(data[at:at+len(f.lit)], f.lit) {
			return at
		}
		off += i + 1
	}
	return -1
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

// multiFinder tells whether any of many literals occurs in data in one pass: each position's
// two bytes index a table of the literals' first two bytes, and only positions whose pair
// starts a literal are compared (their first four bytes at once, then the rest). Separate
// searches would pass over the file once per literal.
type multiFinder struct {
	slot   [1 << 16]uint8 // 1 + the index in groups of the literals starting with a pair
	groups [][]headed
	short  []headed // literals of fewer than four bytes (or past the table), searched apart
	// few holds a finder per literal when there are at most fewLiterals: anyIn runs one
	// search per literal, by its rarest byte, which is faster than the table's pass.
	few []finder
}

// fewLiterals is the most literals anyIn looks for one by one.
const fewLiterals = 6

// headed is a literal with its first four bytes as one word, and its index in the literals
// the finder was made of.
type headed struct {
	head uint32
	lit  []byte
	id   int
}

func newMultiFinder(lits [][]byte) *multiFinder {
	m := &multiFinder{}
	if len(lits) <= fewLiterals {
		for _, l := range lits {
			m.few = append(m.few, newFinder(l))
		}
	}
	for id, l := range lits {
		if len(l) < 4 {
			m.short = append(m.short, headed{lit: l, id: id})
			continue
		}
		k := uint16(l[0])<<8 | uint16(l[1])
		if m.slot[k] == 0 {
			if len(m.groups) == 255 {
				m.short = append(m.short, headed{lit: l, id: id}) // the table is full: searched on its own
				continue
			}
			m.groups = append(m.groups, nil)
			m.slot[k] = uint8(len(m.groups))
		}
		g := &m.groups[m.slot[k]-1]
		*g = append(*g, headed{head: binary.LittleEndian.Uint32(l), lit: l, id: id})
	}
	return m
}

// anyIn reports whether one of the literals occurs in data.
func (m *multiFinder) anyIn(data []byte) bool {
	if m.few != nil {
		return anyIn(data, m.few)
	}
	return m.scan(data, func(int, int) bool { return true })
}

// scan calls found with the index of each literal and its offset at each place it occurs
// in data, until found returns true; it reports whether one did.
func (m *multiFinder) scan(data []byte, found func(id, at int) bool) bool {
	for _, l := range m.short {
		for off := 0; off < len(data); {
			i := bytes.Index(data[off:], l.lit)
			if i < 0 {
				break
			}
			if found(l.id, off+i) {
				return true
			}
			off += i + 1
		}
	}
	for i := 0; i+4 <= len(data); i++ {
		s := m.slot[uint16(data[i])<<8|uint16(data[i+1])]
		if s == 0 {
			continue
		}
		head := binary.LittleEndian.Uint32(data[i:])
		for _, h := range m.groups[s-1] {
			if h.head == head && bytes.HasPrefix(data[i:], h.lit) && found(h.id, i) {
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
// never counts).
func (f *setFinder) anyIn(data []byte) bool {
	seen := make([]bool, len(f.of))
	missing := make([]int, len(f.sets))
	for i, ids := range f.sets {
		missing[i] = len(ids)
	}
	return f.words.scan(data, func(id, at int) bool {
		if seen[id] || f.accept != nil && !f.accept(data, at, at+f.lens[id], f.keys[id]) {
			return false
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
