package cfapi

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// deprecatedZoneSettings are the single zone settings under a deprecation notice; their
// routes are marked deprecated so that a 4xx reads as "retired".
var deprecatedZoneSettings = map[string]bool{
	"cname_flattening":    true,
	"brotli":              true,
	"minify":              true,
	"mobile_redirect":     true,
	"server_side_exclude": true,
	"privacy_pass":        true,
}

// IsDeprecatedZoneSetting reports whether GET/PATCH /zones/:id/settings/name is under a
// deprecation notice.
func IsDeprecatedZoneSetting(name string) bool { return deprecatedZoneSettings[name] }

// get builds a GET request for the path segments.
func get(deprecated bool, segs ...string) (request, error) {
	p, err := route(segs...)
	return request{method: http.MethodGet, path: p, deprecated: deprecated}, err
}

// list fetches every page of a list endpoint.
func list[T any](ctx context.Context, c *Client, perPage int, q url.Values, deprecated bool, segs ...string) ([]T, error) {
	r, err := get(deprecated, segs...)
	if err != nil {
		return nil, err
	}
	r.query = q
	return listAll[T](ctx, c, r, perPage)
}

// one fetches a single object.
func one[T any](ctx context.Context, c *Client, deprecated bool, segs ...string) (*T, error) {
	r, err := get(deprecated, segs...)
	if err != nil {
		return nil, err
	}
	var v T
	if _, err := c.do(ctx, r, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// ListAccounts returns every account the credentials can see (GET /accounts, 50 a page).
func (c *Client) ListAccounts(ctx context.Context) ([]inventory.Account, error) {
	return list[inventory.Account](ctx, c, perPageAccounts, nil, false, "accounts")
}

// GetAccount returns one account (GET /accounts/:id); its settings carry the deprecated
// nameserver fields.
func (c *Client) GetAccount(ctx context.Context, accountID string) (*inventory.Account, error) {
	return one[inventory.Account](ctx, c, false, "accounts", accountID)
}

// ZoneFilter narrows ListZones. Page > 0 fetches only that page (with PerPage, default the
// maximum 50) instead of every page.
type ZoneFilter struct {
	AccountID string
	Name      string
	Status    string
	Page      int
	PerPage   int
}

// ListZones returns the zones matching f (GET /zones?account.id=&name=&status=, 50 a page).
func (c *Client) ListZones(ctx context.Context, f ZoneFilter) ([]inventory.Zone, error) {
	q := url.Values{}
	if f.AccountID != "" {
		q.Set("account.id", f.AccountID)
	}
	if f.Name != "" {
		q.Set("name", f.Name)
	}
	if f.Status != "" {
		q.Set("status", f.Status)
	}
	per := perPageZones
	if f.PerPage > 0 && f.PerPage < per {
		per = f.PerPage
	}
	r, err := get(false, "zones")
	if err != nil {
		return nil, err
	}
	r.query = q
	if f.Page > 0 {
		zones, _, err := listPage[inventory.Zone](ctx, c, r, f.Page, per)
		return zones, err
	}
	return listAll[inventory.Zone](ctx, c, r, per)
}

// GetZone returns one zone (GET /zones/:id).
func (c *Client) GetZone(ctx context.Context, zoneID string) (*inventory.Zone, error) {
	return one[inventory.Zone](ctx, c, false, "zones", zoneID)
}

// ListFirewallRules returns a zone's firewall rules (deprecated API, 100 a page).
func (c *Client) ListFirewallRules(ctx context.Context, zoneID string) ([]inventory.FirewallRule, error) {
	return list[inventory.FirewallRule](ctx, c, perPageFirewall, nil, true, "zones", zoneID, "firewall", "rules")
}

// GetFirewallRule returns one firewall rule (deprecated API).
func (c *Client) GetFirewallRule(ctx context.Context, zoneID, ruleID string) (*inventory.FirewallRule, error) {
	return one[inventory.FirewallRule](ctx, c, true, "zones", zoneID, "firewall", "rules", ruleID)
}

// ListFilters returns a zone's filters (deprecated API, 100 a page).
func (c *Client) ListFilters(ctx context.Context, zoneID string) ([]inventory.Filter, error) {
	return list[inventory.Filter](ctx, c, perPageFilters, nil, true, "zones", zoneID, "filters")
}

// GetFilter returns one filter (deprecated API).
func (c *Client) GetFilter(ctx context.Context, zoneID, filterID string) (*inventory.Filter, error) {
	return one[inventory.Filter](ctx, c, true, "zones", zoneID, "filters", filterID)
}

// ListWAFPackages returns a zone's previous-version WAF packages (100 a page).
func (c *Client) ListWAFPackages(ctx context.Context, zoneID string) ([]inventory.WAFPackage, error) {
	return list[inventory.WAFPackage](ctx, c, perPageWAF, nil, true, "zones", zoneID, "firewall", "waf", "packages")
}

// GetWAFPackage returns one previous-version WAF package.
func (c *Client) GetWAFPackage(ctx context.Context, zoneID, packageID string) (*inventory.WAFPackage, error) {
	return one[inventory.WAFPackage](ctx, c, true, "zones", zoneID, "firewall", "waf", "packages", packageID)
}

// ListWAFGroups returns the rule groups of a WAF package (100 a page).
func (c *Client) ListWAFGroups(ctx context.Context, zoneID, packageID string) ([]inventory.WAFGroup, error) {
	return list[inventory.WAFGroup](ctx, c, perPageWAF, nil, true, "zones", zoneID, "firewall", "waf", "packages", packageID, "groups")
}

// GetWAFGroup returns one rule group of a WAF package.
func (c *Client) GetWAFGroup(ctx context.Context, zoneID, packageID, groupID string) (*inventory.WAFGroup, error) {
	return one[inventory.WAFGroup](ctx, c, true, "zones", zoneID, "firewall", "waf", "packages", packageID, "groups", groupID)
}

// ListWAFRules returns the rules of a WAF package (100 a page).
func (c *Client) ListWAFRules(ctx context.Context, zoneID, packageID string) ([]inventory.WAFRule, error) {
	return list[inventory.WAFRule](ctx, c, perPageWAF, nil, true, "zones", zoneID, "firewall", "waf", "packages", packageID, "rules")
}

// GetWAFRule returns one rule of a WAF package.
func (c *Client) GetWAFRule(ctx context.Context, zoneID, packageID, ruleID string) (*inventory.WAFRule, error) {
	return one[inventory.WAFRule](ctx, c, true, "zones", zoneID, "firewall", "waf", "packages", packageID, "rules", ruleID)
}

// ListWAFOverrides returns a zone's URL-based WAF overrides (100 a page).
func (c *Client) ListWAFOverrides(ctx context.Context, zoneID string) ([]inventory.WAFOverride, error) {
	return list[inventory.WAFOverride](ctx, c, perPageWAF, nil, true, "zones", zoneID, "firewall", "waf", "overrides")
}

// GetWAFOverride returns one URL-based WAF override.
func (c *Client) GetWAFOverride(ctx context.Context, zoneID, overrideID string) (*inventory.WAFOverride, error) {
	return one[inventory.WAFOverride](ctx, c, true, "zones", zoneID, "firewall", "waf", "overrides", overrideID)
}

// ListRateLimits returns a zone's previous-version rate limits (1000 a page).
func (c *Client) ListRateLimits(ctx context.Context, zoneID string) ([]inventory.RateLimit, error) {
	return list[inventory.RateLimit](ctx, c, perPageRateLimits, nil, true, "zones", zoneID, "rate_limits")
}

// GetRateLimit returns one previous-version rate limit.
func (c *Client) GetRateLimit(ctx context.Context, zoneID, rateLimitID string) (*inventory.RateLimit, error) {
	return one[inventory.RateLimit](ctx, c, true, "zones", zoneID, "rate_limits", rateLimitID)
}

// GetZoneSetting returns one zone setting (GET /zones/:id/settings/NAME); the route counts
// as deprecated for the settings of IsDeprecatedZoneSetting. A result without id gets name.
func (c *Client) GetZoneSetting(ctx context.Context, zoneID, name string) (*inventory.Setting, error) {
	s, err := one[inventory.Setting](ctx, c, deprecatedZoneSettings[name], "zones", zoneID, "settings", name)
	if err == nil && s.ID == "" {
		s.ID = name
	}
	return s, err
}

// ListZoneSettings returns every zone setting in one call (GET /zones/:id/settings, the bulk
// endpoint deprecated 2025-04-23; not paginated).
func (c *Client) ListZoneSettings(ctx context.Context, zoneID string) ([]inventory.Setting, error) {
	return list[inventory.Setting](ctx, c, perPageUnspecified, nil, true, "zones", zoneID, "settings")
}

// GetDNSSettings returns a zone's DNS settings (GET /zones/:id/dns_settings).
func (c *Client) GetDNSSettings(ctx context.Context, zoneID string) (*inventory.DNSSettings, error) {
	return one[inventory.DNSSettings](ctx, c, false, "zones", zoneID, "dns_settings")
}

// GetAccountDNSSettings returns an account's DNS settings (GET /accounts/:id/dns_settings).
func (c *Client) GetAccountDNSSettings(ctx context.Context, accountID string) (*inventory.AccountDNSSettings, error) {
	return one[inventory.AccountDNSSettings](ctx, c, false, "accounts", accountID, "dns_settings")
}

// ListDNSRecords returns a zone's DNS records, of recordType only when it is not ""
// (5000 a page).
func (c *Client) ListDNSRecords(ctx context.Context, zoneID, recordType string) ([]inventory.DNSRecord, error) {
	var q url.Values
	if recordType != "" {
		q = url.Values{"type": {recordType}}
	}
	return list[inventory.DNSRecord](ctx, c, perPageDNSRecords, q, false, "zones", zoneID, "dns_records")
}

// GetDNSRecord returns one DNS record.
func (c *Client) GetDNSRecord(ctx context.Context, zoneID, recordID string) (*inventory.DNSRecord, error) {
	return one[inventory.DNSRecord](ctx, c, false, "zones", zoneID, "dns_records", recordID)
}

// GetEntrypointRuleset returns a zone's entry point ruleset of a phase, or (nil, nil) when
// the phase has none yet (HTTP 404, or error code 10003 at any status).
func (c *Client) GetEntrypointRuleset(ctx context.Context, zoneID string, phase vocab.Phase) (*inventory.Ruleset, error) {
	rs, err := one[inventory.Ruleset](ctx, c, false, "zones", zoneID, "rulesets", "phases", string(phase), "entrypoint")
	var e *Error
	if errors.As(err, &e) && (e.Status == http.StatusNotFound || e.HasCode(CodeNoEntrypoint)) {
		return nil, nil
	}
	return rs, err
}

// ListRulesets returns the zone's rulesets without their rules (GET /zones/:id/rulesets).
func (c *Client) ListRulesets(ctx context.Context, zoneID string) ([]inventory.Ruleset, error) {
	return list[inventory.Ruleset](ctx, c, perPageUnspecified, nil, false, "zones", zoneID, "rulesets")
}

// ListHealthChecks returns a zone's standalone health checks.
func (c *Client) ListHealthChecks(ctx context.Context, zoneID string) ([]inventory.HealthCheck, error) {
	return list[inventory.HealthCheck](ctx, c, perPageUnspecified, nil, false, "zones", zoneID, "healthchecks")
}

// ListLoadBalancerPools returns an account's load balancer pools (their notification_email
// is deprecated).
func (c *Client) ListLoadBalancerPools(ctx context.Context, accountID string) ([]inventory.LoadBalancerPool, error) {
	return list[inventory.LoadBalancerPool](ctx, c, perPageUnspecified, nil, false, "accounts", accountID, "load_balancers", "pools")
}

// ListTunnels returns an account's legacy tunnels from the deprecated
// GET /accounts/:id/tunnels (deleted ones included; DeletedAt tells them apart).
func (c *Client) ListTunnels(ctx context.Context, accountID string) ([]inventory.Tunnel, error) {
	return list[inventory.Tunnel](ctx, c, perPageUnspecified, nil, true, "accounts", accountID, "tunnels")
}

// ListAccessBookmarks returns an account's Access bookmarks (deprecated API).
func (c *Client) ListAccessBookmarks(ctx context.Context, accountID string) ([]inventory.AccessBookmark, error) {
	return list[inventory.AccessBookmark](ctx, c, perPageUnspecified, nil, true, "accounts", accountID, "access", "bookmarks")
}

// ListAccessApps returns an account's Access applications (GET /accounts/:id/access/apps,
// every page; see perPageAccessApps). The scan reads them where a plan may create one, so
// that it does not create an application of type bookmark that exists already.
func (c *Client) ListAccessApps(ctx context.Context, accountID string) ([]inventory.AccessApp, error) {
	return list[inventory.AccessApp](ctx, c, perPageAccessApps, nil, false, "accounts", accountID, "access", "apps")
}

// ListNotificationPolicies returns an account's notification policies
// (GET /accounts/:id/alerting/v3/policies, every page; see perPageNotificationPolicies),
// read where a plan may create one for a pool's notification_email.
func (c *Client) ListNotificationPolicies(ctx context.Context, accountID string) ([]inventory.NotificationPolicy, error) {
	return list[inventory.NotificationPolicy](ctx, c, perPageNotificationPolicies, nil, false, "accounts", accountID, "alerting", "v3", "policies")
}
