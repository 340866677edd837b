// Package edge holds what the Go prefilter must not skip: the words of a route spread over
// literals and constants, SDK names only in code, setting ids in a table; and names that
// look like the API's only as identifiers and in comments (Settings, Filters, firewall
// rules), which are no reason to parse a file.
package edge

import (
	"context"
	"fmt"

	"github.com/cloudflare/cloudflare-go/v4"
	"github.com/cloudflare/cloudflare-go/v4/zones"
)

const (
	waf   = "firewall"
	rules = `rules`
)

// Settings is not a route: an identifier.
type Settings struct{ Filters []string }

// Path builds the firewall rules route from constants.
func Path(zone string) string {
	return fmt.Sprintf("zones/%s/%s/%s", zone, waf, rules) // want: firewall-rules
}

// Old calls the v4 SDK's firewall rules with the method on the next line.
func Old(ctx context.Context, client *cloudflare.Client, zoneID string) {
	_, _ = client.Firewall.Rules.
		List(ctx, nil) // want: firewall-rules
	_, _ = client.Zones.Settings.Get(ctx, "mobile_redirect", zones.SettingGetParams{}) // want: zone-setting-mobile-redirect
}

// expression is a rule in a raw string.
const expression = `ip.geoip.country eq "XX"` // want: geoip-field-names
