package filters

import (
	"context"

	"github.com/cloudflare/cloudflare-go"
)

// Client is what the controller needs.
type Client interface {
	UpdateFilter(ctx context.Context, zoneID, id string, f cloudflare.Filter) error
}

type impl struct{ cf *cloudflare.API }

// UpdateFilter delegates to the SDK.
func (c *impl) UpdateFilter(ctx context.Context, zoneID, id string, f cloudflare.Filter) error {
	_, err := c.cf.UpdateFilter(ctx, cloudflare.ZoneIdentifier(zoneID), cloudflare.FilterUpdateParams{ID: id}) // want: filters
	return err
}

type controller struct{ client Client }

// Sync calls the project's own wrapper, not the SDK.
func (r *controller) Sync(ctx context.Context, zoneID string) error {
	return r.client.UpdateFilter(ctx, zoneID, "id", cloudflare.Filter{})
}
