package tfschema

import (
	"strings"
	"testing"
)

func load(t *testing.T, version string) *Schema {
	t.Helper()
	s, err := Load(version)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLoad: both schemas load, with their version, and an unknown version is an error.
func TestLoad(t *testing.T) {
	for _, v := range []string{"4.52.8", "5.22.0"} {
		if s := load(t, v); s.Version != v || len(s.Types) == 0 {
			t.Errorf("%s: version %s, %d types", v, s.Version, len(s.Types))
		}
	}
	if _, err := Load("3.0.0"); err == nil {
		t.Error("provider 3.0.0 loaded")
	}
}

// TestCheckFile: each kind of mistake is reported once, naming where; valid blocks,
// expressions, meta-arguments, dynamic blocks and types kept by name only pass.
func TestCheckFile(t *testing.T) {
	v4 := load(t, "4.52.8")
	for name, c := range map[string]struct {
		src  string
		want string // "" for valid
	}{
		"valid": {`resource "cloudflare_ruleset" "a" {
  zone_id = var.zone
  name    = "x"
  kind    = "zone"
  phase   = "http_request_firewall_custom"
  count   = 1
  rules {
    action     = "skip"
    expression = "true"
    action_parameters {
      products = ["waf", "bic"]
    }
    logging {
      enabled = false
    }
  }
  dynamic "rules" {
    for_each = var.rules
    content {
      action     = rules.value.action
      expression = rules.value.expression
    }
  }
  lifecycle {
    ignore_changes = [description]
  }
}
resource "cloudflare_page_rule" "z" {
  anything = 1
}`, ""},
		"unknown type":     {`resource "cloudflare_nope" "a" {}`, `v4.tf:1: cloudflare_nope.a: no such type in the provider 4.52.8 schema`},
		"unknown attr":     {rs("rules {\nexpression = \"true\"\n" + `colour = "red"` + "\n}"), `cloudflare_ruleset.a.rules[0].colour: no such attribute`},
		"computed only":    {strings.Replace(rs(""), `kind`, `id = "x"`+"\n"+`kind`, 1), `cloudflare_ruleset.a.id: computed only, cannot be set`},
		"missing required": {rs(`rules { action = "block" }`), `cloudflare_ruleset.a.rules[0]: required attribute expression missing`},
		"wrong type":       {rs("rules {\nexpression = \"true\"\n" + `ratelimit { period = "soon" }` + "\n}"), `cloudflare_ruleset.a.rules[0].ratelimit[0].period: string does not convert to number`},
		"unknown block":    {rs("rules {\nexpression = \"true\"\n" + "colour {}\n}"), `cloudflare_ruleset.a.rules[0]: no such block colour`},
		"too many blocks":  {rs("rules {\nexpression = \"true\"\n" + "logging {}\nlogging {}\n}"), `cloudflare_ruleset.a.rules[0].logging: more than 1 block(s)`},
		"ignore_changes":   {rs("lifecycle {\nignore_changes = [id]\n}"), `ignore_changes.id is not a settable attribute`},
		"does not parse":   {`resource "x" {`, `Unclosed configuration block`},
	} {
		errs := v4.CheckFile([]byte(c.src), "v4.tf")
		switch {
		case c.want == "" && len(errs) > 0:
			t.Errorf("%s: %v", name, errs)
		case c.want != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), c.want)):
			t.Errorf("%s: %v, want one error with %q", name, errs, c.want)
		}
	}
}

// rs is a v4 zone ruleset with body added.
func rs(body string) string {
	return `resource "cloudflare_ruleset" "a" {
  zone_id = "z"
  name    = "x"
  kind    = "zone"
  phase   = "http_request_firewall_custom"
` + body + "\n}\n"
}

// TestCheckNestedAttributes: v5's nested attributes are checked inside literal values, and
// by name inside values that hold references.
func TestCheckNestedAttributes(t *testing.T) {
	v5 := load(t, "5.22.0")
	src := `resource "cloudflare_ruleset" "a" {
  zone_id = "z"
  name    = "x"
  kind    = "zone"
  phase   = "http_request_firewall_custom"
  rules = [{ action = "block", expression = "true", ratelimit = { period = 10, characteristics = ["ip.src"], colour = "red" } }]
}`
	for _, src := range []string{src, strings.Replace(src, `expression = "true"`, `expression = var.expr`, 1)} {
		errs := v5.CheckFile([]byte(src), "v5.tf")
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), "cloudflare_ruleset.a.rules[0].ratelimit.colour: no such attribute") {
			t.Errorf("%v", errs)
		}
	}
	// a reference for a whole object is not read; one for a required member counts as set
	refs := strings.Replace(src, `ratelimit = { period = 10, characteristics = ["ip.src"], colour = "red" }`, `ratelimit = local.rl`, 1)
	refs = strings.Replace(refs, `action = "block"`, `action = local.action`, 1)
	if errs := v5.CheckFile([]byte(refs), "v5.tf"); len(errs) > 0 {
		t.Errorf("%v", errs)
	}
}

// TestFixTypes: configurations of the types sunset fix writes or edits, as a user writes
// them, fit; a setting or attribute the release does not have is caught.
func TestFixTypes(t *testing.T) {
	for _, c := range []struct {
		version, src, want string
	}{
		{"4.52.8", `resource "cloudflare_zone_settings_override" "a" {
  zone_id = var.zone_id
  settings {
    always_use_https = "on"
    min_tls_version  = "1.2"
    minify {
      css  = "on"
      html = "off"
      js   = "on"
    }
  }
}
resource "cloudflare_record" "mx" {
  zone_id  = var.zone_id
  name     = "@"
  type     = "SRV"
  priority = 10
  data {
    service  = "_sip"
    proto    = "_tls"
    name     = "example.com"
    priority = 0
    weight   = 0
    port     = 443
    target   = "sip.example.com"
  }
}
resource "cloudflare_tunnel" "t" {
  account_id = var.account_id
  name       = "t"
  secret     = base64encode(random_id.s.hex)
}
resource "cloudflare_load_balancer_pool" "p" {
  account_id = var.account_id
  name       = "p"
  origins {
    name    = "a"
    address = "192.0.2.1"
    header {
      header = "Host"
      values = ["a.example.com"]
    }
  }
  load_shedding {
    default_percent = 0
  }
}
resource "cloudflare_access_application" "b" {
  account_id = var.account_id
  name       = "b"
  type       = "bookmark"
  domain     = "b.example.com"
}
resource "cloudflare_notification_policy" "n" {
  account_id = var.account_id
  name       = "n"
  alert_type = "universal_ssl_event_type"
  enabled    = true
  email_integration {
    id = "ops@example.com"
  }
  filters {
    zones = [var.zone_id]
  }
}`, ""},
		{"4.52.8", `resource "cloudflare_zone_settings_override" "a" {
  zone_id = "z"
  settings {
    mirage_plus = "on"
  }
}`, "cloudflare_zone_settings_override.a.settings[0].mirage_plus: no such attribute"},
		{"5.22.0", `resource "cloudflare_zone_setting" "s" {
  zone_id    = "z"
  setting_id = "min_tls_version"
  value      = "1.2"
}
resource "cloudflare_dns_record" "r" {
  zone_id = "z"
  name    = "_sip._tls"
  type    = "SRV"
  ttl     = 1
  data    = { priority = 0, weight = 0, port = 443, target = "sip.example.com" }
}
resource "cloudflare_zero_trust_tunnel_cloudflared" "t" {
  account_id    = "a"
  name          = "t"
  tunnel_secret = "c2VjcmV0"
}
resource "cloudflare_load_balancer_pool" "p" {
  account_id = "a"
  name       = "p"
  origins    = [{ name = "a", address = "192.0.2.1", header = { host = ["a.example.com"] } }]
}`, ""},
		{"5.22.0", `resource "cloudflare_zero_trust_tunnel_cloudflared" "t" {
  account_id = "a"
  name       = "t"
  secret     = "c2VjcmV0"
}`, "cloudflare_zero_trust_tunnel_cloudflared.t.secret: no such attribute"},
	} {
		errs := load(t, c.version).CheckFile([]byte(c.src), "fix.tf")
		switch {
		case c.want == "" && len(errs) > 0:
			t.Errorf("%s: %v", c.version, errs)
		case c.want != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), c.want)):
			t.Errorf("%s: %v, want one error with %q", c.version, errs, c.want)
		}
	}
}

// TestRequiredNeverNull: a required attribute whose value is null in a branch (provider
// v4's "not managed when cond is false", written as v5's required value) is refused, as
// Terraform refuses it; under a count it passes; cloudflare_universal_ssl_setting is v5's.
func TestRequiredNeverNull(t *testing.T) {
	v5 := load(t, "5.22.0")
	for src, want := range map[string]string{
		`resource "cloudflare_zone_setting" "a" {
  zone_id    = var.zone
  setting_id = "mirage"
  value      = var.plan != "free" ? var.mirage : null
}`: "a.value: required, and null in a branch",
		`resource "cloudflare_zone_setting" "a" {
  zone_id    = var.zone
  setting_id = "mirage"
  value      = null
}`: "a.value: required, and null in a branch",
		`resource "cloudflare_zone_setting" "a" {
  count      = var.plan != "free" ? 1 : 0
  zone_id    = var.zone
  setting_id = "mirage"
  value      = var.mirage
}`: "",
		`resource "cloudflare_universal_ssl_setting" "a" {
  zone_id = var.zone
  enabled = var.universal_ssl == "on"
}`: "",
		`resource "cloudflare_universal_ssl_setting" "a" {
  zone_id = var.zone
  value   = "on"
}`: "a.value: no such attribute",
	} {
		errs := v5.CheckFile([]byte(src), "main.tf")
		switch {
		case want == "" && len(errs) > 0:
			t.Errorf("valid block refused: %v\n%s", errs, src)
		case want != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), want)):
			t.Errorf("errors %v, want one with %q\n%s", errs, want, src)
		}
	}
}

// TestReferencesAndDataSources: a reference to an attribute the provider's resource or data
// source does not have is caught (v4's names read under v5, a type v5 dropped); data blocks
// are checked as resource blocks are, and a value outside the provider's one-of list is
// caught.
func TestReferencesAndDataSources(t *testing.T) {
	zoneRef := func(ref string) string {
		return `data "cloudflare_zones" "z" {
  name = "example.com"
}
resource "cloudflare_zone_setting" "s" {
  zone_id    = ` + ref + `
  setting_id = "min_tls_version"
  value      = "1.2"
}`
	}
	for _, c := range []struct {
		name, version, src, want string
	}{
		{"v5 result", "5.22.0", zoneRef("data.cloudflare_zones.z.result[0].id"), ""},
		{"v5 lookup", "5.22.0", zoneRef(`lookup(data.cloudflare_zones.z.result[count.index], "id")`), ""},
		{"v4 name under v5", "5.22.0", zoneRef("data.cloudflare_zones.z.zones[0].id"), "reads data.cloudflare_zones.z.zones.id: provider 5.22.0's data source cloudflare_zones has no attribute zones"},
		{"no such nested attribute", "5.22.0", zoneRef("data.cloudflare_zones.z.result[0].zone_id"), "has no attribute result.zone_id"},
		{"v4 zones", "4.52.8", `data "cloudflare_zones" "z" {
  filter {
    name = "example.com"
  }
}
resource "cloudflare_ruleset" "r" {
  zone_id = data.cloudflare_zones.z.zones[0].id
  name    = "r"
  kind    = "zone"
  phase   = "http_request_firewall_custom"
}`, ""},
		{"v4 data block under v5", "5.22.0", `data "cloudflare_zones" "z" {
  filter {
    name = "example.com"
  }
}`, "data.cloudflare_zones.z: no such block filter"},
		{"tunnel cname under v5", "5.22.0", `output "c" {
  value = 1
}
resource "cloudflare_zone_setting" "s" {
  zone_id    = cloudflare_zero_trust_tunnel_cloudflared.t.cname
  setting_id = "min_tls_version"
  value      = "1.2"
}`, "cloudflare_zero_trust_tunnel_cloudflared has no attribute cname"},
		{"dropped type", "5.22.0", zoneRef("cloudflare_argo_tunnel.t.id"), "provider 5.22.0 has no resource type cloudflare_argo_tunnel"},
		{"one-of", "5.22.0", `resource "cloudflare_firewall_rule" "f" {
  zone_id = "z"
  action  = { mode = "allow" }
  filter  = { expression = "true" }
}`, `cloudflare_firewall_rule.f.action.mode: "allow" is not one of`},
		{"computed only", "5.22.0", `resource "cloudflare_rate_limit" "l" {
  zone_id     = "z"
  threshold   = 10
  period      = 60
  action      = { mode = "ban" }
  match       = { request = { url = "example.com/*" } }
  description = "x"
}`, "cloudflare_rate_limit.l.description: computed only"},
	} {
		errs := load(t, c.version).CheckFile([]byte(c.src), "refs.tf")
		switch {
		case c.want == "" && len(errs) > 0:
			t.Errorf("%s: %v", c.name, errs)
		case c.want != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), c.want)):
			t.Errorf("%s: %v, want one error with %q", c.name, errs, c.want)
		}
	}
}
