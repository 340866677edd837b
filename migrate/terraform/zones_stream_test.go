package terraform

import (
	"fmt"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
)

// retiredPlan is a generated plan whose zones retire objects of every kind: the generated
// old resources (provider v4 types), WAF overrides, packages, groups and rules (types no
// provider has), types this package does not know, and a zone that shares its name with the
// one before it (their removed blocks and state rm lines go under one heading).
func retiredPlan(t *testing.T) *migrate.Plan {
	t.Helper()
	p := generatedPlan(t, 60)
	for i := range p.Zones {
		z := &p.Zones[i]
		if i%3 == 0 {
			for typ := range goneTypes {
				z.Retired = append(z.Retired, migrate.Retired{Type: typ, ID: fmt.Sprintf("%s-%d", typ, i)})
			}
		}
		if i%4 == 1 {
			z.Retired = append(z.Retired,
				migrate.Retired{Type: "cloudflare_access_bookmark", ID: fmt.Sprintf("bm-%d", i)},
				migrate.Retired{Type: "cloudflare_filter", ID: fmt.Sprintf("extra-filter-%d", i)})
		}
	}
	twin := p.Zones[10]
	twin.ZoneID += "-twin"
	twin.Retired = []migrate.Retired{{Type: "cloudflare_rate_limit", ID: "twin-rl"}, {Type: "cloudflare_waf_rule", ID: "twin-rule"}}
	p.Zones = append(p.Zones[:11], append([]migrate.ZonePlan{twin}, p.Zones[11:]...)...)
	return p
}
