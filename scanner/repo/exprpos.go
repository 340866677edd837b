package repo

import (
	"bytes"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/sunsetscan/sunset/scanner"
)

// lineMap says which file line holds each byte offset of a string value that was written
// over several lines (an expression in a heredoc, a YAML block scalar, a list file), so that
// a field in it is reported where it is written rather than where the value starts.
type lineMap struct {
	src   string
	marks []lineMark // by off
}

// lineMark: the value from off on starts at line; with counts set, each newline of the value
// after off is a new line of the file too (a heredoc, a literal block), otherwise the mark
// stands for one line (a folded line, a quoted string whose \n are escapes).
type lineMark struct {
	off, line int
	counts    bool
}

// line returns the file line of offset off, 0 when unknown.
func (m *lineMap) line(off int) int {
	if m == nil || len(m.marks) == 0 || off < 0 || off > len(m.src) {
		return 0
	}
	i := sort.Search(len(m.marks), func(i int) bool { return m.marks[i].off > off }) - 1
	if i < 0 {
		return 0
	}
	mk := m.marks[i]
	if !mk.counts {
		return mk.line
	}
	return mk.line + strings.Count(m.src[mk.off:off], "\n")
}

// nameAt is the location of name on line n: its first occurrence there, or the line's first
// character that is not a space when the line does not spell it (an escape, a placeholder).
func (li *lineIndex) nameAt(n int, name string) scanner.Location {
	s, e := li.lineBounds(n)
	text := li.data[s:e]
	i := bytes.Index(text, []byte(name))
	if i < 0 {
		i = len(text) - len(bytes.TrimLeft(text, " \t"))
		name = ""
	}
	col := utf8.RuneCount(text[:i]) + 1
	return scanner.Location{StartLine: n, StartColumn: col, EndLine: n, EndColumn: col + utf8.RuneCountInString(name)}
}

// scalarStyle is how a YAML scalar is written, for alignLines.
type scalarStyle uint8

const (
	styleNone scalarStyle = iota // not YAML: JSON strings are on one line
	stylePlain
	styleBlock  // | or >: the first line holds the header only
	styleQuoted // '...' or "..."
)

// alignLines maps a string value to the lines that spell it, for a value whose text was
// folded, unindented or unquoted by its syntax (YAML block and multi-line scalars): from
// line first (the value starting at column startCol) on, each line's text without its
// indentation and surrounding spaces is looked for in the value where the previous one
// ended, with only white space between. The first line that is not found there (an escape,
// what follows the scalar) ends the map; offsets past it stay on the last line found.
func alignLines(li *lineIndex, value string, first, startCol int, style scalarStyle) *lineMap {
	m := &lineMap{src: value}
	cursor := 0
	for n := first; n <= li.lines() && cursor < len(value); n++ {
		s, e := li.lineBounds(n)
		text := li.data[s:e]
		if n == first {
			if style == styleBlock {
				continue
			}
			text = skipRunes(text, startCol-1)
		}
		t := strings.Trim(string(text), " \t\r")
		if n == first && style == styleQuoted && t != "" {
			t = t[1:]
		}
		if t == "" {
			continue
		}
		at, used, ok := alignLine(value, cursor, t, style)
		if !ok {
			break
		}
		m.marks = append(m.marks, lineMark{off: at, line: n})
		cursor = at + used
	}
	return m
}

// alignLine finds line text t in value at cursor: whole, or without a closing quote (a
// quoted scalar's last line) or a trailing comment (a plain scalar's). It returns where,
// and how much of t the value holds.
func alignLine(value string, cursor int, t string, style scalarStyle) (int, int, bool) {
	if at, ok := alignAt(value, cursor, t); ok {
		return at, len(t), true
	}
	switch style {
	case styleQuoted:
		if u := strings.TrimRight(strings.TrimRight(t, "'\""), " \t"); len(u) < len(t) && u != "" {
			if at, ok := alignAt(value, cursor, u); ok {
				return at, len(u), true
			}
		}
	case stylePlain:
		if i := strings.Index(t, " #"); i > 0 {
			u := strings.TrimRight(t[:i], " \t")
			if at, ok := alignAt(value, cursor, u); ok {
				return at, len(u), true
			}
		}
	}
	return 0, 0, false
}

// alignAt finds t in value at cursor, after white space only.
func alignAt(value string, cursor int, t string) (int, bool) {
	if t == "" {
		return cursor, false
	}
	i := strings.Index(value[cursor:], t)
	if i < 0 || strings.TrimSpace(value[cursor:cursor+i]) != "" {
		return 0, false
	}
	return cursor + i, true
}

// skipRunes drops the first n characters of b.
func skipRunes(b []byte, n int) []byte {
	for ; n > 0 && len(b) > 0; n-- {
		_, size := utf8.DecodeRune(b)
		b = b[size:]
	}
	return b
}
