package migrate

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/meaning"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// Managed rulesets that replace the previous-version WAF packages (kept here for callers of
// migrate; the values live in inventory, shared with the scanner).
const (
	RulesetCloudflareManaged = inventory.RulesetCloudflareManaged
	RulesetOWASPCore         = inventory.RulesetOWASPCore
	RulesetFreeManaged       = inventory.RulesetFreeManaged
	// owaspScoreRule is the rule of the OWASP Core ruleset that carries the score threshold
	// and the action.
	owaspScoreRule = "6179ae15870a4bb7b2d480d4843b323c"
)

var rulesetNames = map[string]string{
	RulesetCloudflareManaged: "Cloudflare Managed Ruleset",
	RulesetOWASPCore:         "Cloudflare OWASP Core Ruleset",
	RulesetFreeManaged:       "Cloudflare Free Managed Ruleset",
}

// groupCategories maps words of the traditional package's group names to categories (tags)
// of the Cloudflare Managed Ruleset, so that a group switched off becomes a category
// override with enabled: false. Derived: old group ids do not map to new ones, and the
// names are the only link; unknown names are listed as manual.
var groupCategories = []struct{ word, category string }{
	{"wordpress", "wordpress"}, {"drupal", "drupal"}, {"joomla", "joomla"}, {"magento", "magento"},
	{"php", "php"}, {"plone", "plone"}, {"whmcs", "whmcs"}, {"miscellaneous", ""},
}

// wafTranslator plans previous-version WAF -> managed rulesets (phase
// http_request_firewall_managed): execute rules for the rulesets matching the active
// packages (OWASP settings and switched-off groups as overrides where they can be
// expressed), URL overrides as skip exceptions placed before the execute rules, the previous
// version switched off once the rulesets run, and a manual step for what cannot be carried
// over.
type wafTranslator struct{}

func (wafTranslator) translate(b *builder) {
	if !b.has(vocab.WAFManagedRulesV1) {
		return
	}
	m := newWAFMigration(b)
	m.mapPackages()
	m.mapOverrides()
	verify := b.changeRuleset(rulesetChange{
		kinds: managedRuleKinds, existing: m.entry,
		front: m.exceptions, back: m.execs, what: "managed rule", whats: "managed rules",
		risk: RiskMedium, derived: true,
		reason: fmt.Sprintf("The previous version of managed rules is deprecated; its packages map to the managed rulesets executed from the zone's %s entry point, and URL overrides to skip exceptions placed before the execute rules.", vocab.PhaseManaged),
		note:   strings.Join(m.manual, "\n"), diffs: m.diffs,
	})
	carried := slices.ContainsFunc(m.overrides, func(om overrideMapping) bool { return om.carried })
	if verify == "" && (carried || len(m.packageFPs) > 0) {
		// Everything was migrated by an earlier run: check it before the old WAF goes.
		verify = b.verifyEarlier(managedRuleKinds,
			"The overrides and the previous version below already have their replacements (exceptions found by ref waf_override:ID or by what they do, execute rules); confirm them before the old ones go.",
			"every WAF override retired below has its exception in place (one whose ref is waf_override:<its id>, or one that does the same), and the entry point executes a managed ruleset")
	}
	m.retireOverrides(verify)
	if len(m.packageFPs) > 0 {
		m.previousVersionOff(verify)
	}
}

// WAFMapping is what the plan makes of one zone's previous-version WAF.
type WAFMapping struct {
	// Exceptions are the URL overrides' skip rules, placed before the entry point's rules;
	// Executes the execute rules of the managed rulesets, after them.
	Exceptions, Executes []inventory.RulesetRule
	// Manual is what is not carried over, for an operator.
	Manual []string
	// Kept says why each URL override that no exception can carry stays, by override id.
	Kept map[string][]string
}

// MapWAF maps a zone's previous-version WAF (its packages with their groups and rules, and
// its URL overrides, judged as a live scan of z judges them) as the plan does, for callers
// outside the plan (sunset fix).
func MapWAF(z *inventory.ZoneInventory) WAFMapping {
	snap := &inventory.Snapshot{Zones: []inventory.ZoneInventory{*z}}
	res := scanner.ScanSnapshot(snap, nil, scanner.Options{})
	env := buildEnv{ix: newFindingIndex(res.Findings), cat: catalog.Default()}
	b := env.newBuilder(scopeKey(z.Zone.ID, ""))
	b.z = &snap.Zones[0]
	m := newWAFMigration(b)
	m.mapPackages()
	m.mapOverrides()
	out := WAFMapping{Exceptions: m.exceptions, Executes: m.execs, Manual: m.manual, Kept: map[string][]string{}}
	for _, om := range m.overrides {
		if !om.carried {
			out.Kept[om.o.ID] = om.why
		}
	}
	return out
}

// wafMigration is the previous-version WAF of one zone on its way to managed rulesets.
type wafMigration struct {
	b    *builder
	plan string
	// entry is the managed rules entry point (nil when none); executed are the rulesets it
	// (or a package mapped before) executes, exceptionRef the refs of its rules.
	entry        *inventory.Ruleset
	executed     map[string]bool
	exceptionRef map[string]bool
	// same finds the entry point's rules by what they do: an exception someone else wrote.
	same *meaning.Index

	pkgRuleset map[string]string // package id -> ruleset it maps to
	groupPkg   map[string]string // group id -> package id
	rulePkg    map[string]string // rule id -> package id

	execs, exceptions []inventory.RulesetRule
	packageFPs        []string
	manual            []string // what is not carried over, for an operator
	diffs             []Diff
	overrides         []overrideMapping
}

func newWAFMigration(b *builder) *wafMigration {
	m := &wafMigration{
		b: b, plan: strings.ToLower(b.z.Zone.Plan.LegacyID), entry: entrypoint(b.z, vocab.PhaseManaged),
		executed: map[string]bool{}, exceptionRef: map[string]bool{},
		pkgRuleset: map[string]string{}, groupPkg: map[string]string{}, rulePkg: map[string]string{},
	}
	rules := rulesOf(m.entry)
	m.same = meaning.NewIndex(len(rules), func(i int) meaning.Key { return meaning.Rule(vocab.PhaseManaged, rules[i]) })
	for i, r := range rules {
		if id := executedRuleset(r); id != "" {
			m.executed[id] = true
		}
		if r.Ref != "" {
			m.exceptionRef[r.Ref] = true
		}
		if strings.HasPrefix(r.Ref, WAFOverrideRef("")) {
			m.same.Reserve(i) // an earlier run's exception, found by its ref
		}
	}
	return m
}

// executedRuleset is the ruleset an execute rule runs, "" for other rules.
func executedRuleset(r inventory.RulesetRule) string {
	if r.Action != vocab.ActionExecute {
		return ""
	}
	var ap struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(r.ActionParameters, &ap) != nil {
		return ""
	}
	return ap.ID
}

// mapPackages maps every package with a finding to the ruleset that replaces it.
func (m *wafMigration) mapPackages() {
	for _, p := range m.b.z.WAFPackages {
		for _, g := range p.Groups {
			m.groupPkg[g.ID] = p.Package.ID
		}
		for _, r := range p.Rules {
			m.rulePkg[r.ID] = p.Package.ID
		}
		fps := m.b.findings(vocab.WAFManagedRulesV1, vocab.KindWAFPackage, p.Package.ID)
		if len(fps) == 0 {
			continue
		}
		m.packageFPs = append(m.packageFPs, fps...)
		m.mapPackage(p)
	}
}

// packageMapping is the ruleset a package becomes, with its overrides and what changed.
type packageMapping struct {
	ruleset   string
	overrides map[string]any
	changes   []string
}

// mapPackage plans the execute rule of one package's ruleset (once per ruleset).
func (m *wafMigration) mapPackage(p inventory.WAFPackageInventory) {
	pm, ok := m.packageRuleset(p)
	if !ok {
		return
	}
	pkg, rs := p.Package, pm.ruleset
	m.pkgRuleset[pkg.ID] = rs
	m.diffs = append(m.diffs, Diff{Label: "WAF package " + named(pkg.Name, pkg.ID), Old: fmt.Sprintf("package %s (%s)", pkg.Name, pkg.DetectionMode), New: "execute " + rulesetNames[rs] + " (" + rs + ")", Changes: pm.changes})
	if m.executed[rs] {
		return
	}
	m.executed[rs] = true
	ap := map[string]any{"id": rs}
	if pm.overrides != nil {
		ap["overrides"] = pm.overrides
	}
	m.execs = append(m.execs, inventory.RulesetRule{
		Action: vocab.ActionExecute, Expression: "true", Enabled: boolPtr(true),
		Description:      "Execute " + rulesetNames[rs] + " (migrated from WAF package " + pkg.Name + ")",
		ActionParameters: mustJSON(ap),
	})
}

// packageRuleset maps a package to its ruleset; false (with a manual item) when it has none.
func (m *wafMigration) packageRuleset(p inventory.WAFPackageInventory) (packageMapping, bool) {
	pkg := p.Package
	switch {
	case pkg.IsOWASP() && strings.EqualFold(pkg.Sensitivity, "off"):
		m.manual = append(m.manual, fmt.Sprintf("package %s has sensitivity off (it blocks nothing): deploying the OWASP Core ruleset is a choice, not a migration", named(pkg.Name, pkg.ID)))
		return packageMapping{}, false
	case pkg.IsOWASP() && inventory.PlanRank(m.plan) == 0:
		m.manual = append(m.manual, fmt.Sprintf("package %s: the OWASP Core ruleset is not available on the Free plan", named(pkg.Name, pkg.ID)))
		return packageMapping{}, false
	case pkg.IsOWASP():
		return m.owaspPackage(p), true
	}
	return m.traditionalPackage(p), true
}

// owaspPackage maps the OWASP package: sensitivity and action mode become the paranoia
// level (categories above it disabled), the score threshold and the action.
func (m *wafMigration) owaspPackage(p inventory.WAFPackageInventory) packageMapping {
	pkg := p.Package
	pl, threshold, action := pkg.OWASPCoreSettings()
	var cats []map[string]any
	for level := pl + 1; level <= 4; level++ {
		cats = append(cats, map[string]any{"category": fmt.Sprintf("paranoia-level-%d", level), "enabled": false})
	}
	pm := packageMapping{ruleset: RulesetOWASPCore, overrides: map[string]any{
		"categories": cats,
		"rules":      []map[string]any{{"id": owaspScoreRule, "score_threshold": threshold, "action": action}},
	}}
	pm.changes = append(pm.changes, fmt.Sprintf("sensitivity %s, action mode %s -> paranoia level PL%d (categories paranoia-level-%d..4 disabled), score threshold %d, action %s",
		orDash(pkg.Sensitivity), orDash(pkg.ActionMode), pl, pl+1, threshold, action))
	for _, g := range p.Groups {
		if strings.EqualFold(g.Mode, "off") || g.ModifiedRulesCount > 0 {
			m.manual = append(m.manual, fmt.Sprintf("OWASP group %q is %s%s: OWASP group and rule overrides are not carried over (old ids do not map to new ones); re-create them as rule overrides if still needed",
				g.Name, strings.ToLower(g.Mode), modifiedNote(g.ModifiedRulesCount)))
		}
	}
	return pm
}

// traditionalPackage maps the traditional package to the Cloudflare Managed Ruleset (the
// Free Managed Ruleset on Free): groups switched off become disabled categories where the
// group name names one; modified groups and rules are listed for an operator.
func (m *wafMigration) traditionalPackage(p inventory.WAFPackageInventory) packageMapping {
	pm := packageMapping{ruleset: RulesetCloudflareManaged}
	if inventory.PlanRank(m.plan) == 0 {
		pm.ruleset = RulesetFreeManaged
	}
	var cats []map[string]any
	for _, g := range p.Groups {
		if cat, ok := m.groupCategory(g); ok {
			cats = append(cats, map[string]any{"category": cat, "enabled": false})
			pm.changes = append(pm.changes, fmt.Sprintf("group %q off -> category %q disabled (derived from the group name)", g.Name, cat))
		}
	}
	sort.Slice(cats, func(i, j int) bool { return cats[i]["category"].(string) < cats[j]["category"].(string) })
	if len(cats) > 0 {
		pm.overrides = map[string]any{"categories": cats}
	}
	var ruleChanges []string
	for _, r := range p.Rules {
		if d := ruleNonDefault(r); d != "" {
			ruleChanges = append(ruleChanges, d)
		}
	}
	sort.Strings(ruleChanges)
	if len(ruleChanges) > 0 {
		m.manual = append(m.manual, fmt.Sprintf("package %s rules not at their default: %s; old rule ids do not map to new ones, re-create them as rule overrides by hand", named(p.Package.Name, p.Package.ID), strings.Join(ruleChanges, ", ")))
	}
	return pm
}

// groupCategory is the category a traditional group switched off disables; false (with a
// manual item where something is lost) when the group is on or has no category.
func (m *wafMigration) groupCategory(g inventory.WAFGroup) (string, bool) {
	if !strings.EqualFold(g.Mode, "off") {
		if g.ModifiedRulesCount > 0 {
			m.manual = append(m.manual, fmt.Sprintf("group %q has %s: old rule ids do not map to new ones; re-create the changes as rule overrides by hand", g.Name, plural(g.ModifiedRulesCount, "modified rule", "modified rules")))
		}
		return "", false
	}
	cat := categoryOf(g.Name)
	if cat == "" {
		m.manual = append(m.manual, fmt.Sprintf("group %q is off and has no category in the new ruleset: find its rules by hand and disable them with rule overrides", g.Name))
		return "", false
	}
	return cat, true
}

// previousVersionOff turns the previous version of managed rules off for the zone once the
// managed rulesets run: PATCH /zones/:id/settings/waf {"value": "off"}, the zone's switch of
// the previous version (its packages cannot be deleted). What the rulesets cannot carry
// over is listed in the note.
func (m *wafMigration) previousVersionOff(verify string) {
	st := Step{
		ID: string(KindWAFOff), Kind: KindWAFOff, Change: ChangeUpdate,
		Method: "PATCH", Path: zonePath(m.b.z.Zone.ID, "settings", "waf"), Body: settingBody("waf", "off"),
		Resolves: m.packageFPs, Risk: RiskMedium,
		Title:  "Turn the previous version of managed rules off",
		Reason: "Once the managed rulesets run, the old packages would inspect the same traffic twice; the packages themselves cannot be deleted through the API.",
		Note:   "The zone setting waf is the previous version's on/off switch; the packages stay listed, but inspect nothing." + manualNote(m.manual),
	}
	if verify != "" {
		st.DependsOn = []string{verify}
	}
	m.b.add(phaseOldDelete, st)
}

func manualNote(items []string) string {
	if len(items) == 0 {
		return ""
	}
	return " Not carried over, to do by hand: " + strings.Join(items, "; ") + "."
}

func modifiedNote(n int) string {
	if n == 0 {
		return ""
	}
	return ", " + plural(n, "modified rule", "modified rules")
}

// categoryOf maps a traditional group name to a Cloudflare Managed Ruleset category, "" when none.
func categoryOf(name string) string {
	n := strings.ToLower(name)
	for _, gc := range groupCategories {
		if strings.Contains(n, gc.word) {
			return gc.category
		}
	}
	return ""
}

// ruleNonDefault says how a WAF rule differs from its default mode, or "".
func ruleNonDefault(r inventory.WAFRule) string {
	mode := strings.ToLower(r.Mode)
	label := r.ID
	if r.Description != "" {
		label = fmt.Sprintf("%s (%q)", r.ID, r.Description)
	}
	if r.DefaultMode != "" {
		if mode == "" || mode == "default" || strings.EqualFold(r.Mode, r.DefaultMode) {
			return ""
		}
		return fmt.Sprintf("rule %s %s instead of %s", label, r.Mode, r.DefaultMode)
	}
	if mode == "off" {
		return fmt.Sprintf("rule %s off", label)
	}
	return ""
}
