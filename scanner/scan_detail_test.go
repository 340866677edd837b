package scanner

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

var asOf2024 = day("2024-12-01") // before the firewall, WAF and rate limiting end of life

func mustContain(t *testing.T, msg string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(msg, p) {
			t.Errorf("message lacks %q:\n%s", p, msg)
		}
	}
}

// byAspect finds the finding of a rule on a resource whose fingerprint matches the aspect.
func findingFor(t *testing.T, fs []Finding, ruleID, kind, id string) []Finding {
	t.Helper()
	var out []Finding
	for _, f := range fs {
		if f.RuleID == vocab.RuleID(ruleID) && f.Resource.Kind == vocab.Kind(kind) && f.Resource.ID == id {
			out = append(out, f)
		}
	}
	return out
}

func fwRules(n int, edit func(i int, r *inventory.FirewallRule)) []inventory.FirewallRule {
	rs := make([]inventory.FirewallRule, n)
	for i := range rs {
		rs[i] = inventory.FirewallRule{ID: fmt.Sprintf("r%02d", i), Action: "block",
			Filter: inventory.Filter{ID: fmt.Sprintf("f%02d", i), Expression: fmt.Sprintf("ip.src eq 192.0.2.%d", i)}}
		if edit != nil {
			edit(i, &rs[i])
		}
	}
	return rs
}

func TestFirewallRuleDetails(t *testing.T) {
	snap := withZone("enterprise", func(z *inventory.ZoneInventory) {
		z.FirewallRules = []inventory.FirewallRule{
			{ID: "a", Action: "allow", Paused: true, Filter: inventory.Filter{ID: "fa", Expression: "broken ("}},
			{ID: "b", Description: "bypass waf", Action: "bypass", Products: []string{"waf", "uaBlock"}, Priority: ptr(5), Filter: inventory.Filter{ID: "fb", Expression: "ssl"}},
			{ID: "c", Action: "log", Filter: inventory.Filter{ID: "fc", Expression: "ssl"}},
			{ID: "d", Action: "block", Filter: inventory.Filter{ID: "fd"}},
			{ID: "e", Action: "block", Filter: inventory.Filter{ID: "fe"}},
		}
		z.Filters = []inventory.Filter{{ID: "fd", Expression: "broken ("}}
	})
	fs := only(scan(t, snap, asOf2024).Findings, "firewall-rules")
	if len(fs) != 5 {
		t.Fatalf("got %d findings:\n%s", len(fs), dump(fs))
	}
	mustContain(t, fs[3].Message, "its filter fd does not parse (1:9")
	mustContain(t, fs[4].Message, "its filter fe (expression not in the snapshot)")
	mustContain(t, fs[0].Message, "Firewall rule id a", "action allow", "no priority", "paused (becomes enabled: false)",
		`its filter fa does not parse (1:9: expected a field, a function call or a parenthesized expression, found end of expression)`, `skip with action_parameters {"ruleset": "current"}`, "Fix the expression first")
	mustContain(t, fs[1].Message, `"bypass waf" (id b)`, "action bypass (products waf, uaBlock)", "priority 5", "active",
		`skip with action_parameters {"products": [waf, uaBlock]}`)
	mustContain(t, fs[2].Message, "action log", "log (Enterprise only)")
}

// TestInspectIsCachedPerScan: an expression used by several rules is parsed once per scan.
func TestInspectIsCachedPerScan(t *testing.T) {
	s := &liveScan{exprs: map[string]ExprInfo{}}
	first := s.inspect("ssl")
	if !first.Valid || len(first.Fields) != 1 || first.Fields[0] != "ssl" {
		t.Fatalf("inspect(ssl) = %+v", first)
	}
	s.exprs["ssl"] = ExprInfo{Error: "from the cache"}
	if got := s.inspect("ssl"); got.Error != "from the cache" {
		t.Errorf("second inspect did not use the cache: %+v", got)
	}
}

func TestFirewallPlanChecks(t *testing.T) {
	regex := "http.request.uri.path matches \"^/a\""
	build := func(plan string, rules, custom int) *inventory.Snapshot {
		return withZone(plan, func(z *inventory.ZoneInventory) {
			z.FirewallRules = fwRules(rules, func(i int, r *inventory.FirewallRule) {
				switch i {
				case 0:
					r.Filter.Expression = regex
				case 1:
					r.Action = "log"
				}
			})
			if custom > 0 {
				rs := inventory.Ruleset{ID: "rs", Phase: "http_request_firewall_custom"}
				for i := 0; i < custom; i++ {
					rs.Rules = append(rs.Rules, inventory.RulesetRule{ID: fmt.Sprintf("cr%d", i), Action: "block", Expression: "ssl"})
				}
				z.Rulesets = []inventory.Ruleset{rs}
			}
		})
	}
	cases := []struct {
		plan          string
		rules, custom int
		quota         string // substring of the quota finding, "" for none
		regex, log    bool
	}{
		{"free", 4, 0, "", true, true},
		{"free", 4, 2, "has 4 firewall rules and 2 existing custom rules; the free plan allows 5 custom rules, so 1 will not fit", true, true},
		{"pro", 21, 0, "has 21 firewall rules and 0 existing custom rules; the pro plan allows 20 custom rules, so 1 will not fit", true, true},
		{"business", 100, 3, "the business plan allows 100 custom rules, so 3 will not fit", false, true},
		{"enterprise", 1000, 0, "", false, false},
		{"enterprise", 1000, 1, "has 1000 firewall rules and 1 existing custom rule; the enterprise plan allows 1000 custom rules, so 1 will not fit", false, false},
		{"", 50, 0, "", false, false},        // unknown plan: no plan check at all
		{"partner", 50, 0, "", false, false}, // unknown legacy id
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%d+%d", tc.plan, tc.rules, tc.custom), func(t *testing.T) {
			fs := scan(t, build(tc.plan, tc.rules, tc.custom), asOf2024).Findings
			quota := findingFor(t, fs, "firewall-rules", string(vocab.KindZone), "z1")
			if tc.quota == "" && len(quota) != 0 {
				t.Errorf("unexpected quota finding: %s", quota[0].Message)
			}
			if tc.quota != "" {
				if len(quota) != 1 {
					t.Fatalf("want one quota finding, got %d", len(quota))
				}
				mustContain(t, quota[0].Message, tc.quota)
				if quota[0].Severity != SeverityWarning {
					t.Errorf("quota severity %s", quota[0].Severity)
				}
			}
			r0 := findingFor(t, fs, "firewall-rules", string(vocab.KindFirewallRule), "r00")
			if got, want := len(r0), 1+btoi(tc.regex); got != want {
				t.Errorf("rule with regex: %d findings, want %d:\n%s", got, want, dump(r0))
			} else if tc.regex {
				mustContain(t, r0[1].Message+r0[0].Message, "matches (~) operator", "only on Business and Enterprise", "is on the "+tc.plan+" plan")
			}
			r1 := findingFor(t, fs, "firewall-rules", string(vocab.KindFirewallRule), "r01")
			if got, want := len(r1), 1+btoi(tc.log); got != want {
				t.Errorf("rule with log: %d findings, want %d:\n%s", got, want, dump(r1))
			} else if tc.log {
				mustContain(t, r1[0].Message+r1[1].Message, "uses the log action", "only on the Enterprise plan")
			}
			seen := map[string]bool{}
			for _, f := range fs {
				if seen[f.Fingerprint] {
					t.Errorf("duplicate fingerprint %s", f.Fingerprint)
				}
				seen[f.Fingerprint] = true
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestFiltersOrphanSharedAndCovered(t *testing.T) {
	snap := withZone("pro", func(z *inventory.ZoneInventory) {
		shared := inventory.Filter{ID: "fs", Description: "bad bots", Expression: "cf.client.bot"}
		single := inventory.Filter{ID: "f1", Expression: "ssl"}
		z.Filters = []inventory.Filter{shared, single, {ID: "fo", Expression: "ip.src eq 192.0.2.1", Paused: true}}
		z.FirewallRules = []inventory.FirewallRule{
			{ID: "r1", Description: "block bots", Action: "block", Filter: shared},
			{ID: "r2", Description: "log bots", Action: "challenge", Filter: shared},
			{ID: "r3", Action: "block", Filter: single},
		}
	})
	fs := only(scan(t, snap, asOf2024).Findings, "filters")
	if len(fs) != 2 {
		t.Fatalf("want orphan and shared findings only, got:\n%s", dump(fs))
	}
	// Sorted by resource id: fo before fs.
	if fs[0].Resource.ID != "fo" || fs[1].Resource.ID != "fs" {
		t.Fatalf("resources: %+v, %+v", fs[0].Resource, fs[1].Resource)
	}
	mustContain(t, fs[0].Message, "Filter id fo (paused) is not referenced", "safe to delete after migration")
	mustContain(t, fs[1].Message, `Filter "bad bots" (id fs) is shared by 2 firewall rules: "block bots" (id r1), "log bots" (id r2)`, "its own copy")
}

func TestRateLimitQuota(t *testing.T) {
	cases := []struct {
		plan     string
		old, new int
		want     string
	}{
		{"free", 1, 0, ""},
		{"free", 2, 0, "has 2 previous-version rate limits and 0 existing rate limiting rules; the free plan allows 1 rate limiting rules, so 1 will not fit"},
		{"pro", 4, 1, "has 4 previous-version rate limits and 1 existing rate limiting rule; the pro plan allows 2 rate limiting rules, so 3 will not fit"},
		{"business", 5, 0, ""},
		{"enterprise", 7, 0, "allows 5 rate limiting rules (100 with the advanced rate limiting add-on), so 2 will not fit"},
		{"", 7, 0, ""},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%d+%d", tc.plan, tc.old, tc.new), func(t *testing.T) {
			snap := withZone(tc.plan, func(z *inventory.ZoneInventory) {
				for i := 0; i < tc.old; i++ {
					z.RateLimits = append(z.RateLimits, inventory.RateLimit{ID: fmt.Sprintf("rl%d", i), Threshold: 10, Period: 60, Action: inventory.RateLimitAction{Mode: "simulate"}})
				}
				if tc.new > 0 {
					rs := inventory.Ruleset{ID: "rsl", Phase: "http_ratelimit"}
					for i := 0; i < tc.new; i++ {
						rs.Rules = append(rs.Rules, inventory.RulesetRule{ID: fmt.Sprintf("n%d", i), Action: "block", Expression: "ssl"})
					}
					z.Rulesets = []inventory.Ruleset{rs}
				}
			})
			fs := scan(t, snap, asOf2024).Findings
			if got := len(findingFor(t, fs, "rate-limiting-v1", string(vocab.KindRateLimit), "rl0")); got != 1 {
				t.Errorf("per rate limit finding missing")
			}
			mustContain(t, findingFor(t, fs, "rate-limiting-v1", string(vocab.KindRateLimit), "rl0")[0].Message, "action simulate", "action log")
			quota := findingFor(t, fs, "rate-limiting-v1", string(vocab.KindZone), "z1")
			switch {
			case tc.want == "" && len(quota) > 0:
				t.Errorf("unexpected quota finding: %s", quota[0].Message)
			case tc.want != "" && len(quota) != 1:
				t.Errorf("want a quota finding, got %d", len(quota))
			case tc.want != "":
				mustContain(t, quota[0].Message, tc.want)
			}
		})
	}
}

func TestCNAMEFlatteningMapping(t *testing.T) {
	cases := []struct {
		value    string
		dns      *bool
		contains []string
	}{
		{`"off"`, nil, []string{`is "off"`, "flatten_all_cnames = false"}},
		{`"apex"`, nil, []string{`is "apex"`, "flatten_all_cnames = false"}},
		{`"flatten_at_root"`, ptr(false), []string{"flatten_all_cnames = false", "which the DNS settings already report"}},
		{`"on"`, nil, []string{`is "on"`, "flatten_all_cnames = true"}},
		{`"flatten_all"`, ptr(false), []string{"flatten_all_cnames = true", "but the DNS settings report flatten_all_cnames = false"}},
		{`"sometimes"`, nil, []string{`has value "sometimes", which has no known flatten_all_cnames mapping`}},
	}
	for _, tc := range cases {
		t.Run(tc.value, func(t *testing.T) {
			snap := withZone("free", func(z *inventory.ZoneInventory) {
				z.Settings = []inventory.Setting{setting("cname_flattening", tc.value)}
				if tc.dns != nil {
					z.DNSSettings = &inventory.DNSSettings{FlattenAllCNAMEs: tc.dns}
				}
			})
			fs := only(scan(t, snap, asOf2024).Findings, "cname-flattening-setting")
			if len(fs) != 1 {
				t.Fatalf("got %d findings", len(fs))
			}
			mustContain(t, fs[0].Message, tc.contains...)
		})
	}
	if fs := only(scan(t, withZone("free", func(*inventory.ZoneInventory) {}), asOf2024).Findings, "cname-flattening-setting"); len(fs) != 0 {
		t.Errorf("finding without the setting: %v", fs)
	}
}

func TestAccountNameserverMapping(t *testing.T) {
	cases := []struct {
		name      string
		settings  *inventory.AccountSettings
		dnsType   string
		want      []string // nil: no finding
		wantFound bool
	}{
		{"no settings", nil, "", nil, false},
		{"only two-factor", &inventory.AccountSettings{EnforceTwoFactor: ptr(true)}, "", nil, false},
		{"use false alone is the default", &inventory.AccountSettings{UseAccountCustomNSByDefault: ptr(false)}, "", nil, false},
		{"standard carries over", &inventory.AccountSettings{DefaultNameservers: "cloudflare.standard"}, "platform.standard",
			[]string{`zone_defaults.nameservers.type = "cloudflare.standard"`, `already report ("platform.standard")`}, true},
		{"custom.account carries over", &inventory.AccountSettings{DefaultNameservers: "custom.account", UseAccountCustomNSByDefault: ptr(false)}, "",
			[]string{`default_nameservers = "custom.account" and use_account_custom_ns_by_default = false`, `carries over unchanged to zone_defaults.nameservers.type = "custom.account"`}, true},
		{"use true derives custom.account", &inventory.AccountSettings{UseAccountCustomNSByDefault: ptr(true)}, "custom.tenant",
			[]string{`maps to zone_defaults.nameservers.type = "custom.account" (a derived mapping)`, `but the account DNS settings report "custom.tenant"`}, true},
		{"conflict", &inventory.AccountSettings{DefaultNameservers: "custom.tenant", UseAccountCustomNSByDefault: ptr(true)}, "",
			[]string{`"custom.account" (a derived mapping)`, `conflicts with default_nameservers "custom.tenant"`}, true},
		{"unknown value", &inventory.AccountSettings{DefaultNameservers: "weird"}, "",
			[]string{`default_nameservers "weird" has no known zone_defaults.nameservers.type`}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			snap := withAccount(func(a *inventory.AccountInventory) {
				a.Account.Settings = tc.settings
				if tc.dnsType != "" {
					a.DNSSettings = &inventory.AccountDNSSettings{ZoneDefaults: inventory.DNSSettings{Nameservers: &inventory.Nameservers{Type: tc.dnsType}}}
				}
			})
			fs := only(scan(t, snap, asOf2024).Findings, "account-nameserver-settings")
			if !tc.wantFound {
				if len(fs) != 0 {
					t.Fatalf("unexpected finding: %s", fs[0].Message)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("got %d findings", len(fs))
			}
			mustContain(t, fs[0].Message, tc.want...)
		})
	}
}

func TestLegacyDNSSettingsDecisions(t *testing.T) {
	cases := []struct {
		name   string
		legacy string // "" = not read
		multi  *bool
		want   []string // nil: no finding
	}{
		{"nothing read", "", nil, nil},
		{"legacy off, new off", `"off"`, ptr(false), nil},
		{"legacy off, new unknown", `false`, nil, nil},
		{"legacy on, new not read", `true`, nil, []string{"reports true", "its replacement is the multi_provider field"}},
		{"legacy retired, new on", "", ptr(true), []string{"The zone DNS settings have multi_provider = true"}},
		{"legacy odd value", `"maybe"`, ptr(false), []string{`reports "maybe" for this zone, a value with no known meaning`, "report multi_provider = false"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			snap := withZone("free", func(z *inventory.ZoneInventory) {
				if tc.legacy != "" {
					z.LegacyDNSSettings = []inventory.Setting{setting("use_apex_ns", tc.legacy)}
				}
				if tc.multi != nil {
					z.DNSSettings = &inventory.DNSSettings{MultiProvider: tc.multi}
				}
			})
			fs := only(scan(t, snap, asOf2024).Findings, "dns-settings-use-apex-ns")
			if tc.want == nil {
				if len(fs) != 0 {
					t.Fatalf("unexpected finding: %s", fs[0].Message)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("got %d findings", len(fs))
			}
			mustContain(t, fs[0].Message, tc.want...)
		})
	}
}

func TestSRVComposition(t *testing.T) {
	cases := []struct {
		name                string
		recName             string
		service, proto, nam *string
		want                string
	}{
		{"agrees", "_sip._tcp.example.com", ptr("_sip"), ptr("_tcp"), ptr("example.com"), "compose _sip._tcp.example.com, which agrees with the record name"},
		{"conflict", "_pop3._tcp.example.com", ptr("_imap"), ptr("_pop3"), ptr("example.com"), "compose _imap._pop3.example.com, which CONFLICTS with the record name _pop3._tcp.example.com"},
		{"apex @", "_xmpp._tcp.example.com.", ptr("_xmpp"), ptr("_tcp"), ptr("@"), "which agrees"},
		{"relative name and no underscores", "_ldap._udp.dc.example.com", ptr("ldap"), ptr("udp"), ptr("dc"), "compose _ldap._udp.dc.example.com, which agrees"},
		{"case and trailing dot", "_SIP._TCP.Example.com", ptr("_sip"), ptr("_tcp"), ptr("example.com."), "which agrees"},
		{"missing proto", "_sip._tcp.example.com", ptr("_sip"), nil, ptr("example.com"), "cannot compose a name (data.proto missing)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			snap := withZone("free", func(z *inventory.ZoneInventory) {
				z.DNSRecords = []inventory.DNSRecord{
					{ID: "s1", Type: "SRV", Name: tc.recName, Data: &inventory.RecordData{Service: tc.service, Proto: tc.proto, Name: tc.nam, Port: ptr(1)}},
					{ID: "s2", Type: "SRV", Name: "_x._tcp.example.com", Data: &inventory.RecordData{Port: ptr(1), Target: "x"}}, // clean
					{ID: "a1", Type: "A", Name: "example.com", Content: "192.0.2.1"},
				}
			})
			fs := only(scan(t, snap, asOf2024).Findings, "srv-data-fields")
			if len(fs) != 1 {
				t.Fatalf("got %d findings:\n%s", len(fs), dump(fs))
			}
			mustContain(t, fs[0].Message, tc.want)
		})
	}
}

// TestZoneSettingSeverityByValue: a setting at its no-op value is no finding; brotli off is
// a notice; a feature that is on must change before its end of life (warning) and is inert
// after it (notice), except mobile_redirect without its replacement rule.
func TestZoneSettingSeverityByValue(t *testing.T) {
	before, after := day("2024-01-01"), day("2030-01-01")
	none := SeverityNone
	cases := []struct {
		setting, value string
		ruleID         string
		before, after  Severity // SeverityNone: no finding
		contains       string
	}{
		{"brotli", `"on"`, "zone-setting-brotli", none, none, ""},
		{"brotli", `"off"`, "zone-setting-brotli", SeverityNotice, SeverityNotice, "compression is enabled by default"},
		{"minify", `{"css":"off","html":"off","js":"off"}`, "zone-setting-minify", none, none, ""},
		{"minify", `{"css":"off","html":"on","js":"off"}`, "zone-setting-minify", SeverityWarning, SeverityNotice, "on for html"},
		{"minify", `"on"`, "zone-setting-minify", SeverityWarning, SeverityNotice, `minify is "on"`},
		{"mobile_redirect", `{"status":"off","mobile_subdomain":null,"strip_uri":false}`, "zone-setting-mobile-redirect", none, none, ""},
		{"mobile_redirect", `{"status":"on","mobile_subdomain":"mobile","strip_uri":true}`, "zone-setting-mobile-redirect", SeverityWarning, SeverityError, "without the URI path"},
		{"server_side_exclude", `"off"`, "zone-setting-server-side-exclude", none, none, ""},
		{"server_side_exclude", `"on"`, "zone-setting-server-side-exclude", SeverityWarning, SeverityNotice, "SSE tags"},
		{"privacy_pass", `"off"`, "zone-setting-privacy-pass", none, none, ""},
		{"privacy_pass", `"on"`, "zone-setting-privacy-pass", SeverityWarning, SeverityNotice, "anonymous-token setting is removed"},
	}
	for _, tc := range cases {
		t.Run(tc.setting+"="+tc.value, func(t *testing.T) {
			snap := withZone("free", func(z *inventory.ZoneInventory) { z.Settings = []inventory.Setting{setting(tc.setting, tc.value)} })
			for _, when := range []struct {
				day  time.Time
				want Severity
			}{{before, tc.before}, {after, tc.after}} {
				fs := only(scan(t, snap, when.day).Findings, tc.ruleID)
				if when.want == SeverityNone {
					if len(fs) != 0 {
						t.Errorf("%s: a no-op value is a finding:\n%s", when.day.Format(time.DateOnly), dump(fs))
					}
					continue
				}
				if len(fs) != 1 {
					t.Fatalf("%s: got %d findings", when.day.Format(time.DateOnly), len(fs))
				}
				if fs[0].Severity != when.want {
					t.Errorf("%s: severity %s, want %s", when.day.Format(time.DateOnly), fs[0].Severity, when.want)
				}
				mustContain(t, fs[0].Message, tc.contains)
			}
		})
	}
}

// TestMobileRedirectReplaced: once the single redirect rule the plan creates (by its ref)
// exists, mobile_redirect on is a notice, before and after its end of life.
func TestMobileRedirectReplaced(t *testing.T) {
	snap := withZone("pro", func(z *inventory.ZoneInventory) {
		z.Settings = []inventory.Setting{setting("mobile_redirect", `{"status":"on","mobile_subdomain":"m","strip_uri":false}`)}
		z.Rulesets = []inventory.Ruleset{{ID: "rs", Phase: vocab.PhaseDynamicRedirect, Rules: []inventory.RulesetRule{
			{ID: "rr1", Action: "redirect", Expression: "true", Description: "Mobile redirect", Ref: inventory.MobileRedirectRef}}}}
	})
	for _, d := range []time.Time{day("2024-01-01"), day("2030-01-01")} {
		fs := only(scan(t, snap, d).Findings, "zone-setting-mobile-redirect")
		if len(fs) != 1 || fs[0].Severity != SeverityNotice {
			t.Fatalf("%s: want one notice, got:\n%s", d.Format(time.DateOnly), dump(fs))
		}
		mustContain(t, fs[0].Message, `redirect rule "Mobile redirect" (id rr1) replaces it`)
	}
}

// TestReflectedValuesAreNotices: values the replacement already holds are notices; a
// disagreement between old and new reads, or a value without a mapping, keeps the entry's
// severity.
func TestReflectedValuesAreNotices(t *testing.T) {
	eol := day("2030-01-01")
	cases := []struct {
		name string
		snap *inventory.Snapshot
		rule string
		want Severity
	}{
		{"cname agrees", withZone("free", func(z *inventory.ZoneInventory) {
			z.Settings = []inventory.Setting{setting("cname_flattening", `"flatten_all"`)}
			z.DNSSettings = &inventory.DNSSettings{FlattenAllCNAMEs: ptr(true)}
		}), "cname-flattening-setting", SeverityNotice},
		{"cname disagrees", withZone("free", func(z *inventory.ZoneInventory) {
			z.Settings = []inventory.Setting{setting("cname_flattening", `"flatten_all"`)}
			z.DNSSettings = &inventory.DNSSettings{FlattenAllCNAMEs: ptr(false)}
		}), "cname-flattening-setting", SeverityError},
		{"cname unknown value", withZone("free", func(z *inventory.ZoneInventory) {
			z.Settings = []inventory.Setting{setting("cname_flattening", `"sideways"`)}
		}), "cname-flattening-setting", SeverityError},
		{"use_apex_ns disagrees", withZone("free", func(z *inventory.ZoneInventory) {
			z.LegacyDNSSettings = []inventory.Setting{setting("use_apex_ns", `"on"`)}
			z.DNSSettings = &inventory.DNSSettings{MultiProvider: ptr(false)}
		}), "dns-settings-use-apex-ns", SeverityError},
		{"account nameservers disagree", withAccount(func(a *inventory.AccountInventory) {
			a.Account.Settings = &inventory.AccountSettings{DefaultNameservers: "custom.tenant"}
			a.DNSSettings = &inventory.AccountDNSSettings{ZoneDefaults: inventory.DNSSettings{Nameservers: &inventory.Nameservers{Type: "cloudflare.standard"}}}
		}), "account-nameserver-settings", SeverityError},
		{"account nameservers agree", withAccount(func(a *inventory.AccountInventory) {
			a.Account.Settings = &inventory.AccountSettings{DefaultNameservers: "custom.tenant"}
			a.DNSSettings = &inventory.AccountDNSSettings{ZoneDefaults: inventory.DNSSettings{Nameservers: &inventory.Nameservers{Type: "custom.tenant"}}}
		}), "account-nameserver-settings", SeverityNotice},
	}
	for _, tc := range cases {
		fs := only(scan(t, tc.snap, eol).Findings, tc.rule)
		if len(fs) != 1 || fs[0].Severity != tc.want {
			t.Errorf("%s: want one %s, got:\n%s", tc.name, tc.want, dump(fs))
		}
	}
}

// TestWAFOffAndDisabledRules: packages of a zone whose previous-version WAF is off inspect
// nothing (no finding); cf.threat_score in a disabled custom rule is a notice.
func TestWAFOffAndDisabledRules(t *testing.T) {
	snap := withZone("business", func(z *inventory.ZoneInventory) {
		z.Settings = []inventory.Setting{setting("waf", `"off"`)}
		z.WAFPackages = []inventory.WAFPackageInventory{{Package: inventory.WAFPackage{ID: "p1", Name: "CloudFlare", DetectionMode: "traditional", Status: "active"}}}
		z.Rulesets = []inventory.Ruleset{{ID: "rs1", Phase: "http_request_firewall_custom", Rules: []inventory.RulesetRule{
			{ID: "cr1", Action: "block", Expression: "cf.threat_score gt 10", Enabled: ptr(false)}}}}
	})
	res := scan(t, snap, day("2030-01-01"))
	if fs := only(res.Findings, "waf-managed-rules-v1"); len(fs) != 0 {
		t.Errorf("WAF off: packages reported:\n%s", dump(fs))
	}
	fs := only(res.Findings, "threat-score-field")
	if len(fs) != 1 || fs[0].Severity != SeverityNotice {
		t.Fatalf("disabled rule: want one notice, got:\n%s", dump(fs))
	}
	mustContain(t, fs[0].Message, "is disabled")
}

func TestThreatScoreEffectsAndUnits(t *testing.T) {
	expr := `(cf.threat_score gt 10 and http.host eq "cf.threat_score lt 3") or cf.threat_score lt 14 or cf.threat_score ge 0`
	snap := withZone("pro", func(z *inventory.ZoneInventory) {
		f := inventory.Filter{ID: "f1", Expression: expr}
		z.Filters = []inventory.Filter{f}
		z.FirewallRules = []inventory.FirewallRule{
			{ID: "r1", Action: "block", Filter: f},
			{ID: "r2", Action: "challenge", Filter: f},
		}
		z.Rulesets = []inventory.Ruleset{{ID: "rsl", Name: "rl", Phase: "http_ratelimit", Rules: []inventory.RulesetRule{{ID: "x1", Action: "block", Expression: expr}}}}
	})
	fs := only(scan(t, snap, asOf2024).Findings, "threat-score-field")
	if len(fs) != 2 {
		t.Fatalf("want one finding for the shared filter and one for the ruleset rule, got:\n%s", dump(fs))
	}
	mustContain(t, fs[0].Message, "(used by firewall rules id r1, id r2)",
		`"cf.threat_score gt 10" is always false (never matches)`,
		`"cf.threat_score lt 14" is always true (always matches)`,
		`"cf.threat_score ge 0" is always true`)
	if strings.Contains(fs[0].Message, "lt 3") {
		t.Errorf("a comparison inside a string literal was evaluated: %s", fs[0].Message)
	}
	mustContain(t, fs[1].Message, "Rate limiting rule id x1 in ruleset \"rl\" (id rsl) (phase http_ratelimit)")
	if fs[0].Severity != SeverityNotice {
		t.Errorf("advisory entry severity %s", fs[0].Severity)
	}
}

func TestExpressionFieldsFromBrokenExpression(t *testing.T) {
	// The expression does not parse: the parser's partial tree still names the deprecated field.
	expr := `(ip.geoip.country eq "T1"`
	snap := withZone("pro", func(z *inventory.ZoneInventory) {
		z.FirewallRules = []inventory.FirewallRule{{ID: "r1", Action: "block", Filter: inventory.Filter{Expression: expr}}}
	})
	fs := only(scan(t, snap, asOf2024).Findings, "geoip-field-names")
	if len(fs) != 1 {
		t.Fatalf("got %d findings", len(fs))
	}
	// A filter without an id: the rule owns the expression.
	if fs[0].Resource.ID != "r1" {
		t.Errorf("resource %+v", fs[0].Resource)
	}
	mustContain(t, fs[0].Message, "ip.geoip.country -> ip.src.country")
}

// TestUnparsedExpressionNote: a rule whose filter does not parse says where the parser stops
// and why.
func TestUnparsedExpressionNote(t *testing.T) {
	snap := withZone("enterprise", func(z *inventory.ZoneInventory) {
		z.FirewallRules = []inventory.FirewallRule{{ID: "r1", Action: "block", Filter: inventory.Filter{ID: "f1", Expression: `ip.src in {198.51.100.1} ~ "^.*/login.php$")`}}}
	})
	fs := only(ScanSnapshot(snap, nil, Options{AsOf: asOf2024}).Findings, "firewall-rules")
	if len(fs) != 1 {
		t.Fatalf("got %d findings", len(fs))
	}
	mustContain(t, fs[0].Message, `does not parse (1:26: expected a logical operator (and, or, xor) or the end of the expression, found "~")`,
		"Fix the expression first")
}

func TestUpcomingEntriesProduceNothing(t *testing.T) {
	user, err := catalog.Parse([]byte(`entries:
  - id: firewall-rules
    override: true
    title: Firewall rules API
    description: Moved later for this test.
    deprecated_on: 2030-01-01
    end_of_life: 2031-01-01
    date_source: spec
    replacement: custom rules
    doc_url: https://example.com/
    match:
      objects: [firewall_rule]
`), "user.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Default().Merge(user)
	if err != nil {
		t.Fatal(err)
	}
	snap := withZone("free", func(z *inventory.ZoneInventory) { z.FirewallRules = fwRules(7, nil) })
	if fs := only(ScanSnapshot(snap, cat, Options{AsOf: day("2029-12-31")}).Findings, "firewall-rules"); len(fs) != 0 {
		t.Errorf("findings before deprecated_on:\n%s", dump(fs))
	}
	fs := only(ScanSnapshot(snap, cat, Options{AsOf: day("2030-01-01")}).Findings, "firewall-rules")
	if len(fs) != 8 { // 7 rules + the free plan quota
		t.Errorf("got %d findings on deprecated_on, want 8", len(fs))
	}
}

func TestRetiredErrorsAndCounts(t *testing.T) {
	z1 := zoneOn("free")
	z1.Retired = []inventory.Retired{{Method: "GET", Path: "/zones/z1/firewall/rules", Status: 404}}
	z2 := zoneOn("pro")
	z2.Zone.ID, z2.Zone.Name = "z2", "b.example"
	z2.Errors = []inventory.CollectError{{What: "dns_records", Message: "HTTP 500"}, {What: "filters", Message: "timeout"}}
	z3 := zoneOn("pro")
	z3.Zone.ID, z3.Zone.Name = "z3", "c.example"
	acc := inventory.AccountInventory{Account: inventory.Account{ID: "acc1"},
		Retired: []inventory.Retired{{Method: "GET", Path: "/client/v4/accounts/acc1/tunnels?page=1", Status: 410}},
		Errors:  []inventory.CollectError{{What: "load_balancer_pools", Message: "forbidden"}}}
	res := scan(t, snapOf([]inventory.ZoneInventory{z1, z2, z3}, acc), asOf2024)
	if res.Zones != 3 || res.Accounts != 1 || res.ZonesFailed != 1 || !res.Incomplete {
		t.Errorf("counts: zones %d accounts %d failed %d incomplete %v", res.Zones, res.Accounts, res.ZonesFailed, res.Incomplete)
	}
	if len(res.Errors) != 3 {
		t.Fatalf("errors: %+v", res.Errors)
	}
	if e := res.Errors[0]; e.AccountID != "acc1" || e.ZoneID != "" || e.What != "load_balancer_pools" {
		t.Errorf("account error first (no zone name): %+v", e)
	}
	if e := res.Errors[1]; e.ZoneName != "b.example" || e.What != "dns_records" || e.Message != "HTTP 500" {
		t.Errorf("zone error: %+v", e)
	}
	if len(res.Retired) != 2 {
		t.Fatalf("retired: %+v", res.Retired)
	}
	if r := res.Retired[0]; r.AccountID != "acc1" || r.Status != 410 || fmt.Sprint(r.RuleIDs) != "[argo-tunnels-api]" {
		t.Errorf("account retired: %+v", r)
	}
	if r := res.Retired[1]; r.ZoneID != "z1" || fmt.Sprint(r.RuleIDs) != "[firewall-rules]" {
		t.Errorf("zone retired: %+v", r)
	}

	clean := scan(t, snapOf([]inventory.ZoneInventory{z3}), asOf2024)
	if clean.Incomplete || clean.ZonesFailed != 0 || clean.Errors == nil || clean.Findings == nil {
		t.Errorf("clean scan: %+v", clean)
	}
	marked := snapOf([]inventory.ZoneInventory{z3})
	marked.Incomplete = true
	if !scan(t, marked, asOf2024).Incomplete {
		t.Error("snapshot's Incomplete not carried over")
	}
	if r := ScanSnapshot(nil, nil, Options{}); r.Zones != 0 || len(r.Findings) != 0 {
		t.Errorf("nil snapshot: %+v", r)
	}
}

func TestWAFDetails(t *testing.T) {
	snap := withZone("pro", func(z *inventory.ZoneInventory) {
		z.WAFPackages = []inventory.WAFPackageInventory{
			{Package: inventory.WAFPackage{ID: "p1", Name: "CloudFlare", DetectionMode: "traditional", Status: "active"},
				Groups: []inventory.WAFGroup{{ID: "g1", Name: "WordPress", Mode: "on", ModifiedRulesCount: 2}},
				Rules: []inventory.WAFRule{
					{ID: "100", Description: "xss", Mode: "block", DefaultMode: "challenge"},
					{ID: "101", Mode: "default", DefaultMode: "block"},
					{ID: "102", Mode: "block", DefaultMode: "block"},
				}},
			{Package: inventory.WAFPackage{ID: "p2", Name: "Unused", DetectionMode: "traditional", Status: "inactive"}},
			{Package: inventory.WAFPackage{ID: "p3", Name: "OWASP", DetectionMode: "anomaly", Sensitivity: "high", ActionMode: "simulate"}},
		}
		z.WAFOverrides = []inventory.WAFOverride{{ID: "o1", Description: "admin", URLs: []string{"example.com/b*", "example.com/a*"}, Priority: 3, Paused: true,
			Groups: map[string]string{"g2": "off", "g1": "on"}, Rules: map[string]string{"100": "simulate"}, RewriteAction: map[string]string{"block": "challenge"}}}
	})
	fs := only(scan(t, snap, asOf2024).Findings, "waf-managed-rules-v1")
	if len(fs) != 3 {
		t.Fatalf("want p1, p3 and o1, got:\n%s", dump(fs))
	}
	// Sorted by resource kind: waf_override before waf_package.
	fs = append(fs[1:], fs[0])
	mustContain(t, fs[0].Message, `group "WordPress" 2 modified rules`, `rule 100 ("xss") block instead of challenge`, "1 of 1 groups and 1 of 3 rules",
		"Cloudflare Managed ruleset (efb7b8c949ac4650a09736fc376e9aee)")
	mustContain(t, fs[1].Message, "OWASP sensitivity high, action mode simulate", "paranoia level PL2, score threshold 40, action log")
	mustContain(t, fs[2].Message, `URL override "admin" (id o1) for 2 URLs (example.com/a*, example.com/b*)`, "priority 3, paused",
		"sets 2 groups (g1: on, g2: off)", "sets 1 rule (100: simulate)", "rewrites actions (block: challenge)", "block the service's automatic upgrade")
}
