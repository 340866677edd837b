// Package vocab is the vocabulary every package of sunset shares: the catalog's entry ids
// (users suppress findings by them), the kinds of API objects findings are about, the phases
// of the ruleset engine and the actions of rules. Each word is a typed constant here, and
// nowhere else: a typo is a compile error, not a silent mismatch. It imports nothing, so it
// sits at the bottom of the import graph.
package vocab

import "strings"

// RuleID names an entry of the deprecation catalog. A user catalog may add ids beyond the
// constants below.
type RuleID string

// The catalog ids (design.md, "Catalog ids").
const (
	FirewallRules                     RuleID = "firewall-rules"
	Filters                           RuleID = "filters"
	WAFManagedRulesV1                 RuleID = "waf-managed-rules-v1"
	RateLimitingV1                    RuleID = "rate-limiting-v1"
	CNAMEFlatteningSetting            RuleID = "cname-flattening-setting"
	ZoneSettingsBulk                  RuleID = "zone-settings-bulk"
	AccountNameserverSettings         RuleID = "account-nameserver-settings"
	DNSSettingsUseApexNS              RuleID = "dns-settings-use-apex-ns"
	DNSSettingsSecondaryOverrides     RuleID = "dns-settings-secondary-overrides"
	DNSRecordZoneFields               RuleID = "dns-record-zone-fields"
	DNSRecordLocked                   RuleID = "dns-record-locked"
	DNSErrorChain                     RuleID = "dns-error-chain"
	SRVDataFields                     RuleID = "srv-data-fields"
	ZoneSettingBrotli                 RuleID = "zone-setting-brotli"
	ZoneSettingMinify                 RuleID = "zone-setting-minify"
	ZoneSettingMobileRedirect         RuleID = "zone-setting-mobile-redirect"
	ZoneSettingServerSideExclude      RuleID = "zone-setting-server-side-exclude"
	ZoneSettingPrivacyPass            RuleID = "zone-setting-privacy-pass"
	ArgoTunnelsAPI                    RuleID = "argo-tunnels-api"
	BillingProfileAPI                 RuleID = "billing-profile-api"
	AccessBookmarksAPI                RuleID = "access-bookmarks-api"
	ImagesV1DirectUpload              RuleID = "images-v1-direct-upload"
	AnalyticsDashboardAPI             RuleID = "analytics-dashboard-api"
	OrganizationsAPI                  RuleID = "organizations-api"
	PageShieldScriptMonitor           RuleID = "page-shield-script-monitor"
	NotificationEmail                 RuleID = "notification-email"
	TransferEncodingWithContentLength RuleID = "transfer-encoding-with-content-length"
	ChaCha20DraftCiphers              RuleID = "chacha20-draft-ciphers"
	ThreatScoreField                  RuleID = "threat-score-field"
	GeoIPFieldNames                   RuleID = "geoip-field-names"
)

// zoneSettingRules are the catalog ids of the deprecated single zone settings, by the
// setting's id ("mobile_redirect" -> zone-setting-mobile-redirect).
var zoneSettingRules = map[string]RuleID{
	"brotli":              ZoneSettingBrotli,
	"minify":              ZoneSettingMinify,
	"mobile_redirect":     ZoneSettingMobileRedirect,
	"server_side_exclude": ZoneSettingServerSideExclude,
	"privacy_pass":        ZoneSettingPrivacyPass,
}

// ZoneSettingRule returns the catalog id of a deprecated single zone setting, and whether
// the setting is one.
func ZoneSettingRule(setting string) (RuleID, bool) {
	id, ok := zoneSettingRules[setting]
	return id, ok
}

// Kind names the kind of API object a finding or a catalog match is about.
type Kind string

// The object kinds.
const (
	KindFirewallRule       Kind = "firewall_rule"
	KindFilter             Kind = "filter"
	KindRateLimit          Kind = "rate_limit"
	KindWAFPackage         Kind = "waf_package"
	KindWAFGroup           Kind = "waf_group"
	KindWAFRule            Kind = "waf_rule"
	KindWAFOverride        Kind = "waf_override"
	KindZoneSetting        Kind = "zone_setting"
	KindDNSRecord          Kind = "dns_record"
	KindDNSSettings        Kind = "dns_settings"
	KindAccount            Kind = "account"
	KindAccountDNSSettings Kind = "account_dns_settings"
	KindHealthCheck        Kind = "health_check"
	KindLoadBalancerPool   Kind = "load_balancer_pool"
	KindTunnel             Kind = "tunnel"
	KindAccessBookmark     Kind = "access_bookmark"
	KindRuleset            Kind = "ruleset"
	KindExpression         Kind = "expression" // a filter or rule expression
	KindZone               Kind = "zone"       // zone-wide findings (quotas, record field summaries)
)

// Phase names a phase of the ruleset engine.
type Phase string

// The phases sunset reads or writes.
const (
	PhaseCustomRules     Phase = "http_request_firewall_custom"
	PhaseRateLimiting    Phase = "http_ratelimit"
	PhaseManaged         Phase = "http_request_firewall_managed"
	PhaseDynamicRedirect Phase = "http_request_dynamic_redirect"
	PhaseCompression     Phase = "http_response_compression"
)

// Action names what a firewall rule or a ruleset rule does.
type Action string

// Rule actions: the firewall rules' (block, challenge, js_challenge, managed_challenge,
// allow, log, bypass) and the ruleset engine's that sunset writes (skip, execute, redirect).
const (
	ActionBlock            Action = "block"
	ActionChallenge        Action = "challenge"
	ActionJSChallenge      Action = "js_challenge"
	ActionManagedChallenge Action = "managed_challenge"
	ActionAllow            Action = "allow"
	ActionLog              Action = "log"
	ActionBypass           Action = "bypass"
	ActionSkip             Action = "skip"
	ActionExecute          Action = "execute"
	ActionRedirect         Action = "redirect"
)

// IsChallenge tells the challenge actions, which take no mitigation timeout in rate
// limiting rules.
func (a Action) IsChallenge() bool {
	return a == ActionChallenge || a == ActionJSChallenge || a == ActionManagedChallenge
}

// Join joins words of the vocabulary with sep, as strings.Join does strings.
func Join[T ~string](words []T, sep string) string {
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = string(w)
	}
	return strings.Join(parts, sep)
}
