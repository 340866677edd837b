package fix

import (
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate/terraform"
)

// zoneModule is a module that makes a zone and blocks a country on it, with the zone's id
// as an output.
const zoneModule = `variable "domain" {
  type = string
}

resource "cloudflare_zone" "zone" {
  account_id = "f037e56e89293a057740de681ac9abbe"
  zone       = var.domain
}

output "zone_id" {
  value = cloudflare_zone.zone.id
}

resource "cloudflare_filter" "countries" {
  zone_id    = cloudflare_zone.zone.id
  expression = "(ip.src.country ne \"NL\")"
}

resource "cloudflare_firewall_rule" "countries" {
  zone_id   = cloudflare_zone.zone.id
  filter_id = cloudflare_filter.countries.id
  action    = "block"
}
`

// TestZoneClaimedByTwoModulesIsLeft: the caller adds a rule to the zone a module makes
// (through the module's zone_id output) while the module has rules of its own: two
// rulesets would claim the zone's one entry point, so both modules' rules are left, naming
// the modules. A module called for two zones, with the caller's rules on a third, is
// rewritten.
func TestZoneClaimedByTwoModulesIsLeft(t *testing.T) {
	callerRule := func(zone string) string {
		return `
resource "cloudflare_filter" "monitor" {
  zone_id    = ` + zone + `
  expression = "(ip.src in {192.0.2.0/24})"
}

resource "cloudflare_firewall_rule" "monitor" {
  zone_id   = ` + zone + `
  filter_id = cloudflare_filter.monitor.id
  action    = "block"
}
`
	}
	shared := `module "ingress" {
  source = "./modules/zone"
  domain = "example.dev"
}
` + callerRule("module.ingress.zone_id")
	apart := `module "shop" {
  source = "./modules/zone"
  domain = "shop.example"
}

module "blog" {
  source = "./modules/zone"
  domain = "blog.example"
}
` + callerRule(`"5d41402abc4b2a76b9719d911017c592"`)
	for _, c := range []struct {
		name, root string
		left       bool
	}{{"shared", shared, true}, {"apart", apart, false}} {
		dir, res := fixTree(t, map[string]string{"main.tf": c.root, "modules/zone/main.tf": zoneModule}, terraform.ProviderV5)
		for _, addr := range []string{"cloudflare_firewall_rule.monitor", "cloudflare_firewall_rule.countries"} {
			l := leftFor(res, addr)
			if left := len(l) == 1 && strings.Contains(l[0], "declared by more than one module"); left != c.left {
				t.Errorf("%s: %s left for the shared zone = %v, want %v (left %v)", c.name, addr, left, c.left, res.Left)
			}
		}
		leftSaidInPlace(t, dir, res)
	}
}
