package repo

import (
	"testing"

	"github.com/sunsetscan/sunset/scanner"
)

// TestZoneSettingsResources: cloudflare_zone_settings_override is the bulk settings endpoint
// itself (zone-settings-bulk at its resource line) besides its deprecated settings; the waf
// setting is the previous WAF's switch, in any of its forms and whatever its value.
func TestZoneSettingsResources(t *testing.T) {
	runFileCases(t, []fileCase{
		{"override", "z.tf", `resource "cloudflare_zone_settings_override" "z" {
  zone_id = var.zone_id
  settings {
    always_use_https = "on"
    brotli           = "on"
    waf              = "off"
  }
}
`, []string{"waf-managed-rules-v1@6:5", "zone-setting-brotli@5:5", "zone-settings-bulk@1:1"}},
		{"override with nothing else deprecated", "z.tf", `resource "cloudflare_zone_settings_override" "z" {
  zone_id = var.zone_id
  settings { ssl = "strict" }
}
`, []string{"zone-settings-bulk@1:1"}},
		{"override in JSON syntax", "z.tf.json", `{"resource": {"cloudflare_zone_settings_override": {"z": {
  "zone_id": "${var.zone_id}",
  "settings": {"waf": "on", "minify": {"css": "on"}}
}}}}`, []string{"waf-managed-rules-v1@3:23", "zone-setting-minify@3:39", "zone-settings-bulk@1:58"}},
		{"per-setting resource", "s.tf", `resource "cloudflare_zone_setting" "waf" {
  zone_id    = var.zone_id
  setting_id = "waf"
  value      = "on"
}
resource "cloudflare_zone_setting" "ssl" {
  zone_id    = var.zone_id
  setting_id = "ssl"
  value      = "strict"
}
`, []string{"waf-managed-rules-v1@3:3"}},
		{"setting object in JSON", "settings.json", `{"result": [{"id": "waf", "value": "off"}, {"id": "ssl", "value": "full"}]}`,
			[]string{"waf-managed-rules-v1@1:13"}},
		{"pulumi yaml", "Pulumi.yaml", `resources:
  settings:
    type: cloudflare:index:ZoneSettingsOverride
    properties:
      zoneId: ${zoneId}
  rule:
    type: cloudflare:index:Ruleset
    properties: {}
  old:
    type: cloudflare:index/firewallRule:FirewallRule
    properties: {}
`, []string{"firewall-rules@10:5", "zone-settings-bulk@3:5"}},
		{"crossplane manifest", "settings.yaml", `apiVersion: zone.cloudflare.crossplane.io/v1alpha1
kind: ZoneSettingsOverride
metadata:
  name: example
---
apiVersion: dns.cloudflare.crossplane.io/v1alpha1
kind: Record
spec: {}
`, []string{"zone-settings-bulk@1:1"}},
		{"endpoint", "waf.sh", `curl -X PATCH "$API/zones/$ZONE/settings/waf" -d '{"value":"off"}'` + "\n",
			[]string{"waf-managed-rules-v1@1:21"}},
	})
	// The resource's finding is a new one: rule, path and the resource address.
	c := NewChecker(nil, asOf)
	fs := c.CheckFile("z.tf", KindTerraform, []byte("resource \"cloudflare_zone_settings_override\" \"z\" {\n}\n")).Findings
	if len(fs) != 1 || fs[0].Fingerprint != scanner.Fingerprint(scanner.SourceFile, "zone-settings-bulk", "z.tf", "cloudflare_zone_settings_override.z") {
		t.Errorf("findings %v", positions(fs))
	}
}

// TestSRVDataFields: SRV data fields are reported at their lines when the record's type is
// SRV or may be (a variable, each.value, lookup), in a resource's data block, dynamic block
// or v5 data object, and in the records modules, for_each, locals, variables and tfvars pass
// around; a literal type other than SRV means nothing to report. None of these files spells
// "SRV" except where the type is literal.
func TestSRVDataFields(t *testing.T) {
	srv := func(lines ...string) []string {
		out := make([]string, len(lines))
		for i, l := range lines {
			out[i] = "srv-data-fields@" + l
		}
		return out
	}
	runFileCases(t, []fileCase{
		{"type from a variable", "r.tf", `resource "cloudflare_record" "r" {
  type = var.type
  data {
    service = "_sip"
    proto   = "_tcp"
    name    = "example.com"
    port    = 5060
  }
}
`, srv("4:5", "5:5", "6:5")},
		{"v5 data object, type from each.value", "r.tf", `resource "cloudflare_dns_record" "r" {
  for_each = var.records
  type     = each.value.type
  data = {
    service = each.value.service
    proto   = "_tcp"
    name    = "example.com"
  }
}
`, srv("5:5", "6:5", "7:5")},
		{"generic module: dynamic data, lookup", "main.tf", `resource "cloudflare_record" "r" {
  for_each = var.records
  type     = lookup(each.value, "type", null) != null ? lookup(each.value, "type") : "CNAME"
  dynamic "data" {
    for_each = try(each.value.data, null) != null ? [each.value.data] : []
    content {
      priority = lookup(data.value, "priority", null)
      name     = lookup(data.value, "name", null)
      target   = lookup(data.value, "target", null)
    }
  }
}
`, srv("8:7")},
		{"literal type other than SRV", "r.tf", `resource "cloudflare_record" "r" {
  type = "TXT"
  data {
    service = "_sip"
    name    = "example.com"
  }
}
`, nil},
		{"module arguments", "dns.tf", `module "dns" {
  source = "./modules/dns"
  records = {
    sip = {
      type = "SRV"
      data = { service = "_sip", proto = "_tcp", name = "example.com", port = 5060 }
    }
    www  = { type = "A", value = "192.0.2.1" }
    txt  = { type = "TXT", data = { name = "x", service = "y" } }
    xmpp = { type = var.t, data = { service = "_xmpp", proto = "_tcp" } }
    loc  = { data = { name = "only a name" } }
  }
}
`, srv("6:16", "6:34", "6:50", "10:37", "10:56")},
		{"for_each of a record resource", "r.tf", `resource "cloudflare_record" "r" {
  for_each = tomap({
    sip = { data = { service = "_sip", proto = "_tcp", name = "example.com" } }
    mx  = { type = "MX", data = { name = "mail" } }
  })
  type = each.value.type
  name = each.key
}
resource "cloudflare_record" "a" {
  for_each = { x = { data = { name = "example.com" } } }
  type     = "A"
}
`, srv("3:22", "3:40", "3:56")},
		{"dynamic for_each list", "r.tf", `resource "cloudflare_record" "r" {
  type = var.type
  dynamic "data" {
    for_each = [{ service = "_sip", proto = "_tcp" }]
    content {
      service = data.value.service
      proto   = data.value.proto
    }
  }
}
`, srv("6:7", "7:7")},
		{"locals and variable default", "vars.tf", `locals {
  records = [
    { type = "SRV", data = { service = "_sip", name = "example.com" } },
  ]
}
variable "records" {
  default = [{
    data = {
      service = "_ldap"
      proto   = "_tcp"
    }
  }]
}
`, srv("3:30", "3:48", "9:7", "10:7")},
		{"tfvars", "prod.tfvars", `records = {
  sip = {
    type = "SRV"
    data = {
      name = "example.com"
    }
  }
}
`, srv("5:7")},
		{"terragrunt inputs", "live/dns/terragrunt.hcl", `terraform {
  source = "../../modules//dns"
}
inputs = {
  records = [
    { name = "_sip._tcp", type = "SRV", data = { service = "_sip", proto = "_tcp", port = 5060 } },
  ]
}
`, srv("6:50", "6:68")},
		{"module in JSON syntax", "dns.tf.json", `{"module": {"dns": {"source": "./dns", "records": [
  {"type": "SRV", "data": {"service": "_sip", "proto": "_tcp"}}
]}}}`, srv("2:39", "2:56")},
	})
}

// TestRulesInTerraformValues: rule objects passed to modules or kept in locals, variables
// and tfvars (an expression with an action, or in a list under a key ending in "rules" or "filters") have
// their deprecated fields reported.
func TestRulesInTerraformValues(t *testing.T) {
	runFileCases(t, []fileCase{
		{"module rules", "waf.tf", `module "waf" {
  source = "./waf"
  custom_rules = [
    {
      description = "geo"
      expression  = "(ip.geoip.country in {\"T1\"})"
    },
    {
      expression = <<-EOT
        (http.host eq "${var.host}")
        or (cf.threat_score gt 10)
      EOT
      action     = "managed_challenge"
    },
  ]
  other = { expression = "ip.geoip.asnum eq 1" }
}
`, []string{"geoip-field-names@6:7", "threat-score-field@11:13"}},
		{"tfvars rule map", "waf.tfvars", `rules = {
  geo = { action = "block", expression = "ip.geoip.continent eq \"AN\"" }
}
`, []string{"geoip-field-names@2:29"}},
	})
}

// TestValuesPrefilter: a file is read for values outside resources when it holds what a
// finding there needs, whatever case it is written in, and not otherwise.
func TestValuesPrefilter(t *testing.T) {
	r := NewChecker(nil, asOf).tf
	for src, want := range map[string]bool{
		`records = { a = { type = "SRV", data = { name = "x" } } }`:            true,
		`x = { data = { service = "_sip", proto = "_tcp" } }`:                  true,
		`x = { data = { service = "_sip" } }`:                                  false,
		`rules = [{ expression = "ip.geoip.asnum eq 1" }]`:                     true,
		`rules = [{ expression = "ip.src.asnum eq 1" }]`:                       false,
		`module "m" { source = "./m" }`:                                        false,
		`X = { DATA = { SERVICE = "_sip", NAME = "x" } } # type is an SRV var`: true,
	} {
		if got := r.valuesMayMatch(toLower(nil, []byte(src))); got != want {
			t.Errorf("valuesMayMatch(%q) = %v, want %v", src, got, want)
		}
	}
}
