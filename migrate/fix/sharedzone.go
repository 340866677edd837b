package fix

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/sunsetscan/sunset/scanner/repo"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// A zone has one entry point per phase. fix writes one per zone and module; when two
// modules hold old rules of one zone (a module's own, and its caller's through the module's
// zone_id output), or one holds old rules and another declares the zone's entry point, two
// cloudflare_ruleset blocks would claim it and the second create fails. So the zone each
// block names is followed as Terraform resolves it (a module's output to its value, a
// variable of a module called once to its caller's argument) and such rules are left.

// phaseOfType is the entry point phase the old resources of each type move to (a filter
// goes where the rule that uses it goes, whatever its module).
var phaseOfType = map[string]vocab.Phase{typeFirewallRule: vocab.PhaseCustomRules, typeRateLimit: vocab.PhaseRateLimiting}

// sharedZones finds, per module and zone as written, the zones whose entry point of a phase
// more than one module would declare, with the modules' directories.
func sharedZones(r *Repo) map[string][]string {
	declarers := map[string][]string{} // phase + zone identity -> module dirs
	keys := map[string][]string{}      // module dir + phase + zone text -> phase + identity
	for _, m := range r.Modules {
		for _, res := range m.Resources {
			phase, ok := phaseOfType[res.Type]
			if res.Type == typeRuleset {
				phase, ok = vocab.Phase(stringLiteral(res.Attr("phase"))), true
			}
			zone := res.Attr("zone_id")
			if !ok || zone == nil {
				continue
			}
			id := string(phase) + "\x00" + zoneIdentity(r, m, zone, 0)
			if !slices.Contains(declarers[id], m.Dir) {
				declarers[id] = append(declarers[id], m.Dir)
			}
			k := sharedKey(m, phase, normalText(exprText(res.File, zone)))
			keys[k] = append(keys[k], id)
		}
	}
	out := map[string][]string{}
	for k, ids := range keys {
		for _, id := range ids {
			if len(declarers[id]) > 1 {
				out[k] = declarers[id]
			}
		}
	}
	return out
}

func sharedKey(m *Module, phase vocab.Phase, zoneText string) string {
	return m.Dir + "\x00" + string(phase) + "\x00" + zoneText
}

// sharedWhy says why a module's old resources of a zone (as written) are left because
// another module also claims the zone's entry point of the phase, "" when none does.
func (f *fixer) sharedWhy(m *Module, phase vocab.Phase, zoneText string) string {
	dirs := f.shared[sharedKey(m, phase, zoneText)]
	if len(dirs) == 0 {
		return ""
	}
	rel := make([]string, 0, len(dirs))
	for _, d := range dirs { // from this module, wherever fix runs from: the comment stays true
		r, err := filepath.Rel(filepath.FromSlash(m.Dir), filepath.FromSlash(d))
		if err != nil {
			r = d
		}
		rel = append(rel, filepath.ToSlash(r))
	}
	return fmt.Sprintf("the zone's %s entry point would be declared by more than one module (%s, from this one), and a zone has one per phase: gather the zone's rules in one module, then run sunset fix again", phase, strings.Join(rel, ", "))
}

// zoneIdentity is what a zone_id expression of module m stands for, followed through module
// outputs and the variables of modules called once; a literal stands for itself.
func zoneIdentity(r *Repo, m *Module, x hclsyntax.Expression, depth int) string {
	x = repo.Unparen(x)
	if lit := stringLiteral(x); lit != "" {
		return "id:" + lit
	}
	tr, ok := x.(*hclsyntax.ScopeTraversalExpr)
	if !ok || depth > 8 || len(tr.Traversal) < 2 {
		return m.Dir + ":" + fmt.Sprintf("%T@%d", x, x.Range().Start.Byte)
	}
	t := tr.Traversal
	switch t.RootName() {
	case "module":
		if len(t) >= 3 {
			for _, c := range m.Calls {
				if c.Name == attrName(t[1]) && c.Target != nil && c.Target.Outputs[attrName(t[2])] != nil {
					return zoneIdentity(r, c.Target, c.Target.Outputs[attrName(t[2])], depth+1)
				}
			}
		}
	case "var":
		if c := onlyCaller(r, m); c != nil {
			if a, ok := c.Block.Body.Attributes[attrName(t[1])]; ok {
				return zoneIdentity(r, c.Caller, a.Expr, depth+1)
			}
		}
	}
	return m.Dir + ":" + traversalText(t)
}

// onlyCaller is the one module call of m, nil when m is a root or is called more than once.
func onlyCaller(r *Repo, m *Module) *ModuleCall {
	var found *ModuleCall
	for _, other := range r.Modules {
		for _, c := range other.Calls {
			if c.Target == m {
				if found != nil {
					return nil
				}
				found = c
			}
		}
	}
	return found
}

// traversalText is a traversal as written, without spaces: cloudflare_zone.z.id, x["k"].
func traversalText(t hcl.Traversal) string {
	var b strings.Builder
	for _, s := range t {
		switch s := s.(type) {
		case hcl.TraverseRoot:
			b.WriteString(s.Name)
		case hcl.TraverseAttr:
			b.WriteString("." + s.Name)
		case hcl.TraverseIndex:
			b.WriteString("[" + s.Key.GoString() + "]")
		default:
			b.WriteString("[*]")
		}
	}
	return b.String()
}
