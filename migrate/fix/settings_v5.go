package fix

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner/catalog"
)

// cloudflare_zone_settings_override is itself deprecated (zone-settings-bulk: one call, one
// resource, per setting). Provider v5 has no such type: for --target v5 each setting it still
// sets becomes a cloudflare_zone_setting (setting_id and value, as the API names them), the
// retired ones are dropped as on v4, and the override leaves the state through the clean-up
// script. Provider v4 has no per-setting resource: there the override stays, its retired
// settings gone, and the summary says the rest waits for the upgrade.

// typeZoneSetting is provider v5's one resource per zone setting.
const typeZoneSetting = "cloudflare_zone_setting"

// settingIDs are the API's ids of the settings whose provider v4 attribute is named otherwise.
var settingIDs = map[string]string{"zero_rtt": "0rtt"}

// overrideToSettings rewrites one override for provider v5; false when it cannot (then the
// v4 treatment applies and the rest is left with why).
func (f *fixer) overrideToSettings(ev *evaluator, r *Resource, retired map[string]catalog.Entry) bool {
	if r.Repeated() {
		f.res.Left = append(f.res.Left, Problem{Path: r.File.Path, Line: r.Line(), Message: r.Address() + " not moved to cloudflare_zone_setting resources: it has count or for_each; write one cloudflare_zone_setting per setting"})
		return false
	}
	var settings *hclsyntax.Block
	for _, b := range r.Block.Body.Blocks {
		if b.Type == "settings" {
			settings = b
		}
	}
	zone := r.Attr("zone_id")
	if settings == nil || zone == nil {
		return false
	}
	for _, it := range settingEntries(r.File, settings.Body) {
		if it.name == "mobile_redirect" && it.block != nil {
			item := settingItem{name: it.name, block: it.block, line: it.block.DefRange().Start.Line}
			if why := f.mobileRedirect(ev, r, item, f.zoneOfResource(ev, r)); why != "" {
				return false // it stays, with why: so does the override, on v4's terms
			}
		}
	}
	var blocks, ids []string
	for _, it := range settingEntries(r.File, settings.Body) {
		if _, gone := retired[it.name]; gone {
			continue
		}
		id := it.name
		if api, ok := settingIDs[id]; ok {
			id = api
		}
		name := uniqueName(r.Module, typeZoneSetting, r.Name+"_"+sanitizeName(it.name))
		blocks = append(blocks, fmt.Sprintf("resource %q %q {\n  zone_id    = %s\n  setting_id = %q\n  value      = %s\n}\n", typeZoneSetting, name, exprText(r.File, zone), id, it.value))
		ids = append(ids, typeZoneSetting+"."+name)
	}
	newAddrs := strings.Join(ids, ", ")
	if len(ids) == 0 {
		newAddrs = "nothing (every setting it set is retired)"
	}
	head := commentLines(fmt.Sprintf("sunset fix: %s replaced by %s, one resource per setting (cloudflare_zone_settings_override is deprecated and provider v5 has no such type); the retired settings are gone.", r.Address(), newAddrs), "")
	text := head + string(hclwrite.Format([]byte(strings.Join(blocks, "\n"))))
	if len(blocks) == 0 {
		text = head
	}
	rng := r.Block.Range()
	f.edits[r.File] = append(f.edits[r.File], edit{start: rng.Start.Byte, end: rng.End.Byte, text: strings.TrimSuffix(text, "\n")})
	f.removed = append(f.removed, r)
	f.replacedBy[r] = newAddrs
	f.res.Rewrites = append(f.res.Rewrites, Rewrite{Module: r.Module.Dir, File: r.File.Path, Line: r.Line(), Old: []string{r.Address()}, New: newAddrs,
		Proven: "the same values under provider v5's resource: each setting's value as written, its setting_id the API's"})
	return true
}

// settingEntry is one setting of a settings block: its name, its value as HCL source (a
// nested block as an object), and the block when it is one.
type settingEntry struct {
	name, value string
	block       *hclsyntax.Block
}

// settingEntries lists a settings block's settings by name.
func settingEntries(file *File, b *hclsyntax.Body) []settingEntry {
	var out []settingEntry
	for name, a := range b.Attributes {
		out = append(out, settingEntry{name: name, value: exprText(file, a.Expr)})
	}
	for _, blk := range b.Blocks {
		v := blockObject(file, blk.Body)
		if blk.Type == "security_header" {
			v = "{ strict_transport_security = " + v + " }" // the API nests what v4 flattened
		}
		out = append(out, settingEntry{name: blk.Type, value: v, block: blk})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// blockObject is a block's body as an HCL object constructor.
func blockObject(file *File, b *hclsyntax.Body) string {
	var parts []string
	for name, a := range b.Attributes {
		parts = append(parts, name+" = "+exprText(file, a.Expr))
	}
	for _, blk := range b.Blocks {
		parts = append(parts, blk.Type+" = "+blockObject(file, blk.Body))
	}
	sort.Strings(parts)
	return "{ " + strings.Join(parts, ", ") + " }"
}

// v5 reports whether the run writes for provider v5.
func (f *fixer) v5() bool { return f.opts.Target == terraform.ProviderV5 }
