// Package textsafe is the one sanitiser of sunset: every sink that shows text taken from an
// account, a repository or a plan (zone names, ids, descriptions, expressions, messages, file
// paths) passes it through here first. Terminal lines and stderr messages, report rows and
// cells (table, TSV, CSV, GitHub and GitLab annotations, JUnit, SARIF, Markdown, HTML),
// plan.md and the comments and README of the Terraform output all use Sanitize for one-line
// text and Block for multi-line text shown as data (expressions, request bodies).
//
// That text is attacker-controlled: a newline in a zone name would start a new log line (a
// forged "::error ..." GitHub workflow command, a fake row), an escape sequence would recolour
// the terminal, move the cursor, retitle the window or hide lines, and a bidirectional
// override would make what is shown differ from what is there.
package textsafe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sanitize makes user-provided text safe as one line (or one field) of a line-oriented sink:
// a terminal or log line, a tab-separated row, an annotation, a Markdown line, an HCL comment.
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
		case isSpace(r):
			space = b.Len() > 0
		case IsControl(r):
			// dropped: C0 and C1 controls (0x9b is an 8-bit CSI), bidirectional controls
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

// Block makes multi-line user text safe where it is shown as data, a line at a time: a fenced
// code block, a <pre>, a diff. Lines and indentation stay (CR LF and lone CR become LF, tabs
// are kept); escape sequences, the other C0 and C1 controls, the line and paragraph
// separators and the bidirectional controls are removed as Sanitize removes them; invalid
// UTF-8 becomes U+FFFD. Spaces are not folded. The caller keeps what a line starts with from
// meaning anything (a fence no line can close, a "+ " or "- " prefix).
func Block(s string) string {
	if isCleanBlock(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b:
			i = skipEscape(s, i+size)
			continue
		case r == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				size++
			}
			b.WriteByte('\n')
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case IsControl(r):
			// dropped
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// IsControl reports whether r is a rune that Sanitize never keeps and Block keeps only as a
// line break or a tab: the C0 controls (tab, newline and carriage return among them), DEL,
// the C1 controls (U+0080 to U+009F, 0x9b is an 8-bit CSI), the line and paragraph separators
// U+2028 and U+2029, and the bidirectional formatting characters.
func IsControl(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029 || isBidiControl(r)
}

// isSpace reports the runes Sanitize turns into one space: ASCII and Unicode white space
// (tab, newline, carriage return, NEL, the line and paragraph separators) except the
// non-breaking space, which is kept as it is.
func isSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\r', ' ', '\v', '\f', 0x85, 0x2028, 0x2029:
		return true
	}
	return unicode.IsSpace(r) && r != 0xa0
}

// isCleanBlock reports whether Block would leave s as it is: no control other than newline
// and tab, valid UTF-8.
func isCleanBlock(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n' && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
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
