package expr

import "strings"

// IsTemplated reports whether src holds template placeholders, so that a
// config scanner can call it templated rather than report a syntax error:
//
//   - Go fmt verbs: %s %q %v, %d not followed by a hex digit (%d0 is URL
//     encoding), and any explicitly indexed verb such as %[1]s;
//   - Terraform interpolations ${name...}, ${"..."}, ${(...)} (not $${, the
//     escaped form, and not ${1}, a regex replacement group);
//   - Terraform directives %{if ...} %{for ...} %{else} %{endif} %{endfor}
//     (not %%{).
//
// URL escapes such as %2F and %3C are not placeholders, nor are Go or Jinja
// {{ ... }} blocks. This is the one meaning of "templated" in the project:
// the live scan, the config scanner and the custom rules translation all ask
// it.
func IsTemplated(src string) bool {
	for i := 0; i < len(src); i++ {
		switch n := placeholderAt(src, i); {
		case n > 0:
			return true
		case n < 0:
			i += -n - 1
		}
	}
	return false
}

// ParseTemplated parses src with its template placeholders (see IsTemplated)
// replaced by neutral text of the same length, so that the tree names what
// the expression uses around them and its positions are those of src. A
// placeholder inside a string literal becomes other characters of that
// string; one outside becomes a string literal, never a number, so that no
// comparison is decided by a value the template has not supplied yet. The
// tree's strings differ from src where placeholders were; Expr.Src is src.
// Without placeholders it is Parse.
func ParseTemplated(src string) (*Expr, error) {
	masked := maskPlaceholders(src)
	if masked == src {
		return Parse(src)
	}
	e, err := Parse(masked)
	e.Src = src
	return e, err
}

// placeholderAt looks at src[i]: the length of the placeholder's opening
// that starts there (a fmt verb whole, "${" or "%{"), the negated length of
// an escape to skip ("%%", "$$"), or 0.
func placeholderAt(src string, i int) int {
	switch src[i] {
	case '%':
		switch n := percentPlaceholder(src[i+1:]); {
		case n > 0:
			return 1 + n
		case n < 0:
			return -2
		}
	case '$':
		switch {
		case i+1 < len(src) && src[i+1] == '$':
			return -2 // $${ is escaped
		case i+1 < len(src) && src[i+1] == '{' && interpolation(src[i+2:]):
			return 2
		}
	}
	return 0
}

// percentPlaceholder looks at what follows a "%": the length of the rest of
// a placeholder (a fmt verb whole, or the "{" of a directive), 0 when it is
// not one, -1 for a second "%" (%% is a literal percent in fmt, and %%{ is escaped in
// Terraform).
func percentPlaceholder(s string) int {
	if s == "" {
		return 0
	}
	switch s[0] {
	case '%':
		return -1
	case 's', 'q', 'v':
		return 1
	case 'd':
		if len(s) < 2 || !isHex(s[1]) {
			return 1
		}
	case '[':
		return indexedVerb(s[1:])
	case '{':
		if directive(s[1:]) {
			return 1
		}
	}
	return 0
}

// placeholderEnd returns the end of a placeholder whose opening is src[i:i+n]:
// the opening itself for a fmt verb, else the "}" closing the ${...} or
// %{...} (braces nest; the end of src when none closes it).
func placeholderEnd(src string, i, n int) int {
	end := i + n
	if src[end-1] != '{' {
		return end
	}
	depth := 1
	for j := end; j < len(src); j++ {
		switch src[j] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(src)
}

// maskPlaceholders replaces each placeholder of src by neutral text of the
// same length: underscores inside a string literal, a string literal ("___")
// outside one. String literals are followed as the lexer reads them: "..."
// with backslash escapes, and raw strings r"..." and r#"..."#.
func maskPlaceholders(src string) string {
	b := []byte(src)
	inString, rawClose := false, ""
	for i := 0; i < len(src); {
		if n := placeholderAt(src, i); n != 0 {
			if n < 0 {
				i += -n
				continue
			}
			end := placeholderEnd(src, i, n)
			fillPlaceholder(b[i:end], inString)
			i = end
			continue
		}
		inString, rawClose, i = stringStep(src, i, inString, rawClose)
	}
	return string(b)
}

// stringStep moves past src[i], following string literals: it returns
// whether the next byte is inside a string, the raw string's closing ("" for
// a quoted string), and the next index.
func stringStep(src string, i int, inString bool, rawClose string) (bool, string, int) {
	switch {
	case inString && rawClose != "":
		if strings.HasPrefix(src[i:], rawClose) {
			return false, "", i + len(rawClose)
		}
	case inString && src[i] == '\\':
		return true, "", i + 2
	case inString && src[i] == '"':
		return false, "", i + 1
	case inString:
	case src[i] == '"':
		return true, "", i + 1
	case src[i] == 'r' && (i == 0 || !isIdentChar(src[i-1]) && src[i-1] != '.'):
		if n := rawOpening(src[i+1:]); n >= 0 {
			return true, "\"" + strings.Repeat("#", n), i + n + 2
		}
	}
	return inString, rawClose, i + 1
}

// rawOpening returns the number of # of a raw string opening at s (just after
// the r), or -1 when s does not open one.
func rawOpening(s string) int {
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n < len(s) && s[n] == '"' {
		return n
	}
	return -1
}

// fillPlaceholder overwrites a placeholder's bytes with neutral text.
func fillPlaceholder(b []byte, inString bool) {
	for k := range b {
		b[k] = '_'
	}
	if !inString && len(b) >= 2 {
		b[0], b[len(b)-1] = '"', '"'
	}
}

// indexedVerb matches the rest of %[n]v (digits, "]", flags/width, a letter)
// and returns its length including the "[", or 0.
func indexedVerb(s string) int {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i == 0 || i >= len(s) || s[i] != ']' {
		return 0
	}
	i++
	for i < len(s) && (isDigit(s[i]) || strings.IndexByte("+-# .*", s[i]) >= 0) {
		i++
	}
	if i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
		return i + 2
	}
	return 0
}

// interpolation checks what follows "${": an expression start and a "}".
func interpolation(s string) bool {
	s = strings.TrimLeft(strings.TrimPrefix(s, "~"), " \t")
	if s == "" || !isLetter(s[0]) && strings.IndexByte(`"([`, s[0]) < 0 {
		return false
	}
	return strings.IndexByte(s, '}') >= 0
}

// directive checks what follows "%{": a Terraform template keyword.
func directive(s string) bool {
	s = strings.TrimLeft(strings.TrimPrefix(s, "~"), " \t")
	for _, kw := range []string{"if", "for", "else", "endif", "endfor"} {
		if strings.HasPrefix(s, kw) {
			rest := s[len(kw):]
			if rest == "" || !isIdentChar(rest[0]) {
				return true
			}
		}
	}
	return false
}
