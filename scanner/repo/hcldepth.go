package repo

import (
	"bytes"
	"fmt"
)

// hclsyntax parses recursively, and the expression trees it builds are walked recursively
// (by hcl and by this package): each bracket, template interpolation, unary or binary
// operator in one expression is a level or a few stack frames. The Go runtime ends the whole
// process, not with a recoverable panic, past its 1 GB stack, which a 200 KB file of "[" or
// of "1 + " reaches. So files are measured first and not given to the parser past these
// bounds, far above what real configuration holds; such a file is a run error (not fully
// read) and its text checks still run.
const (
	hclMaxNesting = 1000  // brackets, braces, parentheses and template interpolations open at once
	hclMaxChain   = 10000 // operators, traversals and index brackets in one expression
)

// hclFrame is one open bracket, quoted string or heredoc of the pre-scan.
type hclFrame struct {
	open    byte   // '(', '[', '{', '$' (an interpolation), '"' or '<' (a heredoc); 0 at top
	heredoc []byte // a heredoc's terminator
	chain   int    // operators and opened brackets in the current expression of this frame
}

// str reports whether the frame is template text, where only ${ and %{ open a frame.
func (f *hclFrame) str() bool { return f.open == '"' || f.open == '<' }

// hclTooDeep scans native syntax for nesting past the bounds, in one pass; nil when the file
// is within them. An expression ends at a comma, and at a newline at the top level or in
// braces (in parentheses, brackets and interpolations newlines are ignored, as hclsyntax does).
func hclTooDeep(data []byte) *parseError {
	stack := []hclFrame{{}}
	line := 1
	for i := 0; i < len(data); i++ {
		if data[i] == '\n' {
			line++
		}
		if stack[len(stack)-1].str() {
			i = hclTextByte(data, i, &stack)
		} else {
			i = hclCodeByte(data, i, &stack, &line)
		}
		if len(stack) > hclMaxNesting || stack[len(stack)-1].chain > hclMaxChain {
			return &parseError{Line: line, Col: 1, Limit: true,
				Msg: fmt.Sprintf("nesting deeper than the HCL parser is given (%d levels, or %d operators in one expression)", hclMaxNesting, hclMaxChain)}
		}
	}
	return nil
}

// hclTextByte handles data[i] inside a quoted string or heredoc and returns the last index
// used.
func hclTextByte(data []byte, i int, stack *[]hclFrame) int {
	top := &(*stack)[len(*stack)-1]
	switch c := data[i]; {
	case c == '\\' && top.open == '"':
		return i + 1
	case c == '"' && top.open == '"', c == '\n' && top.open == '"': // a newline ends an unterminated string, as in hclsyntax
		*stack = (*stack)[:len(*stack)-1]
	case c == '\n' && top.open == '<':
		end := hclSkipTo(data, i+1, []byte("\n"))
		if bytes.Equal(bytes.TrimSpace(data[i+1:end]), top.heredoc) {
			*stack = (*stack)[:len(*stack)-1]
		}
	case (c == '$' || c == '%') && i+1 < len(data) && data[i+1] == '{':
		*stack = append(*stack, hclFrame{open: '$'})
		return i + 1
	}
	return i
}

// hclCodeByte handles data[i] outside strings and returns the last index used; comments
// are skipped whole (lines counted).
func hclCodeByte(data []byte, i int, stack *[]hclFrame, line *int) int {
	top := &(*stack)[len(*stack)-1]
	c := data[i]
	switch c {
	case '"':
		*stack = append(*stack, hclFrame{open: '"'})
	case '(', '[', '{':
		top.chain++
		*stack = append(*stack, hclFrame{open: c})
	case ')', ']', '}':
		if len(*stack) > 1 {
			*stack = (*stack)[:len(*stack)-1]
		}
	case ',':
		top.chain = 0
	case '\n':
		if top.open == 0 || top.open == '{' {
			top.chain = 0
		}
	case '#':
		return hclSkipTo(data, i, []byte("\n")) - 1 // the newline is handled as code
	case '/':
		if i+1 < len(data) && (data[i+1] == '/' || data[i+1] == '*') {
			return hclComment(data, i, line)
		}
		top.chain++
	case '<':
		if j, ok := hclHeredoc(data, i, stack); ok {
			return j
		}
		top.chain++
	case '+', '-', '*', '%', '>', '=', '!', '&', '|', '?', ':', '.':
		top.chain++
	}
	return i
}

// hclComment skips the // or /* comment at i and returns its last index.
func hclComment(data []byte, i int, line *int) int {
	if data[i+1] == '/' {
		return hclSkipTo(data, i, []byte("\n")) - 1
	}
	end := min(hclSkipTo(data, i+2, []byte("*/"))+2, len(data))
	*line += bytes.Count(data[i:end], []byte("\n"))
	return end - 1
}

// hclHeredoc opens a heredoc frame when <<ID or <<-ID and a newline start at i; it returns
// the index of that newline's byte before (so the newline is read as heredoc text).
func hclHeredoc(data []byte, i int, stack *[]hclFrame) (int, bool) {
	j := i + 2
	if j > len(data) || data[i+1] != '<' {
		return i, false
	}
	if j < len(data) && data[j] == '-' {
		j++
	}
	nl := hclSkipTo(data, j, []byte("\n"))
	id := bytes.TrimRight(data[j:nl], "\r")
	if len(id) == 0 || bytes.ContainsAny(id, " \t\"") || nl == len(data) {
		return i, false
	}
	*stack = append(*stack, hclFrame{open: '<', heredoc: id})
	return nl - 1, true
}

// hclSkipTo returns the index of the next sep at or after i, len(data) when none.
func hclSkipTo(data []byte, i int, sep []byte) int {
	if j := bytes.Index(data[i:], sep); j >= 0 {
		return i + j
	}
	return len(data)
}
