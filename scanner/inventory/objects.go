// Package inventory holds what exists in an account as the API describes it: zones, accounts,
// firewall rules, filters, rate limits, WAF objects, settings, DNS records and the rest. Types
// use the API's wire names and keep unknown members (Extra), so nothing is lost on a round trip.
package inventory

import (
	"encoding/json"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"
)

// Plan levels as the API spells them in zone.plan.legacy_id.
const (
	PlanFree       = "free"
	PlanPro        = "pro"
	PlanBusiness   = "business"
	PlanEnterprise = "enterprise"
)

// Ref is the {id, name} pair the API uses to point at an account or a group; other members
// (a zone's account may carry more) are kept in Extra.
type Ref struct {
	ID    string `json:"id"`
	Name  string `json:"name,omitempty"`
	Extra Extra  `json:"-"`
}

// ZonePlan is the zone's subscription plan; LegacyID drives plan-gated checks and quotas.
type ZonePlan struct {
	ID       string `json:"id,omitempty"`
	Name     string `json:"name,omitempty"`
	LegacyID string `json:"legacy_id,omitempty"`
	Extra    Extra  `json:"-"`
}

// Zone is a zone as GET /zones returns it.
type Zone struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Status  string   `json:"status,omitempty"`
	Paused  bool     `json:"paused"`
	Type    string   `json:"type,omitempty"`
	Account Ref      `json:"account"`
	Plan    ZonePlan `json:"plan"`
	Extra   Extra    `json:"-"`
}

// AccountSettings is the settings object of an account; the two nameserver fields are deprecated.
type AccountSettings struct {
	EnforceTwoFactor            *bool  `json:"enforce_twofactor,omitempty"`
	DefaultNameservers          string `json:"default_nameservers,omitempty"`
	UseAccountCustomNSByDefault *bool  `json:"use_account_custom_ns_by_default,omitempty"`
	Extra                       Extra  `json:"-"`
}

// Account is an account as GET /accounts returns it.
type Account struct {
	ID       string           `json:"id"`
	Name     string           `json:"name"`
	Settings *AccountSettings `json:"settings,omitempty"`
	Extra    Extra            `json:"-"`
}

// Filter is a reusable match expression (deprecated API).
type Filter struct {
	ID          string `json:"id,omitempty"`
	Expression  string `json:"expression"`
	Paused      bool   `json:"paused"`
	Description string `json:"description,omitempty"`
	Ref         string `json:"ref,omitempty"`
	Extra       Extra  `json:"-"`
}

// FirewallRule is a firewall rule (deprecated API); Priority nil means "no priority, runs last".
type FirewallRule struct {
	ID          string       `json:"id,omitempty"`
	Filter      Filter       `json:"filter"`
	Action      vocab.Action `json:"action"`
	Priority    *int         `json:"priority"`
	Paused      bool         `json:"paused"`
	Description string       `json:"description,omitempty"`
	Ref         string       `json:"ref,omitempty"`
	Products    []string     `json:"products,omitempty"`
	Extra       Extra        `json:"-"`
}

// HeaderMatch is one header condition of a previous-version rate limit.
type HeaderMatch struct {
	Name  string `json:"name"`
	Op    string `json:"op"`
	Value string `json:"value"`
}

// RateLimitRequest is the request side of a rate limit match (wire key "url").
type RateLimitRequest struct {
	Methods []string `json:"methods,omitempty"`
	Schemes []string `json:"schemes,omitempty"`
	URL     string   `json:"url,omitempty"`
	Extra   Extra    `json:"-"`
}

// RateLimitResponse is the response side of a rate limit match (wire key "status").
type RateLimitResponse struct {
	Status        []int         `json:"status,omitempty"`
	OriginTraffic *bool         `json:"origin_traffic,omitempty"`
	Headers       []HeaderMatch `json:"headers,omitempty"`
	Extra         Extra         `json:"-"`
}

// RateLimitMatch is what a previous-version rate limit counts; response headers may sit under
// Response or directly under the match, depending on the source.
type RateLimitMatch struct {
	Request  *RateLimitRequest  `json:"request,omitempty"`
	Response *RateLimitResponse `json:"response,omitempty"`
	Headers  []HeaderMatch      `json:"headers,omitempty"`
	Extra    Extra              `json:"-"`
}

// RateLimitBypass is one bypass entry (name "url").
type RateLimitBypass struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// RateLimitResponseBody is the custom response of a rate limit action.
type RateLimitResponseBody struct {
	ContentType string `json:"content_type,omitempty"`
	Body        string `json:"body,omitempty"`
}

// RateLimitRef is the ref the rate limiting rule that replaces rate limit id carries (plan,
// apply and fix write it): a later scan or plan recognises the replacement by it.
func RateLimitRef(id string) string { return "rate_limit:" + id }

// RuleAction is the action of the rate limiting rule the old mode becomes: ban -> block,
// simulate -> log, the challenge modes unchanged; "" for a mode with no rule action.
func (a RateLimitAction) RuleAction() vocab.Action {
	switch strings.ToLower(a.Mode) {
	case "ban":
		return vocab.ActionBlock
	case "simulate":
		return vocab.ActionLog
	case "challenge", "js_challenge", "managed_challenge":
		return vocab.Action(strings.ToLower(a.Mode))
	}
	return ""
}

// RateLimitAction is what a previous-version rate limit does when tripped.
type RateLimitAction struct {
	Mode     string                 `json:"mode"`
	Timeout  int                    `json:"timeout,omitempty"`
	Response *RateLimitResponseBody `json:"response,omitempty"`
	Extra    Extra                  `json:"-"`
}

// RateLimitCorrelate says how requests are grouped ("nat" or empty).
type RateLimitCorrelate struct {
	By string `json:"by,omitempty"`
}

// RateLimit is a previous-version rate limit (/zones/:id/rate_limits).
type RateLimit struct {
	ID          string              `json:"id,omitempty"`
	Disabled    bool                `json:"disabled"`
	Description string              `json:"description,omitempty"`
	Match       RateLimitMatch      `json:"match"`
	Bypass      []RateLimitBypass   `json:"bypass,omitempty"`
	Threshold   int                 `json:"threshold"`
	Period      int                 `json:"period"`
	Action      RateLimitAction     `json:"action"`
	Correlate   *RateLimitCorrelate `json:"correlate,omitempty"`
	Extra       Extra               `json:"-"`
}

// WAFPackage is a previous-version WAF package; the anomaly (OWASP) one has Sensitivity and ActionMode.
type WAFPackage struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Description   string `json:"description,omitempty"`
	DetectionMode string `json:"detection_mode"`
	ZoneID        string `json:"zone_id,omitempty"`
	Status        string `json:"status,omitempty"`
	Sensitivity   string `json:"sensitivity,omitempty"`
	ActionMode    string `json:"action_mode,omitempty"`
	Extra         Extra  `json:"-"`
}

// WAFGroup is a rule group of a previous-version WAF package.
type WAFGroup struct {
	ID                 string   `json:"id"`
	Name               string   `json:"name"`
	Description        string   `json:"description,omitempty"`
	RulesCount         int      `json:"rules_count"`
	ModifiedRulesCount int      `json:"modified_rules_count"`
	PackageID          string   `json:"package_id,omitempty"`
	Mode               string   `json:"mode"`
	AllowedModes       []string `json:"allowed_modes,omitempty"`
	Extra              Extra    `json:"-"`
}

// WAFRule is a rule of a previous-version WAF package; Priority is a string on the wire.
type WAFRule struct {
	ID           string   `json:"id"`
	Description  string   `json:"description,omitempty"`
	Priority     string   `json:"priority,omitempty"`
	PackageID    string   `json:"package_id,omitempty"`
	Group        *Ref     `json:"group,omitempty"`
	Mode         string   `json:"mode"`
	DefaultMode  string   `json:"default_mode,omitempty"`
	AllowedModes []string `json:"allowed_modes,omitempty"`
	Extra        Extra    `json:"-"`
}

// WAFOverride is a URL-based override of the previous-version WAF.
type WAFOverride struct {
	ID            string            `json:"id"`
	Description   string            `json:"description,omitempty"`
	URLs          []string          `json:"urls"`
	Priority      int               `json:"priority"`
	Paused        bool              `json:"paused"`
	Groups        map[string]string `json:"groups,omitempty"`
	Rules         map[string]string `json:"rules,omitempty"`
	RewriteAction map[string]string `json:"rewrite_action,omitempty"`
	Extra         Extra             `json:"-"`
}

// Setting is one zone setting ({id, value, editable, modified_on}); Value is kept as raw JSON
// because its shape depends on the setting (a string, or an object for minify and mobile_redirect).
type Setting struct {
	ID         string          `json:"id"`
	Value      json.RawMessage `json:"value"`
	Editable   *bool           `json:"editable,omitempty"`
	ModifiedOn string          `json:"modified_on,omitempty"`
	Extra      Extra           `json:"-"`
}

// StringValue returns the value when it is a JSON string, and "" otherwise.
func (s Setting) StringValue() string {
	var v string
	if json.Unmarshal(s.Value, &v) != nil {
		return ""
	}
	return v
}

// RecordData is the type-specific data of a DNS record; Service, Proto and Name are the
// deprecated SRV fields.
type RecordData struct {
	Service  *string `json:"service,omitempty"`
	Proto    *string `json:"proto,omitempty"`
	Name     *string `json:"name,omitempty"`
	Priority *int    `json:"priority,omitempty"`
	Weight   *int    `json:"weight,omitempty"`
	Port     *int    `json:"port,omitempty"`
	Target   string  `json:"target,omitempty"`
	Extra    Extra   `json:"-"`
}

// HasDeprecatedSRVFields reports whether any of data.service, data.proto, data.name is set.
func (d *RecordData) HasDeprecatedSRVFields() bool {
	return d != nil && (d.Service != nil || d.Proto != nil || d.Name != nil)
}

// DNSRecord is a DNS record; ZoneID, ZoneName and Locked are pointers so their presence in a
// response (removed or omitted after the dated changes) is visible.
type DNSRecord struct {
	ID       string      `json:"id,omitempty"`
	Type     string      `json:"type"`
	Name     string      `json:"name"`
	Content  string      `json:"content,omitempty"`
	Proxied  *bool       `json:"proxied,omitempty"`
	TTL      int         `json:"ttl,omitempty"`
	Priority *int        `json:"priority,omitempty"`
	Data     *RecordData `json:"data,omitempty"`
	ZoneID   *string     `json:"zone_id,omitempty"`
	ZoneName *string     `json:"zone_name,omitempty"`
	Locked   *bool       `json:"locked,omitempty"`
	Comment  string      `json:"comment,omitempty"`
	Tags     []string    `json:"tags,omitempty"`
	Extra    Extra       `json:"-"`
}

// Nameservers is the nameserver choice of DNS settings; Type is one of platform.standard,
// platform.standard.random, custom.account, custom.tenant (cloudflare.* spellings accepted).
type Nameservers struct {
	Type  string `json:"type"`
	NSSet *int   `json:"ns_set,omitempty"`
	Extra Extra  `json:"-"`
}

// DNSSettings is the zone DNS settings object (GET /zones/:id/dns_settings), and the
// zone_defaults of an account's DNS settings.
type DNSSettings struct {
	FlattenAllCNAMEs   *bool           `json:"flatten_all_cnames,omitempty"`
	FoundationDNS      *bool           `json:"foundation_dns,omitempty"`
	MultiProvider      *bool           `json:"multi_provider,omitempty"`
	SecondaryOverrides *bool           `json:"secondary_overrides,omitempty"`
	NSTTL              *int            `json:"ns_ttl,omitempty"`
	Nameservers        *Nameservers    `json:"nameservers,omitempty"`
	SOA                json.RawMessage `json:"soa,omitempty"`
	ZoneMode           string          `json:"zone_mode,omitempty"`
	Extra              Extra           `json:"-"`
}

// AccountDNSSettings is GET /accounts/:id/dns_settings.
type AccountDNSSettings struct {
	ZoneDefaults DNSSettings `json:"zone_defaults"`
	Extra        Extra       `json:"-"`
}

// RulesetRule is one rule of a ruleset (custom rules, rate limiting rules, managed rules).
type RulesetRule struct {
	ID               string          `json:"id,omitempty"`
	Version          string          `json:"version,omitempty"`
	Action           vocab.Action    `json:"action"`
	ActionParameters json.RawMessage `json:"action_parameters,omitempty"`
	Expression       string          `json:"expression"`
	Description      string          `json:"description,omitempty"`
	Enabled          *bool           `json:"enabled,omitempty"`
	Ref              string          `json:"ref,omitempty"`
	Logging          json.RawMessage `json:"logging,omitempty"`
	RateLimit        json.RawMessage `json:"ratelimit,omitempty"`
	Extra            Extra           `json:"-"`
}

// Ruleset is a ruleset, typically a zone's entry point of one phase.
type Ruleset struct {
	ID          string        `json:"id"`
	Name        string        `json:"name,omitempty"`
	Description string        `json:"description,omitempty"`
	Kind        string        `json:"kind,omitempty"`
	Phase       vocab.Phase   `json:"phase,omitempty"`
	Version     string        `json:"version,omitempty"`
	LastUpdated string        `json:"last_updated,omitempty"`
	Rules       []RulesetRule `json:"rules,omitempty"`
	Extra       Extra         `json:"-"`
}

// HealthCheck is a standalone health check of a zone.
type HealthCheck struct {
	ID                string `json:"id"`
	Name              string `json:"name"`
	Description       string `json:"description,omitempty"`
	Address           string `json:"address,omitempty"`
	NotificationEmail string `json:"notification_email,omitempty"`
	Extra             Extra  `json:"-"`
}

// LoadBalancerPool is a load balancer pool; NotificationEmail is the deprecated field.
type LoadBalancerPool struct {
	ID                string `json:"id"`
	Name              string `json:"name"`
	Description       string `json:"description,omitempty"`
	NotificationEmail string `json:"notification_email,omitempty"`
	Extra             Extra  `json:"-"`
}

// HasNotificationEmail reports whether the pool still sets the deprecated notification_email;
// a blank value counts as unset, as it does for the scan's finding.
func (p LoadBalancerPool) HasNotificationEmail() bool {
	return strings.TrimSpace(p.NotificationEmail) != ""
}

// Tunnel is a legacy (Argo) tunnel from the deprecated /accounts/:id/tunnels API.
type Tunnel struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	CreatedAt string `json:"created_at,omitempty"`
	DeletedAt string `json:"deleted_at,omitempty"`
	Extra     Extra  `json:"-"`
}

// AccessBookmark is an Access bookmark application from the deprecated bookmarks API.
type AccessBookmark struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Domain string `json:"domain,omitempty"`
	Extra  Extra  `json:"-"`
}

// AccessApp is an Access application (`/accounts/:id/access/apps`), read where the plan
// may create one: the replacement of a bookmark is an application of type bookmark.
type AccessApp struct {
	ID                 string `json:"id"`
	Name               string `json:"name"`
	Type               string `json:"type,omitempty"`
	Domain             string `json:"domain,omitempty"`
	AppLauncherVisible *bool  `json:"app_launcher_visible,omitempty"`
	CreatedAt          string `json:"created_at,omitempty"`
	Extra              Extra  `json:"-"`
}

// NotificationPolicy is an alerting policy (`/accounts/:id/alerting/v3/policies`), read
// where the plan may create one: the replacement of a pool's notification_email.
type NotificationPolicy struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	AlertType  string          `json:"alert_type,omitempty"`
	Enabled    *bool           `json:"enabled,omitempty"`
	Mechanisms json.RawMessage `json:"mechanisms,omitempty"`
	Filters    json.RawMessage `json:"filters,omitempty"`
	Created    string          `json:"created,omitempty"`
	Extra      Extra           `json:"-"`
}

// LooksLikeID reports whether s has the shape of an object id of the API: 32 hex digits.
func LooksLikeID(s string) bool {
	if len(s) != 32 {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') && (r < 'A' || r > 'F') {
			return false
		}
	}
	return true
}

// EmailList splits a notification_email value (addresses, comma-delimited) into addresses.
func EmailList(v string) []string {
	var out []string
	for _, a := range strings.Split(v, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}
