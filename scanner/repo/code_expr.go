package repo

import (
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/scanner/expr"
	"github.com/sunsetscan/sunset/scanner/repo/code"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// expressions reports deprecated Rules language fields in the file's string values
// (a Pulumi ruleset's expression, a rule list in a script): each value naming one is parsed
// (its holes neutralised), and each deprecated field the parser finds is reported once per
// line and rule, at the line that holds it.
func (d *codeDetector) expressions(cx *codeContext, add func(hit)) {
	for i := range cx.f.Strings {
		s := &cx.f.Strings[i]
		if !d.exprs.mentionsField(s.Value) {
			continue
		}
		src := strings.ReplaceAll(s.Value, code.HoleString, "_")
		e, _ := expr.ParseTemplated(src) // a partial tree still names its fields
		fields := expr.Names(expr.Fields(e))
		sort.Strings(fields)
		for _, at := range d.exprs.fieldLines(src, fields) {
			loc := strLocation(s)
			if s.End.Line > s.Pos.Line {
				loc.StartLine += at.line
				loc.EndLine = loc.StartLine
				if at.line > 0 {
					loc.StartColumn = 1
				}
			}
			add(hit{
				rule: at.rule, kind: vocab.KindExpression, id: at.field, name: at.field,
				address: "code expression " + at.field,
				msg:     "expression uses " + at.field, loc: loc, shadow: true,
			})
		}
	}
}

// fieldAt is a deprecated field found in an expression: its rule and the line (0-based,
// within the expression) of each place it stands.
type fieldAt struct {
	field string
	rule  vocab.RuleID
	line  int
}

// fieldLines places each of fields (those the parser found) that is deprecated on the lines
// of src that hold it as a whole name, once per line and rule.
func (r *exprRules) fieldLines(src string, fields []string) []fieldAt {
	var out []fieldAt
	type ruleLine struct {
		rule string
		line int
	}
	seen := map[ruleLine]bool{}
	for _, f := range fields {
		rule, ok := r.fields[f]
		if !ok {
			continue
		}
		for off := 0; ; {
			i := strings.Index(src[off:], f)
			if i < 0 {
				break
			}
			at := off + i
			off = at + len(f)
			if (at > 0 && isFieldByte(src[at-1])) || (off < len(src) && isFieldByte(src[off])) {
				continue
			}
			line := strings.Count(src[:at], "\n")
			if key := (ruleLine{rule, line}); !seen[key] {
				seen[key] = true
				out = append(out, fieldAt{field: f, rule: vocab.RuleID(rule), line: line})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].line < out[j].line })
	return out
}

func isFieldByte(c byte) bool {
	return c == '_' || c == '.' || (c >= '0' && c <= '9') || (c|0x20 >= 'a' && c|0x20 <= 'z')
}
