package fix

import (
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// renameRulesetFields renames the deprecated fields (ip.geoip.* -> ip.src.*) in the
// expressions the module's cloudflare_ruleset resources write literally, in place: the
// rulesets are the replacement already, only their field names are old. An expression built
// from other values is left to them (and to check, which reports where they are written).
func (f *fixer) renameRulesetFields(m *Module) {
	for _, r := range m.Resources {
		if r.Type != typeRuleset || r.Block == nil {
			continue
		}
		var names []string
		_ = hclsyntax.VisitAll(r.Block.Body, func(n hclsyntax.Node) hcl.Diagnostics {
			for _, x := range expressionValues(n) {
				names = append(names, f.renameParts(r.File, x)...)
			}
			return nil
		})
		if len(names) == 0 {
			continue
		}
		sort.Strings(names)
		names = slices.Compact(names)
		f.res.Rewrites = append(f.res.Rewrites, Rewrite{Module: m.Dir, File: r.File.Path, Line: r.Line(),
			Old: []string{r.Address()}, New: r.Address(), Proven: "fields renamed in place: " + strings.Join(names, ", ") + " (the same values under their current names)", IsProof: true})
	}
}

// expressionValues are the values of "expression" in an attribute or an object constructor.
func expressionValues(n hclsyntax.Node) []hclsyntax.Expression {
	switch e := n.(type) {
	case *hclsyntax.Attribute:
		if e.Name == "expression" {
			return []hclsyntax.Expression{e.Expr}
		}
	case *hclsyntax.ObjectConsExpr:
		var out []hclsyntax.Expression
		for _, it := range e.Items {
			if k, ok := it.KeyExpr.(*hclsyntax.ObjectConsKeyExpr); ok && hcl.ExprAsKeyword(k.Wrapped) == "expression" {
				out = append(out, it.ValueExpr)
			}
		}
		return out
	}
	return nil
}

// renameParts renames the deprecated fields in the literal parts of x when x is a string
// template (quoted or heredoc) — not inside a function call, where the string is an argument
// whose meaning fix does not know — returning what it renamed ("old -> new").
func (f *fixer) renameParts(file *File, x hclsyntax.Expression) []string {
	t, ok := x.(*hclsyntax.TemplateExpr)
	if !ok {
		return nil
	}
	var done []string
	for _, part := range t.Parts {
		if lit, ok := part.(*hclsyntax.LiteralValueExpr); ok && lit.Val.Type().Equals(cty.String) {
			done = append(done, f.renamePart(file, lit)...)
		}
	}
	return done
}
