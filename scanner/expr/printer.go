package expr

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Print writes a tree in canonical style: English operators, single spaces,
// only the parentheses the tree needs, strings re-escaped (\" \\ and \xHH
// for bytes that are not printable UTF-8), integers in decimal, addresses
// in their canonical form, sets as {a b c}. Parsing the output gives a tree
// Equal to n. *BadNode prints as "<bad>".
func Print(n Node) string {
	var b strings.Builder
	printNode(&b, n)
	return b.String()
}

// Precedence levels, loosest first.
const (
	precOr = iota + 1
	precXor
	precAnd
	precNot
	precAtom
)

func precOf(n Node) int {
	switch n := n.(type) {
	case *Expr:
		return precOf(n.Root)
	case *BinaryExpr:
		switch n.Op {
		case OpOr:
			return precOr
		case OpXor:
			return precXor
		}
		return precAnd
	case *NotExpr:
		return precNot
	}
	return precAtom
}

func printParen(b *strings.Builder, n Node, paren bool) {
	if paren {
		b.WriteByte('(')
		printNode(b, n)
		b.WriteByte(')')
		return
	}
	printNode(b, n)
}

// printNode prints n in canonical style, by node type.
func printNode(b *strings.Builder, n Node) {
	switch n := n.(type) {
	case nil:
		b.WriteString("<nil>")
	case *Expr:
		printNode(b, n.Root)
	case *BinaryExpr:
		p := precOf(n)
		printParen(b, n.X, precOf(n.X) < p)
		b.WriteByte(' ')
		b.WriteString(n.Op.String())
		b.WriteByte(' ')
		printParen(b, n.Y, precOf(n.Y) <= p)
	case *NotExpr:
		b.WriteString("not ")
		printParen(b, n.X, precOf(n.X) < precNot)
	case *Comparison:
		printComparison(b, n)
	case *Field:
		b.WriteString(n.Name)
	case *Call:
		b.WriteString(n.Name)
		printJoined(b, '(', n.Args, ", ", ')')
	case *IndexExpr:
		printNode(b, n.X)
		b.WriteByte('[')
		printNode(b, n.Index)
		b.WriteByte(']')
	case *UnpackExpr:
		printNode(b, n.X)
		b.WriteString("[*]")
	case *StringLit:
		b.WriteString(Quote(n.Value))
	case *IntLit:
		b.WriteString(strconv.FormatInt(n.Value, 10))
	case *IPLit:
		b.WriteString(ipText(n))
	case *BytesLit:
		b.WriteString(bytesText(n.Value))
	case *BoolLit:
		b.WriteString(strconv.FormatBool(n.Value))
	case *RangeLit:
		printNode(b, n.Lo)
		b.WriteString("..")
		printNode(b, n.Hi)
	case *SetLit:
		printJoined(b, '{', n.Elems, " ", '}')
	case *ListRef:
		b.WriteByte('$')
		b.WriteString(n.Name)
	case *BadNode:
		b.WriteString("<bad>")
	}
}

// printComparison prints X op Y; the pattern of matches is quoted as a
// regular expression literal, whose escapes differ from a string's.
func printComparison(b *strings.Builder, n *Comparison) {
	printNode(b, n.X)
	b.WriteByte(' ')
	b.WriteString(n.Op.String())
	b.WriteByte(' ')
	if s, ok := n.Y.(*StringLit); ok && n.Op == OpMatches {
		b.WriteString(quoteRegex(s.Value))
	} else {
		printNode(b, n.Y)
	}
}

// printJoined prints nodes between open and end with sep between them:
// call arguments and set elements.
func printJoined(b *strings.Builder, open byte, nodes []Node, sep string, end byte) {
	b.WriteByte(open)
	for i, n := range nodes {
		if i > 0 {
			b.WriteString(sep)
		}
		printNode(b, n)
	}
	b.WriteByte(end)
}

// ipText keeps a spelling that is also a byte string (so that a bytes field
// keeps its meaning) and canonicalises the rest.
func ipText(n *IPLit) string {
	if _, ok := parseByteString(n.Text); ok {
		if v, err := classifyScalar(n.Text, 0); err == nil {
			if ip, ok := v.(*IPLit); ok && ip.Addr == n.Addr && ip.Bits == n.Bits {
				return n.Text
			}
		}
	}
	s := n.Addr.String()
	if n.Bits >= 0 {
		s += "/" + strconv.Itoa(n.Bits)
	}
	return s
}

// bytesText writes hh:hh:...; eight bytes are written hh:hh-hh-... because
// eight colon-separated pairs would read back as an IPv6 address, while the
// first colon keeps a leading letter from reading as a field name.
func bytesText(v []byte) string {
	const digits = "0123456789ABCDEF"
	out := make([]byte, 0, len(v)*3)
	for i, c := range v {
		switch {
		case i == 0:
		case i > 1 && len(v) == 8:
			out = append(out, '-')
		default:
			out = append(out, ':')
		}
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// Quote writes s as a quoted string literal of the Rules language:
// " and \ escaped, printable UTF-8 as is, every other byte as \xHH.
func Quote(s string) string {
	const digits = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteByte(byte(r))
		case r == utf8.RuneError && size == 1, !unicode.IsPrint(r) && r != ' ':
			for j := 0; j < size; j++ {
				c := s[i+j]
				b.WriteString(`\x`)
				b.WriteByte(digits[c>>4])
				b.WriteByte(digits[c&15])
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// quoteRegex writes a regular expression as the right-hand side of matches:
// a quoted regex literal when one reads back as the same pattern, else a raw
// string.
func quoteRegex(p string) string {
	var b strings.Builder
	b.Grow(len(p) + 2)
	b.WriteByte('"')
	inClass := false
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			_, size := utf8.DecodeRuneInString(p[i+1:])
			b.WriteString(p[i : i+1+size])
			i += 1 + size
			continue
		case c == '"' && !inClass:
			b.WriteString(`\"`)
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
		i++
	}
	b.WriteByte('"')
	q := b.String()
	if got, end, ok := decodeRegexLiteral(q, 1); ok && end == len(q) && got == p {
		return q
	}
	return rawString(p)
}

// rawString writes p as r#"..."# with as few # as p allows.
func rawString(p string) string {
	n := 0
	for i := 0; i < len(p); i++ {
		if p[i] != '"' {
			continue
		}
		run := 0
		for j := i + 1; j < len(p) && p[j] == '#'; j++ {
			run++
		}
		if run+1 > n {
			n = run + 1
		}
	}
	if n > maxRawHashes {
		n = maxRawHashes
	}
	h := strings.Repeat("#", n)
	return "r" + h + "\"" + p + "\"" + h
}
