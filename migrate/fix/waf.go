package fix

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// The previous WAF's resource types (provider v3: no v4 or v5 provider has them).
const (
	typeWAFPackage  = "cloudflare_waf_package"
	typeWAFGroup    = "cloudflare_waf_group"
	typeWAFRule     = "cloudflare_waf_rule"
	typeWAFOverride = "cloudflare_waf_override"
)

// wafIDAttr names the attribute holding the id of the object each type configures.
var wafIDAttr = map[string]string{typeWAFPackage: "package_id", typeWAFGroup: "group_id", typeWAFRule: "rule_id"}

// traditionalPackage stands for the zone's Cloudflare package when the configuration
// configures it (its groups, rules or URL overrides) without declaring it.
const traditionalPackage = "cloudflare-package"

// wafGroup is the previous WAF's resources of one zone in one module.
type wafGroup struct {
	module   *Module
	zone     hclsyntax.Expression
	zoneText string
	res      []*Resource
	zi       inventory.ZoneInventory
	pkgs     map[string]int         // package id -> index in zi.WAFPackages
	ids      map[*Resource][]string // the objects each resource configures, one per instance
}

// previousWAF rewrites the module's previous WAF (packages, groups, rules, URL overrides),
// per zone, into the managed rules entry point (phase http_request_firewall_managed) as
// `sunset plan` maps them: execute rules of the managed rulesets, with the OWASP settings
// as overrides, and skip exceptions for the URL overrides. What the plan does not carry
// over stays as it is with a comment.
func (f *fixer) previousWAF(ev *evaluator, m *Module) {
	types := []string{typeWAFPackage, typeWAFGroup, typeWAFRule, typeWAFOverride}
	written := map[string]bool{}
	expand := func(r *Resource) bool { return staticInstances(ev, r) }
	for _, s := range f.byZone(m, types, "the repository does not decide its instances (a variable or a value from elsewhere): write one resource per object, or move it to the managed rules ruleset by hand", expand) {
		written[s.zoneText] = f.wafZone(ev, &wafGroup{module: m, zone: s.zone, zoneText: s.zoneText, res: s.res, pkgs: map[string]int{}, ids: map[*Resource][]string{}})
	}
	// A waf switch on whose zone's entry point these resources were to write (wafswitch.go).
	for _, key := range slices.Sorted(maps.Keys(f.waf.onWithPackages)) {
		dir, zoneText, _ := strings.Cut(key, "\x00")
		if r := f.waf.onWithPackages[key]; dir == m.Dir && !written[zoneText] {
			f.wafNotCarried(r)
		}
	}
}

// wafZone maps one zone's previous WAF and writes its managed rules ruleset; false when it
// rewrites nothing.
func (f *fixer) wafZone(ev *evaluator, g *wafGroup) bool {
	zone := f.zoneOf(ev, &group{module: g.module, zone: g.zone, zoneText: g.zoneText})
	g.zi.Zone = inventory.Zone{ID: orText(zone.id, g.zoneText), Name: zone.name, Plan: inventory.ZonePlan{LegacyID: zone.plan}}
	if zone.inv != nil {
		g.zi.Rulesets = zone.inv.Rulesets // what the entry point already executes is not executed twice
	}
	var known []*Resource
	// Packages first, so that their groups and rules find them.
	res := slices.Clone(g.res)
	slices.SortStableFunc(res, func(a, b *Resource) int {
		return boolRank(a.Type != typeWAFPackage) - boolRank(b.Type != typeWAFPackage)
	})
	for _, r := range res {
		if why := g.read(ev, r); why != "" {
			f.leave(r, r.Address()+" not rewritten: "+why)
			continue
		}
		known = append(known, r)
	}
	if len(known) == 0 {
		return false
	}
	if _, on := f.waf.onWithPackages[wafKey(g.module, g.zoneText)]; on {
		g.packageFor("") // the zone's waf switch is on: its Cloudflare package ran
	}
	mapping := migrate.MapWAF(&g.zi)
	var gone []*Resource
	for _, r := range known {
		if why := wafLeft(r, g.ids[r], mapping); why != "" {
			f.leave(r, r.Address()+" not rewritten: "+why)
			continue
		}
		gone = append(gone, r)
	}
	if len(gone) == 0 {
		return false
	}
	rw := Rewrite{Module: g.module.Dir, File: gone[0].File.Path, Line: gone[0].Line(), Zone: zone.label(g.zoneText), Plan: zone.plan,
		Proven: "not proven: derived, as sunset plan maps them (old group and rule ids do not map to new ones; an exception skips whole rulesets for its URLs)"}
	for _, r := range gone {
		rw.Old = append(rw.Old, r.Address())
	}
	block := ""
	if len(mapping.Exceptions)+len(mapping.Executes) > 0 {
		var err error
		if block, err = f.managedRulesBlock(g, zone, mapping, &rw); err != nil {
			for _, r := range gone {
				f.leave(r, r.Address()+" not rewritten: "+err.Error())
			}
			return false
		}
	}
	rw.Notes = append(rw.Notes, wafNotes(g, zone, mapping)...)
	f.drop(gone, block, rw.New)
	f.res.Rewrites = append(f.res.Rewrites, rw)
	return true
}

func orText(s, other string) string {
	if s != "" {
		return s
	}
	return other
}

// staticInstances reports whether r's count or for_each is decided by the repository alone
// (staticSize) and its zone_id is the same for every instance: its instances are then read
// one by one, as Terraform would make them.
func staticInstances(ev *evaluator, r *Resource) bool {
	x := r.Attr("for_each")
	if x == nil {
		x = r.Attr("count")
	}
	zone := r.Attr("zone_id")
	return staticSize(ev, x) > 0 && (zone == nil || !refersTo(zone, "each", "count"))
}

// read adds the objects of a resource's instances to the zone's inventory; it says why it
// cannot ("" when it can).
func (g *wafGroup) read(ev *evaluator, r *Resource) string {
	if id := wafIDAttr[r.Type]; id != "" && r.Attr(id) == nil {
		return "it has no " + id + noIDReason(r)
	}
	ins, ok := instancesOf(ev, r)
	if !ok {
		return "the repository does not hold its count or for_each"
	}
	for _, in := range ins {
		b := newInstanceReader(ev, r, in)
		id := g.readOne(b, r, in)
		if len(b.rd.unknown) > 0 {
			return "the repository does not hold the value of " + strings.Join(b.rd.unknown, ", ")
		}
		g.ids[r] = append(g.ids[r], id)
	}
	return ""
}

// noIDReason says what a cloudflare_waf_rule without its rule_id looks like it was meant to
// be: with a filter or an action, a firewall rule written under the wrong type.
func noIDReason(r *Resource) string {
	if r.Type != typeWAFRule || (!hasBlock(r.Block.Body, "filter") && r.Attr("action") == nil && r.Attr("filter") == nil) {
		return ""
	}
	return " (a cloudflare_waf_rule names one rule of a WAF package; with a filter and an action this block reads as a firewall rule, which no provider took under this type: write it as a custom rule of the " + string(vocab.PhaseCustomRules) + " entry point)"
}

// readOne reads one instance and returns the id of what it configures; what it cannot read
// is in b's unknown, and then nothing is added.
func (g *wafGroup) readOne(b body, r *Resource, in instance) string {
	switch r.Type {
	case typeWAFPackage:
		p := inventory.WAFPackage{ID: b.str("package_id"), Sensitivity: b.str("sensitivity"), ActionMode: b.str("action_mode")}
		p.Name, p.DetectionMode = "OWASP ModSecurity Core Rule Set", "anomaly"
		if p.Sensitivity == "" && p.ActionMode == "" {
			p.Name, p.DetectionMode = "CloudFlare", "traditional"
		}
		if len(b.rd.unknown) == 0 {
			g.addPackage(p)
		}
		return p.ID
	case typeWAFGroup:
		grp := inventory.WAFGroup{ID: b.str("group_id"), Mode: b.str("mode"), PackageID: b.str("package_id")}
		grp.Name = grp.ID // the name is not in the configuration: no category can be derived from it
		if len(b.rd.unknown) == 0 {
			p := g.packageFor(grp.PackageID)
			p.Groups = append(p.Groups, grp)
		}
		return grp.ID
	case typeWAFRule:
		rule := inventory.WAFRule{ID: b.str("rule_id"), Mode: b.str("mode"), PackageID: b.str("package_id"), DefaultMode: "default"}
		if len(b.rd.unknown) == 0 {
			p := g.packageFor(rule.PackageID)
			p.Rules = append(p.Rules, rule)
		}
		return rule.ID
	}
	id := r.Name
	if in.key != "" {
		id += "_" + in.key // each instance its own exception ref
	}
	o := inventory.WAFOverride{ID: id, Description: b.str("description"), URLs: b.strs("urls"),
		Priority: b.integer("priority"), Paused: b.boolean("paused"), Groups: b.strMap("groups"), Rules: b.strMap("rules"), RewriteAction: b.strMap("rewrite_action")}
	if len(b.rd.unknown) == 0 {
		g.packageFor("")
		g.zi.WAFOverrides = append(g.zi.WAFOverrides, o)
	}
	return o.ID
}

// packageFor is the package id of the zone, else the Cloudflare package (added when first
// needed): a group, rule or override of a package the configuration does not declare is
// taken as the Cloudflare package's.
func (g *wafGroup) packageFor(id string) *inventory.WAFPackageInventory {
	if i, ok := g.pkgs[id]; ok && id != "" {
		return &g.zi.WAFPackages[i]
	}
	if _, ok := g.pkgs[traditionalPackage]; !ok {
		g.addPackage(inventory.WAFPackage{ID: traditionalPackage, Name: "CloudFlare", DetectionMode: "traditional"})
	}
	return &g.zi.WAFPackages[g.pkgs[traditionalPackage]]
}

func (g *wafGroup) addPackage(p inventory.WAFPackage) {
	g.pkgs[p.ID] = len(g.zi.WAFPackages)
	g.zi.WAFPackages = append(g.zi.WAFPackages, inventory.WAFPackageInventory{Package: p})
}

// wafLeft says why the plan does not carry r over ("" when it does): the plan's items for
// an operator that name one of its objects (ids, one per instance), or why its URL override
// cannot become an exception.
func wafLeft(r *Resource, ids []string, mapping migrate.WAFMapping) string {
	var why []string
	for _, id := range ids {
		if r.Type == typeWAFOverride {
			if kept, ok := mapping.Kept[id]; ok {
				why = append(why, strings.Join(kept, "; ")+". Write the exception or rule overrides in the "+string(vocab.PhaseManaged)+" entry point by hand")
			}
			continue
		}
		for _, item := range mapping.Manual {
			switch {
			case r.Type == typeWAFPackage && strings.HasPrefix(item, "package ") && strings.Contains(item, id) && !strings.Contains(item, "rules not at their default"),
				r.Type == typeWAFGroup && strings.Contains(item, fmt.Sprintf("group %q", id)),
				r.Type == typeWAFRule && strings.Contains(item, "rule "+id+" "):
				if !slices.Contains(why, item) {
					why = append(why, item) // one item may name several instances
				}
			}
		}
	}
	return strings.Join(why, "; ")
}

// managedRulesBlock renders the zone's cloudflare_ruleset of phase
// http_request_firewall_managed with its comment line: the exceptions before the rules the
// entry point may hold, the execute rules after them, as the plan places them.
func (f *fixer) managedRulesBlock(g *wafGroup, zone zoneInfo, mapping migrate.WAFMapping, rw *Rewrite) (string, error) {
	what := fmt.Sprintf("sunset fix: managed rules of zone %s, replacing %s (the previous version of WAF managed rules is deprecated: see sunset help fix).", rw.Zone, strings.Join(rw.Old, ", "))
	return f.entryPoint(g.module, g.res[0].File, g.zone, zone, newRules{phase: vocab.PhaseManaged, short: "managed_rules", front: mapping.Exceptions, back: mapping.Executes, what: what}, rw)
}

// wafNotes say what the mapping assumed and why the old resources leave no state step.
func wafNotes(g *wafGroup, zone zoneInfo, mapping migrate.WAFMapping) []string {
	var notes []string
	if zone.plan != "" {
		notes = append(notes, "plan "+zone.plan+" from "+zone.source)
	} else {
		notes = append(notes, "zone plan not known (say it with --zone-plan NAME=LEVEL or --snapshot): written as for a paid plan (the Cloudflare Managed Ruleset and the OWASP Core Ruleset need Pro or higher; a Free zone executes the Free Managed Ruleset instead)")
	}
	if _, ok := g.pkgs[traditionalPackage]; ok {
		notes = append(notes, "the configuration sets groups, rules or URL overrides of a package it does not declare: taken as the Cloudflare package, which the Cloudflare Managed Ruleset replaces")
	}
	notes = append(notes, "cloudflare_waf_* are provider v3 types: no v4 or v5 provider has them, so no v4 or v5 state holds them; they go without a removed block or state step (a state still on v3: terraform state rm them before moving to v4)")
	return append(notes, mapping.Manual...)
}

// drop removes resources that no provider since v3 has (no removed block, no state step),
// block (if any, declaring newAddr) where the first was; references to them are then
// pointed at newAddr or reported (see references).
func (f *fixer) drop(rs []*Resource, block, newAddr string) {
	inFileOrder(rs)
	f.swap(rs, block, newAddr, false)
}
