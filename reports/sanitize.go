package reports

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sanitize makes user-provided text safe to print on a terminal or in a tab-separated row.
//
// Rule descriptions, zone names and record contents come from the account being scanned, so
// they are attacker-controlled: an escape sequence in them could recolour, move the cursor,
// retitle the window or hide lines. Sanitize removes whole escape sequences (CSI, OSC, DCS and
// the other string commands, and two-byte escapes), turns tabs, newlines and carriage returns
// into spaces (a row stays one row and a field stays one field), drops every other C0/C1
// control and the bidirectional overrides that reorder what is shown, replaces invalid UTF-8
// with U+FFFD, collapses runs of spaces and trims the ends.
func Sanitize(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false // a space is pending; written before the next visible rune
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:]) // invalid UTF-8 decodes as U+FFFD, written as such
		switch {
		case r == 0x1b: // ESC: skip the whole sequence
			i = skipEscape(s, i+size)
			continue
		case r == '\t' || r == '\n' || r == '\r' || r == ' ' || r == '\v' || r == '\f' ||
			r == 0x85 || r == 0x2028 || r == 0x2029 || (unicode.IsSpace(r) && r != 0xa0):
			space = b.Len() > 0
		case isBidiControl(r):
			// dropped: reorders what the terminal shows
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			// dropped: C0 and C1 controls (0x9b is an 8-bit CSI)
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// isClean reports whether s needs no change, which is the common case: printable ASCII with
// single inner spaces.
func isClean(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	prevSpace := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f {
			return false
		}
		if c == ' ' {
			if prevSpace {
				return false
			}
			prevSpace = true
		} else {
			prevSpace = false
		}
	}
	return true
}

// skipEscape returns the index just past the escape sequence whose introducer (after ESC)
// starts at i. Unterminated string commands swallow the rest of the text: printing any of it
// could complete the command on the terminal.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[': // CSI: parameters and intermediates, then one final byte 0x40-0x7e
		for i++; i < len(s); i++ {
			if c := s[i]; c >= 0x40 && c <= 0x7e {
				return i + 1
			}
		}
		return i
	case ']', 'P', 'X', '^', '_': // OSC, DCS, SOS, PM, APC: until BEL or ST (ESC \)
		for i++; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return i
	}
	// Two-byte escape (ESC c, ESC 7, ...); intermediates 0x20-0x2f may precede the final byte.
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x2f {
			break
		}
	}
	if i < len(s) {
		_, size := utf8.DecodeRuneInString(s[i:])
		return i + size
	}
	return i
}

// isBidiControl reports the Unicode bidirectional formatting characters (embeddings,
// overrides, isolates and marks) that can make displayed text differ from its content.
func isBidiControl(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200e || r == 0x200f || r == 0x061c:
		return true
	}
	return false
}
