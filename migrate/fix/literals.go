package fix

import (
	"regexp"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
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
	var rng hcl.Range
	switch e := n.(type) {
	case *hclsyntax.TemplateExpr:
		if len(e.Parts) != 1 {
			return
		}
		lit, ok := e.Parts[0].(*hclsyntax.LiteralValueExpr)
		if !ok || !lit.Val.Type().Equals(cty.String) || !exprs[lit.Val.AsString()] {
			return
		}
		rng = e.Range()
	default:
		return
	}
	if f.renamed == nil {
		f.renamed = map[string]bool{}
	}
	key := file.Path + ":" + rng.String()
	if f.renamed[key] {
		return
	}
	f.renamed[key] = true
	src := string(file.Src[rng.Start.Byte:rng.End.Byte])
	out := src
	for _, r := range renamesIn([]string{src}) {
		out = regexp.MustCompile(fieldPattern(r.old)).ReplaceAllString(out, r.new)
	}
	if out != src {
		f.edits[file] = append(f.edits[file], edit{start: rng.Start.Byte, end: rng.End.Byte, text: out})
	}
}
