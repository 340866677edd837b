package apply

import (
	"strings"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// segments splits an API path into its segments.
func segments(p string) []string { return strings.Split(strings.Trim(p, "/"), "/") }

// snapshotObject is the object at an API path as the snapshot holds it, decoded like an
// API answer; nil when the snapshot does not hold that kind of object or that one.
func snapshotObject(z *inventory.ZoneInventory, a *inventory.AccountInventory, path string) any {
	seg := segments(path)
	switch {
	case z != nil && len(seg) >= 3 && seg[0] == "zones":
		return zoneObject(z, seg[2:])
	case a != nil && len(seg) >= 3 && seg[0] == "accounts":
		return accountObject(a, seg[2:])
	}
	return nil
}

func zoneObject(z *inventory.ZoneInventory, seg []string) any {
	last := seg[len(seg)-1]
	switch strings.Join(seg[:len(seg)-1], "/") {
	case "firewall/rules":
		return find(z.FirewallRules, last, func(r inventory.FirewallRule) string { return r.ID })
	case "filters":
		return find(z.Filters, last, func(f inventory.Filter) string { return f.ID })
	case "rate_limits":
		return find(z.RateLimits, last, func(r inventory.RateLimit) string { return r.ID })
	case "firewall/waf/overrides":
		return find(z.WAFOverrides, last, func(o inventory.WAFOverride) string { return o.ID })
	case "settings":
		return find(z.Settings, last, func(s inventory.Setting) string { return s.ID })
	case "dns_records":
		return find(z.DNSRecords, last, func(r inventory.DNSRecord) string { return r.ID })
	case "":
		if last == "dns_settings" && z.DNSSettings != nil {
			return toAny(z.DNSSettings)
		}
	}
	return nil
}

func accountObject(a *inventory.AccountInventory, seg []string) any {
	last := seg[len(seg)-1]
	switch strings.Join(seg[:len(seg)-1], "/") {
	case "load_balancers/pools":
		return find(a.LoadBalancerPools, last, func(p inventory.LoadBalancerPool) string { return p.ID })
	case "access/bookmarks":
		return find(a.AccessBookmarks, last, func(b inventory.AccessBookmark) string { return b.ID })
	case "":
		if last == "dns_settings" && a.DNSSettings != nil {
			return toAny(a.DNSSettings)
		}
	}
	return nil
}

func find[T any](xs []T, id string, idOf func(T) string) any {
	for _, x := range xs {
		if idOf(x) == id {
			return toAny(x)
		}
	}
	return nil
}
