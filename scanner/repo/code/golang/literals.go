package golang

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// Literals calls fn with the offsets of the text between the quotes of each string literal
// of the Go source src ("..." and `...`), in order, skipping comments and rune literals: a
// scan of the bytes, no parse, for a prefilter to decide whether a file is worth reading.
// Escapes are left as written; an interpreted literal ends at its line's end when
// unterminated, a raw one at the end of src.
func Literals(src []byte, fn func(start, end int)) {
	for i := 0; i < len(src); i++ {
		if i = nextOpen(src, i); i == len(src) {
			return
		}
		switch src[i] {
		case '/':
			i = skipComment(src, i)
		case '\'':
			i = quoted(src, i, '\'')
		case '"':
			end := quoted(src, i, '"')
			fn(i+1, end)
			i = end
		case '`':
			end := len(src)
			if j := bytes.IndexByte(src[i+1:], '`'); j >= 0 {
				end = i + 1 + j
			}
			fn(i+1, end)
			i = end
		}
	}
}

// nextOpen returns the offset of the first byte at or after i that may open a literal or a
// comment (a quote, a backquote or a slash), len(src) when none: eight bytes at a time, as
// most bytes of a file open nothing.
func nextOpen(src []byte, i int) int {
	for ; i+8 <= len(src); i += 8 {
		w := binary.LittleEndian.Uint64(src[i:])
		if m := zeroByte(w^('"'*ones)) | zeroByte(w^('/'*ones)) | zeroByte(w^('`'*ones)) | zeroByte(w^('\''*ones)); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(src); i++ {
		if c := src[i]; c == '"' || c == '/' || c == '`' || c == '\'' {
			return i
		}
	}
	return len(src)
}

const ones = 0x0101010101010101

// zeroByte has the high bit set of the lowest zero byte of w, and of no byte below it (bytes
// above may be marked falsely, which nextOpen's lowest bit ignores).
func zeroByte(w uint64) uint64 { return (w - ones) &^ w & (0x80 * ones) }

// skipComment returns the offset of the last byte of the comment starting at src[i] (a
// '/'), or i when none starts there.
func skipComment(src []byte, i int) int {
	if i+1 >= len(src) {
		return i
	}
	switch src[i+1] {
	case '/':
		if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
			return i + j
		}
		return len(src)
	case '*':
		if j := bytes.Index(src[i+2:], []byte("*/")); j >= 0 {
			return i + 2 + j + 1
		}
		return len(src)
	}
	return i
}

// quoted returns the offset of the quote closing the literal opened by q at src[i], or of
// the end of its line (or of src) when it has none; backslashes escape the next byte.
func quoted(src []byte, i int, q byte) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case q, '\n':
			return j
		}
	}
	return len(src)
}
