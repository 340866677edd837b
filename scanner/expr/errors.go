package expr

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Error is one syntax error.
type Error struct {
	// Pos is the byte offset of the offending token.
	Pos Pos
	// Line and Col are 1-based; Col counts runes from the start of the line.
	Line, Col int
	Msg       string
}

// Error formats the error as "line:col: message".
func (e *Error) Error() string {
	return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
}

// Render formats the error followed by the source line holding it and a
// caret under the offending character:
//
//	1:20: expected a set element, found ","
//	ip.src in {1.2.3.4, 5.6.7.8}
//	                  ^
func (e *Error) Render(src string) string {
	var b strings.Builder
	b.WriteString(e.Error())
	if int(e.Pos) > len(src) || e.Pos < 0 {
		return b.String()
	}
	start := strings.LastIndexByte(src[:e.Pos], '\n') + 1
	end := strings.IndexByte(src[e.Pos:], '\n')
	if end < 0 {
		end = len(src)
	} else {
		end += int(e.Pos)
	}
	line := strings.TrimSuffix(src[start:end], "\r")
	b.WriteByte('\n')
	b.WriteString(line)
	b.WriteByte('\n')
	// Keep tabs so the caret lines up whatever the tab width.
	for _, r := range src[start:e.Pos] {
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	b.WriteByte('^')
	return b.String()
}

// ErrorList is every error found in one expression, in source order.
type ErrorList []*Error

// Error is the first error, with a count of the others.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0].Error(), len(l)-1)
}

// Err returns l as an error, or nil when l is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Render renders every error with its source line and caret.
func (l ErrorList) Render(src string) string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Render(src)
	}
	return strings.Join(parts, "\n")
}

func (l ErrorList) sort() {
	sort.SliceStable(l, func(i, j int) bool { return l[i].Pos < l[j].Pos })
}

// LineCol converts a byte offset of src into a 1-based line and a 1-based column counted in
// runes, as Error reports them; an offset outside src is clamped to it.
func LineCol(src string, pos int) (line, col int) {
	pos = max(0, min(pos, len(src)))
	before := src[:pos]
	line = 1 + strings.Count(before, "\n")
	start := strings.LastIndexByte(before, '\n') + 1
	return line, 1 + utf8.RuneCountInString(before[start:])
}
