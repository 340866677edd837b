package fix

import (
	"fmt"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Resource types fix rewrites.
const (
	typeFilter       = "cloudflare_filter"
	typeFirewallRule = "cloudflare_firewall_rule"
	typeRuleset      = "cloudflare_ruleset"
)

// pair is a firewall rule and the filter its filter_id names, in the same module.
type pair struct {
	rule   *Resource
	filter *Resource
	// viaFilter: the rule's for_each is the filter resource itself (for_each =
	// cloudflare_filter.F), so its each.value is the filter's instance.
	viaFilter bool
	// inline: provider v5's firewall rule, its filter an object inside it (filter = {...})
	// and its action an object (action = { mode = ... }); filter is the rule itself.
	inline bool
}

// group is the firewall rules of one zone in one module: they become one ruleset.
type group struct {
	module   *Module
	zone     hclsyntax.Expression
	zoneText string
	pairs    []*pair
	// perInstance: the zone_id differs per instance of the (single) pair, so the ruleset
	// repeats as the pair does, one rule in each.
	perInstance bool
	// live is the zone's entry point as a snapshot holds it (its rules run first).
	live *inventory.Ruleset
}

// leftRule is a firewall rule fix cannot pair with its filter, and why.
type leftRule struct {
	rule *Resource
	why  string
}

// firewallGroups finds the module's firewall rules, pairs each with its filter (by the
// reference in filter_id, resolved as Terraform resolves it) and groups them by the zone_id
// they are written with. Rules fix cannot pair are returned with the reason and left as
// they are; orphans are the filters no paired rule uses.
func firewallGroups(m *Module) (groups []*group, orphans []*Resource, left []leftRule) {
	ev := evaluatorOf(m)
	filters := map[string]*Resource{}
	used := map[string]bool{}
	for _, r := range m.Resources {
		if r.Type == typeFilter {
			filters[r.Name] = r
		}
	}
	byZone := map[string]*group{}
	for _, r := range m.Resources {
		if r.Type != typeFirewallRule {
			continue
		}
		p, why := pairOf(ev, r, filters)
		if p == nil {
			left = append(left, leftRule{r, r.Address() + " left as it is: " + why})
			continue
		}
		if p.filter.Module == m && p.filter.Type == typeFilter {
			used[p.filter.Name] = true
		}
		zone := r.Attr("zone_id")
		text := normalText(exprText(r.File, zone))
		if mentionsIteration(zone) {
			if p.viaFilter {
				left = append(left, leftRule{r, r.Address() + " left as it is: its zone_id differs per instance (" + text + ") and it iterates over its filter; iterate both over the same collection, or move the rules into a module called per zone"})
				continue
			}
			groups = append(groups, &group{module: m, zone: zone, zoneText: text, pairs: []*pair{p}, perInstance: true})
			continue
		}
		g := byZone[text]
		if g == nil {
			g = &group{module: m, zone: zone, zoneText: text}
			byZone[text] = g
			groups = append(groups, g)
		}
		g.pairs = append(g.pairs, p)
	}
	for _, r := range m.Resources {
		if r.Type == typeFilter && !used[r.Name] {
			orphans = append(orphans, r)
		}
	}
	return groups, orphans, left
}

// pairOf finds the filter of a firewall rule, and checks that each instance of the rule
// names the instance of the filter that iterates alike (see sameInstance).
func pairOf(ev *evaluator, r *Resource, filters map[string]*Resource) (*pair, string) {
	ref := r.Attr("filter_id")
	if ref == nil {
		x := r.Attr("filter")
		if x == nil {
			return nil, "it has no filter_id"
		}
		if _, isRef := filterLinkOf(x); !isRef {
			return inlinePair(r)
		}
		ref = x // provider v5: filter = { id = cloudflare_filter.F.id }
	}
	l, ok := filterLinkOf(ref)
	if !ok {
		return indirectPair(r, ref, filters)
	}
	f := filters[l.name]
	if f == nil {
		return nil, fmt.Sprintf("cloudflare_filter.%s is not in this module", l.name)
	}
	via, why := sameInstance(ev, r, f, l)
	if why != "" {
		return nil, why
	}
	return &pair{rule: r, filter: f, viaFilter: via}, ""
}

// inlinePair pairs a provider v5 firewall rule with the filter written inside it. Only a
// single resource written in literals is rewritten: its values become the rule.
func inlinePair(r *Resource) (*pair, string) {
	if r.Repeated() {
		return nil, "it is provider v5's firewall rule (filter written inside it) with count or for_each: fix rewrites those one resource at a time"
	}
	for _, a := range []string{"filter", "action", "description", "paused", "priority", "products"} {
		if x := r.Attr(a); x != nil && !isLiteral(x) {
			return nil, "it is provider v5's firewall rule (filter written inside it) and its " + a + " is not written as a literal: fix rewrites those only with their values"
		}
	}
	return &pair{rule: r, filter: r, inline: true}, ""
}

// indirectPair pairs a rule whose filter_id is not cloudflare_filter.F...id: each.value.id
// of a rule iterating over its filter, or a module's output.
func indirectPair(r *Resource, ref hclsyntax.Expression, filters map[string]*Resource) (*pair, string) {
	if fe := r.Attr("for_each"); isEachValueID(ref) && fe != nil {
		// for_each = cloudflare_filter.F with filter_id = each.value.id
		if t, isTr := fe.(*hclsyntax.ScopeTraversalExpr); isTr && len(t.Traversal) == 2 && t.Traversal.RootName() == typeFilter {
			if f := filters[attrName(t.Traversal[1])]; f != nil {
				return &pair{rule: r, filter: f, viaFilter: true}, ""
			}
		}
	}
	f, why := moduleFilter(r, ref)
	switch {
	case f != nil:
		return &pair{rule: r, filter: f}, ""
	case why != "":
		return nil, why
	}
	return nil, "its filter_id is not a reference to a cloudflare_filter of this configuration (" + exprText(r.File, ref) + "): the expression to migrate is not here"
}

// moduleFilter follows filter_id = module.M.OUTPUT to the filter a local module declares
// (its output being cloudflare_filter.F.id). Only single resources written in literals are
// paired across modules: their values are what the rule becomes, wherever they are written.
// A nil filter with a reason says why a module reference cannot be followed; with no reason,
// the reference is not to a module.
func moduleFilter(r *Resource, ref hclsyntax.Expression) (*Resource, string) {
	tr, ok := ref.(*hclsyntax.ScopeTraversalExpr)
	if !ok || len(tr.Traversal) != 3 || tr.Traversal.RootName() != "module" {
		return nil, ""
	}
	call, output := attrName(tr.Traversal[1]), attrName(tr.Traversal[2])
	for _, c := range r.Module.Calls {
		if c.Name != call || c.Target == nil {
			continue
		}
		if len(c.Target.CalledBy) != 1 || c.Block.Body.Attributes["count"] != nil || c.Block.Body.Attributes["for_each"] != nil {
			return nil, fmt.Sprintf("its filter comes from module %s, which is called more than once: fix pairs across modules only a module called once", call)
		}
		l, ok := filterLinkOf(c.Target.Outputs[output])
		if !ok || l.key != nil || l.first || l.lookup != nil {
			return nil, fmt.Sprintf("output %s of module %s is not cloudflare_filter.NAME.id", output, call)
		}
		for _, f := range c.Target.Resources {
			if f.Type == typeFilter && f.Name == l.name {
				if r.Repeated() || !literalPair(&pair{rule: r, filter: f}) {
					return nil, fmt.Sprintf("its filter is %s in module %s and they are not both single resources written in literals: fix pairs across modules only those", f.Address(), call)
				}
				return f, ""
			}
		}
	}
	return nil, ""
}

func attrName(t hcl.Traverser) string {
	if a, ok := t.(hcl.TraverseAttr); ok {
		return a.Name
	}
	return ""
}

// isResourceRef reports whether x is exactly TYPE.NAME.
func isResourceRef(x hclsyntax.Expression, typ, name string) bool {
	e, ok := x.(*hclsyntax.ScopeTraversalExpr)
	return ok && len(e.Traversal) == 2 && e.Traversal.RootName() == typ && attrName(e.Traversal[1]) == name
}

// isEachValueID reports whether x is each.value.id.
func isEachValueID(x hclsyntax.Expression) bool {
	e, ok := x.(*hclsyntax.ScopeTraversalExpr)
	return ok && len(e.Traversal) == 3 && e.Traversal.RootName() == "each" && attrName(e.Traversal[1]) == "value" && attrName(e.Traversal[2]) == "id"
}

func eachKey(x hclsyntax.Expression) bool { return isTraversal(x, "each", "key") }

func countIndex(x hclsyntax.Expression) bool { return isTraversal(x, "count", "index") }

func isTraversal(x hclsyntax.Expression, root, attr string) bool {
	e, ok := x.(*hclsyntax.ScopeTraversalExpr)
	return ok && len(e.Traversal) == 2 && e.Traversal.RootName() == root && attrName(e.Traversal[1]) == attr
}

// mentionsIteration reports whether x refers to each.* or count.*.
func mentionsIteration(x hclsyntax.Expression) bool {
	if x == nil {
		return false
	}
	for _, tr := range x.Variables() {
		if tr.RootName() == "each" || tr.RootName() == "count" {
			return true
		}
	}
	return false
}

// sameExpr reports whether two expressions are written alike (spaces aside).
func sameExpr(r1 *Resource, x1 hclsyntax.Expression, r2 *Resource, x2 hclsyntax.Expression) bool {
	return x1 != nil && x2 != nil && normalText(exprText(r1.File, x1)) == normalText(exprText(r2.File, x2))
}

// normalText is source text with runs of white space made one space.
func normalText(s string) string { return strings.Join(strings.Fields(s), " ") }

// exprText is an expression's source, "" for none.
func exprText(f *File, x hclsyntax.Expression) string {
	if x == nil {
		return ""
	}
	r := x.Range()
	return string(f.Src[r.Start.Byte:r.End.Byte])
}

// sortPairs puts a group's pairs in file order, for a stable output.
func sortPairs(ps []*pair) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i].rule, ps[j].rule
		if a.File.Path != b.File.Path {
			return a.File.Path < b.File.Path
		}
		return a.Block.Range().Start.Byte < b.Block.Range().Start.Byte
	})
}

// reportOrphans lists the filters no rewritten rule used, each with a comment above it: a
// filter nothing refers to is said to be unused (a rule of another module may have used
// one through an output, and then it was rewritten with it); one that something still
// refers to stays with what refers to it named.
func (f *fixer) reportOrphans() {
	for _, r := range f.orphans {
		if _, gone := f.replacedBy[r]; gone {
			continue
		}
		by := referrers(r)
		if len(by) == 0 {
			f.leave(r, r.Address()+" is used by no firewall rule (nothing in this configuration refers to it): nothing to migrate; delete it")
			continue
		}
		f.leave(r, fmt.Sprintf("%s not rewritten: no firewall rule fix rewrote uses it, but it is still referred to by %s; it can go once nothing refers to it", r.Address(), joinList(by)))
	}
}

// referrers are the blocks that refer to r (its module's, and the modules that read its
// module's outputs naming it), by name.
func referrers(r *Resource) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, file := range r.Module.Files {
		for _, b := range file.Body.Blocks {
			if b == r.Block || !mentions(b.Body, r.Type, r.Name) {
				continue
			}
			add(blockName(b))
			if b.Type == "output" && len(b.Labels) == 1 {
				for _, c := range r.Module.CalledBy {
					add(fmt.Sprintf("what reads module.%s.%s in %s", c.Name, b.Labels[0], c.Caller.Dir))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// mentions reports whether body refers to TYPE.NAME.
func mentions(body *hclsyntax.Body, typ, name string) bool {
	found := false
	_ = hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		if x, ok := n.(hclsyntax.Expression); ok && !found {
			for _, tr := range x.Variables() {
				if tr.RootName() == typ && len(tr) > 1 && attrName(tr[1]) == name {
					found = true
				}
			}
		}
		return nil
	})
	return found
}
