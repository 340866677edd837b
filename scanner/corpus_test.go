package scanner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// readResult decodes the result member of a recorded API response from the corpus.
func readResult(t *testing.T, dir, name string, dst any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "api", name))
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := json.Unmarshal(env.Result, dst); err != nil {
		t.Fatalf("%s: result: %v", name, err)
	}
}

// TestScanRealWorldResponses builds a snapshot from responses recorded by public client test
// suites (never copied into the repository) and checks what the scan says about them.
func TestScanRealWorldResponses(t *testing.T) {
	dir := corpusDir(t)
	var zone inventory.ZoneInventory
	readResult(t, dir, "zones.get.cf-terraforming.json", &zone.Zone)
	zone.Zone.Plan.LegacyID = "pro" // the recorded zone's plan varies by source; fix it for the quota checks
	readResult(t, dir, "firewall_rules.list.cloudflare-go.json", &zone.FirewallRules)
	readResult(t, dir, "filters.list.cloudflare-go.json", &zone.Filters)
	readResult(t, dir, "rate_limits.list.cloudflare-go.json", &zone.RateLimits)
	readResult(t, dir, "waf_overrides.list.cloudflare-go.json", &zone.WAFOverrides)
	readResult(t, dir, "zone_settings.list.with_cname_flattening.cf-terraforming.json", &zone.Settings)
	var pkgs []inventory.WAFPackage
	readResult(t, dir, "waf_packages.list.cloudflare-go.json", &pkgs)
	for _, p := range pkgs {
		pi := inventory.WAFPackageInventory{Package: p}
		readResult(t, dir, "waf_groups.list.cloudflare-go.json", &pi.Groups)
		readResult(t, dir, "waf_rules.list.cloudflare-go.json", &pi.Rules)
		zone.WAFPackages = append(zone.WAFPackages, pi)
	}
	dnsZone := inventory.ZoneInventory{Zone: inventory.Zone{ID: "ff12ab34cd5611334422ab3322997650", Name: "unit.tests"}}
	readResult(t, dir, "dns_records.list.page2of3.with_SRV_data_service_proto_name.octodns.json", &dnsZone.DNSRecords)
	var acc inventory.AccountInventory
	readResult(t, dir, "accounts.get.cloudflare-go.json", &acc.Account)
	readResult(t, dir, "argo_tunnels.list.cfd_tunnel.cloudflare-go.json", &acc.Tunnels)
	readResult(t, dir, "access_bookmarks.list.account.cloudflare-go.json", &acc.AccessBookmarks)
	snap := snapOf([]inventory.ZoneInventory{zone, dnsZone}, acc)
	snap.Sort()

	res := ScanSnapshot(snap, nil, Options{AsOf: asOf2024})
	count := map[string]int{}
	for _, f := range res.Findings {
		count[string(f.RuleID)]++
	}
	t.Logf("findings by rule: %v", count)

	fw := only(res.Findings, "firewall-rules")
	perRule, unparsable := 0, 0
	for _, f := range fw {
		if f.Resource.Kind == vocab.KindFirewallRule && strings.HasPrefix(f.Message, "Firewall rule ") && strings.Contains(f.Message, ": action ") {
			perRule++
			if strings.Contains(f.Message, "does not parse") {
				unparsable++
			}
		}
	}
	// The source says 2 of the 5 filters have an unbalanced "("; the single rule fixture's
	// malformed filter is among them.
	if perRule != 5 || unparsable != 2 {
		t.Errorf("firewall rules: %d findings, %d unparsable; want 5 and 2:\n%s", perRule, unparsable, dump(fw))
	}
	orphans := 0
	for _, f := range only(res.Findings, "filters") {
		if strings.Contains(f.Message, "not referenced by any firewall rule") {
			orphans++
		}
	}
	if orphans != 1 {
		t.Errorf("want the one filter no rule uses reported as an orphan, got %d", orphans)
	}

	srv := only(res.Findings, "srv-data-fields")
	conflicts := 0
	for _, f := range srv {
		if strings.Contains(f.Message, "CONFLICTS") {
			conflicts++
			mustContain(t, f.Message, "_imap._pop3.unit.tests", "_pop3._tcp.unit.tests")
		}
	}
	if len(srv) != 2 || conflicts != 1 {
		t.Errorf("SRV: %d findings, %d conflicts; want 2 and 1:\n%s", len(srv), conflicts, dump(srv))
	}
	if srv[0].Fingerprint == srv[1].Fingerprint {
		t.Error("the fixture's two SRV records share an id; their fingerprints must still differ")
	}
	if len(only(res.Findings, "dns-record-zone-fields")) != 1 || len(only(res.Findings, "dns-record-locked")) != 1 {
		t.Error("want one zone-level finding each for zone_id/zone_name and locked")
	}

	cname := only(res.Findings, "cname-flattening-setting")
	if len(cname) != 1 {
		t.Fatalf("cname findings: %d", len(cname))
	}
	mustContain(t, cname[0].Message, `"flatten_at_root"`, "flatten_all_cnames = false")
	sev := map[string]Severity{}
	for _, f := range res.Findings {
		if strings.HasPrefix(string(f.RuleID), "zone-setting-") {
			sev[string(f.RuleID)] = f.Severity
		}
	}
	// Past their ends of life: a feature left on is inert (notice), a no-op value is no
	// finding.
	want := map[string]Severity{
		"zone-setting-brotli":              SeverityNone,   // on: the default after end of life
		"zone-setting-minify":              SeverityNotice, // css on, inert now
		"zone-setting-mobile-redirect":     SeverityNone,   // off
		"zone-setting-privacy-pass":        SeverityNotice,
		"zone-setting-server-side-exclude": SeverityNotice,
	}
	for id, w := range want {
		if sev[id] != w {
			t.Errorf("%s severity %s, want %s", id, sev[id], w)
		}
	}
	for _, id := range []string{"rate-limiting-v1", "waf-managed-rules-v1", "access-bookmarks-api"} {
		if count[id] == 0 {
			t.Errorf("no %s finding", id)
		}
	}
	if count["argo-tunnels-api"] != 0 {
		t.Error("the recorded tunnel is deleted (deleted_at set) and needs nothing")
	}
	if count["account-nameserver-settings"] != 0 {
		t.Error("the recorded account sets only enforce_twofactor")
	}
}
