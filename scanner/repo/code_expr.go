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
// line holds escapes. Documentation (a docstring's example) is no usage.
func (d *codeDetector) expressions(cx *codeContext, add func(hit)) {
	for i := range cx.f.Strings {
		s := &cx.f.Strings[i]
		if s.Comment || !d.exprs.mentionsField(s.Value) {
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
