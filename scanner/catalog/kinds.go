package catalog

import "slices"

// Object kinds: the vocabulary shared by Match.Objects, FieldRef.Kind, the scanner's
// Resource.Kind and the reports.
const (
	KindFirewallRule       = "firewall_rule"
	KindFilter             = "filter"
	KindRateLimit          = "rate_limit"
	KindWAFPackage         = "waf_package"
	KindWAFGroup           = "waf_group"
	KindWAFRule            = "waf_rule"
	KindWAFOverride        = "waf_override"
	KindZoneSetting        = "zone_setting"
	KindDNSRecord          = "dns_record"
	KindDNSSettings        = "dns_settings"
	KindAccount            = "account"
	KindAccountDNSSettings = "account_dns_settings"
	KindHealthCheck        = "health_check"
	KindLoadBalancerPool   = "load_balancer_pool"
	KindTunnel             = "tunnel"
	KindAccessBookmark     = "access_bookmark"
	KindRuleset            = "ruleset"
	KindExpression         = "expression" // a filter or rule expression
)

// objectKinds is sorted so ObjectKinds needs no sort and IsObjectKind can binary-search.
var objectKinds = func() []string {
	k := []string{
		KindFirewallRule, KindFilter, KindRateLimit, KindWAFPackage, KindWAFGroup, KindWAFRule,
		KindWAFOverride, KindZoneSetting, KindDNSRecord, KindDNSSettings, KindAccount,
		KindAccountDNSSettings, KindHealthCheck, KindLoadBalancerPool, KindTunnel,
		KindAccessBookmark, KindRuleset, KindExpression,
	}
	slices.Sort(k)
	return k
}()

// ObjectKinds returns the object kind vocabulary, sorted.
func ObjectKinds() []string { return slices.Clone(objectKinds) }

// IsObjectKind reports whether k belongs to the object kind vocabulary.
func IsObjectKind(k string) bool {
	_, ok := slices.BinarySearch(objectKinds, k)
	return ok
}
