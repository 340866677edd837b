// Package lexkit holds what the hand-written language readers of package code share: a
// position counter, a builder of folded values with holes, the bracket frames that say which
// call a value is an argument of, and the scopes that remember variables assigned once.
// Each language's own rules stay in its package.
package lexkit

import (
	"bytes"

	"github.com/sunsetscan/sunset/scanner/repo/code"
)

// Lines turns byte offsets into code.Pos (1-based line, 1-based column in characters). It
// remembers the last offset it was asked about, so offsets asked in increasing order cost
// only the bytes between them; going back costs the length of a line.
type Lines struct {
	src                       []byte
	off, line, col, lineStart int
}

// NewLines returns a counter over src.
func NewLines(src []byte) Lines {
	return Lines{src: src, line: 1, col: 1}
}

// Pos returns the position of the byte at off (clamped to the file).
func (l *Lines) Pos(off int) code.Pos {
	if off < 0 {
		off = 0
	}
	if off > len(l.src) {
		off = len(l.src)
	}
	if l.line == 0 {
		l.line, l.col = 1, 1
	}
	if off < l.off {
		l.back(off)
	}
	seg := l.src[l.off:off]
	if n := bytes.Count(seg, nl); n > 0 {
		l.line += n
		start := l.off + bytes.LastIndexByte(seg, '\n') + 1
		l.lineStart = start
		l.col = 1 + runes(l.src[start:off])
	} else {
		l.col += runes(seg)
	}
	l.off = off
	return code.Pos{Line: l.line, Col: l.col}
}

var nl = []byte{'\n'}

// back moves the counter to the start of off's line.
func (l *Lines) back(off int) {
	if off >= l.lineStart {
		l.off, l.col = l.lineStart, 1
		return
	}
	l.line -= bytes.Count(l.src[off:l.lineStart], nl)
	start := bytes.LastIndexByte(l.src[:off], '\n') + 1
	l.off, l.col, l.lineStart = start, 1, start
}

// runes counts the characters in b: every byte that does not continue a UTF-8 sequence.
func runes(b []byte) int {
	n := 0
	for _, c := range b {
		if c&0xC0 != 0x80 {
			n++
		}
	}
	return n
}
