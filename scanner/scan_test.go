package scanner

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

func day(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

func ptr[T any](v T) *T { return &v }

func zoneOn(plan string) inventory.ZoneInventory {
	return inventory.ZoneInventory{Zone: inventory.Zone{
		ID: "z1", Name: "example.com", Account: inventory.Ref{ID: "acc1", Name: "Acme"},
		Plan: inventory.ZonePlan{LegacyID: plan},
	}}
}

func snapOf(zones []inventory.ZoneInventory, accounts ...inventory.AccountInventory) *inventory.Snapshot {
	return &inventory.Snapshot{SchemaVersion: inventory.SnapshotSchemaVersion, Zones: zones, Accounts: accounts}
}

func withZone(plan string, edit func(z *inventory.ZoneInventory)) *inventory.Snapshot {
	z := zoneOn(plan)
	edit(&z)
	return snapOf([]inventory.ZoneInventory{z})
}

func withAccount(edit func(a *inventory.AccountInventory)) *inventory.Snapshot {
	a := inventory.AccountInventory{Account: inventory.Account{ID: "acc1", Name: "Acme"}}
	edit(&a)
	return snapOf(nil, a)
}

func setting(id string, value string) inventory.Setting {
	return inventory.Setting{ID: id, Value: json.RawMessage(value)}
}

func scan(t *testing.T, snap *inventory.Snapshot, asOf time.Time) Result {
	t.Helper()
	return ScanSnapshot(snap, catalog.Default(), Options{AsOf: asOf})
}

// only keeps the findings of one rule.
func only(fs []Finding, ruleID string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.RuleID == vocab.RuleID(ruleID) {
			out = append(out, f)
		}
	}
	return out
}

// wantFinding is one expected finding of a table case.
type wantFinding struct {
	kind, id       string
	before, after  Severity // at the day before end of life and on it
	contains       []string
	accountScoped  bool
	notWithMessage []string
}

// liveCases has one case per live-detectable catalog id (a test checks that none is missing).
var liveCases = []struct {
	id   string
	snap *inventory.Snapshot
	want []wantFinding
}{
	{"firewall-rules", withZone("enterprise", func(z *inventory.ZoneInventory) {
		z.FirewallRules = []inventory.FirewallRule{{ID: "r1", Description: "Protect login", Action: "challenge", Priority: ptr(1000),
			Filter: inventory.Filter{ID: "f1", Expression: `http.request.uri.path eq "/login"`}}}
	}), []wantFinding{{kind: string(vocab.KindFirewallRule), id: "r1", before: SeverityWarning, after: SeverityError,
		contains: []string{`"Protect login" (id r1)`, "action challenge", "priority 1000", "active", "its filter f1 parses", "custom rule", "http_request_firewall_custom"}}}},
	{"filters", withZone("pro", func(z *inventory.ZoneInventory) {
		z.Filters = []inventory.Filter{{ID: "f9", Description: "old", Expression: `ip.src eq 192.0.2.1`}}
	}), []wantFinding{{kind: string(vocab.KindFilter), id: "f9", before: SeverityWarning, after: SeverityError,
		contains: []string{`"old" (id f9)`, "not referenced by any firewall rule", "safe to delete after migration"}}}},
	{"waf-managed-rules-v1", withZone("business", func(z *inventory.ZoneInventory) {
		z.WAFPackages = []inventory.WAFPackageInventory{{
			Package: inventory.WAFPackage{ID: "p1", Name: "OWASP ModSecurity Core Rule Set", DetectionMode: "anomaly", Status: "active", Sensitivity: "low", ActionMode: "challenge"},
			Groups:  []inventory.WAFGroup{{ID: "g1", Name: "SQLi", Mode: "off"}, {ID: "g2", Name: "XSS", Mode: "on"}},
			Rules:   []inventory.WAFRule{{ID: "950001", Mode: "off"}, {ID: "950002", Mode: "on"}},
		}}
	}), []wantFinding{{kind: string(vocab.KindWAFPackage), id: "p1", before: SeverityWarning, after: SeverityError,
		contains: []string{"detection mode anomaly", "OWASP sensitivity low", "action mode challenge", `group "SQLi" off`, "rule 950001 off", "1 of 2 groups and 1 of 2 rules", "paranoia level PL1, score threshold 40", "4814384a9e5d4991b9815dcfc25d2f1f"}}}},
	{"rate-limiting-v1", withZone("enterprise", func(z *inventory.ZoneInventory) {
		z.RateLimits = []inventory.RateLimit{{ID: "rl1", Description: "login", Threshold: 60, Period: 900,
			Match:  inventory.RateLimitMatch{Request: &inventory.RateLimitRequest{URL: "*.example.com/login*"}},
			Action: inventory.RateLimitAction{Mode: "ban", Timeout: 86400}}}
	}), []wantFinding{{kind: string(vocab.KindRateLimit), id: "rl1", before: SeverityWarning, after: SeverityError,
		contains:       []string{`"login" (id rl1)`, "60 requests per 900 s", "on *.example.com/login*", "action ban for 86400 s", "enabled", "action block", "period 900 s is not allowed on the enterprise plan"},
		notWithMessage: []string{"timeout 86400"}}}},
	{"cname-flattening-setting", withZone("free", func(z *inventory.ZoneInventory) {
		z.Settings = []inventory.Setting{setting("cname_flattening", `"flatten_at_root"`)}
	}), []wantFinding{{kind: string(vocab.KindZoneSetting), id: "cname_flattening", before: SeverityNotice, after: SeverityNotice,
		contains: []string{`"flatten_at_root"`, "flatten_all_cnames = false"}}}},
	{"account-nameserver-settings", withAccount(func(a *inventory.AccountInventory) {
		a.Account.Settings = &inventory.AccountSettings{DefaultNameservers: "custom.tenant"}
	}), []wantFinding{{kind: string(vocab.KindAccount), id: "acc1", before: SeverityNotice, after: SeverityNotice, accountScoped: true,
		contains: []string{`default_nameservers = "custom.tenant"`, `zone_defaults.nameservers.type = "custom.tenant"`}}}},
	{"dns-settings-use-apex-ns", withZone("free", func(z *inventory.ZoneInventory) {
		z.LegacyDNSSettings = []inventory.Setting{setting("use_apex_ns", `"on"`)}
		z.DNSSettings = &inventory.DNSSettings{MultiProvider: ptr(true)}
	}), []wantFinding{{kind: string(vocab.KindDNSSettings), id: "use_apex_ns", before: SeverityNotice, after: SeverityNotice,
		contains: []string{`dns_settings/use_apex_ns endpoint reports "on"`, "multi_provider = true"}}}},
	{"dns-settings-secondary-overrides", withZone("free", func(z *inventory.ZoneInventory) {
		z.DNSSettings = &inventory.DNSSettings{SecondaryOverrides: ptr(true)}
	}), []wantFinding{{kind: string(vocab.KindDNSSettings), id: "secondary_overrides", before: SeverityNotice, after: SeverityNotice,
		contains: []string{"secondary_overrides = true", "dns_settings/secondary_overrides endpoint"}}}},
	{"dns-record-zone-fields", withZone("free", func(z *inventory.ZoneInventory) {
		z.DNSRecords = []inventory.DNSRecord{
			{ID: "d1", Type: "A", Name: "www.example.com", ZoneID: ptr("z1"), ZoneName: ptr("example.com")},
			{ID: "d2", Type: "A", Name: "api.example.com", ZoneID: ptr("z1")},
			{ID: "d3", Type: "A", Name: "new.example.com"},
		}
	}), []wantFinding{{kind: string(vocab.KindZone), id: "z1", before: SeverityNotice, after: SeverityNotice,
		contains: []string{"2 of 3 DNS records", "www.example.com A", "GET /zones/:zone_id"}}}},
	{"dns-record-locked", withZone("free", func(z *inventory.ZoneInventory) {
		z.DNSRecords = []inventory.DNSRecord{{ID: "l1", Type: "A", Name: "www.example.com", Locked: ptr(false)}, {ID: "l2", Type: "A", Name: "b.example.com", Locked: ptr(false)}}
	}), []wantFinding{{kind: string(vocab.KindZone), id: "z1", before: SeverityNotice, after: SeverityNotice,
		contains: []string{"2 of 2 DNS records", "(e.g. b.example.com A, www.example.com A)", "locked", "always false"}}}},
	{"srv-data-fields", withZone("free", func(z *inventory.ZoneInventory) {
		z.DNSRecords = []inventory.DNSRecord{{ID: "s1", Type: "SRV", Name: "_sip._tcp.example.com",
			Data: &inventory.RecordData{Service: ptr("_sip"), Proto: ptr("_tcp"), Name: ptr("example.com"), Port: ptr(5060), Target: "sip.example.com"}}}
	}), []wantFinding{{kind: string(vocab.KindDNSRecord), id: "s1", before: SeverityWarning, after: SeverityError,
		contains: []string{`data.service "_sip"`, "compose _sip._tcp.example.com, which agrees with the record name"}}}},
	{"zone-setting-brotli", withZone("free", func(z *inventory.ZoneInventory) {
		z.Settings = []inventory.Setting{setting("brotli", `"off"`)}
	}), []wantFinding{{kind: string(vocab.KindZoneSetting), id: "brotli", before: SeverityNotice, after: SeverityNotice,
		contains: []string{`brotli is "off"`, "compression is enabled by default"}}}},
	{"zone-setting-minify", withZone("free", func(z *inventory.ZoneInventory) {
		z.Settings = []inventory.Setting{setting("minify", `{"css":"on","html":"off","js":"on"}`)}
	}), []wantFinding{{kind: string(vocab.KindZoneSetting), id: "minify", before: SeverityWarning, after: SeverityNotice,
		contains: []string{"minify is on for css, js", "minify them in your build"}}}},
	{"zone-setting-mobile-redirect", withZone("free", func(z *inventory.ZoneInventory) {
		z.Settings = []inventory.Setting{setting("mobile_redirect", `{"status":"on","mobile_subdomain":"m","strip_uri":false}`)}
	}), []wantFinding{{kind: string(vocab.KindZoneSetting), id: "mobile_redirect", before: SeverityWarning, after: SeverityError,
		contains: []string{`on (to subdomain "m", strip_uri false)`, "single redirect rule"}}}},
	{"zone-setting-server-side-exclude", withZone("free", func(z *inventory.ZoneInventory) {
		z.Settings = []inventory.Setting{setting("server_side_exclude", `"on"`)}
	}), []wantFinding{{kind: string(vocab.KindZoneSetting), id: "server_side_exclude", before: SeverityWarning, after: SeverityNotice,
		contains: []string{`server_side_exclude is "on"`, "SSE tags"}}}},
	{"zone-setting-privacy-pass", withZone("free", func(z *inventory.ZoneInventory) {
		z.Settings = []inventory.Setting{setting("privacy_pass", `"on"`)}
	}), []wantFinding{{kind: string(vocab.KindZoneSetting), id: "privacy_pass", before: SeverityWarning, after: SeverityNotice,
		contains: []string{`privacy_pass is "on"`, "anonymous-token setting is removed"}}}},
	{"notification-email", func() *inventory.Snapshot {
		// A health check carrying the field (as the spec words it) is not reported: the real
		// API has it on load balancer pools only.
		s := withZone("free", func(z *inventory.ZoneInventory) {
			z.HealthChecks = []inventory.HealthCheck{{ID: "h1", Name: "origin", NotificationEmail: "ops@example.com, noc@example.com"}, {ID: "h2", Name: "quiet"}}
		})
		s.Accounts = []inventory.AccountInventory{{Account: inventory.Account{ID: "acc1"}, LoadBalancerPools: []inventory.LoadBalancerPool{{ID: "pool1", Name: "primary", NotificationEmail: "lb@example.com, noc@example.com"}}}}
		return s
	}(), []wantFinding{
		{kind: string(vocab.KindLoadBalancerPool), id: "pool1", before: SeverityWarning, after: SeverityError, accountScoped: true, contains: []string{`"lb@example.com, noc@example.com" (2 addresses)`, "alerting/v3/policies"}},
	}},
	{"argo-tunnels-api", withAccount(func(a *inventory.AccountInventory) {
		a.Tunnels = []inventory.Tunnel{{ID: "t1", Name: "blog", CreatedAt: "2021-01-01T00:00:00Z"}, {ID: "t2", Name: "gone", DeletedAt: "2022-01-01T00:00:00Z"}}
	}), []wantFinding{{kind: string(vocab.KindTunnel), id: "t1", before: SeverityNotice, after: SeverityNotice, accountScoped: true,
		contains: []string{`Tunnel "blog" (id t1, created 2021-01-01T00:00:00Z)`, "cfd_tunnel"}}}},
	{"access-bookmarks-api", withAccount(func(a *inventory.AccountInventory) {
		a.AccessBookmarks = []inventory.AccessBookmark{{ID: "b1", Name: "Wiki", Domain: "wiki.example.com"}}
	}), []wantFinding{{kind: string(vocab.KindAccessBookmark), id: "b1", before: SeverityWarning, after: SeverityError, accountScoped: true,
		contains: []string{`"Wiki" (id b1, domain wiki.example.com)`, "type bookmark"}}}},
	{"threat-score-field", withZone("pro", func(z *inventory.ZoneInventory) {
		z.FirewallRules = []inventory.FirewallRule{{ID: "r2", Description: "bad ips", Action: "block",
			Filter: inventory.Filter{ID: "f2", Expression: "cf.threat_score gt 10"}}}
	}), []wantFinding{{kind: string(vocab.KindExpression), id: "f2", before: SeverityNotice, after: SeverityNotice,
		contains: []string{`Filter id f2 (used by firewall rule "bad ips" (id r2))`, `"cf.threat_score gt 10" is always false (never matches)`}}}},
	{"geoip-field-names", withZone("pro", func(z *inventory.ZoneInventory) {
		z.Rulesets = []inventory.Ruleset{{ID: "rs1", Name: "default", Phase: "http_request_firewall_custom",
			Rules: []inventory.RulesetRule{{ID: "cr1", Description: "geo", Action: "block", Expression: `ip.geoip.country eq "T1"`}}}}
	}), []wantFinding{{kind: string(vocab.KindExpression), id: "cr1", before: SeverityNotice, after: SeverityNotice,
		contains: []string{`Custom rule "geo" (id cr1) in ruleset "default" (id rs1)`, "ip.geoip.country -> ip.src.country"}}}},
}

func TestScanSnapshotPerCatalogEntry(t *testing.T) {
	cat := catalog.Default()
	for _, tc := range liveCases {
		t.Run(tc.id, func(t *testing.T) {
			e, ok := cat.Lookup(vocab.RuleID(tc.id))
			if !ok {
				t.Fatalf("catalog has no entry %q", tc.id)
			}
			dates := map[string]time.Time{"before": day("2020-01-01"), "after": day("2030-01-01")}
			if !e.EndOfLife.IsZero() {
				dates["before"] = e.EndOfLife.AddDate(0, 0, -1)
				dates["after"] = e.EndOfLife.Time
			}
			for _, when := range []string{"before", "after"} {
				res := scan(t, tc.snap, dates[when])
				got := only(res.Findings, tc.id)
				if len(got) != len(tc.want) {
					t.Fatalf("%s: got %d findings of %s, want %d:\n%s", when, len(got), tc.id, len(tc.want), dump(res.Findings))
				}
				for i, w := range tc.want {
					f := got[i]
					wantSev := w.before
					if when == "after" {
						wantSev = w.after
					}
					if f.Resource.Kind != vocab.Kind(w.kind) || f.Resource.ID != w.id {
						t.Errorf("%s: resource = %+v, want kind %s id %s", when, f.Resource, w.kind, w.id)
					}
					if f.Severity != wantSev {
						t.Errorf("%s (%s): severity = %s, want %s", when, dates[when].Format(time.DateOnly), f.Severity, wantSev)
					}
					if f.Title != e.Title || f.Replacement != e.Replacement || f.DocURL != e.DocURL ||
						f.EndOfLife != e.EndOfLife.String() || f.DeprecatedOn != e.DeprecatedOn.String() {
						t.Errorf("%s: entry fields not copied: %+v", when, f)
					}
					if f.Source != SourceLive || f.Location != nil || f.Suppressed {
						t.Errorf("%s: source/location/suppressed wrong: %+v", when, f)
					}
					if f.AccountID != "acc1" {
						t.Errorf("%s: account id = %q", when, f.AccountID)
					}
					if w.accountScoped {
						if f.ZoneID != "" || f.ZoneName != "" {
							t.Errorf("%s: account finding has a zone: %+v", when, f)
						}
					} else if f.ZoneID != "z1" || f.ZoneName != "example.com" {
						t.Errorf("%s: zone = %q %q", when, f.ZoneID, f.ZoneName)
					}
					if len(f.Fingerprint) != 32 {
						t.Errorf("%s: fingerprint %q", when, f.Fingerprint)
					}
					for _, c := range w.contains {
						if !strings.Contains(f.Message, c) {
							t.Errorf("%s: message lacks %q:\n%s", when, c, f.Message)
						}
					}
					for _, c := range w.notWithMessage {
						if strings.Contains(f.Message, c) {
							t.Errorf("%s: message should not contain %q:\n%s", when, c, f.Message)
						}
					}
				}
				if when == "before" && e.EndOfLife.String() != "" && !e.Advisory {
					if !strings.Contains(got[0].Message, "end of life "+e.EndOfLife.String()) {
						t.Errorf("message does not give the end of life: %s", got[0].Message)
					}
				}
				if when == "after" && !e.Advisory && !strings.Contains(got[0].Message, "past its end of life") && !strings.Contains(got[0].Message, "past their end of life") {
					t.Errorf("message after end of life does not say so: %s", got[0].Message)
				}
			}
		})
	}
}

func dump(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s %s %s/%s: %s\n", f.RuleID, f.Severity, f.Resource.Kind, f.Resource.ID, f.Message)
	}
	return b.String()
}

func TestEveryLiveDetectableIDHasACase(t *testing.T) {
	have := map[string]bool{}
	for _, c := range liveCases {
		have[c.id] = true
	}
	for _, id := range LiveDetectableIDs() {
		if !have[string(id)] {
			t.Errorf("no table case for live-detectable id %s", id)
		}
		if _, ok := catalog.Default().Lookup(id); !ok {
			t.Errorf("live-detectable id %s is not in the catalog", id)
		}
	}
	for id := range have {
		if !LiveDetectable(vocab.RuleID(id)) {
			t.Errorf("table case %s is not live-detectable", id)
		}
	}
}

func TestLiveDetectableListsExactlyTheObservableEntries(t *testing.T) {
	notLive := map[string]bool{
		"billing-profile-api": true, "images-v1-direct-upload": true, "analytics-dashboard-api": true,
		"organizations-api": true, "page-shield-script-monitor": true,
		"transfer-encoding-with-content-length": true, "chacha20-draft-ciphers": true,
		"zone-settings-bulk": true, "dns-error-chain": true,
	}
	for _, e := range catalog.Default().Entries() {
		if got, want := LiveDetectable(e.ID), !notLive[string(e.ID)]; got != want {
			t.Errorf("LiveDetectable(%q) = %v, want %v", e.ID, got, want)
		}
	}
	if LiveDetectable("no-such-entry") {
		t.Error("an unknown id is live-detectable")
	}
}
