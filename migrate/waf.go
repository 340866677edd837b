package migrate

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/inventory"
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

// relaxing reports whether a WAF override mode only weakens protection (a skip exception
// approximates it); "block", "challenge", "on", "default" would tighten or restore it.
func relaxing(mode string) bool {
	switch strings.ToLower(mode) {
	case "disable", "off", "simulate":
		return true
	}
	return false
}

// waf plans previous-version WAF -> managed rulesets (phase http_request_firewall_managed):
// execute rules for the rulesets matching the active packages (OWASP settings and switched-off
// groups as overrides where they can be expressed), URL overrides as skip exceptions placed
// before the execute rules, and a manual step for what cannot be carried over.
func (b *builder) waf() {
	z := b.z
	if !b.has(vocab.WAFManagedRulesV1) {
		return
	}
	zid := z.Zone.ID
	plan := strings.ToLower(z.Zone.Plan.LegacyID)
	entry, hasEntry := z.Ruleset(vocab.PhaseManaged)
	executed := map[string]bool{}
	exceptionRef := map[string]bool{}
	for _, r := range entry.Rules {
		if r.Action == vocab.ActionExecute {
			var ap struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(r.ActionParameters, &ap) == nil && ap.ID != "" {
				executed[ap.ID] = true
			}
		}
		if r.Ref != "" {
			exceptionRef[r.Ref] = true
		}
	}

	var execs []inventory.RulesetRule
	var packageFPs []string
	var manual []string
	var diffs []Diff
	pkgRuleset := map[string]string{} // package id -> ruleset it maps to
	groupPkg := map[string]string{}   // group id -> package id
	rulePkg := map[string]string{}    // rule id -> package id
	for _, p := range z.WAFPackages {
		for _, g := range p.Groups {
			groupPkg[g.ID] = p.Package.ID
		}
		for _, r := range p.Rules {
			rulePkg[r.ID] = p.Package.ID
		}
		fps := b.findings(vocab.WAFManagedRulesV1, vocab.KindWAFPackage, p.Package.ID)
		if len(fps) == 0 {
			continue
		}
		packageFPs = append(packageFPs, fps...)
		pkg := p.Package
		anomaly := pkg.IsOWASP()
		var rs string
		var overrides map[string]any
		var changes []string
		switch {
		case anomaly && strings.EqualFold(pkg.Sensitivity, "off"):
			manual = append(manual, fmt.Sprintf("package %s has sensitivity off (it blocks nothing): deploying the OWASP Core ruleset is a choice, not a migration", named(pkg.Name, pkg.ID)))
			continue
		case anomaly && inventory.PlanRank(plan) == 0:
			manual = append(manual, fmt.Sprintf("package %s: the OWASP Core ruleset is not available on the Free plan", named(pkg.Name, pkg.ID)))
			continue
		case anomaly:
			rs = RulesetOWASPCore
			pl, threshold, action := pkg.OWASPCoreSettings()
			var cats []map[string]any
			for level := pl + 1; level <= 4; level++ {
				cats = append(cats, map[string]any{"category": fmt.Sprintf("paranoia-level-%d", level), "enabled": false})
			}
			overrides = map[string]any{
				"categories": cats,
				"rules":      []map[string]any{{"id": owaspScoreRule, "score_threshold": threshold, "action": action}},
			}
			changes = append(changes, fmt.Sprintf("sensitivity %s, action mode %s -> paranoia level PL%d (categories paranoia-level-%d..4 disabled), score threshold %d, action %s",
				orDash(pkg.Sensitivity), orDash(pkg.ActionMode), pl, pl+1, threshold, action))
			for _, g := range p.Groups {
				if strings.EqualFold(g.Mode, "off") || g.ModifiedRulesCount > 0 {
					manual = append(manual, fmt.Sprintf("OWASP group %q is %s%s: OWASP group and rule overrides are not carried over (old ids do not map to new ones); re-create them as rule overrides if still needed",
						g.Name, strings.ToLower(g.Mode), modifiedNote(g.ModifiedRulesCount)))
				}
			}
		default:
			rs = RulesetCloudflareManaged
			if inventory.PlanRank(plan) == 0 {
				rs = RulesetFreeManaged
			}
			var cats []map[string]any
			for _, g := range p.Groups {
				if !strings.EqualFold(g.Mode, "off") {
					if g.ModifiedRulesCount > 0 {
						manual = append(manual, fmt.Sprintf("group %q has %s: old rule ids do not map to new ones; re-create the changes as rule overrides by hand", g.Name, plural(g.ModifiedRulesCount, "modified rule", "modified rules")))
					}
					continue
				}
				cat := categoryOf(g.Name)
				if cat == "" {
					manual = append(manual, fmt.Sprintf("group %q is off and has no category in the new ruleset: find its rules by hand and disable them with rule overrides", g.Name))
					continue
				}
				cats = append(cats, map[string]any{"category": cat, "enabled": false})
				changes = append(changes, fmt.Sprintf("group %q off -> category %q disabled (derived from the group name)", g.Name, cat))
			}
			sort.Slice(cats, func(i, j int) bool { return cats[i]["category"].(string) < cats[j]["category"].(string) })
			if len(cats) > 0 {
				overrides = map[string]any{"categories": cats}
			}
			var ruleChanges []string
			for _, r := range p.Rules {
				if d := ruleNonDefault(r); d != "" {
					ruleChanges = append(ruleChanges, d)
				}
			}
			sort.Strings(ruleChanges)
			if len(ruleChanges) > 0 {
				manual = append(manual, fmt.Sprintf("package %s rules not at their default: %s; old rule ids do not map to new ones, re-create them as rule overrides by hand", named(pkg.Name, pkg.ID), strings.Join(ruleChanges, ", ")))
			}
		}
		pkgRuleset[pkg.ID] = rs
		diffs = append(diffs, Diff{Label: "WAF package " + named(pkg.Name, pkg.ID), Old: fmt.Sprintf("package %s (%s)", pkg.Name, pkg.DetectionMode), New: "execute " + rulesetNames[rs] + " (" + rs + ")", Changes: changes})
		if executed[rs] {
			continue
		}
		executed[rs] = true
		ap := map[string]any{"id": rs}
		if overrides != nil {
			ap["overrides"] = overrides
		}
		execs = append(execs, inventory.RulesetRule{
			Action: vocab.ActionExecute, Expression: "true", Enabled: boolPtr(true),
			Description:      "Execute " + rulesetNames[rs] + " (migrated from WAF package " + pkg.Name + ")",
			ActionParameters: mustJSON(ap),
		})
	}

	// URL overrides -> skip exceptions before the execute rules.
	var exceptions []inventory.RulesetRule
	type overrideStep struct {
		o       inventory.WAFOverride
		fps     []string
		carried bool
		why     []string
	}
	var ovs []overrideStep
	allExecuted := sortedKeys(executed)
	for _, o := range z.WAFOverrides {
		fps := b.findings(vocab.WAFManagedRulesV1, vocab.KindWAFOverride, o.ID)
		if len(fps) == 0 {
			continue
		}
		os := overrideStep{o: o, fps: fps}
		var conds []string
		for _, u := range o.URLs {
			c, _ := urlCondition(u)
			if c != "" {
				conds = append(conds, c)
			}
		}
		switch {
		case o.Paused:
			os.carried = true // it does nothing today: deleting it changes nothing
		case len(o.RewriteAction) > 0:
			os.why = append(os.why, fmt.Sprintf("it rewrites actions (%s), which exceptions cannot express", strings.Join(inventory.SortedPairs(o.RewriteAction), ", ")))
		case len(conds) == 0 || len(conds) < len(o.URLs):
			os.why = append(os.why, "one of its URLs matches every request of the zone: an exception would switch the managed rules off everywhere")
		}
		targets := map[string]bool{}
		for gid, mode := range o.Groups {
			if !relaxing(mode) {
				os.why = append(os.why, fmt.Sprintf("it sets group %s to %s, which an exception (a skip) cannot express", gid, mode))
			}
			if rs := pkgRuleset[groupPkg[gid]]; rs != "" {
				targets[rs] = true
			}
		}
		for rid, mode := range o.Rules {
			if !relaxing(mode) {
				os.why = append(os.why, fmt.Sprintf("it sets rule %s to %s, which an exception (a skip) cannot express", rid, mode))
			}
			if rs := pkgRuleset[rulePkg[rid]]; rs != "" {
				targets[rs] = true
			}
		}
		if !o.Paused && len(os.why) == 0 {
			skip := sortedKeys(targets)
			if len(skip) == 0 {
				skip = allExecuted
			}
			if len(skip) == 0 {
				os.why = append(os.why, "no managed ruleset is executed for it to skip")
			} else {
				os.carried = true
				ref := "waf_override:" + o.ID
				if !exceptionRef[ref] {
					exceptions = append(exceptions, inventory.RulesetRule{
						Action: vocab.ActionSkip, Expression: anyOf(conds), Enabled: boolPtr(true), Ref: ref,
						Description:      "Exception from WAF override " + quoteOr(o.Description, o.ID),
						ActionParameters: mustJSON(map[string]any{"rulesets": skip}),
					})
				}
				diffs = append(diffs, Diff{Label: "WAF override " + named(o.Description, o.ID),
					Old:     fmt.Sprintf("urls %s; groups %s; rules %s", strings.Join(o.URLs, " "), strings.Join(inventory.SortedPairs(o.Groups), ", "), strings.Join(inventory.SortedPairs(o.Rules), ", ")),
					New:     "skip " + strings.Join(skip, ", ") + " when " + anyOf(conds),
					Changes: []string{"the exception skips the whole ruleset(s) for these URLs, which is broader than switching off single groups or rules (derived: old ids do not map to new ones); narrow it with action_parameters.rules if needed"}})
			}
		}
		ovs = append(ovs, os)
	}

	verify := b.plan(rulesetChange{
		prefix: "managed-rules", phase: vocab.PhaseManaged, existing: entryOrNil(entry, hasEntry),
		front: exceptions, back: execs, what: "managed rule", whats: "managed rules",
		risk: RiskMedium, derived: true,
		reason: "The previous version of managed rules is deprecated; its packages map to the managed rulesets executed from the zone's http_request_firewall_managed entry point, and URL overrides to skip exceptions placed before the execute rules.",
		note:   strings.Join(manual, "\n"), diffs: diffs,
	})
	for _, os := range ovs {
		o := os.o
		if !os.carried {
			b.add(phaseManual, Step{
				ID: "waf-override.keep:" + o.ID, Kind: "waf-override.keep", Manual: true, Derived: true,
				Method: "DELETE", Path: zonePath(zid, "firewall", "waf", "overrides", o.ID),
				Resolves: os.fps, Risk: RiskHigh,
				Title:  "Re-create WAF override " + named(o.Description, o.ID) + " by hand, then delete it",
				Reason: "It cannot be carried over automatically: " + strings.Join(os.why, "; ") + ".",
				Note:   "Write the exception or rule overrides in the http_request_firewall_managed entry point by hand; URL overrides block the service's own upgrade until they are deleted.",
			})
			continue
		}
		dep := verify
		st := Step{
			ID: "waf-override.delete:" + o.ID, Kind: "waf-override.delete", Change: ChangeDelete,
			Method: "DELETE", Path: zonePath(zid, "firewall", "waf", "overrides", o.ID),
			Resolves: os.fps, Risk: RiskMedium, Derived: !o.Paused,
			Title:  "Delete WAF override " + named(o.Description, o.ID),
			Reason: "Its exception is in place (a paused override does nothing); URL overrides block the service's own upgrade until deleted.",
		}
		if dep != "" {
			st.DependsOn = []string{dep}
		}
		b.add(phaseOldDelete, st)
		b.retired = append(b.retired, Retired{Type: "cloudflare_waf_override", ID: o.ID})
	}
	if len(packageFPs) > 0 {
		b.wafOff(packageFPs, verify, manual)
	}
}

// wafOff turns the previous version of managed rules off for the zone once the managed
// rulesets run: PATCH /zones/:id/settings/waf {"value": "off"}, the zone's switch of the
// previous version (its packages cannot be deleted). What the rulesets cannot carry over
// is listed in the note.
func (b *builder) wafOff(packageFPs []string, verify string, manual []string) {
	st := Step{
		ID: "waf.previous-version-off", Kind: "waf.previous-version-off", Change: ChangeUpdate,
		Method: "PATCH", Path: zonePath(b.z.Zone.ID, "settings", "waf"), Body: settingBody("waf", "off"),
		Resolves: packageFPs, Risk: RiskMedium,
		Title:  "Turn the previous version of managed rules off",
		Reason: "Once the managed rulesets run, the old packages would inspect the same traffic twice; the packages themselves cannot be deleted through the API.",
		Note:   "The zone setting waf is the previous version's on/off switch; the packages stay listed, but inspect nothing." + manualNote(manual),
	}
	if verify != "" {
		st.DependsOn = []string{verify}
	}
	b.add(phaseOldDelete, st)
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

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		if v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
