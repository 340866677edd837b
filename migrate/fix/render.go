package fix

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/sunsetscan/sunset/migrate/customrules"
	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/textsafe"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// entryPointName is the name a new entry point gets, as `sunset plan` names it.
const entryPointName = "default"

// customRulesBlock renders the group's cloudflare_ruleset (with its comment line) and says
// in rw whether old and new were proven to decide alike.
func (f *fixer) customRulesBlock(ev *evaluator, g *group, name, guard string, res *customrules.Result, rw *Rewrite) (string, error) {
	file := hclwrite.NewEmptyFile()
	body := file.Body()
	rb := body.AppendNewBlock("resource", []string{typeRuleset, name}).Body()
	said := len(rw.Notes)
	if guard != "" {
		toks, err := textTokens(guard)
		if err != nil {
			return "", err
		}
		rb.SetAttributeRaw("count", toks)
		rw.Notes = append(rw.Notes, guardNotePrefix+" (count = "+guard+"), as the old rules were: no entry point for a module whose rules are off or empty")
	}
	if g.perInstance {
		for _, meta := range []string{"count", "for_each"} {
			if x := g.pairs[0].rule.Attr(meta); x != nil {
				toks, err := sourceTokens(g.pairs[0].rule.File, x)
				if err != nil {
					return "", err
				}
				rb.SetAttributeRaw(meta, toks)
			}
		}
	}
	zone, err := sourceTokens(g.pairs[0].rule.File, g.zone)
	if err != nil {
		return "", err
	}
	rb.SetAttributeRaw("zone_id", zone)
	rb.SetAttributeValue("name", cty.StringVal(entryPointName))
	rb.SetAttributeValue("kind", cty.StringVal("zone"))
	rb.SetAttributeValue("phase", cty.StringVal(string(vocab.PhaseCustomRules)))
	if err := f.setRules(ev, g, rb, res, rw, f.opts.Target); err != nil {
		return "", err
	}
	what := fmt.Sprintf("sunset fix: custom rules of zone %s, replacing %s (firewall rules and filters are deprecated: see sunset help fix).\nsunset fix: %s.", rw.Zone, joinAddrs(oldResources(g.pairs, nil), g.module), rw.Proven)
	for _, n := range rw.Notes[said:] {
		if strings.HasPrefix(n, guardNotePrefix) || strings.HasPrefix(n, threatNotePrefix) {
			what += "\nsunset fix: " + n + "."
		}
	}
	return commentLines(what, "") + string(hclwrite.Format(file.Bytes())), nil
}

// setRules writes the group's rules into rb for the target provider: the translation's
// rules when every pair is a single resource with known values, else HCL over the data.
func (f *fixer) setRules(ev *evaluator, g *group, rb *hclwrite.Body, res *customrules.Result, rw *Rewrite, target terraform.Provider) error {
	switch {
	case g.perInstance:
		return f.perInstanceRules(ev, g, rb, rw, target)
	case res != nil && allLiteral(g):
		rules := make([]json.RawMessage, 0, len(res.Ruleset))
		for _, r := range res.Ruleset {
			raw, err := json.Marshal(r)
			if err != nil {
				return err
			}
			rules = append(rules, raw)
		}
		if err := terraform.SetRules(rb, rules, target); err != nil {
			return err
		}
		old, _ := groupRules(ev, g)
		rw.Proven, rw.IsProof = verifyRules(old, g.live, rules)
		return nil
	}
	return f.drivenRules(ev, g, rb, rw, target)
}

// allLiteral reports whether every pair is a single resource written in literals only:
// anything else (a variable, a local, templatefile) stays in the HCL, driving the rules.
func allLiteral(g *group) bool {
	for _, p := range g.pairs {
		if !literalPair(p) {
			return false
		}
	}
	return true
}

// ruleAttrs and filterAttrs are the attributes a custom rule is made from.
var (
	ruleAttrs   = []string{"action", "description", "paused", "priority", "products"}
	filterAttrs = []string{"expression", "description"}
)

// literalPair reports whether a pair is one resource each whose rule-making attributes are
// literals (no reference, no function call).
func literalPair(p *pair) bool {
	if p.rule.Repeated() || p.filter.Repeated() {
		return false
	}
	for _, c := range []struct {
		r     *Resource
		attrs []string
	}{{p.rule, ruleAttrs}, {p.filter, filterAttrs}} {
		for _, a := range c.attrs {
			x := c.r.Attr(a)
			if c.r == p.filter {
				x = filterAttr(c.r, a)
			}
			if x != nil && !isLiteral(x) {
				return false
			}
		}
	}
	return true
}

// isLiteral reports whether x refers to nothing and calls nothing.
func isLiteral(x hclsyntax.Expression) bool {
	if len(x.Variables()) > 0 {
		return false
	}
	literal := true
	_ = hclsyntax.VisitAll(x, func(n hclsyntax.Node) hcl.Diagnostics {
		if _, call := n.(*hclsyntax.FunctionCallExpr); call {
			literal = false
		}
		return nil
	})
	return literal
}

func anyRepeated(g *group) bool {
	for _, p := range g.pairs {
		if p.rule.Repeated() || p.filter.Repeated() {
			return true
		}
	}
	return false
}

// drivenRules writes the rules as HCL over the same data, and proves them when the data is
// known: the HCL is evaluated and its rules compared with the old ones.
func (f *fixer) drivenRules(ev *evaluator, g *group, rb *hclwrite.Body, rw *Rewrite, target terraform.Provider) error {
	plan := rw.Plan
	old, known := groupRules(ev, g)
	list, threat, err := drivenList(g, func(p *pair) mapping {
		rules, ok := oldRules(ev, p)
		if !ok || !pairStatic(p) {
			// Values another environment may set (a root module's variables): the
			// mappings must hold for any of them.
			return mappingFor(nil, nil)
		}
		return ruleMapping(rules)
	}, func(p *pair) *part { return literalPart(ev, p, plan) })
	if err != nil {
		return err
	}
	if err := writeRuleList(rb, list, target); err != nil {
		return err
	}
	if len(threat) > 0 {
		rw.Notes = append(rw.Notes, threatNote(threat))
	}
	if !known {
		rw.Proven = "not proven: the rules come from values the repository does not hold (variables without a default, other resources); the mappings are written in HCL and apply to whatever values they get"
		return nil
	}
	exprs := map[string]bool{}
	for _, r := range old {
		exprs[r.Filter.Expression] = true
	}
	f.renameLiterals(exprs)
	rules, err := evaluateRules(ev, list)
	if err != nil {
		rw.Proven = "not proven: " + err.Error()
		return nil
	}
	rw.Proven, rw.IsProof = verifyRules(old, g.live, rules)
	return nil
}

// perInstanceRules writes the one rule of each instance of a pair whose zone differs per
// instance, and proves each instance's rule against its old one when the values are known.
func (f *fixer) perInstanceRules(ev *evaluator, g *group, rb *hclwrite.Body, rw *Rewrite, target terraform.Provider) error {
	p := g.pairs[0]
	old, known := oldRules(ev, p)
	mp := mappingFor(nil, nil)
	if known && pairStatic(p) {
		mp = ruleMapping(old)
	}
	pt, err := drivenPart(p, mp, true)
	if err != nil {
		return err
	}
	list := "[" + object(pt.members) + "]"
	if err := writeRuleList(rb, list, target); err != nil {
		return err
	}
	if pt.threat {
		rw.Notes = append(rw.Notes, threatNote([]string{p.rule.Address()}))
	}
	rw.Notes = append(rw.Notes, "one ruleset per instance: the zone_id differs per instance, so the ruleset repeats as the firewall rule did")
	insts, ok := instancesOf(ev, p.filter)
	if !known || !ok || len(insts) != len(old) {
		rw.Proven = "not proven: the rules come from values the repository does not hold; the mappings are written in HCL and apply to whatever values they get"
		return nil
	}
	exprs := map[string]bool{}
	for _, r := range old {
		exprs[r.Filter.Expression] = true
	}
	f.renameLiterals(exprs)
	x, diags := hclsyntax.ParseExpression([]byte(list), "generated", hcl.InitialPos)
	if diags.HasErrors() {
		return diags
	}
	requests := 0
	for i, in := range insts {
		rules, err := cruleList(ev.value(x, in.vars))
		if err != nil {
			rw.Proven = "not proven: " + err.Error()
			return nil
		}
		proof, same := verifyRules(old[i:i+1], nil, rules)
		if !same {
			rw.Proven = instanceAddress(p.rule, in.key) + ": " + proof
			return nil
		}
		requests++
	}
	rw.Proven, rw.IsProof = fmt.Sprintf("verified: each of the %d instances decides as its old rule on generated requests", requests), true
	return nil
}

// ruleMapping is the mapping known rules need.
func ruleMapping(rules []inventory.FirewallRule) mapping {
	texts, refs := []string{}, []string{}
	for _, r := range rules {
		texts = append(texts, r.Filter.Expression)
		refs = append(refs, r.Ref)
	}
	return mappingFor(texts, refs)
}

// writeRuleList sets a ruleset's rules to an HCL list expression: the rules attribute for
// provider v5, a dynamic "rules" block over it for v4.
func writeRuleList(rb *hclwrite.Body, list string, target terraform.Provider) error {
	toks, err := textTokens(list)
	if err != nil {
		return fmt.Errorf("generated rules do not parse (please report this): %w", err)
	}
	if target == terraform.ProviderV4 {
		writeDynamicRules(rb, toks)
	} else {
		rb.SetAttributeRaw("rules", toks)
	}
	return nil
}

// writeDynamicRules is provider v4's form of a computed rule list: a dynamic "rules" block
// over the list, action_parameters present only when set.
func writeDynamicRules(rb *hclwrite.Body, list hclwrite.Tokens) {
	d := rb.AppendNewBlock("dynamic", []string{"rules"}).Body()
	d.SetAttributeRaw("for_each", list)
	c := d.AppendNewBlock("content", nil).Body()
	for _, m := range []string{"ref", "description", "expression", "action", "enabled"} {
		c.SetAttributeTraversal(m, hcl.Traversal{hcl.TraverseRoot{Name: "rules"}, hcl.TraverseAttr{Name: "value"}, hcl.TraverseAttr{Name: m}})
	}
	ap := c.AppendNewBlock("dynamic", []string{"action_parameters"}).Body()
	apToks, _ := textTokens("rules.value.action_parameters == null ? [] : [rules.value.action_parameters]")
	ap.SetAttributeRaw("for_each", apToks)
	apc := ap.AppendNewBlock("content", nil).Body()
	for _, m := range []string{"ruleset", "products", "phases"} {
		apc.SetAttributeTraversal(m, hcl.Traversal{hcl.TraverseRoot{Name: "action_parameters"}, hcl.TraverseAttr{Name: "value"}, hcl.TraverseAttr{Name: m}})
	}
}

// evaluateRules evaluates a generated list with the module's known values, as the API's
// rule JSON (null members dropped).
func evaluateRules(ev *evaluator, list string) ([]json.RawMessage, error) {
	x, diags := hclsyntax.ParseExpression([]byte(list), "generated", hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diags
	}
	return cruleList(ev.value(x, nil))
}

// cruleList is an evaluated rule list as the API's rule JSON.
func cruleList(v cty.Value) ([]json.RawMessage, error) {
	if !v.IsWhollyKnown() {
		return nil, fmt.Errorf("the generated rules do not evaluate with the repository's values")
	}
	var out []json.RawMessage
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		raw, err := ctyJSON(e)
		if err != nil {
			return nil, err
		}
		out = append(out, raw)
	}
	return out, nil
}

// ctyJSON is a value as JSON without its null members.
func ctyJSON(v cty.Value) (json.RawMessage, error) {
	switch {
	case v.IsNull():
		return json.RawMessage("null"), nil
	case v.Type().IsObjectType() || v.Type().IsMapType():
		var b bytes.Buffer
		b.WriteByte('{')
		n := 0
		for k, e := range v.AsValueMap() {
			if e.IsNull() {
				continue
			}
			raw, err := ctyJSON(e)
			if err != nil {
				return nil, err
			}
			if n > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			b.Write(raw)
			n++
		}
		b.WriteByte('}')
		return b.Bytes(), nil
	case v.Type().IsTupleType() || v.Type().IsListType() || v.Type().IsSetType():
		var parts []json.RawMessage
		for _, e := range v.AsValueSlice() {
			raw, err := ctyJSON(e)
			if err != nil {
				return nil, err
			}
			parts = append(parts, raw)
		}
		if parts == nil {
			parts = []json.RawMessage{}
		}
		return json.Marshal(parts)
	case v.Type().Equals(cty.String):
		return json.Marshal(v.AsString())
	case v.Type().Equals(cty.Bool):
		return json.Marshal(v.True())
	case v.Type().Equals(cty.Number):
		return json.RawMessage(v.AsBigFloat().Text('f', -1)), nil
	}
	return nil, fmt.Errorf("unsupported value of type %s", v.Type().FriendlyName())
}

// textTokens parses HCL expression source into tokens.
func textTokens(src string) (hclwrite.Tokens, error) {
	f, diags := hclwrite.ParseConfig([]byte("x = "+src+"\n"), "generated", hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diags
	}
	return f.Body().GetAttribute("x").Expr().BuildTokens(nil), nil
}

// sourceTokens are an expression's tokens as the user wrote it.
func sourceTokens(file *File, x hclsyntax.Expression) (hclwrite.Tokens, error) {
	return textTokens(exprText(file, x))
}

// commentLines is text as "# " lines (safe: one line each, no control characters),
// indented.
func commentLines(text, indent string) string {
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		b.WriteString(indent + "# " + textsafe.Sanitize(l) + "\n")
	}
	return b.String()
}

// rulesetName names the new ruleset after the zone_id's last name (cloudflare_zone.example
// -> example_custom_rules), unique in the module.
func rulesetName(m *Module, g *group) string {
	return zoneRulesetName(m, g.pairs[0].rule.File, g.zone, "custom_rules")
}

// zoneRulesetName names a new ruleset SHORT after the zone_id's last name
// (cloudflare_zone.example -> example_SHORT), unique in the module.
func zoneRulesetName(m *Module, file *File, zone hclsyntax.Expression, short string) string {
	base := short
	var last string
	for _, tr := range zone.Variables() {
		for _, t := range tr {
			if n := attrName(t); n != "" && n != "id" && n != "zone_id" {
				last = n
			}
		}
	}
	if last != "" && len(zone.Variables()) == 1 && !strings.HasPrefix(exprText(file, zone), "var.") {
		base = sanitizeName(last) + "_" + short
	}
	return uniqueName(m, typeRuleset, base)
}

func sanitizeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// uniqueName is base, or base_2, base_3... when the module already declares TYPE.base.
func uniqueName(m *Module, typ, base string) string {
	if m.taken == nil {
		m.taken = map[string]bool{}
		for _, r := range m.Resources {
			m.taken[r.Address()] = true
		}
	}
	name := base
	for i := 2; m.taken[typ+"."+name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	m.taken[typ+"."+name] = true
	return name
}
