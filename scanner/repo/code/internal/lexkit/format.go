package lexkit

import "github.com/sunsetscan/sunset/scanner/repo/code"

// Printf appends to f the value of a printf-style format string (already folded, with its
// own hole names) with a hole at each verb: %s, %05.2f, %1$s (PHP), %[1]s (Go), %<name>s and
// %{name} (Ruby). %% is a literal percent sign. A verb's hole is named after the argument it
// takes when args (the identifiers passed after the format, "" for other arguments) says.
func Printf(f *Fold, value string, names, args []string) {
	k, next := 0, 0
	for i := 0; i < len(value); i++ {
		c := value[i]
		switch {
		case c == code.Hole:
			name := ""
			if k < len(names) {
				name = names[k]
			}
			k++
			f.Hole(name)
		case c != '%':
			f.LitByte(c)
		case i+1 < len(value) && value[i+1] == '%':
			f.LitByte('%')
			i++
		default:
			n, argn, name := verb(value[i+1:])
			if n == 0 {
				f.LitByte('%')
				continue
			}
			if name == "" {
				if argn <= 0 {
					argn = next + 1
				}
				next = argn
				if argn-1 < len(args) {
					name = args[argn-1]
				}
			}
			f.Hole(name)
			i += n
		}
	}
}

// verb reads the verb after a '%': how many bytes it takes (0 when it is no verb), the
// explicit argument number (0 when none) and the name of a Ruby named reference.
func verb(s string) (n, argn int, name string) {
	if len(s) > 0 && (s[0] == '<' || s[0] == '{') {
		return named(s)
	}
	i := 0
	if len(s) > 0 && s[0] == '[' { // Go's %[1]s
		j := digits(s, 1)
		if j > 1 && j < len(s) && s[j] == ']' {
			argn, i = atoi(s[1:j]), j+1
		}
	} else if j := digits(s, 0); j > 0 && j < len(s) && s[j] == '$' { // PHP's %1$s
		argn, i = atoi(s[:j]), j+1
	}
flags:
	for i < len(s) {
		switch s[i] {
		case '-', '+', ' ', '0', '#':
			i++
		case '\'': // PHP's custom padding character
			i += 2
		default:
			break flags
		}
	}
	if i < len(s) && s[i] == '*' {
		i++
	}
	i = digits(s, i)
	if i < len(s) && s[i] == '.' {
		i = digits(s, i+1)
	}
	if i < len(s) && isLetter(s[i]) {
		return i + 1, argn, ""
	}
	return 0, 0, ""
}

// named reads Ruby's %<name>s or %{name}.
func named(s string) (n, argn int, name string) {
	closeBy := byte('>')
	if s[0] == '{' {
		closeBy = '}'
	}
	j := 1
	for j < len(s) && IsIdent(s[j]) {
		j++
	}
	if j == 1 || j >= len(s) || s[j] != closeBy {
		return 0, 0, ""
	}
	n = j + 1
	if closeBy == '>' {
		k := digits(s, n)
		if k < len(s) && s[k] == '.' {
			k = digits(s, k+1)
		}
		if k < len(s) && isLetter(s[k]) {
			n = k + 1
		}
	}
	return n, 0, s[1:j]
}

func digits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

func atoi(s string) int {
	n := 0
	for i := 0; i < len(s) && n < 1<<20; i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// IsIdent reports whether c can be part of an identifier (ASCII letters, digits, '_', and
// any byte of a non-ASCII character).
func IsIdent(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}

// IsIdentStart reports whether c can start an identifier.
func IsIdentStart(c byte) bool {
	return isLetter(c) || c == '_' || c >= 0x80
}
