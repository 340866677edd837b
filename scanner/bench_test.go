package scanner

import (
	"fmt"
	"testing"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// bigSnapshot is an account of n zones with 50 firewall rules and filters, 5 rate limits and
// 200 DNS records each.
func bigSnapshot(n int) *inventory.Snapshot {
	zones := make([]inventory.ZoneInventory, n)
	for i := range zones {
		z := zoneOn([]string{"free", "pro", "business", "enterprise"}[i%4])
		z.Zone.ID, z.Zone.Name = fmt.Sprintf("zone%05d", i), fmt.Sprintf("z%05d.example", i)
		z.FirewallRules = fwRules(50, func(j int, r *inventory.FirewallRule) {
			r.Filter.Expression = fmt.Sprintf(`(http.request.uri.path matches "^/a%d" and ip.geoip.country in {"T1" "XX"}) or cf.threat_score gt %d`, j, j)
			z.Filters = append(z.Filters, r.Filter)
		})
		for j := 0; j < 5; j++ {
			z.RateLimits = append(z.RateLimits, inventory.RateLimit{ID: fmt.Sprintf("rl%d", j), Threshold: 10, Period: 900, Action: inventory.RateLimitAction{Mode: "ban", Timeout: 3600}})
		}
		for j := 0; j < 200; j++ {
			z.DNSRecords = append(z.DNSRecords, inventory.DNSRecord{ID: fmt.Sprintf("d%d", j), Type: "A", Name: fmt.Sprintf("h%d.%s", j, z.Zone.Name), ZoneID: ptr(z.Zone.ID), Locked: ptr(false)})
		}
		z.Settings = []inventory.Setting{setting("cname_flattening", `"flatten_at_root"`), setting("brotli", `"on"`)}
		zones[i] = z
	}
	return snapOf(zones)
}

// BenchmarkScanSnapshot measures a scan of 200 zones with the fallback inspector (every
// expression distinct, so the per-scan cache does not help).
func BenchmarkScanSnapshot(b *testing.B) {
	snap := bigSnapshot(200)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res := ScanSnapshot(snap, nil, Options{AsOf: asOf2024})
		if len(res.Findings) == 0 {
			b.Fatal("no findings")
		}
	}
}
