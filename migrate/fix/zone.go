package fix

import (
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// zoneInfo is what fix knows of the zone a group's zone_id names.
type zoneInfo struct {
	id, name string // "" when not known
	plan     string // free, pro, business, enterprise; "" when not known
	source   string // where the plan comes from, for the summary
	inv      *inventory.ZoneInventory
}

// label names the zone for people: its name, else its id, else the zone_id as written.
func (z zoneInfo) label(text string) string {
	switch {
	case z.name != "":
		return z.name
	case z.id != "":
		return z.id
	}
	return text
}

// zoneOf resolves a group's zone_id: a known id (literal, variable default, tfvars), a
// cloudflare_zone resource of the module (its zone/name and plan) or a cloudflare_zone data
// source (its name); then the plan from --zone-plan (by name, id or the expression as
// written), else the snapshot, else the cloudflare_zone resource's plan.
func (f *fixer) zoneOf(ev *evaluator, g *group) zoneInfo {
	var z zoneInfo
	if v := ev.value(g.zone, nil); v.IsWhollyKnown() && !v.IsNull() && v.Type().Equals(cty.String) {
		z.id = v.AsString()
	}
	resPlan := ""
	if tr, ok := g.zone.(*hclsyntax.ScopeTraversalExpr); ok {
		z.name, resPlan = zoneResource(ev, g.module, tr)
	}
	if f.opts.Snapshot != nil {
		for i := range f.opts.Snapshot.Zones {
			zi := &f.opts.Snapshot.Zones[i]
			if (z.id != "" && zi.Zone.ID == z.id) || (z.name != "" && zi.Zone.Name == z.name) {
				z.id, z.name, z.inv = zi.Zone.ID, zi.Zone.Name, zi
				z.plan, z.source = strings.ToLower(zi.Zone.Plan.LegacyID), "the snapshot"
			}
		}
	}
	for _, k := range []string{z.name, z.id, g.zoneText} {
		if p, ok := f.opts.ZonePlans[k]; ok && k != "" {
			z.plan, z.source = p, "--zone-plan "+k
			return z
		}
	}
	if z.plan == "" && resPlan != "" {
		z.plan, z.source = resPlan, "the cloudflare_zone resource"
	}
	return z
}

// zoneResource reads cloudflare_zone.X.id (its zone or name, and plan) or
// data.cloudflare_zone.X.id (its name).
func zoneResource(ev *evaluator, m *Module, tr *hclsyntax.ScopeTraversalExpr) (name, plan string) {
	t := tr.Traversal
	var typ, label string
	switch {
	case len(t) == 3 && t.RootName() == "cloudflare_zone":
		typ, label = "resource", attrName(t[1])
	case len(t) == 4 && t.RootName() == "data" && attrName(t[1]) == "cloudflare_zone":
		typ, label = "data", attrName(t[2])
	default:
		return "", ""
	}
	for _, f := range m.Files {
		for _, b := range f.Body.Blocks {
			if b.Type != typ || len(b.Labels) != 2 || b.Labels[0] != "cloudflare_zone" || b.Labels[1] != label {
				continue
			}
			for _, a := range []string{"zone", "name"} {
				if x, ok := b.Body.Attributes[a]; ok {
					name = knownString(ev, x.Expr)
				}
			}
			if x, ok := b.Body.Attributes["plan"]; ok {
				plan = knownString(ev, x.Expr)
			}
		}
	}
	return name, plan
}

func knownString(ev *evaluator, x hclsyntax.Expression) string {
	if x == nil {
		return "" // not set
	}
	v := ev.value(x, nil)
	if v.IsWhollyKnown() && !v.IsNull() && v.Type().Equals(cty.String) {
		return v.AsString()
	}
	return ""
}

const typeZone = "cloudflare_zone"

// zoneResources is what cloudflare_zone.NAME is worth in the module's expressions: each
// zone resource (not repeated) with the attributes written in it (its zone name, plan,
// account), its id and everything the provider computes unknown. Rate limit URLs and rule
// expressions are often built from the zone's name this way.
func (e *evaluator) zoneResources() cty.Value {
	if e.active[typeZone] {
		return cty.DynamicVal // a zone attribute that refers to a zone resource
	}
	e.active[typeZone] = true
	defer delete(e.active, typeZone)
	zones := map[string]cty.Value{}
	for _, r := range e.m.Resources {
		if r.Type != typeZone || r.Repeated() {
			continue
		}
		obj := map[string]cty.Value{"id": cty.UnknownVal(cty.String)}
		for name, a := range r.Block.Body.Attributes {
			obj[name] = e.value(a.Expr, nil)
		}
		zones[r.Name] = cty.ObjectVal(obj)
	}
	return objectOrEmpty(zones)
}
