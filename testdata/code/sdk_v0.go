package edge

import (
	"context"
	"fmt"
	"net/http"

	cf "github.com/cloudflare/cloudflare-go"
)

const (
	settingBrotli = "brotli" // want: zone-setting-brotli
	settingWAF    = "always_online"
)

type store struct {
	api *cf.API
}

// Rules lists the zone's firewall rules and their filters.
func (s *store) Rules(ctx context.Context, zoneID string) error {
	rc := cf.ZoneIdentifier(zoneID)
	if _, _, err := s.api.FirewallRules(ctx, rc, cf.FirewallRuleListParams{}); err != nil { // want: firewall-rules
		return err
	}
	_, _, err := s.api.Filters(ctx, rc, cf.FilterListParams{}) // want: filters
	return err
}

// Limits lists the old rate limits.
func (s *store) Limits(ctx context.Context, zoneID string) ([]cf.RateLimit, error) {
	return s.api.ListAllRateLimits(ctx, zoneID) // want: rate-limiting-v1
}

// Settings reads every zone setting at once.
func (s *store) Settings(ctx context.Context, zoneID string) error {
	_, err := s.api.ZoneSettings(ctx, zoneID) // want: zone-settings-bulk
	return err
}

// Raw calls the API without the client.
func Raw(c *http.Client, base, zone string) (*http.Response, error) {
	url := fmt.Sprintf("%s/zones/%s/firewall/waf/packages", base, zone) // want: waf-managed-rules-v1
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	return c.Do(req)
}
