package fix

import (
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/expr"
)

// A rule expression written as a template ("ip.src ne ${var.ip}", a heredoc with a
// country list joined in) names its fields in its literal text: when every interpolation
// stands where the rules language takes a value (inside a string, after a comparison, in a
// set), no value that comes can add a field. Its field renames are then made in the text
// itself, and cf.threat_score is in it or not, whatever the values: nothing is left to HCL
// for the data to decide.

// placeholder stands for an interpolation in a template's skeleton (the scanner reads
// ${...} as a value it has not been given).
const placeholder = "${x}"

// templatePart is a literal piece of a template: its decoded text, its place in the
// skeleton and its range in the file.
type templatePart struct {
	value      string
	at         int // offset in the skeleton
	start, end int // bytes in the file
}

// templateSkeleton is x's text with each interpolation made a placeholder, and its literal
// parts; false when x is not a template whose interpolations all stand for values (a
// directive, an interpolation where a field or an operator goes, or no template at all).
func templateSkeleton(file *File, x hclsyntax.Expression) (string, []templatePart, bool) {
	t, ok := x.(*hclsyntax.TemplateExpr)
	if !ok || strings.Contains(exprText(file, x), "%{") {
		return "", nil, false
	}
	var b strings.Builder
	var parts []templatePart
	for _, p := range t.Parts {
		lit, isLit := p.(*hclsyntax.LiteralValueExpr)
		if !isLit || lit.Val.Type() != cty.String {
			b.WriteString(placeholder)
			continue
		}
		rng := lit.Range()
		parts = append(parts, templatePart{value: lit.Val.AsString(), at: b.Len(), start: rng.Start.Byte, end: rng.End.Byte})
		b.WriteString(lit.Val.AsString())
	}
	skel := b.String()
	if _, err := expr.ParseTemplated(skel); err != nil {
		return "", nil, false
	}
	return skel, parts, true
}

// renamedTemplate is x's source with the deprecated fields of its literal text renamed;
// false when x is not such a template, or a renamed piece cannot be written back as it was
// escaped (the renames are then left to HCL).
func renamedTemplate(file *File, x hclsyntax.Expression) (string, bool) {
	skel, parts, ok := templateSkeleton(file, x)
	if !ok {
		return "", false
	}
	base := x.Range().Start.Byte
	src := exprText(file, x)
	renamed, _ := fieldRenamed(skel)
	if renamed == skel {
		return src, true
	}
	// Renames only change names outside the rules language's strings, never a placeholder:
	// each literal part is renamed alone, at the fields the whole skeleton shows.
	sort.Slice(parts, func(i, j int) bool { return parts[i].start > parts[j].start })
	refs := expr.ScanFields(skel)
	for _, p := range parts {
		value, changed := renameAt(p, refs)
		if !changed {
			continue
		}
		raw := string(file.Src[p.start:p.end])
		var out string
		switch {
		case raw == p.value:
			out = value
		case raw == unquoted(hclString(p.value)):
			out = unquoted(hclString(value))
		default:
			return "", false
		}
		src = src[:p.start-base] + out + src[p.end-base:]
	}
	return src, true
}

// renameAt renames the deprecated fields among refs (positions in the skeleton) that fall in
// the part.
func renameAt(p templatePart, refs []expr.Ref) (string, bool) {
	fields := catalog.Fields()
	var b strings.Builder
	last, changed := 0, false
	for _, ref := range refs {
		pos := int(ref.Pos) - p.at
		if pos < last || pos+len(ref.Name) > len(p.value) || p.value[pos:pos+len(ref.Name)] != ref.Name {
			continue
		}
		def, ok := fields.Field(ref.Name)
		if !ok || def.RenamedTo == "" {
			continue
		}
		b.WriteString(p.value[last:pos])
		b.WriteString(def.RenamedTo)
		last, changed = pos+len(ref.Name), true
	}
	b.WriteString(p.value[last:])
	return b.String(), changed
}

// templateMapping is the mapping a template's own text needs: no renames (they are made in
// the text), and the threat score guard only when the text uses it.
func templateMapping(file *File, x hclsyntax.Expression, longRefs bool) (mapping, bool) {
	skel, _, ok := templateSkeleton(file, x)
	if !ok {
		return mapping{}, false
	}
	return mapping{threat: containsField([]string{skel}, threatField), longRefs: longRefs}, true
}
