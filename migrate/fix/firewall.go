package fix

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/customrules"
	"github.com/sunsetscan/sunset/migrate/verify"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// firewallGroup rewrites one zone's firewall rules and filters of a module into a
// cloudflare_ruleset of phase http_request_firewall_custom: literally (the translation's
// rules, as `sunset plan` writes them) when every rule is a single resource whose values
// the repository holds, else as HCL driven by the same data. Rules the translation cannot
// carry over stay as they are, with a comment saying what to decide.
func (f *fixer) firewallGroup(ev *evaluator, g *group) {
	if f.leftWhole(g) {
		return
	}
	zone := f.zoneOf(ev, g)
	old, known := groupRules(ev, g)
	var kept map[*pair][]string
	var res *customrules.Result
	live, liveOK := entryPointOf(zone, vocab.PhaseCustomRules)
	ep := existingEntryPoint(ev, g)
	if liveOK && len(live.Rules) > 0 && ep == nil && (!known || anyRepeated(g)) {
		f.leaveGroup(g.pairs, fmt.Sprintf("the firewall rules of zone %s left as they are: its custom rules entry point (ruleset %s) holds %d rules this configuration does not declare, and these rules are driven by values fix cannot hold with them; import the entry point into a cloudflare_ruleset with its rules first", zone.label(g.zoneText), live.ID, len(live.Rules)))
		return
	}
	if known {
		liveRefs(old, zone.inv)
		var existing []inventory.RulesetRule
		if liveOK && ep == nil {
			existing = live.Rules
		}
		res, kept = translateKeeping(g, old, zone.plan, existing, threatUnseen(ev, g))
	} else {
		kept = threatKept(ev, g)
	}
	pairs := f.keptApart(ev, g, kept)
	if len(pairs) == 0 {
		return
	}
	rw := Rewrite{Module: g.module.Dir, Zone: zone.label(g.zoneText), Plan: zone.plan}
	if zone.plan != "" {
		rw.Notes = append(rw.Notes, "plan "+zone.plan+" from "+zone.source)
	}
	sub := &group{module: g.module, zone: g.zone, zoneText: g.zoneText, pairs: pairs, perInstance: g.perInstance}
	if liveOK && ep == nil {
		sub.live = &live
	}
	if ep != nil && !g.perInstance {
		f.mergeGroup(ev, sub, ep, res, kept, rw)
		return
	}
	name := rulesetName(g.module, g)
	guard := ""
	if !g.perInstance {
		guard = groupGuard(ev, sub)
	}
	block, err := f.customRulesBlock(ev, sub, name, guard, res, &rw)
	if err != nil {
		f.leaveGroup(pairs, "left as it is: "+err.Error())
		return
	}
	olds := oldResources(pairs, kept)
	rw.New = typeRuleset + "." + name
	for _, r := range olds {
		rw.Old = append(rw.Old, displayAddr(r, g.module))
	}
	rw.File, rw.Line = olds[0].File.Path, olds[0].Line()
	if liveOK && !g.perInstance {
		to := rw.New
		if guard != "" {
			to += "[0]" // the ruleset's one instance, there when the old rules are
		}
		if f.importBlock(g.module, to, zone.id, live.ID) {
			rw.Notes = append(rw.Notes, fmt.Sprintf("the entry point exists (ruleset %s, %d rules, kept first): imported by %s", live.ID, len(live.Rules), ImportsFile))
		} else {
			rw.Notes = append(rw.Notes, fmt.Sprintf("the entry point exists (ruleset %s): import it before the apply: terraform import <address of %s> zones/%s/%s", live.ID, rw.New, zone.id, live.ID))
		}
	}
	f.replace(olds, block, rw.New)
	f.res.Rewrites = append(f.res.Rewrites, rw)
}

// mergeGroup adds the group's rules to the module's existing entry point for the zone and
// removes the old resources.
func (f *fixer) mergeGroup(ev *evaluator, g *group, ep *Resource, res *customrules.Result, kept map[*pair][]string, rw Rewrite) {
	said := len(rw.Notes)
	es, err := f.mergeInto(ev, g, ep, res, &rw)
	if err != nil {
		f.leaveGroup(g.pairs, "left as it is: "+err.Error())
		return
	}
	f.edits[ep.File] = append(f.edits[ep.File], es...)
	for _, n := range rw.Notes[said:] {
		if strings.HasPrefix(n, threatNotePrefix) { // said where the rules now are, too
			f.commentAbove(ep.File, ep.Block.Range().Start.Byte, "sunset fix: "+n+".")
		}
	}
	olds := oldResources(g.pairs, kept)
	rw.New = ep.Address()
	for _, r := range olds {
		rw.Old = append(rw.Old, displayAddr(r, g.module))
	}
	rw.File, rw.Line = olds[0].File.Path, olds[0].Line()
	f.replace(olds, "", rw.New)
	f.res.Rewrites = append(f.res.Rewrites, rw)
}

// leftWhole leaves every rule of the group, true when it does: rules of a zone every
// Terraform workspace shares that read terraform.workspace, or of a zone whose entry point
// another module would declare too.
func (f *fixer) leftWhole(g *group) bool {
	why := workspaceWhy(g.module, g.zone, oldResources(g.pairs, nil))
	if why == "" {
		why = f.sharedWhy(g.module, vocab.PhaseCustomRules, g.zoneText)
	}
	if why == "" {
		return false
	}
	for _, p := range g.pairs {
		f.leavePair(p, p.rule.Address()+" not rewritten: "+why)
	}
	return true
}

// keptApart leaves the pairs kept holds, with their reasons, and returns the others, those
// to rewrite: none when an allow rule orders them with a kept one (see ordering).
func (f *fixer) keptApart(ev *evaluator, g *group, kept map[*pair][]string) []*pair {
	var pairs []*pair
	for _, p := range g.pairs {
		if _, k := kept[p]; !k {
			pairs = append(pairs, p)
		}
	}
	f.keep(g, kept)
	if len(kept) == 0 || len(pairs) == 0 {
		return pairs
	}
	by := ordering(ev, g)
	if by == nil {
		return pairs
	}
	why := fmt.Sprintf(" not rewritten, with the zone's other firewall rules: %s is an allow rule (or may be), which lets requests past the other rules only while they are in the same engine, and %s must stay (see there): all stay until that is decided", by.rule.Address(), firstKept(g, kept).rule.Address())
	for _, p := range pairs {
		f.leavePair(p, p.rule.Address()+why)
	}
	return nil
}

// ordering is a pair of the group whose action is allow, or is not known (nil when none):
// an allow lets requests past the firewall rules after it (without priorities, past every
// rule but log and bypass), which it no longer does for a rule left in the old engine while
// it moves, or moved while it stays. A bypass names products, not firewall rules: its skip
// reaches them from either engine.
func ordering(ev *evaluator, g *group) *pair {
	for _, p := range g.pairs {
		x := ruleAttr(p.rule, "action")
		if x == nil {
			continue
		}
		if v := knownString(ev, x); v == "" || v == "allow" {
			return p
		}
	}
	return nil
}

// firstKept is the first pair of the group, in its order, that kept holds.
func firstKept(g *group, kept map[*pair][]string) *pair {
	for _, p := range g.pairs {
		if _, k := kept[p]; k {
			return p
		}
	}
	return nil
}

// groupRules are the old rules of a group with their values; false when any is not known.
func groupRules(ev *evaluator, g *group) ([]inventory.FirewallRule, bool) {
	var all []inventory.FirewallRule
	for _, p := range g.pairs {
		rs, ok := oldRules(ev, p)
		if !ok {
			return nil, false
		}
		all = append(all, rs...)
	}
	return all, true
}

// translateKeeping translates the group's rules for the zone's plan; a pair kept already,
// or any of whose rules the translation leaves out, or that uses cf.threat_score (always 0:
// a decision for its owner), is kept with the reasons, and the rest translated again
// without it.
func translateKeeping(g *group, old []inventory.FirewallRule, plan string, existing []inventory.RulesetRule, kept map[*pair][]string) (*customrules.Result, map[*pair][]string) {
	for {
		var rules []inventory.FirewallRule
		for _, r := range old {
			if _, k := kept[pairOfRule(g, r.ID)]; !k {
				rules = append(rules, r)
			}
		}
		res := customrules.Translate(rules, customrules.Options{Plan: plan, Existing: existing})
		more := false
		for _, t := range res.Rules {
			why := keepReasons(t)
			if len(why) == 0 {
				continue
			}
			for _, id := range t.FirewallRuleIDs {
				p := pairOfRule(g, id)
				if _, k := kept[p]; !k {
					more = true
				}
				kept[p] = append(kept[p], why...)
			}
		}
		if !more {
			return res, kept
		}
	}
}

// keepReasons are why a translation cannot be applied as it is: errors (the API would
// refuse it, or nothing to make) and cf.threat_score.
func keepReasons(t customrules.RuleTranslation) []string {
	var why []string
	for _, d := range t.Diagnostics {
		if d.Severity == customrules.SeverityError || d.Code == customrules.CodeThreatScore || d.Code == customrules.CodeQuota {
			why = append(why, instancePrefix(t.FirewallRuleIDs)+d.Message)
		}
	}
	if t.Index < 0 && len(why) == 0 {
		why = append(why, instancePrefix(t.FirewallRuleIDs)+"not translated")
	}
	return why
}

// instancePrefix names the instances of a repeated resource a reason is about ("" for a
// single resource: the message names it already).
func instancePrefix(ids []string) string {
	for _, id := range ids {
		if strings.HasSuffix(id, "]") {
			return strings.Join(ids, "+") + ": "
		}
	}
	return ""
}

// pairOfRule finds the pair an instance address belongs to.
func pairOfRule(g *group, id string) *pair {
	for _, p := range g.pairs {
		if id == p.rule.Address() || strings.HasPrefix(id, p.rule.Address()+"[") {
			return p
		}
	}
	return nil
}

// keep comments the kept pairs with what to decide, and lists them.
func (f *fixer) keep(g *group, kept map[*pair][]string) {
	for _, p := range g.pairs {
		if why, k := kept[p]; k {
			f.leavePair(p, p.rule.Address()+" not rewritten: "+strings.Join(slices.Compact(why), "; "))
		}
	}
}

// leaveGroup leaves every pair of a group with the same reason.
func (f *fixer) leaveGroup(pairs []*pair, msg string) {
	for _, p := range pairs {
		f.leavePair(p, msg)
	}
}

// leavePair lists a rule left as it is, with a comment above it, and one above its filter
// saying where to look (once, however many left rules use it).
func (f *fixer) leavePair(p *pair, msg string) {
	f.leave(p.rule, msg)
	if p.filter == p.rule {
		return
	}
	at := p.filter.Block.Range().Start.Byte
	said := commentLines("sunset fix: "+p.filter.Address()+" not rewritten: ", "")
	for _, e := range f.edits[p.filter.File] {
		if e.start == lineStart(p.filter.File.Src, at) && e.end == e.start && strings.HasPrefix(e.text, strings.TrimSuffix(said, "\n")) {
			return // a comment there names the first such rule already
		}
	}
	f.commentAbove(p.filter.File, at, "sunset fix: "+p.filter.Address()+" not rewritten: "+p.rule.Address()+" uses it (see there).")
}

// threatKept are the pairs of a group driven by data whose expression uses cf.threat_score
// whatever the data (in its known values, or in the literal text of its template): they
// are kept, as literal ones are, for their owner to decide.
func threatKept(ev *evaluator, g *group) map[*pair][]string {
	kept := map[*pair][]string{}
	for _, p := range g.pairs {
		if usesThreat(ev, p) {
			kept[p] = []string{"its expression uses cf.threat_score, which is always 0 now, so the condition no longer means what it did: replace it (for example with cf.waf.score, cf.bot_management.score or a managed_challenge rule) or remove it"}
		}
	}
	return kept
}

// threatUnseen are the pairs threatKept keeps whose known values do not use
// cf.threat_score (another environment's may: a toggle that is off here); those whose
// values do are left to the translation, which says what each condition does now.
func threatUnseen(ev *evaluator, g *group) map[*pair][]string {
	kept := threatKept(ev, g)
	for p := range kept {
		rules, _ := oldRules(ev, p)
		for _, r := range rules {
			if containsField([]string{r.Filter.Expression}, threatField) {
				delete(kept, p)
				break
			}
		}
	}
	return kept
}

// usesThreat reports whether a pair's expression uses cf.threat_score whatever values
// come: its template's literal text, or values the repository alone decides, say so.
func usesThreat(ev *evaluator, p *pair) bool {
	if skel, _, ok := templateSkeleton(p.filter.File, filterAttr(p.filter, "expression")); ok {
		return containsField([]string{skel}, threatField)
	}
	rules, ok := oldRules(ev, p)
	if !ok || !pairStatic(p) {
		return false
	}
	for _, r := range rules {
		if containsField([]string{r.Filter.Expression}, threatField) {
			return true
		}
	}
	return false
}

// oldResources are the rules and filters of the rewritten pairs, each once, those of the
// rules' module first, in file order; a filter a kept rule still uses stays.
func oldResources(pairs []*pair, kept map[*pair][]string) []*Resource {
	stay := map[*Resource]bool{}
	for p := range kept {
		stay[p.filter] = true
	}
	var out []*Resource
	seen := map[*Resource]bool{}
	for _, p := range pairs {
		for _, r := range []*Resource{p.filter, p.rule} {
			if !seen[r] && !stay[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	inFileOrder(out)
	home := pairs[0].rule.Module
	slices.SortStableFunc(out, func(a, b *Resource) int { // the new block goes in the rules' module
		return boolRank(a.Module != home) - boolRank(b.Module != home)
	})
	return out
}

// verifyRules compares the old rules with the new ones on generated requests, as `sunset
// verify` does, and says the result in words.
func verifyRules(old []inventory.FirewallRule, live *inventory.Ruleset, rules []json.RawMessage) (string, bool) {
	zp := &migrate.ZonePlan{Targets: []migrate.Target{{Phase: vocab.PhaseCustomRules, Name: "default", Rules: rules}}}
	z := &inventory.ZoneInventory{FirewallRules: old}
	if live != nil {
		z.Rulesets = []inventory.Ruleset{*live}
	}
	v := verify.Zone(zp, z)
	if len(v.Differences) == 0 {
		return fmt.Sprintf("verified: old and new rules decide the same on %d generated requests", v.Requests), true
	}
	var kinds []string
	for _, d := range v.Differences {
		kinds = append(kinds, fmt.Sprintf("%d decided %s by the old rules, %s by the new", d.Requests, orNothing(d.Old.Key()), orNothing(d.New.Key())))
	}
	return fmt.Sprintf("NOT the same on %d of %d generated requests: %s", v.Differing, v.Requests, strings.Join(kinds, "; ")), false
}

func orNothing(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

// displayAddr is r's address, with its module's directory when it is not home's.
func displayAddr(r *Resource, home *Module) string {
	if r.Module != home {
		return r.Module.Dir + ": " + r.Address()
	}
	return r.Address()
}
