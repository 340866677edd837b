package emulator

import (
	"errors"
	"fmt"

	"github.com/sunsetscan/sunset/scanner/expr"
)

// ExpressionError is a parse error as the service words it:
// "Filter parsing error (LINE:COLUMN): EXPRESSION ^^ REASON".
type ExpressionError struct {
	Line, Column int
	Expression   string
	Reason       string
}

// Error renders the service's wording.
func (e *ExpressionError) Error() string {
	return fmt.Sprintf("Filter parsing error (%d:%d): %s ^^ %s", e.Line, e.Column, e.Expression, e.Reason)
}

// CheckExpression is the emulator's default expression validator: the Rules language parser
// (scanner/expr), which refuses what the service refuses for its syntax: an empty or over-long
// expression, unbalanced parentheses, brackets or braces, unterminated strings, characters
// outside the language, uppercase English operators, starts_with/ends_with used as operators,
// `in` not followed by a set or a $list, `[*]` outside a function argument, commas in sets,
// a literal standing as a condition, operators with a missing operand, malformed IP
// addresses and CIDRs, and sets mixing kinds of values. It does not know field types (the
// service also refuses ip.src eq 34). The error is the parser's first, at its line and
// column (in characters). Options.ValidateExpression replaces it.
func CheckExpression(src string) error {
	_, err := expr.Parse(src)
	if err == nil {
		return nil
	}
	var list expr.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		return &ExpressionError{Line: list[0].Line, Column: list[0].Col, Expression: src, Reason: list[0].Msg}
	}
	return &ExpressionError{Line: 1, Column: 1, Expression: src, Reason: err.Error()}
}

// usesRegex reports whether an expression uses the regular-expression operator (matches or ~),
// a Business and Enterprise feature; operators inside strings do not count, and an expression
// that does not parse counts what its partial tree holds (a custom validator may accept it).
func usesRegex(src string) bool {
	e, _ := expr.Parse(src)
	for _, op := range expr.Operators(e) {
		if op.Op == expr.OpMatches {
			return true
		}
	}
	return false
}
