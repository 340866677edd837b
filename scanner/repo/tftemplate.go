package repo

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// placeholder stands for an interpolation in a rendered template: expr.IsTemplated
// recognises it, so the expression is called templated, and the fields around it are found.
const placeholder = "${_}"

// tmplPiece is a piece of a rendered template: literal text and where it is written, or a
// placeholder (lit false) for what the template computes.
type tmplPiece struct {
	text string
	rng  hcl.Range
	lit  bool
}

// templatePieces flattens a template's parts: literal text as written, a placeholder for
// each interpolation, and the bodies of %{for} and %{if} directives flattened in after a
// placeholder (each branch of an if), so that the fields written inside them are seen too.
func templatePieces(parts []hclsyntax.Expression, out []tmplPiece, depth int) []tmplPiece {
	for _, p := range parts {
		if lit, ok := p.(*hclsyntax.LiteralValueExpr); ok {
			if s, ok := ctyString(lit.Val); ok {
				out = append(out, tmplPiece{text: s, rng: lit.SrcRange, lit: true})
				continue
			}
		}
		out = append(out, tmplPiece{text: placeholder, rng: p.Range()})
		if depth >= maxTFDepth {
			continue
		}
		switch x := p.(type) {
		case *hclsyntax.TemplateJoinExpr: // %{for}
			if f, ok := x.Tuple.(*hclsyntax.ForExpr); ok {
				if t, ok := f.ValExpr.(*hclsyntax.TemplateExpr); ok {
					out = templatePieces(t.Parts, out, depth+1)
				}
			}
		case *hclsyntax.ConditionalExpr: // %{if}
			for _, branch := range []hclsyntax.Expression{x.TrueResult, x.FalseResult} {
				if t, ok := branch.(*hclsyntax.TemplateExpr); ok {
					out = templatePieces(t.Parts, out, depth+1)
					out = append(out, tmplPiece{text: placeholder, rng: t.Range()})
				}
			}
		}
	}
	return out
}

// templateSource renders a template from its pieces.
func templateSource(t *hclsyntax.TemplateExpr) string {
	var b strings.Builder
	for _, p := range templatePieces(t.Parts, nil, 0) {
		b.WriteString(p.text)
	}
	return b.String()
}

// lines maps the offsets of the attribute's string value to file lines, for a template
// written over several lines (a heredoc); nil otherwise, and for a template whose value is
// not its text (a directive sunset could evaluate).
func (a *tfAttr) lines() *lineMap {
	t := a.tmpl
	if t == nil || t.SrcRange.Start.Line == t.SrcRange.End.Line {
		return nil
	}
	m := &lineMap{src: a.lit}
	off := 0
	for _, p := range templatePieces(t.Parts, nil, 0) {
		m.marks = append(m.marks, lineMark{off: off, line: p.rng.Start.Line, counts: p.lit && p.rng.Start.Line != p.rng.End.Line})
		off += len(p.text)
	}
	if off != len(a.lit) {
		return nil
	}
	return m
}
