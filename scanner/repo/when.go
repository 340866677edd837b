package repo

import (
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// NullWhen reports whether x is null whenever what its condition compares is want:
// `A == "want" ? null : B` or `A != "want" ? B : null` (the literal on either side, in any
// case, parentheses allowed). A conditional attribute written so is not a use: for the value
// that makes it deprecated it is not set. sunset fix writes SRV data.service that way when a
// record's type is not a literal, since NAPTR records use the same field.
func NullWhen(x hclsyntax.Expression, want string) bool {
	c, ok := Unparen(x).(*hclsyntax.ConditionalExpr)
	if !ok {
		return false
	}
	b, ok := Unparen(c.Condition).(*hclsyntax.BinaryOpExpr)
	if !ok || (!literalIs(b.LHS, want) && !literalIs(b.RHS, want)) {
		return false
	}
	switch b.Op {
	case hclsyntax.OpEqual:
		return isNull(c.TrueResult)
	case hclsyntax.OpNotEqual:
		return isNull(c.FalseResult)
	}
	return false
}

// Unparen is x without the parentheses around it.
func Unparen(x hclsyntax.Expression) hclsyntax.Expression {
	for {
		p, ok := x.(*hclsyntax.ParenthesesExpr)
		if !ok {
			return x
		}
		x = p.Expression
	}
}

// literalIs reports whether x is the string literal want (case aside).
func literalIs(x hclsyntax.Expression, want string) bool {
	x = Unparen(x)
	if t, ok := x.(*hclsyntax.TemplateExpr); ok && len(t.Parts) == 1 {
		x = t.Parts[0]
	}
	l, ok := x.(*hclsyntax.LiteralValueExpr)
	return ok && l.Val.Type() == cty.String && !l.Val.IsNull() && strings.EqualFold(l.Val.AsString(), want)
}

func isNull(x hclsyntax.Expression) bool {
	l, ok := Unparen(x).(*hclsyntax.LiteralValueExpr)
	return ok && l.Val.IsNull()
}
