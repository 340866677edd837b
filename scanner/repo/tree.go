package repo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// nodeKind is the kind of a document node.
type nodeKind uint8

const (
	nodeScalar nodeKind = iota
	nodeObject
	nodeArray
)

// node is one value of a JSON or YAML document with its position (1-based line and column;
// columns count bytes). JSON and YAML are read into the same tree so that one shape detector
// serves both.
type node struct {
	kind nodeKind
	keys []string // object member names, in document order
	vals []*node  // object member values (parallel to keys) or array elements
	// str is a scalar's text; isString tells a quoted/string scalar from a number, bool or null.
	str      string
	isString bool
	isNull   bool
	style    scalarStyle // how a YAML scalar is written (styleNone in JSON)
	line     int
	col      int
	endLine  int
	endCol   int
}

// get returns the value of an object member, nil when absent or n is not an object.
func (n *node) get(key string) *node {
	if n == nil || n.kind != nodeObject {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// has reports whether an object has a member.
func (n *node) has(key string) bool { return n.get(key) != nil }

// text returns a member's scalar text ("" when absent or not a scalar).
func (n *node) text(key string) string {
	v := n.get(key)
	if v == nil || v.kind != nodeScalar || v.isNull {
		return ""
	}
	return v.str
}

// stringMember returns a member that is a string scalar.
func (n *node) stringMember(key string) (string, bool) {
	v := n.get(key)
	if v == nil || v.kind != nodeScalar || !v.isString {
		return "", false
	}
	return v.str, true
}

// maxJSONDepth bounds nesting so hostile input cannot exhaust the stack.
const maxJSONDepth = 500

// parseError is a syntax error with its position.
type parseError struct {
	Line, Col int
	Msg       string
	// Limit marks a document sunset stopped reading at one of its own bounds (nesting depth,
	// aliasing), not one known to be invalid: the file was not fully checked.
	Limit bool
}

func (e *parseError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// jsonParser is a small recursive-descent JSON parser that records positions, which
// encoding/json does not expose per value. It accepts exactly RFC 8259 JSON (plus a UTF-8 BOM).
type jsonParser struct {
	data      []byte
	pos       int
	line      int
	lineStart int
	depth     int
}

// parseJSON reads a JSON document into a tree.
func parseJSON(data []byte) (*node, error) {
	p := &jsonParser{data: data, line: 1}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		p.pos, p.lineStart = 3, 3
	}
	p.skipSpace()
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return nil, p.errorf("unexpected %q after the top-level value", p.data[p.pos])
	}
	return n, nil
}

func (p *jsonParser) errorf(format string, args ...any) error {
	return &parseError{Line: p.line, Col: p.pos - p.lineStart + 1, Msg: fmt.Sprintf(format, args...)}
}

func (p *jsonParser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\r':
		case '\n':
			p.line++
			p.lineStart = p.pos + 1
		default:
			return
		}
		p.pos++
	}
}

func (p *jsonParser) value() (*node, error) {
	if p.pos >= len(p.data) {
		return nil, p.errorf("unexpected end of input")
	}
	n := &node{line: p.line, col: p.pos - p.lineStart + 1}
	var err error
	switch c := p.data[p.pos]; {
	case c == '{':
		err = p.object(n)
	case c == '[':
		err = p.array(n)
	case c == '"':
		n.isString = true
		n.str, err = p.string()
	case c == 't' || c == 'f' || c == 'n':
		err = p.literal(n)
	case c == '-' || (c >= '0' && c <= '9'):
		err = p.number(n)
	default:
		return nil, p.errorf("unexpected %q", c)
	}
	if err != nil {
		return nil, err
	}
	n.endLine, n.endCol = p.line, p.pos-p.lineStart+1
	return n, nil
}

func (p *jsonParser) enter() error {
	p.depth++
	if p.depth > maxJSONDepth {
		return &parseError{Line: p.line, Col: p.pos - p.lineStart + 1, Msg: fmt.Sprintf("nesting deeper than %d levels", maxJSONDepth), Limit: true}
	}
	return nil
}

func (p *jsonParser) object(n *node) error {
	if err := p.enter(); err != nil {
		return err
	}
	defer func() { p.depth-- }()
	n.kind = nodeObject
	p.pos++ // {
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return nil
	}
	for {
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return p.errorf("expected a member name in double quotes")
		}
		key, err := p.string()
		if err != nil {
			return err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return p.errorf("expected ':' after member name %q", key)
		}
		p.pos++
		p.skipSpace()
		v, err := p.value()
		if err != nil {
			return err
		}
		n.keys = append(n.keys, key)
		n.vals = append(n.vals, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return p.errorf("unexpected end of input in an object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
		case '}':
			p.pos++
			return nil
		default:
			return p.errorf("expected ',' or '}' in an object, found %q", p.data[p.pos])
		}
	}
}

func (p *jsonParser) array(n *node) error {
	if err := p.enter(); err != nil {
		return err
	}
	defer func() { p.depth-- }()
	n.kind = nodeArray
	p.pos++ // [
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return err
		}
		n.vals = append(n.vals, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return p.errorf("unexpected end of input in an array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
		case ']':
			p.pos++
			return nil
		default:
			return p.errorf("expected ',' or ']' in an array, found %q", p.data[p.pos])
		}
	}
}

func (p *jsonParser) literal(n *node) error {
	for _, lit := range []string{"true", "false", "null"} {
		if strings.HasPrefix(string(p.data[p.pos:min(p.pos+5, len(p.data))]), lit) {
			p.pos += len(lit)
			n.str, n.isNull = lit, lit == "null"
			return nil
		}
	}
	return p.errorf("invalid literal")
}

func (p *jsonParser) number(n *node) error {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		s := p.pos
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
		}
		return p.pos - s
	}
	if digits() == 0 {
		return p.errorf("invalid number")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return p.errorf("invalid number")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return p.errorf("invalid number")
		}
	}
	n.str = string(p.data[start:p.pos])
	return nil
}

// string reads a double-quoted string at p.pos and decodes its escapes.
func (p *jsonParser) string() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			s := string(p.data[start:p.pos])
			p.pos++
			return s, nil
		case c == '\\':
			return p.escapedString(start)
		case c < 0x20:
			return "", p.errorf("control character in a string")
		}
		p.pos++
	}
	return "", p.errorf("unterminated string")
}

func (p *jsonParser) escapedString(start int) (string, error) {
	var b strings.Builder
	b.Write(p.data[start:p.pos])
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c < 0x20:
			return "", p.errorf("control character in a string")
		case c != '\\':
			b.WriteByte(c)
			p.pos++
			continue
		}
		if p.pos+1 >= len(p.data) {
			break
		}
		e := p.data[p.pos+1]
		p.pos += 2
		switch e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.errorf("invalid \\u escape")
			}
			if utf16.IsSurrogate(r) && p.pos+1 < len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
				save := p.pos
				p.pos += 2
				if r2, ok := p.hex4(); ok && utf16.DecodeRune(r, r2) != utf8.RuneError {
					r = utf16.DecodeRune(r, r2)
				} else {
					p.pos = save
				}
			}
			b.WriteRune(r)
		default:
			return "", p.errorf("invalid escape \\%c", e)
		}
	}
	return "", p.errorf("unterminated string")
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.pos+4 > len(p.data) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.data[p.pos:p.pos+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.pos += 4
	return rune(v), true
}

// parseYAML reads every document of a YAML stream into trees (one per document).
func parseYAML(data []byte) ([]*node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*node
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return docs, nil
			}
			return docs, yamlError(err)
		}
		conv := &yamlConv{seen: map[*yaml.Node]bool{}}
		if n := conv.node(&doc, 0); n != nil {
			docs = append(docs, n)
		}
		if conv.deep != nil {
			// The rest of the stream may hold more documents, but this one was cut short.
			return docs, &parseError{Line: conv.deep.Line, Col: max(conv.deep.Column, 1), Msg: fmt.Sprintf("nesting deeper than %d levels", maxJSONDepth), Limit: true}
		}
	}
}

// yamlError turns yaml.v3's "yaml: line N: msg" into a positioned error. yaml.v3's own bounds
// (depth, aliasing) are marked Limit: the document may be valid, but it was not read.
func yamlError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	pe := &parseError{Line: 1, Col: 1, Msg: msg}
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if i := strings.IndexByte(rest, ':'); i > 0 {
			if line, convErr := strconv.Atoi(rest[:i]); convErr == nil {
				pe.Line, pe.Msg = line, strings.TrimSpace(rest[i+1:])
			}
		}
	}
	pe.Limit = strings.HasPrefix(pe.Msg, "exceeded max depth") || strings.Contains(pe.Msg, "excessive aliasing")
	return pe
}

// yamlConv converts one yaml.v3 document. Aliases are followed once (a cycle or a repeated
// alias becomes an empty scalar) so that alias bombs cannot blow the tree up; nodes nested
// deeper than maxJSONDepth are left out and the first one is remembered in deep.
type yamlConv struct {
	seen map[*yaml.Node]bool
	deep *yaml.Node
	// anchored counts the anchored nodes being converted (see release).
	anchored int
}

// node converts y at the given depth.
func (cv *yamlConv) node(y *yaml.Node, depth int) *node {
	if y == nil {
		return nil
	}
	if depth > maxJSONDepth {
		if cv.deep == nil {
			cv.deep = y
		}
		return nil
	}
	seen := cv.seen
	switch y.Kind {
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return nil
		}
		return cv.node(y.Content[0], depth+1)
	case yaml.AliasNode:
		if seen[y.Alias] {
			return &node{line: y.Line, col: y.Column, endLine: y.Line, endCol: y.Column}
		}
		seen[y.Alias] = true
		return cv.node(y.Alias, depth+1)
	}
	if y.Anchor != "" {
		cv.anchored++
		defer func() { cv.anchored-- }()
	}
	n := &node{line: y.Line, col: y.Column, endLine: y.Line, endCol: y.Column + len(y.Value)}
	switch y.Kind {
	case yaml.MappingNode:
		n.kind = nodeObject
		n.keys = make([]string, 0, len(y.Content)/2)
		n.vals = make([]*node, 0, len(y.Content)/2)
		for i := 0; i+1 < len(y.Content); i += 2 {
			k, v := y.Content[i], cv.node(y.Content[i+1], depth+1)
			if v == nil {
				v = &node{line: k.Line, col: k.Column, endLine: k.Line, endCol: k.Column, isNull: true}
			}
			n.keys = append(n.keys, k.Value)
			n.vals = append(n.vals, v)
		}
		cv.release(y)
	case yaml.SequenceNode:
		n.kind = nodeArray
		n.vals = make([]*node, 0, len(y.Content))
		for _, c := range y.Content {
			if v := cv.node(c, depth+1); v != nil {
				n.vals = append(n.vals, v)
			}
		}
		cv.release(y)
	default:
		n.str = y.Value
		n.isNull = y.Tag == "!!null"
		n.isString = y.Tag == "!!str"
		n.style = yamlStyle(y.Style)
	}
	for _, v := range n.vals {
		if v.endLine > n.endLine || (v.endLine == n.endLine && v.endCol > n.endCol) {
			n.endLine, n.endCol = v.endLine, v.endCol
		}
	}
	return n
}

// release lets the collector have what yaml.v3 made of a collection once it is converted,
// while the rest of the document is: the two trees of a large document are not held whole
// at once. What an anchor holds is kept, as an alias may convert it again.
func (cv *yamlConv) release(y *yaml.Node) {
	if cv.anchored == 0 {
		y.Content = nil
	}
}

// yamlStyle says how a scalar is written, for placing what is inside it on its lines.
func yamlStyle(s yaml.Style) scalarStyle {
	switch {
	case s&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return styleBlock
	case s&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
		return styleQuoted
	}
	return stylePlain
}
