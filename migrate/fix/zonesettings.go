package fix

import (
	"fmt"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

const typeSettingsOverride = "cloudflare_zone_settings_override"

// retiredSettings are the settings of cloudflare_zone_settings_override the catalog
// deprecates (its Terraform attributes settings.NAME), each with its entry.
func retiredSettings() map[string]catalog.Entry {
	out := map[string]catalog.Entry{}
	for _, e := range catalog.Default().Entries() {
		for _, a := range e.Match.Terraform.Attributes {
			if name, ok := strings.CutPrefix(a.Field, "settings."); ok && a.Kind == typeSettingsOverride {
				out[name] = e
			}
		}
	}
	return out
}

// settingsOverrides drops the retired settings from the module's
// cloudflare_zone_settings_override resources: their lines go (the provider then stops
// managing them and changes nothing in the account), and mobile_redirect, when it
// redirects, becomes a single redirect rule as `sunset plan` writes it.
func (f *fixer) settingsOverrides(ev *evaluator, m *Module) {
	retired := retiredSettings()
	f.zoneSettingResources(ev, m, retired)
	for _, r := range m.Resources {
		if r.Type != typeSettingsOverride {
			continue
		}
		if f.v5() && f.overrideToSettings(ev, r, retired) {
			continue
		}
		for _, s := range r.Block.Body.Blocks {
			if s.Type != "settings" {
				continue
			}
			f.settingsOverride(ev, r, s, retired)
		}
		if !f.v5() {
			f.res.Left = append(f.res.Left, Problem{Path: r.File.Path, Line: r.Line(), Message: r.Address() + " stays (its retired settings gone): cloudflare_zone_settings_override is deprecated, and provider v4 has no resource per setting; sunset fix --target v5 moves it to cloudflare_zone_setting resources with the upgrade"})
		}
	}
}

// settingItem is one retired setting in a settings block: an attribute or a nested block.
type settingItem struct {
	name  string
	rng   [2]int // its bytes
	line  int
	block *hclsyntax.Block
}

// settingsOverride drops one settings block's retired settings. The block is written again
// with its lines gone (and realigned as terraform fmt would, when it was formatted), so the
// diff holds only the dropped settings and the alignment they changed.
func (f *fixer) settingsOverride(ev *evaluator, r *Resource, s *hclsyntax.Block, retired map[string]catalog.Entry) {
	items := retiredItems(s.Body, retired)
	if len(items) == 0 {
		return
	}
	var zone zoneInfo
	zoneText := normalText(exprText(r.File, r.Attr("zone_id")))
	if x := r.Attr("zone_id"); x != nil {
		zone = f.zoneOf(ev, &group{module: r.Module, zone: x, zoneText: zoneText})
	}
	rw := Rewrite{Module: r.Module.Dir, File: r.File.Path, Line: r.Line(), New: r.Address(), Zone: zone.label(zoneText), Plan: zone.plan,
		Proven: "nothing to prove: the dropped settings are retired, and the provider stops managing them without changing them in the account"}
	var local []edit
	for _, it := range items {
		start, end := lineSpan(r.File, it.rng[0], it.rng[1])
		if it.name == "mobile_redirect" {
			if why := f.mobileRedirect(ev, r, it, zone); why != "" {
				msg := r.Address() + ".settings.mobile_redirect not rewritten: " + why
				f.res.Left = append(f.res.Left, Problem{Path: r.File.Path, Line: it.line, Message: msg})
				if text, missing := leftComment(r.File, start, string(r.File.Src[start:it.rng[0]]), msg); missing {
					local = append(local, edit{start: start, end: start, text: text})
				}
				continue
			}
		}
		local = append(local, edit{start: start, end: end})
		rw.Old = append(rw.Old, r.Address()+".settings."+it.name)
		rw.Notes = append(rw.Notes, fmt.Sprintf("settings.%s (%s) dropped: %s", it.name, normalText(string(r.File.Src[it.rng[0]:it.rng[1]])), retired[it.name].Replacement))
	}
	if len(local) > 0 {
		f.rewriteBlock(r.File, s.Range(), local)
	}
	if len(rw.Old) > 0 {
		f.res.Rewrites = append(f.res.Rewrites, rw)
	}
}

// retiredItems are the retired settings of a settings block, in file order.
func retiredItems(s *hclsyntax.Body, retired map[string]catalog.Entry) []settingItem {
	var items []settingItem
	for name, a := range s.Attributes {
		if _, ok := retired[name]; ok {
			items = append(items, settingItem{name: name, rng: [2]int{a.SrcRange.Start.Byte, a.SrcRange.End.Byte}, line: a.SrcRange.Start.Line})
		}
	}
	for _, b := range s.Blocks {
		if _, ok := retired[b.Type]; ok {
			rng := b.Range()
			items = append(items, settingItem{name: b.Type, rng: [2]int{rng.Start.Byte, rng.End.Byte}, line: rng.Start.Line, block: b})
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].rng[0] < items[j].rng[0] })
	return items
}

// rewriteBlock applies edits inside rng (a block, or an attribute) as one edit of the whole
// of it, formatted as terraform fmt would when it was formatted before (else only the edits
// change).
func (f *fixer) rewriteBlock(file *File, rng hcl.Range, edits []edit) {
	start, end := lineSpan(file, rng.Start.Byte, rng.End.Byte)
	indent := string(file.Src[start:rng.Start.Byte])
	out := append([]byte(nil), file.Src[start:end]...)
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	for _, e := range edits {
		out = append(out[:e.start-start:e.start-start], append([]byte(e.text), out[e.end-start:]...)...)
	}
	before := dedent(file.Src[start:end], indent)
	if string(hclwrite.Format(before)) == string(before) {
		out = reindent(hclwrite.Format(dedent(out, indent)), indent)
	}
	f.edits[file] = append(f.edits[file], edit{start: start, end: end, text: string(out)})
}

// dedent removes indent from the start of each line that has it.
func dedent(src []byte, indent string) []byte {
	lines := strings.SplitAfter(string(src), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, indent)
	}
	return []byte(strings.Join(lines, ""))
}

// reindent puts indent before each line that is not empty.
func reindent(src []byte, indent string) []byte {
	lines := strings.SplitAfter(string(src), "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			lines[i] = indent + l
		}
	}
	return []byte(strings.Join(lines, ""))
}

// lineSpan widens [start, end) to whole lines (indentation, a comment after it on the same
// line, the line end) when nothing else shares them; else it is [start, end) as it is.
func lineSpan(file *File, start, end int) (int, int) {
	s := start
	for s > 0 && (file.Src[s-1] == ' ' || file.Src[s-1] == '\t') {
		s--
	}
	if s > 0 && file.Src[s-1] != '\n' {
		return start, end
	}
	e := end
	for e < len(file.Src) && (file.Src[e] == ' ' || file.Src[e] == '\t' || file.Src[e] == '\r') {
		e++
	}
	if e < len(file.Src) && file.Src[e] == '#' {
		for e < len(file.Src) && file.Src[e] != '\n' {
			e++
		}
	}
	switch {
	case e == len(file.Src):
		return s, e
	case file.Src[e] == '\n':
		return s, e + 1
	}
	return start, end
}

// mobileRedirect writes the single redirect rule that replaces a mobile_redirect block that
// redirects, after the resource; it says why the block must stay ("" when it can go: its
// rule is written, or it redirects nothing).
func (f *fixer) mobileRedirect(ev *evaluator, r *Resource, it settingItem, zone zoneInfo) string {
	if it.block == nil {
		return "it is not written as a block (mobile_redirect { status = ... })"
	}
	b := body{rd: &literalReader{ev: ev}, b: it.block.Body, path: "settings.mobile_redirect"}
	b.noDynamic()
	status, sub, strip := b.str("status"), b.str("mobile_subdomain"), b.boolean("strip_uri")
	if len(b.rd.unknown) > 0 {
		return "the repository does not hold the value of " + strings.Join(b.rd.unknown, ", ")
	}
	block, why := f.redirectFor(r, zone, status, sub, strip)
	if why != "" || block == "" {
		return why
	}
	// After the resource's line end, a blank line before the new block and after it.
	pos, src := r.Block.Range().End.Byte, r.File.Src
	text := "\n" + block
	if pos < len(src) && src[pos] == '\n' {
		pos++
	} else {
		text = "\n" + text
	}
	if pos < len(src) && src[pos] != '\n' {
		text += "\n"
	}
	f.edits[r.File] = append(f.edits[r.File], edit{start: pos, end: pos, text: text})
	return ""
}

// redirectFor is the redirect ruleset that replaces a mobile_redirect value ("" when it
// redirects nothing), or why it cannot be written.
func (f *fixer) redirectFor(r *Resource, zone zoneInfo, status, sub string, strip bool) (block, why string) {
	sub = strings.TrimSpace(sub)
	switch {
	case !strings.EqualFold(status, "on") || sub == "":
		return "", "" // it redirects nothing: nothing replaces it
	case zone.name == "":
		return "", "the zone's name is not known (from a cloudflare_zone resource of the module or --snapshot), and the redirect rule needs it"
	}
	block, err := f.redirectBlock(r, zone, sub, strip)
	if err != nil {
		return "", err.Error()
	}
	return block, ""
}

// zoneSettingResources replaces each cloudflare_zone_setting (provider v5's one resource per
// setting) of a retired setting by a removed block: Terraform forgets the setting without
// changing it (past its end of life the value does nothing); mobile_redirect, when it
// redirects, by its single redirect rule too.
func (f *fixer) zoneSettingResources(ev *evaluator, m *Module, retired map[string]catalog.Entry) {
	for _, r := range m.Resources {
		if r.Type != "cloudflare_zone_setting" {
			continue
		}
		id := knownString(ev, r.Attr("setting_id"))
		e, ok := retired[id]
		if !ok {
			continue
		}
		block := ""
		if id == "mobile_redirect" {
			v, _ := known(ev, r.Attr("value"), instance{}, cty.Object(map[string]cty.Type{"status": cty.String, "mobile_subdomain": cty.String, "strip_uri": cty.Bool}))
			if v == cty.NilVal || v.IsNull() {
				f.leave(r, r.Address()+" not rewritten: the repository does not hold its value (status, mobile_subdomain, strip_uri)")
				continue
			}
			var why string
			if block, why = f.redirectFor(r, f.zoneOfResource(ev, r), objString(v, "status"), objString(v, "mobile_subdomain"), objBool(v, "strip_uri")); why != "" {
				f.leave(r, r.Address()+" not rewritten: "+why)
				continue
			}
		}
		start, end := blockSpan(r.File, r)
		text := removedBlock(r)
		if block != "" {
			text = block + "\n" + text
		}
		if end < len(r.File.Src) {
			text += "\n"
		}
		f.edits[r.File] = append(f.edits[r.File], edit{start: start, end: end, text: text})
		f.res.Rewrites = append(f.res.Rewrites, Rewrite{Module: m.Dir, File: r.File.Path, Line: r.Line(), Old: []string{r.Address()}, New: "removed " + r.Address(),
			Proven: "nothing to prove: the setting is retired; the removed block forgets it without changing it in the account",
			Notes:  []string{"setting " + id + ": " + e.Replacement}})
	}
}

// zoneOfResource resolves r's zone_id (nothing when it has none).
func (f *fixer) zoneOfResource(ev *evaluator, r *Resource) zoneInfo {
	x := r.Attr("zone_id")
	if x == nil {
		return zoneInfo{}
	}
	return f.zoneOf(ev, &group{module: r.Module, zone: x, zoneText: normalText(exprText(r.File, x))})
}

func objString(v cty.Value, attr string) string {
	if x := v.GetAttr(attr); !x.IsNull() {
		return x.AsString()
	}
	return ""
}

func objBool(v cty.Value, attr string) bool {
	x := v.GetAttr(attr)
	return !x.IsNull() && x.True()
}

// redirectBlock renders the zone's cloudflare_ruleset of phase http_request_dynamic_redirect
// holding the mobile redirect rule, with its comment line, and lists the rewrite.
func (f *fixer) redirectBlock(r *Resource, zone zoneInfo, sub string, strip bool) (string, error) {
	rule := migrate.MobileRedirectRule(zone.name, sub, strip)
	what := fmt.Sprintf("sunset fix: redirect rules of zone %s, replacing the mobile redirect setting of %s (retired: see sunset help fix).", zone.name, r.Address())
	rw := Rewrite{
		Module: r.Module.Dir, File: r.File.Path, Line: r.Line(), Old: []string{r.Address() + ".settings.mobile_redirect"},
		Zone: zone.name, Plan: zone.plan,
		Proven: "not proven: derived, as sunset plan writes it (the old feature told mobile browsers by their user agent; the rule matches \"Mobi\" or \"Android\" in it)",
		Notes:  []string{rule.Description},
	}
	block, err := f.entryPoint(r.Module, r.File, r.Attr("zone_id"), zone, newRules{phase: vocab.PhaseDynamicRedirect, short: "redirect_rules", back: []inventory.RulesetRule{rule}, what: what}, &rw)
	if err != nil {
		return "", err
	}
	f.res.Rewrites = append(f.res.Rewrites, rw)
	return block, nil
}
