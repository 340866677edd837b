package repo

import (
	"bytes"
	"encoding/binary"
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
	short  [][]byte // literals of fewer than four bytes
}

// headed is a literal with its first four bytes as one word.
type headed struct {
	head uint32
	lit  []byte
}

func newMultiFinder(lits [][]byte) *multiFinder {
	m := &multiFinder{}
	for _, l := range lits {
		if len(l) < 4 {
			m.short = append(m.short, l)
			continue
		}
		k := uint16(l[0])<<8 | uint16(l[1])
		if m.slot[k] == 0 {
			if len(m.groups) == 255 {
				m.short = append(m.short, l) // the table is full: searched on its own
				continue
			}
			m.groups = append(m.groups, nil)
			m.slot[k] = uint8(len(m.groups))
		}
		g := &m.groups[m.slot[k]-1]
		*g = append(*g, headed{head: binary.LittleEndian.Uint32(l), lit: l})
	}
	return m
}

// anyIn reports whether one of the literals occurs in data.
func (m *multiFinder) anyIn(data []byte) bool {
	for _, l := range m.short {
		if bytes.Contains(data, l) {
			return true
		}
	}
	for i := 0; i+4 <= len(data); i++ {
		s := m.slot[uint16(data[i])<<8|uint16(data[i+1])]
		if s == 0 {
			continue
		}
		head := binary.LittleEndian.Uint32(data[i:])
		for _, h := range m.groups[s-1] {
			if h.head == head && bytes.HasPrefix(data[i:], h.lit) {
				return true
			}
		}
	}
	return false
}
