package scanner

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/sunsetscan/sunset/scanner/catalog"
)

// ExpressionInspector is what the scanner needs to know about a filter expression. The CLI
// wires an implementation backed by the Rules language parser (scanner/expr); tests use fakes.
// Implementations must be safe to call repeatedly with the same input and return the same
// answer (the scanner caches answers per expression within a scan).
type ExpressionInspector interface {
	Inspect(expr string) ExprInfo
}

// ExprInfo describes one expression.
type ExprInfo struct {
	// Valid is false when the expression does not parse; Error, Line and Column (1-based) say
	// why and where.
	Valid  bool
	Error  string
	Line   int
	Column int
	// Fields and Functions are the names used, sorted and without duplicates.
	Fields    []string
	Functions []string
	// UsesRegex is true when the expression uses the matches / ~ operator.
	UsesRegex bool
	// Templated is true when the expression holds template placeholders (%[1]s, ${...}, {{...}});
	// such an expression is not judged as Rules language.
	Templated bool
}

// FallbackInspector is the conservative built-in ExpressionInspector used when Options has none.
// It does not parse the Rules language: it only checks that strings are terminated and that
// parentheses, brackets and braces balance, and it finds field names (dotted identifiers, or
// bare names the field catalogue knows, such as ssl) and function names (an identifier followed
// by "(") outside string literals. It never calls an expression invalid for anything else, so
// it may accept expressions the service rejects but does not reject ones the service accepts.
type FallbackInspector struct{}

// keywords of the Rules language that look like identifiers but are operators or literals.
var keywords = map[string]bool{
	"and": true, "or": true, "not": true, "xor": true,
	"eq": true, "ne": true, "lt": true, "le": true, "gt": true, "ge": true,
	"contains": true, "matches": true, "in": true, "wildcard": true, "strict": true,
	"bitwise_and": true, "true": true, "false": true,
}

// templateMarkers are the placeholder syntaxes of printf-style templates, Terraform and
// Go/Jinja templates.
var templateMarkers = []string{"${", "{{", "%s", "%q", "%v", "%d", "%["}

// Inspect implements ExpressionInspector.
func (FallbackInspector) Inspect(expr string) ExprInfo {
	info := ExprInfo{Valid: true}
	for _, m := range templateMarkers {
		if strings.Contains(expr, m) {
			info.Templated = true
			break
		}
	}
	if strings.TrimSpace(expr) == "" {
		info.Valid = false
		info.Error = "empty expression"
		info.Line, info.Column = 1, 1
		return info
	}
	fields := map[string]bool{}
	funcs := map[string]bool{}
	type opener struct {
		ch        byte
		line, col int
	}
	var stack []opener
	fail := func(line, col int, format string, args ...any) {
		if info.Valid {
			info.Valid = false
			info.Error = fmt.Sprintf(format, args...)
			info.Line, info.Column = line, col
		}
	}
	line, col := 1, 1
	// advance moves over expr[i:j], keeping line and column (in characters) up to date.
	advance := func(i, j int) {
		for _, r := range expr[i:j] {
			if r == '\n' {
				line++
				col = 1
			} else {
				col++
			}
		}
	}
	closers := map[byte]byte{')': '(', ']': '[', '}': '{'}
	i := 0
	for i < len(expr) && info.Valid {
		c := expr[i]
		switch {
		case c == '"':
			end, ok := scanString(expr, i)
			if !ok {
				fail(line, col, "unterminated string literal")
				break
			}
			advance(i, end)
			i = end
			continue
		case c == 'r' && isRawStart(expr, i):
			end, ok := scanRawString(expr, i)
			if !ok {
				fail(line, col, "unterminated raw string literal")
				break
			}
			advance(i, end)
			i = end
			continue
		case c == '(' || c == '[' || c == '{':
			stack = append(stack, opener{c, line, col})
		case c == ')' || c == ']' || c == '}':
			want := closers[c]
			if len(stack) == 0 {
				fail(line, col, "unexpected %q: nothing to close", string(c))
				break
			}
			top := stack[len(stack)-1]
			if top.ch != want {
				fail(line, col, "unexpected %q: %q opened at %d:%d is not closed", string(c), string(top.ch), top.line, top.col)
				break
			}
			stack = stack[:len(stack)-1]
		case c == '~':
			info.UsesRegex = true
		case c == '$':
			// A list name ($office_net, $cf.open_proxies) is not a field.
			end := scanIdent(expr, i+1)
			advance(i, end)
			i = end
			continue
		case isIdentStart(c):
			end := scanIdent(expr, i)
			word := expr[i:end]
			switch {
			case keywords[word]:
				if word == "matches" {
					info.UsesRegex = true
				}
			case nextNonSpace(expr, end) == '(':
				funcs[word] = true
			case strings.Contains(word, "."):
				fields[word] = true
			default:
				if _, known := catalog.Fields().Field(word); known {
					fields[word] = true
				}
			}
			advance(i, end)
			i = end
			continue
		case c >= '0' && c <= '9':
			// Numbers, IP addresses and CIDRs (including IPv6 with hex letters and colons).
			end := i
			for end < len(expr) && (isIdentChar(expr[end]) || expr[end] == '.' || expr[end] == ':' || expr[end] == '/') {
				end++
			}
			advance(i, end)
			i = end
			continue
		}
		if !info.Valid {
			break
		}
		_, size := utf8.DecodeRuneInString(expr[i:])
		advance(i, i+size)
		i += size
	}
	if info.Valid && len(stack) > 0 {
		top := stack[len(stack)-1]
		fail(top.line, top.col, "%q is never closed", string(top.ch))
	}
	info.Fields = sortedKeys(fields)
	info.Functions = sortedKeys(funcs)
	if info.Templated && !info.Valid {
		// Placeholders may contain anything (quotes, braces); do not judge them as syntax.
		info.Valid, info.Error, info.Line, info.Column = true, "", 0, 0
	}
	return info
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

// scanIdent returns the end of a dotted identifier starting at i (a.b.c_d; the segments after
// a dot may start with a digit, as in ja3_hash or subdivision_1_iso_code).
func scanIdent(s string, i int) int {
	for i < len(s) {
		switch {
		case isIdentChar(s[i]):
			i++
		case s[i] == '.' && i+1 < len(s) && isIdentChar(s[i+1]):
			i++
		default:
			return i
		}
	}
	return i
}

func nextNonSpace(s string, i int) byte {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return s[i]
		}
	}
	return 0
}

// scanString returns the index just after the closing quote of the string starting at s[i].
func scanString(s string, i int) (int, bool) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return len(s), false
}

// isRawStart reports whether s[i] == 'r' begins a raw string r"..." or r#"..."#, and is not
// the end of an identifier.
func isRawStart(s string, i int) bool {
	if i > 0 && (isIdentChar(s[i-1]) || s[i-1] == '.') {
		return false
	}
	j := i + 1
	for j < len(s) && s[j] == '#' {
		j++
	}
	return j < len(s) && s[j] == '"'
}

// scanRawString returns the index just after a raw string starting at s[i] ('r').
func scanRawString(s string, i int) (int, bool) {
	j := i + 1
	hashes := 0
	for j < len(s) && s[j] == '#' {
		hashes++
		j++
	}
	closing := "\"" + strings.Repeat("#", hashes)
	k := strings.Index(s[j+1:], closing)
	if k < 0 {
		return len(s), false
	}
	return j + 1 + k + len(closing), true
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
