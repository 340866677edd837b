package terraform

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// settingAttr is a settable attribute of a DNS settings resource, with its nested ones.
type settingAttr struct {
	name     string
	children []settingAttr
}

// leaves makes attributes without nested ones.
func leaves(names ...string) []settingAttr {
	out := make([]settingAttr, len(names))
	for i, n := range names {
		out[i] = settingAttr{name: n}
	}
	return out
}

// dnsSettingsCommon are the settings a zone and an account's zone_defaults share.
var dnsSettingsCommon = []string{"flatten_all_cnames", "foundation_dns", "internal_dns", "multi_provider", "ns_ttl", "secondary_overrides", "soa", "zone_mode"}

// dnsSettingsAttrs are the settable attributes of the DNS settings resources in provider v5
// (checked against the 5.22.0 schema by the tests), the id attribute aside. The provider
// reads every one of them back into state, so a configuration that leaves one out would
// plan to null it on every run: the output ignores the changes of those the plan does not
// set, and declares only what it sets.
var dnsSettingsAttrs = map[string][]settingAttr{
	"cloudflare_zone_dns_settings": append(leaves(dnsSettingsCommon...),
		settingAttr{name: "nameservers", children: leaves("ns_set", "type")}),
	"cloudflare_account_dns_settings": {
		{name: "enforce_dns_only"},
		{name: "zone_defaults", children: append(leaves(dnsSettingsCommon...), settingAttr{name: "nameservers", children: leaves("type")})},
	},
}

// ignoredSettings returns, sorted, the attribute paths of attrs that no declared path
// (dotted, e.g. "zone_defaults.nameservers.type") sets: a whole attribute when nothing
// inside it is declared, else its undeclared nested attributes.
func ignoredSettings(attrs []settingAttr, declared []string, prefix string) []string {
	var out []string
	for _, a := range attrs {
		path := prefix + a.name
		exact, inside := false, false
		for _, d := range declared {
			exact = exact || d == path
			inside = inside || strings.HasPrefix(d, path+".")
		}
		switch {
		case exact:
		case inside && len(a.children) > 0:
			out = append(out, ignoredSettings(a.children, declared, path+".")...)
		case !inside:
			out = append(out, path)
		}
	}
	return out
}

// ignoreChanges appends `lifecycle { ignore_changes = [a, b.c] }` to a resource body.
func ignoreChanges(body *hclwrite.Body, paths []string) {
	if len(paths) == 0 {
		return
	}
	toks := hclwrite.Tokens{{Type: hclsyntax.TokenOBrack, Bytes: []byte("[")}}
	for i, p := range paths {
		if i > 0 {
			toks = append(toks, &hclwrite.Token{Type: hclsyntax.TokenComma, Bytes: []byte(",")})
		}
		parts := strings.Split(p, ".")
		tr := hcl.Traversal{hcl.TraverseRoot{Name: parts[0]}}
		for _, part := range parts[1:] {
			tr = append(tr, hcl.TraverseAttr{Name: part})
		}
		toks = append(toks, hclwrite.TokensForTraversal(tr)...)
	}
	toks = append(toks, &hclwrite.Token{Type: hclsyntax.TokenCBrack, Bytes: []byte("]")})
	body.AppendNewline()
	body.AppendNewBlock("lifecycle", nil).Body().SetAttributeRaw("ignore_changes", toks)
}
