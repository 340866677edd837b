package reports

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// wrap word-wraps s to width, without trailing spaces. A word wider than the width breaks
// where the width ends.
func wrap(s string, width int) string {
	return wrapAt(s, width, "")
}

// resourceBreaks are where a resource label (an address, a record name) too wide for its
// column may break.
const resourceBreaks = "._/"

// wrapAt is wrap that breaks a word too wide for the width after one of the breakpoints (or
// a hyphen) when it can. Lines break at spaces only (ansi.Wordwrap also breaks after hyphens,
// and lets such a line overflow by one column, which the table's own wrapping then breaks
// again, losing the row's last line).
func wrapAt(s string, width int, breakpoints string) string {
	width = max(width, 1)
	var lines []string
	var line strings.Builder
	lineWidth := 0
	for _, word := range strings.Split(s, " ") {
		w := ansi.StringWidth(word)
		switch {
		case word == "":
			continue
		case lineWidth > 0 && lineWidth+1+w <= width:
			line.WriteByte(' ')
			line.WriteString(word)
			lineWidth += 1 + w
			continue
		case lineWidth > 0:
			lines = append(lines, line.String())
			line.Reset()
		}
		pieces := wordPieces(word, w, width, breakpoints)
		lines = append(lines, pieces[:len(pieces)-1]...)
		line.WriteString(pieces[len(pieces)-1])
		lineWidth = ansi.StringWidth(pieces[len(pieces)-1])
	}
	return strings.Join(append(lines, line.String()), "\n")
}

// wordPieces cuts a word of width w into pieces no wider than width, after a breakpoint
// where it can.
func wordPieces(word string, w, width int, breakpoints string) []string {
	if w <= width {
		return []string{word}
	}
	var pieces []string
	for _, p := range strings.Split(ansi.Wrap(word, width, breakpoints), "\n") {
		if ansi.StringWidth(p) > width {
			p = ansi.Hardwrap(p, width, true)
		}
		pieces = append(pieces, strings.Split(p, "\n")...)
	}
	return pieces
}

// hang wraps a line of text to width with a hanging indent: the first line starts with
// first, the others with rest. With no width the text stays on one line.
func hang(s string, width int, first, rest string) []string {
	if width <= 0 {
		return []string{first + s}
	}
	// With single spaces the first line wrapped is a prefix of the text: the rest follows it.
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' }), " ")
	head, _, _ := strings.Cut(wrap(s, max(width-ansi.StringWidth(first), 1)), "\n")
	lines := []string{first + head}
	if tail := strings.TrimPrefix(strings.TrimPrefix(s, head), " "); tail != "" {
		for _, l := range strings.Split(wrap(tail, max(width-ansi.StringWidth(rest), 1)), "\n") {
			lines = append(lines, rest+l)
		}
	}
	return lines
}

// joinWrapped joins parts with sep, breaking the line after a separator rather than inside a
// part when the width is known and the line would not fit.
func joinWrapped(parts []string, sep string, width int) string {
	var b strings.Builder
	lineWidth := 0
	tail := len(strings.TrimRight(sep, " ")) // what ends a line broken after a part
	for i, p := range parts {
		pw := ansi.StringWidth(p)
		if i < len(parts)-1 {
			pw += tail // room for the separator that may end the line after this part
		}
		if i > 0 {
			if width > 0 && lineWidth+len(sep)+pw > width {
				b.WriteString(strings.TrimRight(sep, " ") + "\n")
				lineWidth = 0
			} else {
				b.WriteString(sep)
				lineWidth += len(sep)
			}
		}
		b.WriteString(p)
		lineWidth += ansi.StringWidth(p)
	}
	return b.String()
}

// plural is "1 one" or "N many".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
