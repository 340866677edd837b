package edge

import (
	"context"

	"github.com/cloudflare/cloudflare-go/v4"
	"github.com/cloudflare/cloudflare-go/v4/firewall"
	"github.com/cloudflare/cloudflare-go/v4/rulesets"
)

// Migrate reads the old rules and writes the new ruleset.
func Migrate(ctx context.Context, client *cloudflare.Client, zoneID string) error {
	_, err := client.Firewall.Rules.List(ctx, firewall.RuleListParams{ZoneID: cloudflare.F(zoneID)}) // want: firewall-rules
	if err != nil {
		return err
	}
	_, err = client.Rulesets.New(ctx, rulesets.RulesetNewParams{})
	return err
}
