package repo

import (
	"strings"

	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// expressions reports deprecated Rules language fields in the file's string values (a Pulumi
// ruleset's expression, a rule list in a script), through the one check of expressions
// (exprRules.check): each deprecated field once per line and rule, at the line that holds it.
// The holes of a value are neutralised first; a value written over several lines of the
// source (a raw or triple-quoted string) counts its newlines as the file's, one on a single
// line holds escapes. Documentation (a docstring's example) is no usage. A value that is a
// JSON document (a request body written out) is read as a JSON file is (see jsonValue).
func (d *codeDetector) expressions(c *Checker, cx *codeContext, add func(hit)) {
	for i := range cx.f.Strings {
		s := &cx.f.Strings[i]
		if s.Comment || !d.exprs.mentionsField(s.Value) || c != nil && d.jsonValue(c, cx, s, add) {
			continue
		}
		src := strings.ReplaceAll(s.Value, code.HoleString, "_")
		site := exprSite{
			address: "string value", kind: string(vocab.KindExpression), loc: strLocation(s),
			lines: &lineMap{src: src, marks: []lineMark{{off: 0, line: s.Pos.Line, counts: s.End.Line > s.Pos.Line}}},
			file:  cx.in.li,
		}
		d.exprs.check(nil, site, src, false, add)
	}
}

// jsonValue reads a string value holding a JSON document, such as the body of a request
// written out in the code (curl --data '[{"filter": {"expression": ...}, "action": ...}]',
// requests.post(url, data='{...}')), with the shape rules of JSON files (shapeRules): its
// firewall rules, filters and other rules, and their expressions' deprecated fields, are
// found as in a .json file holding the same text. The document's lines are the file's when
// the value is written over several lines, else all on the value's line. A body given to
// a call that writes to the filters or firewall rules API is that request's: the call is
// the finding (see paths), not each firewall rule or filter in it; and a rule object that
// is a firewall rule only when posted as one (postableRule) is never reported from here.
// False when the value is not a whole JSON object or array; it is then read as text.
func (d *codeDetector) jsonValue(c *Checker, cx *codeContext, s *code.Str, add func(hit)) bool {
	v := strings.TrimLeft(s.Value, " \t\r\n")
	if v == "" || v[0] != '{' && v[0] != '[' {
		return false
	}
	// A hole inside a JSON string (a shell variable spliced into the body) reads as template
	// interpolation; one anywhere else makes the value no JSON.
	data := []byte(strings.ReplaceAll(s.Value, code.HoleString, "${_}"))
	root, err := parseJSON(data)
	if err != nil || root == nil {
		return false
	}
	multi := s.End.Line > s.Pos.Line
	at := func(line, col int) (int, int) {
		if !multi {
			return s.Pos.Line, s.Pos.Col
		}
		if line == 1 {
			col += s.Pos.Col
		}
		return s.Pos.Line + line - 1, col
	}
	posted := s.Call >= 0 && d.callPostsRules(cx, s.Call)
	shifted := func(h hit) {
		if h.ifPosted || posted && (h.rule == vocab.FirewallRules || h.rule == vocab.Filters) {
			return
		}
		h.loc.StartLine, h.loc.StartColumn = at(h.loc.StartLine, h.loc.StartColumn)
		h.loc.EndLine, h.loc.EndColumn = at(h.loc.EndLine, h.loc.EndColumn)
		h.address = "json value " + h.address
		add(h)
	}
	var spans []span
	c.shapes.walk(&shapeWalk{c: c, li: newLineIndex(data), add: shifted, spans: &spans}, root, "", "", false)
	return true
}

// callPostsRules reports whether call ci is given a path of the filters or firewall rules
// API with a method that writes (postsRules).
func (d *codeDetector) callPostsRules(cx *codeContext, ci int) bool {
	method := cx.methodOfCall(ci)
	for _, j := range cx.byCall[ci] {
		segs, ok := pathSegments(cx.f.Strings[j].Value)
		if !ok {
			continue
		}
		for _, m := range d.matchBuilt(cx, segs, false) {
			if postsRules(m.Entry.ID, method) {
				return true
			}
		}
	}
	return false
}
