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
// URL escapes such as %2F and %3C are not placeholders.
func IsTemplated(src string) bool {
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '%':
			if i+1 >= len(src) {
				continue
			}
			next := src[i+1]
			switch {
			case next == '%':
				i++ // %% is a literal percent in fmt and %%{ is escaped in Terraform
			case next == 's' || next == 'q' || next == 'v':
				return true
			case next == 'd':
				if i+2 >= len(src) || !isHex(src[i+2]) {
					return true
				}
			case next == '[':
				if indexedVerb(src[i+2:]) {
					return true
				}
			case next == '{':
				if directive(src[i+2:]) {
					return true
				}
			}
		case '$':
			if i+1 < len(src) && src[i+1] == '$' {
				i++ // $${ is escaped
				continue
			}
			if i+1 < len(src) && src[i+1] == '{' && interpolation(src[i+2:]) {
				return true
			}
		}
	}
	return false
}

// indexedVerb matches the rest of %[n]v: digits, "]", flags/width, a letter.
func indexedVerb(s string) bool {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i == 0 || i >= len(s) || s[i] != ']' {
		return false
	}
	i++
	for i < len(s) && (isDigit(s[i]) || strings.IndexByte("+-# .*", s[i]) >= 0) {
		i++
	}
	return i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z')
}

// interpolation checks what follows "${": an expression start and a "}".
func interpolation(s string) bool {
	s = strings.TrimLeft(strings.TrimPrefix(s, "~"), " \t")
	if s == "" || !(isLetter(s[0]) || s[0] == '"' || s[0] == '(' || s[0] == '[') {
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
