package repo

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// srvFields are the data fields of an SRV record the API no longer takes.
var srvFields = []string{"service", "proto", "name"}

// srvRecords reports the SRV records the code builds as a literal (a Python dict, a
// JavaScript object, a Ruby hash, a PHP array, a Go map or struct) that still set the data
// fields the API no longer takes: a literal whose member type is "SRV" and whose member
// data is a literal holding service, proto or name, each reported at its key. The readers
// say where the value "SRV" given to a key type is; the literal around it is read from the
// source (literalAround), as the syntax of these literals is alike in every language: keys
// written as name:, "name":, 'name' =>, :name =>, name = or Name:, members split by commas.
// The file must talk to the API (or build a dns_records path): other DNS providers' records
// are not this API's.
func (d *codeDetector) srvRecords(cx *codeContext, add func(hit)) {
	evidence := cx.talksToAPI
	for i := range cx.f.Strings {
		s := &cx.f.Strings[i]
		if normName(s.Key) != "type" || !strings.EqualFold(s.Value, "SRV") || s.Comment {
			continue
		}
		if !evidence && !bytes.Contains(cx.in.lowered(), []byte("dns_records")) {
			return
		}
		src := cx.in.data
		open := literalAround(src, offsetOf(cx.in.li, s.Pos))
		if open < 0 {
			continue
		}
		for _, m := range literalMembers(src, open) {
			if normName(m.key) != "data" || m.value < 0 {
				continue
			}
			for _, f := range literalMembers(src, m.value) {
				for _, want := range srvFields {
					if strings.EqualFold(f.key, want) {
						add(srvHit(cx.in.li, f, want))
					}
				}
			}
		}
	}
}

func srvHit(li *lineIndex, m litMember, field string) hit {
	line, col := li.pos(m.at)
	return hit{
		rule: vocab.SRVDataFields, kind: vocab.KindDNSRecord, name: "data." + field,
		address: "srv record data." + field,
		msg:     "SRV record built in code sets data." + field + ", which the API no longer takes",
		loc:     scanner.Location{StartLine: line, StartColumn: col, EndLine: line, EndColumn: col + len(m.key)},
		shadow:  true,
	}
}

// offsetOf is the byte offset of a position (columns count characters).
func offsetOf(li *lineIndex, p code.Pos) int {
	start, end := li.lineBounds(p.Line)
	off := start
	for n := 1; n < p.Col && off < end; n++ {
		_, size := utf8.DecodeRune(li.data[off:end])
		off += size
	}
	return off
}

// closers pairs each opening bracket with its closer.
var closers = map[byte]byte{'{': '}', '[': ']', '(': ')'}

// literalAround returns the offset of the opening bracket of the literal that holds offset
// at (the innermost bracket open there), or -1. Quoted strings are skipped on the way
// back as far as a line allows: a quote and its partner on the same line.
func literalAround(src []byte, at int) int {
	depth := 0
	for i := at - 1; i >= 0 && at-i < 1<<16; i-- {
		switch c := src[i]; c {
		case '}', ']', ')':
			depth++
		case '{', '[', '(':
			if depth == 0 {
				return i
			}
			depth--
		case '"', '\'':
			ls := bytes.LastIndexByte(src[:i], '\n') + 1
			if j := bytes.LastIndexByte(src[ls:i], c); j >= 0 {
				i = ls + j
			}
		}
	}
	return -1
}

// litMember is one member of a literal: its key, where the key is, and where its value
// starts when the value is itself a literal (-1 otherwise).
type litMember struct {
	key   string
	at    int
	value int
}

// literalMembers reads the members of the literal whose opening bracket is at open: at
// depth one, each member up to a comma; its key is the first word or quoted text before
// ":", "=>" or "=", and its value a literal when an opening bracket comes before any other
// value (a type before it, as in Go's map[string]any{...}, is skipped).
func literalMembers(src []byte, open int) []litMember {
	closer := closers[src[open]]
	var out []litMember
	start := open + 1
	depth := 0
	for i := open + 1; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			i = skipQuoted(src, i)
		case c == '{' || c == '[' || c == '(':
			depth++
		case depth == 0 && (c == closer || c == ','):
			if m, ok := readMember(src, start, i); ok {
				out = append(out, m)
			}
			if c == closer {
				return out
			}
			start = i + 1
		case c == '}' || c == ']' || c == ')':
			depth--
		}
	}
	return out
}

// skipQuoted returns the offset of the quote closing the string opened at i.
func skipQuoted(src []byte, i int) int {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case q:
			return j
		case '\n':
			if q != '`' {
				return j
			}
		}
	}
	return len(src)
}

// readMember reads one member written in src[a:b], past the comments before it.
func readMember(src []byte, a, b int) (litMember, bool) {
	a = skipComments(src, a, b)
	text := src[a:b]
	sep, width := -1, 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '"' || c == '\'' {
			i = skipQuoted(text, i)
			continue
		}
		if c == '=' && i+1 < len(text) && text[i+1] == '>' {
			sep, width = i, 2
			break
		}
		if c == ':' && i == 0 {
			continue // a Ruby symbol key (:type => ...)
		}
		if (c == ':' && (i+1 >= len(text) || text[i+1] != ':')) || (c == '=' && (i+1 >= len(text) || text[i+1] != '=')) {
			sep, width = i, 1
			break
		}
	}
	if sep <= 0 {
		return litMember{}, false
	}
	key := bytes.TrimSpace(text[:sep])
	at := a + bytes.Index(text, key)
	key = bytes.Trim(bytes.TrimPrefix(key, []byte(":")), "\"'")
	if len(key) == 0 || bytes.ContainsAny(key, " \t\n(){}[]") {
		return litMember{}, false
	}
	return litMember{key: string(key), at: at, value: literalValue(src, a+sep+width, b)}, true
}

// literalValue returns where the value written in src[a:b] opens its literal, or -1 when
// it is not one. A type written before the bracket is skipped: Go's
// map[string]interface{}{...}, cloudflare.DNSRecord{...}, PHP's array(...), Elixir's %{...}.
func literalValue(src []byte, a, b int) int {
	for i := a; i < b; i++ {
		switch c := src[i]; {
		case c == '[' && i > a && isLetter(src[i-1]): // map[string]
			j := bytes.IndexByte(src[i:b], ']')
			if j < 0 {
				return -1
			}
			i += j
		case c == '{' && i+1 < b && src[i+1] == '}': // interface{}
			i++
		case c == '{' || c == '[' || c == '(':
			return i
		case !isTypeChar(c):
			return -1
		}
	}
	return -1
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// isTypeChar: a character of what may stand before a literal's bracket: blanks, a type
// (map[string]interface, cloudflare.DNSRecord), PHP's array, Elixir's %.
func isTypeChar(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '%' || c == '.' || c == '*' || c == '_' ||
		isLetter(c) || c >= '0' && c <= '9'
}

// skipComments returns where the first thing that is neither blank nor a comment (# or //
// to the end of the line, /* to */) starts in src[a:b].
func skipComments(src []byte, a, b int) int {
	for a < b {
		rest := src[a:b]
		trimmed := bytes.TrimLeft(rest, " \t\r\n")
		a += len(rest) - len(trimmed)
		switch {
		case bytes.HasPrefix(trimmed, []byte("#")) && !bytes.HasPrefix(trimmed, []byte("#{")),
			bytes.HasPrefix(trimmed, []byte("//")):
			nl := bytes.IndexByte(trimmed, '\n')
			if nl < 0 {
				return b
			}
			a += nl + 1
		case bytes.HasPrefix(trimmed, []byte("/*")):
			end := bytes.Index(trimmed, []byte("*/"))
			if end < 0 {
				return b
			}
			a += end + 2
		default:
			return a
		}
	}
	return a
}
