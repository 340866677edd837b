package fix

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// entryPoint renders a new zone entry point ruleset of phase holding rules, named SHORT
// after the zone (zoneRulesetName), with zone_id as src writes it, preceded by the comment
// what; it returns the block's text and address. A module that already declares the
// zone's entry point of the phase gets no second one: the error says where to add them.
func (f *fixer) entryPoint(m *Module, src *File, zone hclsyntax.Expression, phase vocab.Phase, short string, rules []inventory.RulesetRule, what string) (string, string, error) {
	if existing, _ := declaredRuleset(m, phase, normalText(exprText(src, zone))); existing != nil {
		return "", "", fmt.Errorf("the module already declares the zone's %s ruleset (%s): add the rules to it by hand (sunset plan writes them)", phase, existing.Address())
	}
	raws := make([]json.RawMessage, 0, len(rules))
	for _, r := range rules {
		raw, err := json.Marshal(r)
		if err != nil {
			return "", "", err
		}
		raws = append(raws, raw)
	}
	zt, err := sourceTokens(src, zone)
	if err != nil {
		return "", "", err
	}
	file := hclwrite.NewEmptyFile()
	name := zoneRulesetName(m, src, zone, short)
	rb := file.Body().AppendNewBlock("resource", []string{typeRuleset, name}).Body()
	rb.SetAttributeRaw("zone_id", zt)
	rb.SetAttributeValue("name", cty.StringVal(entryPointName))
	rb.SetAttributeValue("kind", cty.StringVal("zone"))
	rb.SetAttributeValue("phase", cty.StringVal(string(phase)))
	if err := terraform.SetRules(rb, raws, f.opts.Target); err != nil {
		return "", "", err
	}
	return commentLines(what, "") + string(hclwrite.Format(file.Bytes())), typeRuleset + "." + name, nil
}

// declaredRuleset finds the module's cloudflare_ruleset of the phase for the zone_id written
// as zoneText, and how many rules it declares.
func declaredRuleset(m *Module, phase vocab.Phase, zoneText string) (*Resource, int) {
	for _, r := range m.Resources {
		if r.Type != typeRuleset || normalText(exprText(r.File, r.Attr("zone_id"))) != zoneText {
			continue
		}
		if v, ok := known(newEvaluator(m), r.Attr("phase"), instance{}, cty.String); !ok || v.IsNull() || v.AsString() != string(phase) {
			continue
		}
		n := 0
		if t, ok := r.Attr("rules").(*hclsyntax.TupleConsExpr); ok {
			n = len(t.Exprs)
		}
		for _, b := range r.Block.Body.Blocks {
			if b.Type == "rules" {
				n++
			}
		}
		return r, n
	}
	return nil, 0
}

// inFileOrder sorts resources by file, then position.
func inFileOrder(rs []*Resource) {
	slices.SortStableFunc(rs, func(a, b *Resource) int {
		if a.File.Path != b.File.Path {
			return strings.Compare(a.File.Path, b.File.Path)
		}
		return a.Block.Range().Start.Byte - b.Block.Range().Start.Byte
	})
}

// zoneSet is a module's resources of some types that share a zone_id as written.
type zoneSet struct {
	zone     hclsyntax.Expression
	zoneText string
	res      []*Resource
}

// byZone groups the module's resources of the types by their zone_id as written, in file
// order. A resource with count or for_each is left (repeated says why and what to do), as is
// one without zone_id.
func (f *fixer) byZone(m *Module, types []string, repeated string) []*zoneSet {
	index := map[string]*zoneSet{}
	var sets []*zoneSet
	for _, r := range m.Resources {
		if !slices.Contains(types, r.Type) {
			continue
		}
		zone := r.Attr("zone_id")
		switch {
		case r.Repeated():
			f.leave(r, r.Address()+" not rewritten: it has count or for_each; "+repeated)
			continue
		case zone == nil:
			f.leave(r, r.Address()+" not rewritten: it has no zone_id")
			continue
		}
		text := normalText(exprText(r.File, zone))
		s := index[text]
		if s == nil {
			s = &zoneSet{zone: zone, zoneText: text}
			index[text] = s
			sets = append(sets, s)
		}
		s.res = append(s.res, r)
	}
	return sets
}
