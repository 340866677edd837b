package fix

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// The zone setting waf (`waf = "on"` in a settings override, or a cloudflare_zone_setting
// of it) is the previous WAF's on/off switch: on, the zone's Cloudflare package inspected
// its traffic. As `sunset plan` maps that package, the managed rules entry point (phase
// http_request_firewall_managed) executes the Cloudflare Managed Ruleset in its place (the
// Free Managed Ruleset on the Free plan); off, there is nothing to carry over. A value the
// configuration drives (a variable, `cond ? "on" : null`) keeps driving it: the entry point
// gets the count that is 1 when the setting was on.

// wafState is what the run did with the zones' waf switches, by module and zone_id as written.
type wafState struct {
	// entryPoints are the managed rules entry points written for a switch.
	entryPoints map[string]string
	// onWithPackages are the switches on in a zone whose previous WAF resources (provider v3)
	// write its entry point: their mapping adds the Cloudflare package (see wafZone).
	onWithPackages map[string]*Resource
}

func wafKey(m *Module, zoneText string) string { return m.Dir + "\x00" + zoneText }

// wafOutcome is what became of a waf switch: a note for the rewrite, the block to put after
// the resource (an entry point), the comment to leave where the setting was, or why it
// stays.
type wafOutcome struct {
	note, block, inPlace, why string
}

// wafValue is a waf setting's value when it is written as a literal ("on", or "off" also
// for null: not managed), "" when the configuration drives it.
func wafValue(ev *evaluator, e settingEntry) string {
	if e.expr == nil || len(e.expr.Variables()) > 0 {
		return ""
	}
	v := ev.value(e.expr, nil)
	switch {
	case !v.IsKnown():
		return ""
	case v.IsNull():
		return "off"
	}
	return strings.ToLower(knownString(ev, e.expr))
}

// What a waf switch on says when the zone's previous WAF resources are to write the entry
// point; previousWAF takes it back (wafNotCarried) when they are left.
const (
	wafWithPackagesNote    = "settings.waf (on) dropped: the managed rules entry point written for the zone's previous WAF resources executes the Cloudflare Managed Ruleset in its place"
	wafWithPackagesInPlace = `waf = "on" (the previous WAF's switch) went: the managed rules entry point that replaces the zone's cloudflare_waf_* resources executes the Cloudflare Managed Ruleset in its place.`
)

// wafNotCarried takes back what r's waf switch said of the entry point its zone's previous
// WAF resources were to write, now that they are left: the note and the comment say it is
// not carried over yet, and why is left where r stands.
func (f *fixer) wafNotCarried(r *Resource) {
	why := r.Address() + `.settings.waf not carried over: the zone's previous WAF resources are left (see them), so no managed rules entry point executes the Cloudflare Managed Ruleset in its place yet`
	for i := range f.res.Rewrites {
		for j, n := range f.res.Rewrites[i].Notes {
			if n == wafWithPackagesNote && slices.Contains(f.res.Rewrites[i].Old, r.Address()) {
				f.res.Rewrites[i].Notes[j] = "settings.waf (on) dropped, not carried over yet: see what is left"
			}
		}
	}
	es := f.edits[r.File]
	for i := range es {
		es[i].text = strings.ReplaceAll(es[i].text, commentLines(wafWithPackagesInPlace, ""), "")
		es[i].text = strings.ReplaceAll(es[i].text, wafWithPackagesInPlace, `waf = "on" (the previous WAF's switch) went, not carried over yet: see the comment above `+r.Address()+`.`)
	}
	f.leave(r, why)
}

// wafSwitch carries the waf setting e of r (an override or a cloudflare_zone_setting) over.
func (f *fixer) wafSwitch(ev *evaluator, r *Resource, e settingEntry) wafOutcome {
	val := wafValue(ev, e)
	switch {
	case val == "off":
		return wafOutcome{note: "settings.waf (off: the previous WAF's switch) dropped: nothing to carry over"}
	case val != "" && val != "on":
		return wafOutcome{why: fmt.Sprintf("waf = %q is neither on nor off", val)}
	case r.Attr("zone_id") == nil:
		return wafOutcome{why: "it has no zone_id, and the managed rules that replace the previous WAF are the zone's"}
	case r.Attr("count") != nil && readsCountIndex(e.guards):
		return wafOutcome{why: "whether it is on depends on count.index, which count cannot read: write the managed rules entry point by hand"}
	}
	gs := e.guards
	if val == "" && (knownString(ev, e.value) != "on" || len(e.value.Variables()) > 0) {
		gs = append(gs, guard{cond: parenthesized(e.value, e.text) + ` == "on"`, when: true})
	}
	// The entry point is one per zone: per instance of the resource (whose zone_id may differ
	// in each), where the switch was on.
	repeat := repetition(r, gs)
	zoneText := normalText(exprText(r.File, r.Attr("zone_id")))
	key := wafKey(r.Module, zoneText)
	if f.hasPreviousWAF(r.Module, zoneText) {
		if repeat != "" {
			return wafOutcome{why: "the configuration drives it (or the resource is repeated), and the zone's previous WAF resources (cloudflare_waf_*) write its managed rules entry point: add its execute rule there by hand, under the same condition"}
		}
		if f.waf.onWithPackages == nil {
			f.waf.onWithPackages = map[string]*Resource{}
		}
		f.waf.onWithPackages[key] = r
		return wafOutcome{note: wafWithPackagesNote, inPlace: wafWithPackagesInPlace}
	}
	if addr, ok := f.waf.entryPoints[key]; ok {
		return wafOutcome{note: "settings.waf dropped: " + addr + " (written for the zone's other waf setting) executes the managed rules in its place"}
	}
	return f.wafEntryPoint(ev, r, e, repeat)
}

// hasPreviousWAF reports whether the module has provider v3's WAF resources for the zone.
func (f *fixer) hasPreviousWAF(m *Module, zoneText string) bool {
	for _, r := range m.Resources {
		if wafTypes[r.Type] && normalText(exprText(r.File, r.Attr("zone_id"))) == zoneText {
			return true
		}
	}
	return false
}

// wafEntryPoint writes the managed rules that replace a waf switch on (repeat: the count or
// for_each line that makes one where it was on, "" when always one): in the zone's entry
// point the module declares, or in a new one.
func (f *fixer) wafEntryPoint(ev *evaluator, r *Resource, e settingEntry, repeat string) wafOutcome {
	m, zone := r.Module, r.Attr("zone_id")
	zoneText := normalText(exprText(r.File, zone))
	z := f.zoneOfResource(ev, r)
	where := r.Address()
	if r.Type == typeSettingsOverride {
		where += ".settings.waf"
	}
	zi := inventory.ZoneInventory{Zone: inventory.Zone{ID: orText(z.id, zoneText), Name: z.name, Plan: inventory.ZonePlan{LegacyID: z.plan}},
		WAFPackages: []inventory.WAFPackageInventory{{Package: inventory.WAFPackage{ID: traditionalPackage, Name: "CloudFlare", DetectionMode: "traditional"}}}}
	if z.inv != nil {
		zi.Rulesets = z.inv.Rulesets
	}
	mapping := migrate.MapWAF(&zi)
	rw := Rewrite{Module: m.Dir, File: r.File.Path, Line: e.line, Old: []string{where}, Zone: z.label(zoneText), Plan: z.plan,
		Proven: "not proven: derived, as sunset plan maps the previous WAF (its switch on ran the zone's Cloudflare package, which the Cloudflare Managed Ruleset replaces; old rule ids do not map to new ones)",
		Notes:  wafPlanNotes(z)}
	if len(mapping.Executes) == 0 {
		return wafOutcome{note: "settings.waf (on) dropped: the zone's managed rules entry point (from the snapshot) executes the managed rules already"}
	}
	if ep := declaredManaged(ev, m, zoneText); ep != nil {
		return f.wafIntoDeclared(ep, mapping, repeat, &rw)
	}
	if _, exists := entryPointOf(z, vocab.PhaseManaged); exists && repeat != "" {
		return wafOutcome{why: "the configuration drives it (or the resource is repeated), and the zone's managed rules entry point exists (snapshot): import it and add the execute rule under the same condition by hand"}
	}
	what := fmt.Sprintf("sunset fix: managed rules of zone %s, replacing %s (the previous WAF's switch; the previous version of WAF managed rules is deprecated: see sunset help fix).", rw.Zone, where)
	block, err := f.entryPoint(m, r.File, zone, z, newRules{phase: vocab.PhaseManaged, short: "managed_rules", back: mapping.Executes, what: what}, &rw)
	if err != nil {
		return wafOutcome{why: err.Error()}
	}
	if repeat != "" {
		block = withCount(block, repeat)
		rw.Notes = append(rw.Notes, "the configuration drives the setting, or the resource is repeated: there is one entry point where it was on ("+repeat+")")
	}
	f.res.Rewrites = append(f.res.Rewrites, rw)
	if f.waf.entryPoints == nil {
		f.waf.entryPoints = map[string]string{}
	}
	f.waf.entryPoints[wafKey(m, zoneText)] = rw.New
	onlyWhere := ""
	if repeat != "" {
		onlyWhere = " where it was on (its " + strings.Fields(repeat)[0] + ")"
	}
	return wafOutcome{block: block, note: "settings.waf dropped: " + rw.New + " executes the managed rules in its place",
		inPlace: fmt.Sprintf(`waf = %s (the previous WAF's switch) went: %s executes the %s in its place%s.`, normalText(exprText(r.File, e.expr)), rw.New, executedName(mapping), onlyWhere)}
}

// wafIntoDeclared adds the execute rule to the zone's managed rules entry point the module
// declares, unless it executes a managed ruleset already; a driven switch, or a repeated
// entry point, is left to its owner.
func (f *fixer) wafIntoDeclared(ep *Resource, mapping migrate.WAFMapping, repeat string, rw *Rewrite) wafOutcome {
	src := string(ep.File.Src[ep.Block.Range().Start.Byte:ep.Block.Range().End.Byte])
	for _, id := range []string{inventory.RulesetCloudflareManaged, inventory.RulesetFreeManaged} {
		if strings.Contains(src, id) {
			return wafOutcome{note: "settings.waf (on) dropped: " + ep.Address() + " executes the managed rules already"}
		}
	}
	switch {
	case ep.Repeated():
		return wafOutcome{why: ep.Address() + " (the zone's managed rules entry point) has count or for_each: add the execute rule of the " + executedName(mapping) + " to it by hand"}
	case repeat != "":
		return wafOutcome{why: "the configuration drives it, or the resource is repeated (" + repeat + "): add the execute rule of the " + executedName(mapping) + " to " + ep.Address() + " by hand, under the same condition"}
	}
	if err := f.appendAfter(ep, newRules{phase: vocab.PhaseManaged, back: mapping.Executes}, rw); err != nil {
		return wafOutcome{why: err.Error()}
	}
	f.res.Rewrites = append(f.res.Rewrites, *rw)
	return wafOutcome{note: "settings.waf dropped: " + ep.Address() + " executes the managed rules in its place",
		inPlace: fmt.Sprintf(`waf = "on" (the previous WAF's switch) went: %s executes the %s in its place.`, ep.Address(), executedName(mapping))}
}

// declaredManaged is the module's managed rules entry point for the zone_id written as
// zoneText, repeated or not (nil when none).
func declaredManaged(ev *evaluator, m *Module, zoneText string) *Resource {
	for _, r := range m.Resources {
		if r.Type == typeRuleset && knownString(ev, r.Attr("phase")) == string(vocab.PhaseManaged) &&
			normalText(exprText(r.File, r.Attr("zone_id"))) == zoneText {
			return r
		}
	}
	return nil
}

// executedName names the ruleset the mapping executes.
func executedName(mapping migrate.WAFMapping) string {
	if len(mapping.Executes) > 0 && strings.Contains(string(mapping.Executes[0].ActionParameters), inventory.RulesetFreeManaged) {
		return "Cloudflare Free Managed Ruleset"
	}
	return "Cloudflare Managed Ruleset"
}

// wafPlanNotes say which plan the managed rules were written for.
func wafPlanNotes(z zoneInfo) []string {
	if z.plan != "" {
		return []string{"plan " + z.plan + " from " + z.source}
	}
	return []string{"zone plan not known (say it with --zone-plan NAME=LEVEL or --snapshot): written as for a paid plan (the Cloudflare Managed Ruleset needs Pro or higher; a Free zone executes the Free Managed Ruleset instead)"}
}

// withCount puts the repeat line (count or for_each) first in the resource block of text (comment
// lines, then the block).
func withCount(text, repeat string) string {
	i := strings.Index(text, "resource ")
	j := strings.Index(text[max(i, 0):], "{\n")
	if i < 0 || j < 0 {
		return text
	}
	at := i + j + 2
	return text[:at] + "  " + repeat + "\n\n" + text[at:]
}

// wafSettingEntry reads a cloudflare_zone_setting of waf as a setting.
func wafSettingEntry(ev *evaluator, r *Resource) settingEntry {
	sc := &settingsScope{file: r.File, ev: ev}
	x := r.Attr("value")
	e := settingEntry{name: "waf", line: r.Line(), expr: x, scope: sc}
	if x != nil {
		sc.attribute(&e)
	}
	return e
}

var wafTypes = map[string]bool{typeWAFPackage: true, typeWAFGroup: true, typeWAFRule: true, typeWAFOverride: true}
