package fix

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/expr"
)

// renameLiterals renames the deprecated fields in the string literals that hold a driven
// group's rule expressions, where the repository writes them (a variable's default, a module
// argument, a local): the data then reads as it runs, and `sunset check` has nothing left to
// say about it. The HCL's replace calls stay for values from elsewhere (other tfvars).
func (f *fixer) renameLiterals(exprs map[string]bool) {
	if len(exprs) == 0 {
		return
	}
	for _, m := range f.repo.Modules {
		for _, file := range m.Files {
			_ = hclsyntax.VisitAll(file.Body, func(n hclsyntax.Node) hcl.Diagnostics {
				f.renameLiteral(file, n, exprs)
				return nil
			})
		}
	}
}

// renameLiteral edits one string literal whose value is one of exprs.
func (f *fixer) renameLiteral(file *File, n hclsyntax.Node, exprs map[string]bool) {
	e, ok := n.(*hclsyntax.TemplateExpr)
	if !ok || len(e.Parts) != 1 {
		return
	}
	lit, ok := e.Parts[0].(*hclsyntax.LiteralValueExpr)
	if !ok || !lit.Val.Type().Equals(cty.String) || !exprs[lit.Val.AsString()] {
		return
	}
	if f.renamed == nil {
		f.renamed = map[string]bool{}
	}
	key := file.Path + ":" + lit.Range().String()
	if !f.renamed[key] {
		f.renamed[key] = true
		f.renamePart(file, lit)
	}
}

// renamePart renames the deprecated fields in one literal string (a whole expression or a
// piece of a template) where it is written, escaped as it was; it returns the renames
// ("old -> new"), none when the text cannot be mapped back safely.
func (f *fixer) renamePart(file *File, lit *hclsyntax.LiteralValueExpr) []string {
	rng := lit.Range()
	raw := string(file.Src[rng.Start.Byte:rng.End.Byte])
	value := lit.Val.AsString()
	renamed, done := fieldRenamed(value)
	if len(done) == 0 {
		return nil
	}
	var out string
	switch {
	case raw == value:
		out = renamed
	case raw == unquoted(hclString(value)):
		out = unquoted(hclString(renamed))
	default:
		return nil
	}
	f.edits[file] = append(f.edits[file], edit{start: rng.Start.Byte, end: rng.End.Byte, text: out})
	return done
}

func unquoted(s string) string { return strings.TrimSuffix(strings.TrimPrefix(s, `"`), `"`) }

// fieldRenamed is s with the deprecated fields the expression scanner finds (not the words
// inside the expression's own strings) renamed, and the renames done.
func fieldRenamed(s string) (string, []string) {
	fields := catalog.Fields()
	var b strings.Builder
	var done []string
	last := 0
	for _, ref := range expr.ScanFields(s) {
		def, ok := fields.Field(ref.Name)
		pos := int(ref.Pos)
		if !ok || def.RenamedTo == "" || pos < last || pos+len(ref.Name) > len(s) || s[pos:pos+len(ref.Name)] != ref.Name {
			continue
		}
		b.WriteString(s[last:pos])
		b.WriteString(def.RenamedTo)
		last = pos + len(ref.Name)
		done = append(done, ref.Name+" -> "+def.RenamedTo)
	}
	b.WriteString(s[last:])
	return b.String(), done
}
