package fix

import (
	"encoding/json"
	"fmt"
	"github.com/sunsetscan/sunset/migrate"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/meaning"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// newRules are the rules a new entry point gets: front ones before the zone's existing
// rules (from the snapshot, when it has the entry point), back ones after.
type newRules struct {
	phase       vocab.Phase
	short       string // the resource name's suffix
	front, back []inventory.RulesetRule
	what        string // the comment line
}

// entryPoint renders the zone's entry point ruleset of the phase (named after the zone,
// zoneRulesetName), with zone_id as src writes it, preceded by the comment what; it returns
// the block's text and address. An entry point the snapshot shows is imported with the
// rules it holds (rules whose ref it already has are not added again). A module that
// already declares the zone's entry point of the phase gets no second one: the error says
// where to add the rules.
func (f *fixer) entryPoint(m *Module, src *File, zone hclsyntax.Expression, z zoneInfo, nr newRules, rw *Rewrite) (string, error) {
	if existing, _ := declaredRuleset(evaluatorOf(m), m, nr.phase, normalText(exprText(src, zone))); existing != nil {
		return "", f.appendToDeclared(existing, nr, rw)
	}
	name := zoneRulesetName(m, src, zone, nr.short)
	rs, imported := entryPointOf(z, nr.phase)
	raws, err := ruleList(nr, rs)
	if err != nil {
		return "", err
	}
	zt, err := sourceTokens(src, zone)
	if err != nil {
		return "", err
	}
	file := hclwrite.NewEmptyFile()
	rb := file.Body().AppendNewBlock("resource", []string{typeRuleset, name}).Body()
	rb.SetAttributeRaw("zone_id", zt)
	rb.SetAttributeValue("name", cty.StringVal(orText(rs.Name, entryPointName)))
	rb.SetAttributeValue("kind", cty.StringVal("zone"))
	rb.SetAttributeValue("phase", cty.StringVal(string(nr.phase)))
	if err := terraform.SetRules(rb, raws, f.opts.Target); err != nil {
		return "", err
	}
	rw.New = typeRuleset + "." + name
	if imported {
		if !f.importBlock(m, rw.New, z.id, rs.ID) {
			return "", fmt.Errorf("the zone's %s entry point exists (ruleset %s) and must be imported, but no root module calls %s once (an import block cannot name a repeated module's instance for fix)", nr.phase, rs.ID, m.Dir)
		}
		rw.Notes = append(rw.Notes, fmt.Sprintf("the zone's %s entry point exists (ruleset %s, %s, from the snapshot): imported (%s), its rules kept and the new ones added", nr.phase, rs.ID, reports.Plural(len(rs.Rules), "rule", "rules"), ImportsFile))
	}
	return commentLines(nr.what, "") + string(hclwrite.Format(file.Bytes())), nil
}

// appendToDeclared adds the new rules after the rules of the zone's entry point the module
// already declares, in its own syntax (see appendRules); the managed rules entry point,
// whose exceptions go first and which may execute the rulesets already, is left to the owner.
func (f *fixer) appendToDeclared(ep *Resource, nr newRules, rw *Rewrite) error {
	if len(nr.front) > 0 || nr.phase == vocab.PhaseManaged {
		// Exceptions run before its rules, and it may execute the managed rulesets already.
		return fmt.Errorf("the module already declares the zone's %s ruleset (%s): add the rules to it by hand, exceptions first (sunset plan writes them)", nr.phase, ep.Address())
	}
	return f.appendAfter(ep, nr, rw)
}

// appendAfter adds nr's back rules after the rules of the declared entry point ep, in its
// own syntax (see appendRules).
func (f *fixer) appendAfter(ep *Resource, nr newRules, rw *Rewrite) error {
	raws, err := ruleList(nr, inventory.Ruleset{})
	if err != nil {
		return err
	}
	syntax := entryPointSyntax(ep)
	tmp := hclwrite.NewEmptyFile()
	if err := terraform.SetRules(tmp.Body().AppendNewBlock("resource", []string{typeRuleset, "tmp"}).Body(), raws, syntax); err != nil {
		return err
	}
	f.edits[ep.File] = append(f.edits[ep.File], appendRules(ep, ep.Block.Body.Attributes["rules"], syntax, hclwrite.Format(tmp.Bytes()))...)
	rw.New = ep.Address()
	rw.Notes = append(rw.Notes, f.mergeNote(ep, syntax))
	return nil
}

// entryPointOf is the zone's entry point of the phase as the snapshot shows it; false when
// it shows none.
func entryPointOf(z zoneInfo, phase vocab.Phase) (inventory.Ruleset, bool) {
	if z.inv == nil || z.id == "" {
		return inventory.Ruleset{}, false
	}
	return z.inv.Ruleset(phase)
}

// ruleList is front, the existing rules, then back, as JSON; a new rule whose ref an
// existing one has (an earlier migration), or that does what an existing one does (written
// by someone else: package meaning), is there already.
func ruleList(nr newRules, existing inventory.Ruleset) ([]json.RawMessage, error) {
	refs := map[string]int{}
	same := meaning.NewIndex(len(existing.Rules), func(i int) meaning.Key { return meaning.Rule(nr.phase, existing.Rules[i]) })
	var out []json.RawMessage
	add := func(rs []inventory.RulesetRule) error {
		for _, r := range rs {
			if i, ok := refs[r.Ref]; ok && r.Ref != "" {
				same.Reserve(i) // it stands for this rule only
				continue
			}
			if _, there := same.Claim(meaning.Rule(nr.phase, r)); there {
				continue
			}
			raw, err := json.Marshal(r)
			if err != nil {
				return err
			}
			out = append(out, raw)
		}
		return nil
	}
	for i, r := range existing.Rules {
		if _, dup := refs[r.Ref]; !dup {
			refs[r.Ref] = i
		}
	}
	if err := add(nr.front); err != nil {
		return nil, err
	}
	for _, r := range existing.Rules {
		out = append(out, migrate.TargetRule(r))
	}
	return out, add(nr.back)
}

// declaredRuleset finds the module's cloudflare_ruleset (not repeated) of the phase for the
// zone_id written as zoneText, and how many rules it declares.
func declaredRuleset(ev *evaluator, m *Module, phase vocab.Phase, zoneText string) (*Resource, int) {
	for _, r := range m.Resources {
		if r.Type != typeRuleset || r.Block == nil || r.Repeated() || knownString(ev, r.Attr("phase")) != string(phase) ||
			normalText(exprText(r.File, r.Attr("zone_id"))) != zoneText {
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
// order. A resource with count or for_each is left (repeated says why and what to do)
// unless expand is given and says its instances are known; so is one without zone_id.
func (f *fixer) byZone(m *Module, types []string, repeated string, expand func(*Resource) bool) []*zoneSet {
	index := map[string]*zoneSet{}
	var sets []*zoneSet
	for _, r := range m.Resources {
		if !slices.Contains(types, r.Type) {
			continue
		}
		zone := r.Attr("zone_id")
		switch {
		case r.Repeated() && (expand == nil || !expand(r)):
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
