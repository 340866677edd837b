package fix

import (
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate/terraform"
)

// TestWorkspaceRulesOnASharedZoneAreLeft: firewall rules and rate limits whose values read
// terraform.workspace (through a local), on a zone every workspace shares, are left with
// the reason (each workspace's ruleset would replace the others'); the same rules on a zone
// chosen per workspace are rewritten.
func TestWorkspaceRulesOnASharedZoneAreLeft(t *testing.T) {
	src := func(zone string) string {
		return `variable "zones" {
  type    = map(string)
  default = { stage = "0ed5703243ed917ae6df0f7ddc638d7d", prod = "5d41402abc4b2a76b9719d911017c592" }
}

variable "hosts" {
  type    = map(string)
  default = { stage = "stage.example.org", prod = "www.example.org" }
}

locals {
  host = var.hosts[terraform.workspace]
}

resource "cloudflare_filter" "admin" {
  zone_id    = ` + zone + `
  expression = "(http.host eq \"${local.host}\" and starts_with(http.request.uri.path, \"/admin\"))"
}

resource "cloudflare_firewall_rule" "admin" {
  zone_id   = ` + zone + `
  filter_id = cloudflare_filter.admin.id
  action    = "block"
}

resource "cloudflare_rate_limit" "login" {
  zone_id   = ` + zone + `
  threshold = 10
  period    = 60
  match {
    request {
      url_pattern = "${local.host}/login"
    }
  }
  action {
    mode    = "ban"
    timeout = 60
  }
}
`
	}
	for _, c := range []struct {
		zone   string
		shared bool
	}{{`var.zones["prod"]`, true}, {`var.zones[terraform.workspace]`, false}} {
		dir, res := fixTree(t, map[string]string{"main.tf": src(c.zone)}, terraform.ProviderV5)
		for _, addr := range []string{"cloudflare_firewall_rule.admin", "cloudflare_rate_limit.login"} {
			l := leftFor(res, addr)
			if left := len(l) == 1 && strings.Contains(l[0], "reads terraform.workspace"); left != c.shared {
				t.Errorf("zone %s: %s left for its workspace = %v, want %v (left %v)", c.zone, addr, left, c.shared, res.Left)
			}
		}
		leftSaidInPlace(t, dir, res)
	}
}
