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

// Plural is "1 one" or "N many".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// minSharedPiece is the shortest piece of a message that counts as said alike by a rule's
// findings: shorter ones ("enabled.", "active;") are facts of each finding that happen to
// agree, not advice.
const minSharedPiece = 24

// messagePieces cuts a message into its clauses: after each ". ", "; " or ": " outside
// quotes, backquotes and brackets, so a quoted name ("Block: bots") or a parenthesised aside
// stays whole. A short label that ends in ": " ("Use instead:", "Terraform:") stays with what
// it introduces: said apart, it would be left alone where its clause is not. Each piece keeps
// its punctuation; joined with single spaces they give back the message (with its runs of
// spaces made single). Unbalanced quotes or brackets only make fewer pieces.
func messagePieces(s string) []string {
	var pieces []string
	label := false // whether the last piece is a label that joins the next
	add := func(p string) {
		if label {
			pieces[len(pieces)-1] += " " + p
		} else {
			pieces = append(pieces, p)
		}
		label = strings.HasSuffix(p, ":") && len(p) < minSharedPiece
	}
	depth, quote, start := 0, rune(0), 0
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '`':
			quote = r
		case r == '(' || r == '[' || r == '{':
			depth++
		case (r == ')' || r == ']' || r == '}') && depth > 0:
			depth--
		case (r == '.' || r == ';' || r == ':') && depth == 0 && i+1 < len(s) && s[i+1] == ' ':
			if p := strings.TrimSpace(s[start : i+1]); p != "" {
				add(p)
			}
			start = i + 2
		}
	}
	if p := strings.TrimSpace(s[min(start, len(s)):]); p != "" {
		add(p)
	}
	return pieces
}

// joinPieces joins the kept pieces of a message (keep[i] for pieces[i]) into a text that
// reads as a sentence: a piece that starts a sentence once what stood before it is left
// out gets a capital, and a text left ending in ':', ';' or ',' ends in a full stop.
func joinPieces(pieces []string, keep func(i int) bool) string {
	var b strings.Builder
	gap := false // whether a piece was left out since the last one kept
	for i, p := range pieces {
		if !keep(i) {
			gap = true
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if gap && (b.Len() == 0 || strings.HasSuffix(b.String(), ". ")) {
			p = capitalise(p)
		}
		b.WriteString(p)
		gap = false
	}
	text := b.String()
	if n := len(text); n > 0 && strings.ContainsRune(":;,", rune(text[n-1])) {
		text = text[:n-1] + "."
	}
	return text
}

// capitalise upper-cases the first letter of s when it is a lower-case ASCII letter.
func capitalise(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
