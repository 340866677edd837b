package fix

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner/catalog"
)

// cloudflare_zone_settings_override is itself deprecated (zone-settings-bulk: one call, one
// resource, per setting). Provider v5 has no such type: for --target v5 each setting it still
// sets becomes a cloudflare_zone_setting (setting_id and value, as the API names them: only
// the ids of settingids.json), set under the conditions the override set it (see
// settingentries.go); universal_ssl, which the API keeps under its own endpoint, becomes a
// cloudflare_universal_ssl_setting; the retired ones are dropped as on v4, waf for the
// managed rules that replace it (waf.go); what no v5 resource can set is listed with why;
// and the override leaves the state through the clean-up script. Provider v4 has no
// per-setting resource: there the override stays, its retired settings gone, and the summary
// says the rest waits for the upgrade.

// Provider v5's resources that replace the override.
const (
	typeZoneSetting  = "cloudflare_zone_setting"
	typeUniversalSSL = "cloudflare_universal_ssl_setting"
)

// overrideToSettings rewrites one override for provider v5; it says why it cannot ("" when
// it can: then the v4 treatment applies, and the override stays with why).
func (f *fixer) overrideToSettings(ev *evaluator, r *Resource, retired map[string]catalog.Entry) string {
	bodies := settingsBodies(ev, r)
	switch {
	case r.Attr("zone_id") == nil:
		return "it has no zone_id"
	case len(bodies) > 1:
		return "it has more than one settings block"
	}
	var entries []settingEntry
	if len(bodies) == 1 {
		entries = bodies[0].scope.entries(bodies[0].body)
	}
	if why := repeatedOverride(r, entries); why != "" {
		return why
	}
	for _, e := range entries {
		if e.name == "mobile_redirect" && e.block != nil {
			if why := f.mobileRedirect(ev, r, e, f.zoneOfResource(ev, r)); why != "" {
				return "its mobile_redirect cannot be written as a redirect rule (see it)"
			}
		}
	}
	w := &settingsWriter{f: f, ev: ev, r: r}
	for _, e := range entries {
		w.add(e, retired)
	}
	w.write()
	return ""
}

// repeatedOverride says why an override with count or for_each cannot be written per
// setting ("" when it can): count and for_each go on each new resource (see repetition), so
// a setting's condition cannot read count.index, and a redirect rule is one per zone.
func repeatedOverride(r *Resource, entries []settingEntry) string {
	if !r.Repeated() {
		return ""
	}
	for _, e := range entries {
		switch {
		case e.name == "mobile_redirect":
			return "it has count or for_each and sets mobile_redirect, whose redirect rule is one per zone: write it per zone by hand"
		case r.Attr("count") != nil && readsCountIndex(e.allGuards()):
			return "the conditions under which it sets " + e.name + " depend on count.index, which count cannot read"
		}
	}
	return ""
}

// repetition is the count or for_each line of a resource that replaces one of r's settings
// (or its waf switch), set where the guards hold: r's own for_each filtered by them (each.key
// and each.value stay what they were), or r's count (else 1) inside them; "" when always
// one.
func repetition(r *Resource, guards []guard) string {
	if fe := r.Attr("for_each"); fe != nil {
		text := exprText(r.File, fe)
		if len(guards) == 0 {
			return "for_each = " + text
		}
		return fmt.Sprintf("for_each = { for k, v in %s : k => v if %s }", parenthesized(fe, text), forEachFilter(guards))
	}
	count := exprText(r.File, r.Attr("count"))
	switch {
	case len(guards) > 0:
		return "count = " + countOf(guards, orText(count, "1"))
	case count != "":
		return "count = " + count
	}
	return ""
}

// readsCountIndex reports whether a guard reads count.index (a count cannot).
func readsCountIndex(gs []guard) bool {
	for _, g := range gs {
		if strings.Contains(g.cond, "count.index") {
			return true
		}
	}
	return false
}

// settingsWriter collects the blocks that replace one override.
type settingsWriter struct {
	f      *fixer
	ev     *evaluator
	r      *Resource
	blocks []string
	addrs  []string
	notes  []string
	left   []string
	driven bool // some setting is set only under conditions
}

// add writes one setting again, drops it, or lists it as not carried over.
func (w *settingsWriter) add(e settingEntry, retired map[string]catalog.Entry) {
	where := w.r.Address() + ".settings." + e.name
	if entry, gone := retired[e.name]; gone {
		switch e.name {
		case "waf":
			out := w.f.wafSwitch(w.ev, w.r, e)
			if out.block != "" {
				w.f.insertAfter(w.r, out.block)
			}
			w.note(out.note)
			w.leave(where, out.why)
		case "mobile_redirect": // written (or redirecting nothing) before
		default:
			w.note(fmt.Sprintf("settings.%s dropped: %s", e.name, entry.Replacement))
		}
		return
	}
	switch api, ok := apiSettingOf(e.name); {
	case e.why != "":
		w.leave(where, e.why)
	case e.value != nil && isNullLiteral(e.value):
		w.note("settings." + e.name + " is null: provider v4 did not manage it, nothing to write")
	case ok && api.Value != "none":
		value := e.typedValue(api.Value)
		if e.name == "security_header" {
			value = "{ strict_transport_security = " + e.text + " }" // the API nests what v4 flattened
		}
		w.block(typeZoneSetting, e, fmt.Sprintf("setting_id = %q\nvalue = %s", api.ID, value))
	case e.name == "universal_ssl":
		w.block(typeUniversalSSL, e, "enabled = "+enabledValue(e))
	default:
		w.leave(where, notZoneSetting(e.name))
	}
}

func (w *settingsWriter) note(s string) {
	if s != "" {
		w.notes = append(w.notes, s)
	}
}

// leave lists a setting not carried over, and why.
func (w *settingsWriter) leave(where, why string) {
	if why == "" {
		return
	}
	msg := where + " not carried over: " + why
	w.left = append(w.left, msg)
	w.f.res.Left = append(w.f.res.Left, Problem{Path: w.r.File.Path, Line: w.r.Line(), Message: msg})
}

// block writes one resource of typ for the entry: the override's meta-arguments, count
// when the setting is set only under conditions, zone_id as written, then attrs.
func (w *settingsWriter) block(typ string, e settingEntry, attrs string) {
	name := uniqueName(w.r.Module, typ, w.r.Name+"_"+sanitizeName(e.name))
	var b strings.Builder
	fmt.Fprintf(&b, "resource %q %q {\n", typ, name)
	guards := e.allGuards()
	meta := repetition(w.r, guards)
	w.driven = w.driven || len(guards) > 0
	if meta != "" {
		b.WriteString(meta + "\n")
	}
	if x := w.r.Attr("provider"); x != nil {
		fmt.Fprintf(&b, "provider = %s\n", exprText(w.r.File, x))
	}
	if meta != "" {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "zone_id = %s\n%s\n", exprText(w.r.File, w.r.Attr("zone_id")), attrs)
	if x := w.r.Attr("depends_on"); x != nil {
		fmt.Fprintf(&b, "\ndepends_on = %s\n", exprText(w.r.File, x))
	}
	b.WriteString("}\n")
	w.blocks = append(w.blocks, b.String())
	w.addrs = append(w.addrs, typ+"."+name)
}

// write replaces the override with the blocks, under a comment that says what became of it.
func (w *settingsWriter) write() {
	r := w.r
	newAddrs := strings.Join(w.addrs, ", ")
	what := fmt.Sprintf("sunset fix: %s replaced by %s, one resource per setting (cloudflare_zone_settings_override is deprecated and provider v5 has no such type); the retired settings are gone.", r.Address(), newAddrs)
	if len(w.addrs) == 0 {
		newAddrs = "nothing (no setting it set is one provider v5 sets)"
		what = fmt.Sprintf("sunset fix: %s removed: cloudflare_zone_settings_override is deprecated and provider v5 has no such type, and every setting it set is retired or one no provider v5 resource sets.", r.Address())
	}
	if w.driven {
		what += "\nA setting the override set only under a condition (a null value, an empty dynamic block) has the condition as its count."
	}
	for _, l := range w.left {
		what += "\n" + l + "."
	}
	text := commentLines(what, "")
	if len(w.blocks) > 0 {
		text += string(hclwrite.Format([]byte(strings.Join(w.blocks, "\n"))))
	}
	rng := r.Block.Range()
	f := w.f
	f.edits[r.File] = append(f.edits[r.File], edit{start: rng.Start.Byte, end: rng.End.Byte, text: strings.TrimSuffix(text, "\n")})
	f.removed = append(f.removed, r)
	f.replacedBy[r] = newAddrs
	proven := "the same values under provider v5's resources: each setting's value as written (typed as the API wants it), its setting_id the API's"
	if len(w.addrs) == 0 {
		proven = "nothing to prove: no setting is written again"
	}
	if w.driven {
		proven += "; a setting set only under a condition has it as its count, as the override left it unmanaged otherwise"
	}
	if hasBlock(r.Block.Body, "lifecycle") {
		w.notes = append(w.notes, "the override's lifecycle block is not carried over (its ignore_changes named the override's settings): add one to the new resources if still needed")
	}
	f.res.Rewrites = append(f.res.Rewrites, Rewrite{Module: r.Module.Dir, File: r.File.Path, Line: r.Line(), Old: []string{r.Address()}, New: newAddrs,
		Proven: proven, Notes: w.notes})
}

func hasBlock(b *hclsyntax.Body, typ string) bool {
	for _, blk := range b.Blocks {
		if blk.Type == typ {
			return true
		}
	}
	return false
}

// enabledValue is cloudflare_universal_ssl_setting's enabled for the override's
// universal_ssl value ("on" or "off").
func enabledValue(e settingEntry) string {
	if s := knownString(e.scope.ev, e.value); s != "" && len(e.value.Variables()) == 0 {
		return fmt.Sprint(strings.EqualFold(s, "on")) // a literal: a variable stays one
	}
	return parenthesized(e.value, e.text) + ` == "on"`
}

// notZoneSetting says why a setting of provider v4's override that the zone settings API
// does not have is not carried over.
func notZoneSetting(name string) string {
	return fmt.Sprintf("the zone settings API has no setting %q (its OpenAPI description lists no such setting_id, nor does provider v5.22.0), "+
		"and provider v5 has no other resource for it, so no block fix could write would be sure to apply; Terraform stops managing it and the zone keeps the value it has "+
		"(write a cloudflare_zone_setting by hand if your zone's API has it)", name)
}

// v5 reports whether the run writes for provider v5.
func (f *fixer) v5() bool { return f.opts.Target == terraform.ProviderV5 }
