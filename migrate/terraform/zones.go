package terraform

import (
	"fmt"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/sunsetscan/sunset/migrate"
)

// phaseNames shortens phases for resource names.
var phaseNames = map[vocab.Phase]string{
	vocab.PhaseCustomRules:     "custom_rules",
	vocab.PhaseRateLimiting:    "rate_limiting_rules",
	vocab.PhaseManaged:         "managed_rules",
	vocab.PhaseDynamicRedirect: "redirect_rules",
}

// zoneFile renders a zone's entry points, DNS settings and created objects; nil when the
// zone has none of them.
func (g *gen) zoneFile(z *migrate.ZonePlan) ([]byte, error) {
	f := hclwrite.NewEmptyFile()
	body := f.Body()
	base := "zone_" + z.ZoneName
	scope := zoneScope(z)
	n := 0
	for _, t := range z.Targets {
		if err := g.ruleset(body, z, t, base); err != nil {
			return nil, err
		}
		n++
	}
	if s := z.DNSSettings; s != nil && !s.IsZero() {
		g.zoneDNSSettings(body, z, *s, base)
		n++
	}
	k, err := g.createdObjects(body, scope, z.Steps)
	if err != nil {
		return nil, fmt.Errorf("terraform: zone %s: %w", z.ZoneName, err)
	}
	if n+k == 0 {
		return nil, nil
	}
	return finish(header(fmt.Sprintf("Zone %s (%s): the Terraform way to carry out ../plan.md for this zone (see README.md; use it or plan.md's API steps, never both).", z.ZoneName, z.ZoneID)), f), nil
}

// ruleset writes the cloudflare_ruleset of one entry point, imported when it exists.
func (g *gen) ruleset(body *hclwrite.Body, z *migrate.ZonePlan, t migrate.Target, base string) error {
	short := phaseNames[t.Phase]
	if short == "" {
		short = string(t.Phase)
	}
	name := g.names.name(base + "_" + short)
	ids := g.claim(zoneScope(z), z.Steps, func(st migrate.Step) bool { return writesEntrypoint(st, z.ZoneID, t) }, "cloudflare_ruleset."+name)
	if t.RulesetID != "" {
		body.AppendUnstructuredTokens(comment(fmt.Sprintf("Entry point %s exists (ruleset %s): imported, then updated to hold these rules.%s", t.Phase, t.RulesetID, replacesComment(ids))))
	} else {
		body.AppendUnstructuredTokens(comment(fmt.Sprintf("Entry point %s is created by the plan.%s", t.Phase, replacesComment(ids))))
	}
	r := body.AppendNewBlock("resource", []string{"cloudflare_ruleset", name}).Body()
	r.SetAttributeValue("zone_id", cty.StringVal(z.ZoneID))
	r.SetAttributeValue("name", cty.StringVal(t.Name))
	r.SetAttributeValue("kind", cty.StringVal("zone"))
	r.SetAttributeValue("phase", cty.StringVal(string(t.Phase)))
	if err := SetRules(r, t.Rules, ProviderV5); err != nil {
		return fmt.Errorf("terraform: zone %s, %s %w", z.ZoneName, t.Phase, err)
	}
	body.AppendNewline()
	if t.RulesetID != "" {
		importBlock(body, "cloudflare_ruleset", name, "zones/"+z.ZoneID+"/"+t.RulesetID)
	}
	return nil
}

// adoptNote says why the DNS settings resources come without an import block.
const adoptNote = "No import block: the provider cannot import this resource. Declaring it adopts the settings: create PATCHes the attributes below (the values the plan sets), destroy only forgets them. The settings the plan does not set are left to the account (ignore_changes): the provider reads them all back and would otherwise plan to clear them on every run."

// zoneDNSSettings writes the zone's cloudflare_zone_dns_settings, without an import block.
func (g *gen) zoneDNSSettings(body *hclwrite.Body, z *migrate.ZonePlan, s migrate.Settings, base string) {
	name := g.names.name(base + "_dns_settings")
	ids := g.claim(zoneScope(z), z.Steps, writesPath("/zones/"+z.ZoneID+"/dns_settings"), "cloudflare_zone_dns_settings."+name)
	body.AppendUnstructuredTokens(comment("DNS settings replace the deprecated cname_flattening setting and the dns_settings/use_apex_ns and secondary_overrides endpoints."))
	body.AppendUnstructuredTokens(comment(adoptNote + replacesComment(ids)))
	r := body.AppendNewBlock("resource", []string{"cloudflare_zone_dns_settings", name}).Body()
	r.SetAttributeValue("zone_id", cty.StringVal(z.ZoneID))
	var declared []string
	for _, a := range []struct {
		name string
		v    *bool
	}{{"flatten_all_cnames", s.FlattenAllCNAMEs}, {"multi_provider", s.MultiProvider}, {"secondary_overrides", s.SecondaryOverrides}} {
		if a.v != nil {
			r.SetAttributeValue(a.name, cty.BoolVal(*a.v))
			declared = append(declared, a.name)
		}
	}
	if s.NameserversType != "" {
		r.SetAttributeValue("nameservers", cty.ObjectVal(map[string]cty.Value{"type": cty.StringVal(s.NameserversType)}))
		declared = append(declared, "nameservers.type")
	}
	ignoreChanges(r, ignoredSettings(dnsSettingsAttrs["cloudflare_zone_dns_settings"], declared, ""))
	body.AppendNewline()
}
