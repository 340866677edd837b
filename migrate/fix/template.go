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
		raw, ok := renamedRaw(string(file.Src[p.start:p.end]), p, refs)
		if !ok {
			return "", false
		}
		src = src[:p.start-base] + raw + src[p.end-base:]
	}
	return src, true
}

// renamedRaw is a literal part's source with the deprecated fields among refs (positions in
// the skeleton) renamed. The source differs from the value only by escapes and a heredoc's
// indentation, which never make or break a field name: the n-th occurrence of a name in the
// value is its n-th in the source. false when the two do not hold a name as often.
func renamedRaw(raw string, p templatePart, refs []expr.Ref) (string, bool) {
	fields := catalog.Fields()
	type cut struct {
		at       int
		name, to string
	}
	var cuts []cut
	for _, ref := range refs {
		pos := int(ref.Pos) - p.at
		if pos < 0 || pos+len(ref.Name) > len(p.value) || p.value[pos:pos+len(ref.Name)] != ref.Name {
			continue
		}
		def, ok := fields.Field(ref.Name)
		if !ok || def.RenamedTo == "" {
			continue
		}
		if strings.Count(raw, ref.Name) != strings.Count(p.value, ref.Name) {
			return "", false
		}
		cuts = append(cuts, cut{nthIndex(raw, ref.Name, strings.Count(p.value[:pos], ref.Name)), ref.Name, def.RenamedTo})
	}
	sort.Slice(cuts, func(i, j int) bool { return cuts[i].at > cuts[j].at })
	for _, c := range cuts {
		raw = raw[:c.at] + c.to + raw[c.at+len(c.name):]
	}
	return raw, true
}

// nthIndex is where the n-th (from 0) occurrence of sub is in s; s holds it.
func nthIndex(s, sub string, n int) int {
	at := 0
	for ; n > 0; n-- {
		at += strings.Index(s[at:], sub) + len(sub)
	}
	return at + strings.Index(s[at:], sub)
}

// templateMapping is the mapping a template's own text needs: the renames of the fields it
// names (renamedTemplate makes them in the text where it can), and the threat score guard
// only when the text uses it.
func templateMapping(file *File, x hclsyntax.Expression, longRefs bool) (mapping, bool) {
	skel, _, ok := templateSkeleton(file, x)
	if !ok {
		return mapping{}, false
	}
	texts := []string{skel}
	return mapping{renames: renamesIn(texts), threat: containsField(texts, threatField), longRefs: longRefs}, true
}
