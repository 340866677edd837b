package catalog

import (
	"slices"

	"github.com/sunsetscan/sunset/scanner/vocab"
)

// objectKinds are the API object kinds Match.Objects and Match.Fields may name (the
// vocabulary's kinds, but for the scanner's zone-wide kind), sorted so IsObjectKind can
// binary-search.
var objectKinds = func() []string {
	k := []string{}
	for _, kind := range []vocab.Kind{
		vocab.KindFirewallRule, vocab.KindFilter, vocab.KindRateLimit, vocab.KindWAFPackage, vocab.KindWAFGroup, vocab.KindWAFRule,
		vocab.KindWAFOverride, vocab.KindZoneSetting, vocab.KindDNSRecord, vocab.KindDNSSettings, vocab.KindAccount,
		vocab.KindAccountDNSSettings, vocab.KindHealthCheck, vocab.KindLoadBalancerPool, vocab.KindTunnel,
		vocab.KindAccessBookmark, vocab.KindRuleset, vocab.KindExpression,
	} {
		k = append(k, string(kind))
	}
	slices.Sort(k)
	return k
}()

// ObjectKinds returns the object kinds a catalog entry may match, sorted.
func ObjectKinds() []string { return slices.Clone(objectKinds) }

// IsObjectKind reports whether k is an object kind a catalog entry may match.
func IsObjectKind(k string) bool {
	_, ok := slices.BinarySearch(objectKinds, k)
	return ok
}
