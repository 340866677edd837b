package fix

import (
	"bytes"
	"fmt"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"sort"
	"strings"

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
// managing them and changes nothing in the account), mobile_redirect, when it redirects,
// becomes a single redirect rule as `sunset plan` writes it, and waf, when on, the managed
// rules that replace the previous WAF (waf.go). A dynamic block is the setting it makes.
func (f *fixer) settingsOverrides(ev *evaluator, m *Module) {
	retired := retiredSettings()
	f.zoneSettingResources(ev, m, retired)
	for _, r := range m.Resources {
		if r.Type != typeSettingsOverride {
			continue
		}
		msg := r.Address() + " stays (its retired settings gone): cloudflare_zone_settings_override is deprecated, and provider v4 has no resource per setting; sunset fix --target v5 moves it to cloudflare_zone_setting resources with the upgrade"
		if f.v5() {
			why := f.overrideToSettings(ev, r, retired)
			if why == "" {
				continue
			}
			msg = r.Address() + " not moved to cloudflare_zone_setting resources (provider v5 has no cloudflare_zone_settings_override): " + why
		}
		for _, sb := range settingsBodies(ev, r) {
			f.settingsOverride(ev, r, sb, retired)
		}
		f.res.Left = append(f.res.Left, Problem{Path: r.File.Path, Line: r.Line(), Message: msg})
		f.commentAbove(r.File, r.Block.Range().Start.Byte, "sunset fix: "+msg+".")
	}
}

// settingsOverride drops one settings block's retired settings. The block is written again
// with their lines gone (and realigned as terraform fmt would, when it was formatted), so the
// diff holds only the dropped settings and the alignment they changed.
func (f *fixer) settingsOverride(ev *evaluator, r *Resource, sb settingsBody, retired map[string]catalog.Entry) {
	var items []settingEntry
	for _, e := range sb.scope.entries(sb.body) {
		if _, ok := retired[e.name]; ok {
			items = append(items, e)
		}
	}
	if len(items) == 0 {
		return
	}
	zoneText := normalText(exprText(r.File, r.Attr("zone_id")))
	zone := f.zoneOfResource(ev, r)
	rw := Rewrite{Module: r.Module.Dir, File: r.File.Path, Line: r.Line(), New: r.Address(), Zone: zone.label(zoneText), Plan: zone.plan,
		Proven: "nothing to prove: the dropped settings are retired, and the provider stops managing them without changing them in the account"}
	var local []edit
	for _, it := range items {
		start, end := lineSpan(r.File, it.rng[0], it.rng[1])
		indent := string(r.File.Src[start:it.rng[0]])
		why, replaced := f.retiredSetting(ev, r, it, zone)
		if why != "" {
			msg := r.Address() + ".settings." + it.name + " not rewritten: " + why
			f.res.Left = append(f.res.Left, Problem{Path: r.File.Path, Line: it.line, Message: msg})
			if text, missing := leftComment(r.File, start, indent, msg); missing {
				local = append(local, edit{start: start, end: start, text: text})
			}
			continue
		}
		text := ""
		if replaced != "" {
			text = commentLines("sunset fix: "+replaced, indent)
		} else {
			end = blankBetween(r.File.Src, start, end)
		}
		local = append(local, edit{start: start, end: end, text: text})
		rw.Old = append(rw.Old, r.Address()+".settings."+it.name)
		rw.Notes = append(rw.Notes, fmt.Sprintf("settings.%s (%s) dropped: %s", it.name, normalText(string(r.File.Src[it.rng[0]:it.rng[1]])), retired[it.name].Replacement))
	}
	if len(local) > 0 {
		f.rewriteBlock(r.File, sb.block.Range(), local)
	}
	if len(rw.Old) > 0 {
		f.res.Rewrites = append(f.res.Rewrites, rw)
	}
}

// retiredSetting carries one retired setting over where something replaces it: it says why
// it must stay ("" when it can go) and, when a comment is to say what replaced it in its
// place, the comment.
func (f *fixer) retiredSetting(ev *evaluator, r *Resource, it settingEntry, zone zoneInfo) (why, replaced string) {
	switch it.name {
	case "mobile_redirect":
		return f.mobileRedirect(ev, r, it, zone), ""
	case "waf":
		out := f.wafSwitch(ev, r, it)
		if out.block != "" {
			f.insertAfter(r, out.block)
		}
		return out.why, out.inPlace
	}
	return "", ""
}

// blankBetween widens [start, end) (whole lines) over the blank line after it when a blank
// line precedes it too: a block set apart by blank lines goes with one of them.
func blankBetween(src []byte, start, end int) int {
	blank := func(line []byte) bool { return len(bytes.TrimSpace(line)) == 0 }
	if start == 0 || end >= len(src) || src[start-1] != '\n' || src[end-1] != '\n' {
		return end
	}
	prev := src[lineStart(src, start-1) : start-1]
	next := end + bytes.IndexByte(src[end:], '\n')
	if next < end || !blank(prev) || !blank(src[end:next]) || start-1 == 0 {
		return end
	}
	return next + 1
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
func (f *fixer) mobileRedirect(ev *evaluator, r *Resource, it settingEntry, zone zoneInfo) string {
	if it.block == nil {
		return "it is not written as a block (mobile_redirect { status = ... })"
	}
	status, sub, strip, why := mobileRedirectValue(ev, it)
	if why != "" {
		return why
	}
	block, why := f.redirectFor(r, zone, status, sub, strip)
	if why != "" || block == "" {
		return why
	}
	f.insertAfter(r, block)
	return ""
}

// mobileRedirectValue reads a mobile_redirect block's values; a dynamic block's through the
// one element of its collection (none: it redirects nothing).
func mobileRedirectValue(ev *evaluator, it settingEntry) (status, sub string, strip bool, why string) {
	vars := map[string]cty.Value{}
	if it.block.Type == "dynamic" {
		coll := ev.value(it.block.Body.Attributes["for_each"].Expr, nil)
		switch {
		case !coll.IsWhollyKnown() || coll.IsNull() || !coll.CanIterateElements():
			return "", "", false, "the repository does not hold the collection of its dynamic block"
		case coll.LengthInt() == 0:
			return "", "", false, "" // no block: it redirects nothing
		case coll.LengthInt() > 1:
			return "", "", false, "its dynamic block makes more than one"
		}
		elems := coll.ElementIterator()
		elems.Next()
		k, v := elems.Element()
		vars[iteratorName(it.block)] = cty.ObjectVal(map[string]cty.Value{"key": k, "value": v})
	}
	var unknown []string
	read := func(name string, want cty.Type) cty.Value {
		a, ok := it.body.Attributes[name]
		if !ok {
			return cty.NullVal(want)
		}
		v, ok := known(ev, a.Expr, instance{vars: vars}, want)
		if !ok {
			unknown = append(unknown, "settings.mobile_redirect."+name)
			return cty.NullVal(want)
		}
		return v
	}
	st, su, sr := read("status", cty.String), read("mobile_subdomain", cty.String), read("strip_uri", cty.Bool)
	if len(unknown) > 0 {
		return "", "", false, "the repository does not hold the value of " + strings.Join(unknown, ", ")
	}
	if !st.IsNull() {
		status = st.AsString()
	}
	if !su.IsNull() {
		sub = su.AsString()
	}
	return status, sub, !sr.IsNull() && sr.True(), ""
}

// insertAfter puts block after r's line end, a blank line before it and after it.
func (f *fixer) insertAfter(r *Resource, block string) {
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
// redirects, by its single redirect rule too, and waf, when on, by the managed rules that
// replace the previous WAF.
func (f *fixer) zoneSettingResources(ev *evaluator, m *Module, retired map[string]catalog.Entry) {
	for _, r := range m.Resources {
		if r.Type != typeZoneSetting {
			continue
		}
		id := knownString(ev, r.Attr("setting_id"))
		e, ok := retired[id]
		if !ok {
			continue
		}
		block, why := f.retiredZoneSetting(ev, r, id)
		if why != "" {
			f.leave(r, r.Address()+" not rewritten: "+why)
			continue
		}
		start, end := blockSpan(r.File, r)
		text := removedBlock(r)
		if block != "" {
			text = block + "\n" + text
		}
		if end < len(r.File.Src) && r.File.Src[end] != '\n' { // a blank line after it stays
			text += "\n"
		}
		f.edits[r.File] = append(f.edits[r.File], edit{start: start, end: end, text: text})
		f.res.Rewrites = append(f.res.Rewrites, Rewrite{Module: m.Dir, File: r.File.Path, Line: r.Line(), Old: []string{r.Address()}, New: "removed " + r.Address(),
			Proven: "nothing to prove: the setting is retired; the removed block forgets it without changing it in the account",
			Notes:  []string{"setting " + id + ": " + e.Replacement}})
	}
}

// retiredZoneSetting is the block that replaces a cloudflare_zone_setting of a retired
// setting besides its removed block ("" when none), or why it stays.
func (f *fixer) retiredZoneSetting(ev *evaluator, r *Resource, id string) (block, why string) {
	switch id {
	case "mobile_redirect":
		v, _ := known(ev, r.Attr("value"), instance{}, cty.Object(map[string]cty.Type{"status": cty.String, "mobile_subdomain": cty.String, "strip_uri": cty.Bool}))
		if v == cty.NilVal || v.IsNull() {
			return "", "the repository does not hold its value (status, mobile_subdomain, strip_uri)"
		}
		return f.redirectFor(r, f.zoneOfResource(ev, r), objString(v, "status"), objString(v, "mobile_subdomain"), objBool(v, "strip_uri"))
	case "waf":
		out := f.wafSwitch(ev, r, wafSettingEntry(ev, r))
		return out.block, out.why
	}
	return "", ""
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
