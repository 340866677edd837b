package scanner

import (
	"errors"

	"github.com/sunsetscan/sunset/scanner/expr"
)

// ExprInfo is what a live scan needs to know about a filter expression. The Rules language
// parser (scanner/expr) answers; see inspectExpression.
type ExprInfo struct {
	// Valid is false when the expression does not parse; Error, Line and Column (1-based) say
	// why and where (the first error).
	Valid  bool
	Error  string
	Line   int
	Column int
	// Fields and Functions are the names used, sorted and without duplicates. An expression
	// that does not parse names what its partial tree holds.
	Fields    []string
	Functions []string
	// UsesRegex is true when the expression uses the matches / ~ operator.
	UsesRegex bool
	// Templated is true when the expression holds template placeholders (expr.IsTemplated);
	// such an expression is not judged as Rules language, so it is Valid.
	Templated bool

	// tree is the parsed expression (partial when it does not parse), for the checks that read
	// its comparisons.
	tree *expr.Expr
}

// inspectExpression parses src and says what it uses. A templated expression is parsed with
// its placeholders neutralised (expr.ParseTemplated), for the names around them; any syntax
// error left may be the template's, not the author's, so it is not called invalid.
func inspectExpression(src string) ExprInfo {
	e, err := expr.ParseTemplated(src)
	templated := expr.IsTemplated(src)
	info := ExprInfo{
		Valid:     err == nil || templated,
		Templated: templated,
		Fields:    expr.Names(expr.Fields(e)),
		Functions: expr.Names(expr.Functions(e)),
		tree:      e,
	}
	for _, op := range expr.Operators(e) {
		if op.Op == expr.OpMatches {
			info.UsesRegex = true
		}
	}
	if info.Valid {
		return info
	}
	var list expr.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		info.Error, info.Line, info.Column = list[0].Msg, list[0].Line, list[0].Col
	} else {
		info.Error = err.Error()
	}
	return info
}
