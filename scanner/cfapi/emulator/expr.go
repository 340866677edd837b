package emulator

import (
	"fmt"
	"strings"
)

// maxExpressionLen is the service's limit on an expression's length.
const maxExpressionLen = 4096

// ExpressionError is a parse error as the service words it:
// "Filter parsing error (LINE:COLUMN): EXPRESSION ^^ REASON".
type ExpressionError struct {
	Line, Column int
	Expression   string
	Reason       string
}

// Error renders the service's wording.
func (e *ExpressionError) Error() string {
	return fmt.Sprintf("Filter parsing error (%d:%d): %s ^^ %s", e.Line, e.Column, e.Expression, e.Reason)
}

// tokKind classifies the tokens of the small structural check.
type tokKind int

const (
	tokWord   tokKind = iota // field, function, operator word, number, IP, $list
	tokString                // "..." or r#"..."#
	tokOp                    // == != < <= > >= ~ && || ^^ ! &
	tokOpen                  // ( [ {
	tokClose                 // ) ] }
	tokComma
)

type token struct {
	kind      tokKind
	text      string
	line, col int
}

// Words and symbols of the Rules language that combine two operands.
var (
	connectives  = map[string]bool{"and": true, "or": true, "xor": true, "&&": true, "||": true, "^^": true}
	comparisons  = map[string]bool{"eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true, "contains": true, "matches": true, "wildcard": true, "strict": true, "in": true, "bitwise_and": true, "==": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true, "~": true, "&": true}
	upperEnglish = map[string]bool{"AND": true, "OR": true, "XOR": true, "NOT": true, "EQ": true, "NE": true, "LT": true, "LE": true, "GT": true, "GE": true, "CONTAINS": true, "MATCHES": true, "IN": true, "WILDCARD": true}
)

// CheckExpression is the emulator's default expression validator: a structural check of the
// Rules language, not a full parser. It refuses what the service is known to refuse and what
// can be seen without a field catalogue: an empty or over-long expression, unbalanced
// parentheses, brackets or braces, unterminated strings, characters outside the language,
// uppercase English operators, starts_with/ends_with used as operators, `in` not followed by a
// set or a $list, `[*]` outside a function call, commas outside function arguments (sets
// separate elements with spaces), empty sets, a string literal standing as a condition, and
// operators with a missing operand.
// Options.ValidateExpression replaces it with a real parser.
func CheckExpression(expr string) error {
	fail := func(line, col int, reason string) error {
		return &ExpressionError{Line: line, Column: col, Expression: expr, Reason: reason}
	}
	if strings.TrimSpace(expr) == "" {
		return fail(1, 1, "the expression is empty")
	}
	if len(expr) > maxExpressionLen {
		return fail(1, maxExpressionLen+1, fmt.Sprintf("the expression is longer than %d characters", maxExpressionLen))
	}
	toks, err := lexExpression(expr)
	if err != nil {
		return fail(err.line, err.col, err.reason)
	}

	type frame struct {
		open     token
		function bool
	}
	var stack []frame
	insideFunction := func() bool {
		for _, f := range stack {
			if f.function {
				return true
			}
		}
		return false
	}
	pairs := map[string]string{")": "(", "]": "[", "}": "{"}
	for i, t := range toks {
		var prev, next *token
		if i > 0 {
			prev = &toks[i-1]
		}
		if i+1 < len(toks) {
			next = &toks[i+1]
		}
		switch t.kind {
		case tokOpen:
			fn := t.text == "(" && prev != nil && prev.kind == tokWord && !connectives[prev.text] && !comparisons[prev.text] && prev.text != "not"
			if t.text == "[" && next != nil && next.text == "*" {
				if !insideFunction() {
					return fail(t.line, t.col, "[*] can only be used inside a function argument")
				}
			}
			if next != nil && next.kind == tokClose {
				switch {
				case t.text == "{":
					return fail(t.line, t.col, "empty set")
				case t.text == "(" && !fn:
					return fail(t.line, t.col, "empty parentheses")
				case t.text == "[":
					return fail(t.line, t.col, "empty index")
				}
			}
			stack = append(stack, frame{open: t, function: fn})
		case tokClose:
			if len(stack) == 0 || stack[len(stack)-1].open.text != pairs[t.text] {
				return fail(t.line, t.col, fmt.Sprintf("unmatched %q", t.text))
			}
			stack = stack[:len(stack)-1]
		case tokString:
			logicalBefore := prev == nil || connectives[prev.text] || prev.text == "not" || prev.text == "!" ||
				(prev.kind == tokOpen && prev.text == "(" && len(stack) > 0 && !stack[len(stack)-1].function)
			logicalAfter := next == nil || connectives[next.text] || (next.kind == tokClose && next.text == ")")
			if logicalBefore && logicalAfter {
				return fail(t.line, t.col, "a string literal is not a condition")
			}
		case tokComma:
			if len(stack) == 0 || !stack[len(stack)-1].function {
				if len(stack) > 0 && stack[len(stack)-1].open.text == "{" {
					return fail(t.line, t.col, "set elements are separated by spaces, not commas")
				}
				return fail(t.line, t.col, "unexpected comma outside function arguments")
			}
		case tokWord:
			if upperEnglish[t.text] {
				return fail(t.line, t.col, fmt.Sprintf("%q: English operators are lowercase only", t.text))
			}
			if (t.text == "starts_with" || t.text == "ends_with") && (next == nil || next.text != "(") {
				return fail(t.line, t.col, fmt.Sprintf("invalid use of %s function: it is a function, not an operator", t.text))
			}
			if t.text == "in" && next != nil && !(next.text == "{" || strings.HasPrefix(next.text, "$")) {
				return fail(t.line, t.col, "`in` expects a set {...} or a list $name")
			}
		}
		if isBinary(t) {
			if next == nil {
				return fail(t.line, t.col, fmt.Sprintf("%q is missing its right operand", t.text))
			}
			if prev == nil || prev.kind == tokOpen || prev.kind == tokComma || isBinary(*prev) || prev.text == "not" || prev.text == "!" {
				if !(t.text == "strict" || (prev != nil && prev.text == "strict")) {
					return fail(t.line, t.col, fmt.Sprintf("%q is missing its left operand", t.text))
				}
			}
			if next.kind == tokClose || next.kind == tokComma || (isBinary(*next) && !(t.text == "strict" && next.text == "wildcard")) {
				return fail(next.line, next.col, fmt.Sprintf("%q is missing its right operand", t.text))
			}
		}
		if (t.text == "not" || t.text == "!") && t.kind != tokString {
			if next == nil || next.kind == tokClose || isBinary(*next) {
				return fail(t.line, t.col, fmt.Sprintf("%q is missing its operand", t.text))
			}
		}
	}
	if len(stack) > 0 {
		open := stack[len(stack)-1].open
		return fail(open.line, open.col, fmt.Sprintf("unclosed %q", open.text))
	}
	return nil
}

// isBinary reports whether a token is a connective or a comparison operator.
func isBinary(t token) bool {
	if t.kind != tokWord && t.kind != tokOp {
		return false
	}
	return connectives[t.text] || comparisons[t.text]
}

type lexError struct {
	line, col int
	reason    string
}

// lexExpression splits an expression into tokens; strings (with escapes) and raw strings
// (r"..." and r#"..."# with up to 255 #) are single tokens, so operators inside them do not count.
func lexExpression(s string) ([]token, *lexError) {
	var toks []token
	line, col := 1, 1
	i := 0
	advance := func(n int) {
		for k := 0; k < n && i < len(s); k++ {
			if s[i] == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
			i++
		}
	}
	for i < len(s) {
		c := s[i]
		startLine, startCol, start := line, col, i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			advance(1)
		case c == '"':
			advance(1)
			closed := false
			for i < len(s) {
				if s[i] == '\\' {
					advance(2)
					continue
				}
				if s[i] == '"' {
					advance(1)
					closed = true
					break
				}
				advance(1)
			}
			if !closed {
				return nil, &lexError{startLine, startCol, "unterminated string"}
			}
			toks = append(toks, token{tokString, s[start:i], startLine, startCol})
		case c == 'r' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '#'):
			j := i + 1
			hashes := 0
			for j < len(s) && s[j] == '#' {
				hashes++
				j++
			}
			if j >= len(s) || s[j] != '"' {
				return nil, &lexError{startLine, startCol, "raw string: expected '\"' after r and #"}
			}
			if hashes > 255 {
				return nil, &lexError{startLine, startCol, "raw string: more than 255 #"}
			}
			end := strings.Index(s[j+1:], "\""+strings.Repeat("#", hashes))
			if end < 0 {
				return nil, &lexError{startLine, startCol, "unterminated raw string"}
			}
			advance(j + 1 + end + 1 + hashes - i)
			toks = append(toks, token{tokString, s[start:i], startLine, startCol})
		case c == '(' || c == '[' || c == '{':
			advance(1)
			toks = append(toks, token{tokOpen, string(c), startLine, startCol})
		case c == ')' || c == ']' || c == '}':
			advance(1)
			toks = append(toks, token{tokClose, string(c), startLine, startCol})
		case c == ',':
			advance(1)
			toks = append(toks, token{tokComma, ",", startLine, startCol})
		case strings.ContainsRune("=!<>~&|^", rune(c)):
			two := ""
			if i+1 < len(s) {
				two = s[i : i+2]
			}
			switch two {
			case "==", "!=", "<=", ">=", "&&", "||", "^^":
				advance(2)
				toks = append(toks, token{tokOp, two, startLine, startCol})
				continue
			}
			if c == '=' || c == '|' || c == '^' {
				return nil, &lexError{startLine, startCol, fmt.Sprintf("unexpected %q", string(c))}
			}
			advance(1)
			toks = append(toks, token{tokOp, string(c), startLine, startCol})
		case c == '*':
			advance(1)
			toks = append(toks, token{tokWord, "*", startLine, startCol})
		case isWordByte(c):
			for i < len(s) && isWordByte(s[i]) {
				advance(1)
			}
			toks = append(toks, token{tokWord, s[start:i], startLine, startCol})
		default:
			return nil, &lexError{startLine, startCol, fmt.Sprintf("unexpected character %q", string(c))}
		}
	}
	return toks, nil
}

// isWordByte covers field and function names, numbers, ranges, IPv4/IPv6 addresses and
// CIDRs, and $list names.
func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '_' || c == '.' || c == ':' || c == '/' || c == '$' || c == '-'
}

// usesRegex reports whether an expression uses the regular-expression operator (matches or ~),
// a Business and Enterprise feature; operators inside strings do not count.
func usesRegex(expr string) bool {
	toks, err := lexExpression(expr)
	if err != nil {
		return false
	}
	for _, t := range toks {
		if (t.kind == tokWord && t.text == "matches") || (t.kind == tokOp && t.text == "~") {
			return true
		}
	}
	return false
}
