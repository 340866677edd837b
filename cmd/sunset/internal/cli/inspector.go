package cli

import (
	"errors"
	"sort"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/expr"
)

// exprInspector answers the scanner's questions about filter expressions with the Rules
// language parser (the scanner owns the interface and knows nothing of the parser).
type exprInspector struct{}

// Inspect parses src and reports validity, the first error's position, and what it uses.
func (exprInspector) Inspect(src string) scanner.ExprInfo {
	if expr.IsTemplated(src) {
		return scanner.ExprInfo{Valid: true, Templated: true}
	}
	e, err := expr.Parse(src)
	info := scanner.ExprInfo{Valid: err == nil}
	var list expr.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		info.Error, info.Line, info.Column = list[0].Msg, list[0].Line, list[0].Col
	} else if err != nil {
		info.Error = err.Error()
	}
	info.Fields = uniqueNames(expr.Fields(e))
	info.Functions = uniqueNames(expr.Functions(e))
	for _, op := range expr.Operators(e) {
		if op.Op == expr.OpMatches {
			info.UsesRegex = true
		}
	}
	return info
}

func uniqueNames(refs []expr.Ref) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range refs {
		if !seen[r.Name] {
			seen[r.Name] = true
			out = append(out, r.Name)
		}
	}
	sort.Strings(out)
	return out
}
