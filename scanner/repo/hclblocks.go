package repo

import (
	"bytes"
	"unicode/utf8"
)

// hclBlock is a top-level item of an HCL file: the bytes from the start of its first line to
// the end of its last, and that first line's number.
type hclBlock struct {
	start, end int
	line       int
}

// hclTopLevel splits native HCL into its top-level items (blocks and attributes) without
// parsing them, so that only the blocks that can hold a finding are handed to the parser:
// hclsyntax reads a few MB/s, and a file of hundreds of DNS records with one deprecated
// resource would be parsed whole for that one. It knows what can hide a brace: strings
// (escapes and ${...} templates, which may nest strings), heredocs, and the three comment
// forms. false when the file is not balanced as far as it can tell: the caller parses it
// whole, which reports the error.
func hclTopLevel(data []byte) ([]hclBlock, bool) {
	if !utf8.Valid(data) {
		return nil, false // the parser's error names the byte
	}
	var out []hclBlock
	s := hclScan{data: data, line: 1}
	for s.skipSpace(); s.i < len(data); s.skipSpace() {
		b := hclBlock{start: s.lineStart, line: s.line}
		if !s.item() {
			return nil, false
		}
		b.end = min(s.i+1, len(data)) // with its newline: a CRLF line ends in "\r\n"
		out = append(out, b)
	}
	return out, true
}

// hclScan walks HCL source byte by byte, counting lines.
type hclScan struct {
	data      []byte
	i         int
	line      int
	lineStart int // offset of the current line's first byte
}

func (s *hclScan) newline() { s.line++; s.lineStart = s.i + 1 }

// skipSpace skips blanks, newlines and comments between items.
func (s *hclScan) skipSpace() {
	for s.i < len(s.data) {
		switch c := s.data[s.i]; {
		case c == '\n':
			s.newline()
			s.i++
		case c == ' ' || c == '\t' || c == '\r':
			s.i++
		case c == '#' || (c == '/' && s.peek(1) == '/'):
			s.lineComment()
		case c == '/' && s.peek(1) == '*':
			if !s.blockComment() {
				return
			}
		default:
			return
		}
	}
}

func (s *hclScan) peek(n int) byte {
	if s.i+n < len(s.data) {
		return s.data[s.i+n]
	}
	return 0
}

func (s *hclScan) lineComment() {
	j := bytes.IndexByte(s.data[s.i:], '\n')
	if j < 0 {
		s.i = len(s.data)
		return
	}
	s.i += j
}

func (s *hclScan) blockComment() bool {
	j := bytes.Index(s.data[s.i+2:], []byte("*/"))
	if j < 0 {
		s.i = len(s.data)
		return false
	}
	for _, c := range s.data[s.i : s.i+2+j] {
		if c == '\n' {
			s.line++
		}
	}
	s.i += 2 + j + 2
	s.lineStart = bytes.LastIndexByte(s.data[:s.i], '\n') + 1
	return true
}

// item reads one top-level item: up to the newline that ends it outside any bracket.
func (s *hclScan) item() bool {
	depth := 0
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == '\n':
			if depth == 0 {
				return true
			}
			s.newline()
			s.i++
		case c == '"':
			if !s.quoted() {
				return false
			}
		case c == '<' && s.peek(1) == '<':
			if !s.heredoc() {
				return false
			}
		case c == '#' || (c == '/' && s.peek(1) == '/'):
			s.lineComment()
		case c == '/' && s.peek(1) == '*':
			if !s.blockComment() {
				return false
			}
		case c == '{' || c == '[' || c == '(':
			depth++
			s.i++
		case c == '}' || c == ']' || c == ')':
			depth--
			s.i++
			if depth < 0 {
				return false
			}
		default:
			s.i++
		}
	}
	return depth == 0
}

// quoted skips a quoted string with its escapes and templates; s.i is at the quote.
func (s *hclScan) quoted() bool {
	s.i++
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case '\\':
			s.i += 2
		case '"':
			s.i++
			return true
		case '\n':
			return false // a quoted string does not span lines
		case '$', '%':
			if s.peek(1) == '{' && (s.i == 0 || s.data[s.i-1] != s.data[s.i]) { // $${ is a literal ${
				s.i += 2
				if !s.template() {
					return false
				}
				continue
			}
			s.i++
		default:
			s.i++
		}
	}
	return false
}

// template skips the inside of ${...} or %{...} up to its closing brace.
func (s *hclScan) template() bool {
	depth := 1
	for s.i < len(s.data) {
		switch c := s.data[s.i]; c {
		case '"':
			if !s.quoted() {
				return false
			}
			continue
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				s.i++
				return true
			}
		case '\n':
			s.newline()
		}
		s.i++
	}
	return false
}

// heredoc skips <<MARK or <<-MARK through the line that closes it; s.i is at "<<".
func (s *hclScan) heredoc() bool {
	j := s.i + 2
	if j < len(s.data) && s.data[j] == '-' {
		j++
	}
	k := j
	for k < len(s.data) && (isWordByte(s.data[k]) && s.data[k] != '.') {
		k++
	}
	if k == j || k >= len(s.data) || s.data[k] != '\n' {
		s.i += 2 // not a heredoc: "<<" as an operator
		return true
	}
	marker := s.data[j:k]
	s.i = k
	for s.i < len(s.data) {
		s.newline()
		s.i++
		end := bytes.IndexByte(s.data[s.i:], '\n')
		if end < 0 {
			end = len(s.data) - s.i
		}
		if bytes.Equal(bytes.TrimSpace(s.data[s.i:s.i+end]), marker) {
			s.i += end
			return true
		}
		s.i += end
	}
	return false
}
