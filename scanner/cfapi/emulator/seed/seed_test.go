package seed

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

func encode(t testing.TB, s *inventory.Snapshot) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := s.Write(&buf); err != nil {
		t.Fatalf("encode snapshot: %v", err)
	}
	return buf.Bytes()
}

func zoneByName(t *testing.T, s *inventory.Snapshot, name string) *inventory.ZoneInventory {
	t.Helper()
	for i := range s.Zones {
		if s.Zones[i].Zone.Name == name {
			return &s.Zones[i]
		}
	}
	t.Fatalf("zone %s not in the snapshot", name)
	return nil
}

func TestDemoIsDeterministicAndFresh(t *testing.T) {
	a, b := Demo(), Demo()
	ja, jb := encode(t, a), encode(t, b)
	if !bytes.Equal(ja, jb) {
		t.Fatal("two calls of Demo encode differently")
	}
	// A fresh copy: changing one snapshot, down to pointers and raw values, leaves the next alone.
	z := &a.Zones[0]
	z.FirewallRules[0].Description = "changed"
	*z.DNSRecords[0].ZoneName = "changed"
	z.Settings[0].Value[1] = 'X'
	*a.Accounts[0].Account.Settings.EnforceTwoFactor = false
	if !bytes.Equal(encode(t, Demo()), jb) {
		t.Fatal("Demo shares state between calls")
	}
}

func TestDemoShape(t *testing.T) {
	s := Demo()
	if s.SchemaVersion != inventory.SnapshotSchemaVersion || s.Source != DemoSource {
		t.Errorf("schema_version %d source %q", s.SchemaVersion, s.Source)
	}
	if n := len(s.Accounts); n < 2 || n > 3 {
		t.Errorf("%d accounts, want 2 or 3", n)
	}
	plans := map[string]int{}
	for _, z := range s.Zones {
		plans[z.Zone.Plan.LegacyID]++
	}
	for _, p := range []string{inventory.PlanFree, inventory.PlanPro, inventory.PlanBusiness, inventory.PlanEnterprise} {
		if plans[p] == 0 {
			t.Errorf("no %s zone", p)
		}
	}
	// RFC 2606 / 6761 names only.
	safe := regexp.MustCompile(`(^|\.)(example|test)$|(^|\.)example\.(com|net|org)$`)
	for _, z := range s.Zones {
		if !safe.MatchString(z.Zone.Name) {
			t.Errorf("zone name %q is not a reserved example name", z.Zone.Name)
		}
	}
}

func TestDemoRoundTrips(t *testing.T) {
	want := encode(t, Demo())
	got, err := inventory.ReadSnapshot(bytes.NewReader(want))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(encode(t, got), want) {
		t.Fatal("Demo does not survive a write/read round trip")
	}
}

var hexID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// checkIDs asserts every object id is 32 lowercase hex digits and unique within its kind.
func checkIDs(t *testing.T, s *inventory.Snapshot) {
	t.Helper()
	seen := map[string]map[string]bool{}
	add := func(kind, id string) {
		if !hexID.MatchString(id) {
			t.Errorf("%s id %q is not 32 lowercase hex digits", kind, id)
		}
		if seen[kind] == nil {
			seen[kind] = map[string]bool{}
		}
		if seen[kind][id] {
			t.Errorf("%s id %s is used twice", kind, id)
		}
		seen[kind][id] = true
	}
	for _, a := range s.Accounts {
		add("account", a.Account.ID)
		for _, x := range a.Tunnels {
			add("tunnel", x.ID)
		}
		for _, x := range a.AccessBookmarks {
			add("access_bookmark", x.ID)
		}
		for _, x := range a.LoadBalancerPools {
			add("load_balancer_pool", x.ID)
		}
	}
	for _, z := range s.Zones {
		add("zone", z.Zone.ID)
		for _, x := range z.FirewallRules {
			add("firewall_rule", x.ID)
		}
		for _, x := range z.Filters {
			add("filter", x.ID)
		}
		for _, x := range z.RateLimits {
			add("rate_limit", x.ID)
		}
		for _, p := range z.WAFPackages {
			add("waf_package", p.Package.ID)
			for _, g := range p.Groups {
				add("waf_group", g.ID)
			}
			for _, r := range p.Rules {
				add("waf_rule", r.ID)
			}
		}
		for _, x := range z.WAFOverrides {
			add("waf_override", x.ID)
		}
		for _, x := range z.DNSRecords {
			add("dns_record", x.ID)
		}
		for _, x := range z.HealthChecks {
			add("health_check", x.ID)
		}
		for _, rs := range z.Rulesets {
			add("ruleset", rs.ID)
			for _, r := range rs.Rules {
				add("ruleset_rule", r.ID)
			}
		}
	}
}

// checkConsistency asserts what the API itself guarantees: rules embed filters that exist,
// zones belong to listed accounts, records carry their zone, old and new settings agree,
// WAF counts and references hold, Free zones stay within the firewall rule quota.
func checkConsistency(t *testing.T, s *inventory.Snapshot) {
	t.Helper()
	accounts := map[string]inventory.AccountInventory{}
	for _, a := range s.Accounts {
		accounts[a.Account.ID] = a
		want := a.Account.Settings.DefaultNameservers
		if a.Account.Settings.UseAccountCustomNSByDefault != nil && *a.Account.Settings.UseAccountCustomNSByDefault {
			want = "custom.account"
		}
		if got := a.DNSSettings.ZoneDefaults.Nameservers.Type; want != "" && got != want {
			t.Errorf("account %s: zone_defaults.nameservers.type %q does not reflect the account settings (%q)", a.Account.Name, got, want)
		}
	}
	for _, z := range s.Zones {
		name := z.Zone.Name
		if a, ok := accounts[z.Zone.Account.ID]; !ok || a.Account.Name != z.Zone.Account.Name {
			t.Errorf("%s: account %+v is not listed", name, z.Zone.Account)
		}
		if z.Zone.Plan.LegacyID == inventory.PlanFree && len(z.FirewallRules) > 5 {
			t.Errorf("%s: a Free zone with %d firewall rules (quota 5) cannot exist", name, len(z.FirewallRules))
		}
		filters := map[string]inventory.Filter{}
		for _, f := range z.Filters {
			filters[f.ID] = f
		}
		for _, r := range z.FirewallRules {
			f, ok := filters[r.Filter.ID]
			if !ok {
				t.Errorf("%s: rule %s refers to filter %s, which is not in the zone's filters", name, r.ID, r.Filter.ID)
				continue
			}
			if f.Expression != r.Filter.Expression || f.Paused != r.Filter.Paused || f.Description != r.Filter.Description {
				t.Errorf("%s: rule %s embeds filter %s differently from the filter list", name, r.ID, f.ID)
			}
		}
		for _, r := range z.DNSRecords {
			if r.ZoneID == nil || *r.ZoneID != z.Zone.ID || r.ZoneName == nil || *r.ZoneName != name || r.Locked == nil || *r.Locked {
				t.Errorf("%s: record %s lacks zone_id/zone_name/locked:false", name, r.ID)
			}
			if !strings.HasSuffix(r.Name, name) {
				t.Errorf("%s: record name %s is outside the zone", name, r.Name)
			}
		}
		cf, ok := z.Setting("cname_flattening")
		if !ok || z.DNSSettings == nil || z.DNSSettings.FlattenAllCNAMEs == nil {
			t.Errorf("%s: cname_flattening or dns_settings.flatten_all_cnames missing", name)
		} else if (cf.StringValue() == "flatten_all") != *z.DNSSettings.FlattenAllCNAMEs {
			t.Errorf("%s: cname_flattening %s and flatten_all_cnames %v disagree", name, cf.StringValue(), *z.DNSSettings.FlattenAllCNAMEs)
		}
		for _, st := range z.Settings {
			if !json.Valid(st.Value) {
				t.Errorf("%s: setting %s holds invalid JSON %q", name, st.ID, st.Value)
			}
		}
		wafIDs := map[string]bool{}
		for _, p := range z.WAFPackages {
			if p.Package.ZoneID != z.Zone.ID {
				t.Errorf("%s: WAF package %s names zone %s", name, p.Package.Name, p.Package.ZoneID)
			}
			groups := map[string]*inventory.WAFGroup{}
			for i := range p.Groups {
				groups[p.Groups[i].ID] = &p.Groups[i]
				wafIDs[p.Groups[i].ID] = true
			}
			rules, modified := map[string]int{}, map[string]int{}
			for _, r := range p.Rules {
				wafIDs[r.ID] = true
				if r.Group == nil || groups[r.Group.ID] == nil || r.PackageID != p.Package.ID {
					t.Errorf("%s: WAF rule %s is not in a group of its package", name, r.ID)
					continue
				}
				rules[r.Group.ID]++
				if r.Mode != r.DefaultMode {
					modified[r.Group.ID]++
				}
			}
			for id, g := range groups {
				if g.RulesCount != rules[id] || g.ModifiedRulesCount != modified[id] {
					t.Errorf("%s: group %s counts %d/%d rules, holds %d/%d", name, g.Name, g.RulesCount, g.ModifiedRulesCount, rules[id], modified[id])
				}
			}
		}
		for _, o := range z.WAFOverrides {
			for id := range o.Groups {
				if !wafIDs[id] {
					t.Errorf("%s: override %s names unknown group %s", name, o.ID, id)
				}
			}
			for id := range o.Rules {
				if !wafIDs[id] {
					t.Errorf("%s: override %s names unknown rule %s", name, o.ID, id)
				}
			}
		}
	}
}

func TestDemoIDsAreHexAndUniquePerKind(t *testing.T) { checkIDs(t, Demo()) }

func TestDemoIsConsistent(t *testing.T) { checkConsistency(t, Demo()) }

func TestDemoIDsFollowNames(t *testing.T) {
	s := Demo()
	z := zoneByName(t, s, ZoneShop)
	if z.Zone.ID != ID("zone", ZoneShop) {
		t.Errorf("zone id %s, want ID(zone, %s)", z.Zone.ID, ZoneShop)
	}
	want := ID("firewall_rule", ZoneShop+"/block-xmlrpc")
	if !slices.ContainsFunc(z.FirewallRules, func(r inventory.FirewallRule) bool { return r.ID == want }) {
		t.Errorf("no firewall rule %s (ID(firewall_rule, shop.example/block-xmlrpc))", want)
	}
	// ID is a function of its input: the same names give the same id (computed twice,
	// separately), other names another one, and ids are 32 lowercase hex digits.
	first, again := ID("a", "b"), ID(string([]byte{'a'}), "b")
	if first != again || first == ID("a", "c") || first == ID("b", "a") || !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(first) {
		t.Errorf("ID(a, b) = %s, again %s, ID(a, c) = %s, ID(b, a) = %s", first, again, ID("a", "c"), ID("b", "a"))
	}
}

func TestDemoFreeZoneQuota(t *testing.T) {
	s := Demo()
	blog := zoneByName(t, s, ZoneBlog)
	if blog.Zone.Plan.LegacyID != inventory.PlanFree {
		t.Fatalf("%s is on %s, want free", ZoneBlog, blog.Zone.Plan.LegacyID)
	}
	custom, ok := blog.Ruleset(vocab.PhaseCustomRules)
	if !ok || len(custom.Rules) == 0 {
		t.Fatalf("%s has no custom rules entry point with rules", ZoneBlog)
	}
	// The firewall rules and the existing custom rule fill the Free custom rules quota exactly:
	// the migration fits, with no room left.
	if total := len(blog.FirewallRules) + len(custom.Rules); total != 5 {
		t.Errorf("%s: %d custom rules after migration, want exactly the Free quota 5", ZoneBlog, total)
	}
	if len(orphanFilters(blog)) == 0 {
		t.Errorf("%s has no orphan filter (left by the quota refusal)", ZoneBlog)
	}
}

// orphanFilters returns the filters no rule of the zone refers to.
func orphanFilters(z *inventory.ZoneInventory) []inventory.Filter {
	used := map[string]bool{}
	for _, r := range z.FirewallRules {
		used[r.Filter.ID] = true
	}
	var out []inventory.Filter
	for _, f := range z.Filters {
		if !used[f.ID] {
			out = append(out, f)
		}
	}
	return out
}

// balanced reports whether an expression's parentheses balance outside string literals.
func balanced(expr string) bool {
	depth, inString := 0, false
	for i := 0; i < len(expr); i++ {
		switch c := expr[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && c == '(':
			depth++
		case !inString && c == ')':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0 && !inString
}

// anyZone reports whether some zone satisfies p.
func anyZone(s *inventory.Snapshot, p func(z *inventory.ZoneInventory) bool) bool {
	for i := range s.Zones {
		if p(&s.Zones[i]) {
			return true
		}
	}
	return false
}

func anyAccount(s *inventory.Snapshot, p func(a *inventory.AccountInventory) bool) bool {
	for i := range s.Accounts {
		if p(&s.Accounts[i]) {
			return true
		}
	}
	return false
}

func anyRule(s *inventory.Snapshot, p func(z *inventory.ZoneInventory, r inventory.FirewallRule) bool) bool {
	return anyZone(s, func(z *inventory.ZoneInventory) bool {
		return slices.ContainsFunc(z.FirewallRules, func(r inventory.FirewallRule) bool { return p(z, r) })
	})
}

func anyFilter(s *inventory.Snapshot, p func(f inventory.Filter) bool) bool {
	return anyZone(s, func(z *inventory.ZoneInventory) bool { return slices.ContainsFunc(z.Filters, p) })
}

func anyRecord(s *inventory.Snapshot, p func(r inventory.DNSRecord) bool) bool {
	return anyZone(s, func(z *inventory.ZoneInventory) bool { return slices.ContainsFunc(z.DNSRecords, p) })
}

// settingIs reports whether some zone has setting id with exactly the JSON value want
// (compared after decoding, so key order does not matter).
func settingIs(s *inventory.Snapshot, id, want string) bool {
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		panic(err)
	}
	return anyZone(s, func(z *inventory.ZoneInventory) bool {
		st, ok := z.Setting(id)
		if !ok {
			return false
		}
		var v any
		return json.Unmarshal(st.Value, &v) == nil && jsonEqual(v, w)
	})
}

func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func isTrue(b *bool) bool { return b != nil && *b }

// TestDemoHoldsEveryLiveCatalogEntry names each catalog id a live scan can detect and asserts
// the demo holds an instance of it.
func TestDemoHoldsEveryLiveCatalogEntry(t *testing.T) {
	s := Demo()
	cases := []struct {
		id   string
		has  func() bool
		what string
	}{
		{"firewall-rules", func() bool {
			return anyZone(s, func(z *inventory.ZoneInventory) bool { return len(z.FirewallRules) > 0 })
		}, "a firewall rule"},
		{"filters", func() bool { return anyZone(s, func(z *inventory.ZoneInventory) bool { return len(z.Filters) > 0 }) }, "a filter"},
		{"waf-managed-rules-v1", func() bool {
			return anyZone(s, func(z *inventory.ZoneInventory) bool { return len(z.WAFPackages) > 0 && len(z.WAFOverrides) > 0 })
		}, "WAF packages and overrides"},
		{"rate-limiting-v1", func() bool { return anyZone(s, func(z *inventory.ZoneInventory) bool { return len(z.RateLimits) > 0 }) }, "a rate limit"},
		{"cname-flattening-setting", func() bool {
			return settingIs(s, "cname_flattening", `"flatten_all"`) && settingIs(s, "cname_flattening", `"flatten_at_root"`)
		}, "cname_flattening flatten_all on one zone and flatten_at_root on another"},
		{"zone-settings-bulk", func() bool {
			return !anyZone(s, func(z *inventory.ZoneInventory) bool { return len(z.Settings) < 10 })
		}, "the settings list of every zone"},
		{"account-nameserver-settings", func() bool {
			return anyAccount(s, func(a *inventory.AccountInventory) bool {
				return a.Account.Settings.DefaultNameservers == "custom.tenant"
			}) &&
				anyAccount(s, func(a *inventory.AccountInventory) bool {
					return isTrue(a.Account.Settings.UseAccountCustomNSByDefault)
				})
		}, "default_nameservers custom.tenant and use_account_custom_ns_by_default true"},
		{"dns-settings-use-apex-ns", func() bool {
			return anyZone(s, func(z *inventory.ZoneInventory) bool {
				return z.DNSSettings != nil && isTrue(z.DNSSettings.MultiProvider)
			})
		}, "multi_provider true"},
		{"dns-settings-secondary-overrides", func() bool {
			return anyZone(s, func(z *inventory.ZoneInventory) bool {
				return z.DNSSettings != nil && isTrue(z.DNSSettings.SecondaryOverrides)
			})
		}, "secondary_overrides true"},
		{"dns-record-zone-fields", func() bool {
			return anyRecord(s, func(r inventory.DNSRecord) bool { return r.ZoneID != nil && r.ZoneName != nil })
		}, "records with zone_id and zone_name"},
		{"dns-record-locked", func() bool { return anyRecord(s, func(r inventory.DNSRecord) bool { return r.Locked != nil }) }, "records with locked"},
		{"srv-data-fields", func() bool {
			return anyRecord(s, func(r inventory.DNSRecord) bool { return r.Type == "SRV" && r.Data.HasDeprecatedSRVFields() })
		}, "SRV records with data.service/proto/name"},
		{"zone-setting-brotli", func() bool { return settingIs(s, "brotli", `"on"`) }, "brotli on"},
		{"zone-setting-minify", func() bool { return settingIs(s, "minify", `{"css":"on","html":"off","js":"on"}`) }, "minify css/js on"},
		{"zone-setting-mobile-redirect", func() bool {
			return settingIs(s, "mobile_redirect", `{"status":"on","mobile_subdomain":"m","strip_uri":false}`)
		}, "mobile_redirect on to m"},
		{"zone-setting-server-side-exclude", func() bool { return settingIs(s, "server_side_exclude", `"on"`) }, "server_side_exclude on"},
		{"zone-setting-privacy-pass", func() bool { return settingIs(s, "privacy_pass", `"on"`) }, "privacy_pass on"},
		{"argo-tunnels-api", func() bool {
			return anyAccount(s, func(a *inventory.AccountInventory) bool { return len(a.Tunnels) > 0 })
		}, "legacy tunnels"},
		{"access-bookmarks-api", func() bool {
			return anyAccount(s, func(a *inventory.AccountInventory) bool { return len(a.AccessBookmarks) > 0 })
		}, "Access bookmarks"},
		{"notification-email", func() bool {
			return anyAccount(s, func(a *inventory.AccountInventory) bool {
				return slices.ContainsFunc(a.LoadBalancerPools, func(p inventory.LoadBalancerPool) bool { return p.NotificationEmail != "" })
			})
		}, "a pool with notification_email"},
		{"threat-score-field", func() bool {
			return anyFilter(s, func(f inventory.Filter) bool { return strings.Contains(f.Expression, "cf.threat_score") })
		}, "a filter on cf.threat_score"},
		{"geoip-field-names", func() bool {
			return anyFilter(s, func(f inventory.Filter) bool {
				return strings.Contains(f.Expression, "ip.geoip.country") && strings.Contains(f.Expression, "ip.geoip.asnum")
			})
		}, "a filter on ip.geoip.country and ip.geoip.asnum"},
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			if !c.has() {
				t.Errorf("the demo holds no %s", c.what)
			}
		})
	}
}

// TestDemoHoldsTrickyCases asserts each tricky migration case the package documentation lists
// sits on the zone it names.
func TestDemoHoldsTrickyCases(t *testing.T) {
	s := Demo()
	zone := func(name string) *inventory.ZoneInventory { return zoneByName(t, s, name) }
	rules := func(name string) []inventory.FirewallRule { return zone(name).FirewallRules }
	hasRule := func(name string, p func(r inventory.FirewallRule) bool) bool {
		return slices.ContainsFunc(rules(name), p)
	}
	hasRL := func(name string, p func(r inventory.RateLimit) bool) bool {
		return slices.ContainsFunc(zone(name).RateLimits, p)
	}
	allowedPeriods := []int{10, 60, 120, 300, 600, 3600}
	allowedTimeouts := []int{0, 10, 60, 120, 300, 600, 3600, 86400}

	cases := []struct {
		name string
		ok   func() bool
	}{
		{"null priorities", func() bool {
			return !slices.ContainsFunc(rules(ZoneNews), func(r inventory.FirewallRule) bool { return r.Priority != nil })
		}},
		{"paused rules", func() bool { return hasRule(ZoneNews, func(r inventory.FirewallRule) bool { return r.Paused }) }},
		{"paused filter behind an active rule", func() bool {
			return hasRule(ZoneNews, func(r inventory.FirewallRule) bool { return !r.Paused && r.Filter.Paused })
		}},
		{"allow and bypass on the same expression", func() bool {
			rs := rules(ZoneMedia)
			for _, a := range rs {
				for _, b := range rs {
					if a.Action == "allow" && b.Action == "bypass" && a.Filter.Expression == b.Filter.Expression {
						return true
					}
				}
			}
			return false
		}},
		{"equal priorities with different actions", func() bool {
			for _, name := range []string{ZoneMedia, ZoneAPI} {
				seen := map[int]string{}
				for _, r := range rules(name) {
					if r.Priority == nil {
						continue
					}
					if a, ok := seen[*r.Priority]; ok && vocab.Action(a) != r.Action {
						return true
					}
					seen[*r.Priority] = string(r.Action)
				}
			}
			return false
		}},
		{"ascending priorities", func() bool {
			distinct := map[int]bool{}
			for _, r := range rules(ZoneShop) {
				if r.Priority != nil {
					distinct[*r.Priority] = true
				}
			}
			return len(distinct) >= 3
		}},
		{"a filter shared by two rules", func() bool {
			n := map[string]int{}
			for _, r := range rules(ZoneMedia) {
				n[r.Filter.ID]++
			}
			for _, c := range n {
				if c >= 2 {
					return true
				}
			}
			return false
		}},
		{"an orphan filter", func() bool { return len(orphanFilters(zone(ZoneBlog))) > 0 }},
		{"an orphan filter that does not parse (unbalanced parenthesis)", func() bool {
			return slices.ContainsFunc(orphanFilters(zone(ZoneAPI)), func(f inventory.Filter) bool { return !balanced(f.Expression) })
		}},
		{"no regex on a Pro zone (wildcards instead)", func() bool {
			z := zone(ZoneShop)
			return z.Zone.Plan.LegacyID == inventory.PlanPro &&
				!hasRule(ZoneShop, func(r inventory.FirewallRule) bool { return strings.Contains(r.Filter.Expression, " matches ") }) &&
				!hasRule(ZoneShop, func(r inventory.FirewallRule) bool { return strings.Contains(r.Filter.Expression, " ~ ") }) &&
				hasRule(ZoneShop, func(r inventory.FirewallRule) bool { return strings.Contains(r.Filter.Expression, " wildcard ") })
		}},
		{"log on an Enterprise zone", func() bool {
			return zone(ZoneAPI).Zone.Plan.LegacyID == inventory.PlanEnterprise &&
				hasRule(ZoneAPI, func(r inventory.FirewallRule) bool { return r.Action == "log" })
		}},
		{"log only on Enterprise", func() bool {
			return !anyRule(s, func(z *inventory.ZoneInventory, r inventory.FirewallRule) bool {
				return r.Action == "log" && z.Zone.Plan.LegacyID != inventory.PlanEnterprise
			})
		}},
		{"bypass with products waf, rateLimit, securityLevel", func() bool {
			return hasRule(ZoneAPI, func(r inventory.FirewallRule) bool {
				return r.Action == "bypass" && slices.Equal(r.Products, []string{"waf", "rateLimit", "securityLevel"})
			})
		}},
		{"a description that needs escaping", func() bool {
			return hasRule(ZoneAPI, func(r inventory.FirewallRule) bool {
				d := r.Description
				return strings.Contains(d, "<script>alert(1)</script>") && strings.Contains(d, "|") && strings.Contains(d, "`")
			})
		}},
		{"an existing custom rules entry point with one rule", func() bool {
			rs, ok := zone(ZoneBlog).Ruleset(vocab.PhaseCustomRules)
			return ok && len(rs.Rules) == 1
		}},
		{"rate limit correlated by nat (on Enterprise, the only plan that can count per visitor)", func() bool {
			return hasRL(ZoneAPI, func(r inventory.RateLimit) bool { return r.Correlate != nil && r.Correlate.By == "nat" })
		}},
		{"rate limit with response status and headers", func() bool {
			return hasRL(ZoneMedia, func(r inventory.RateLimit) bool {
				return r.Match.Response != nil && len(r.Match.Response.Status) > 0 && len(r.Match.Response.Headers) > 0
			}) && hasRL(ZoneMedia, func(r inventory.RateLimit) bool { return len(r.Match.Headers) > 0 })
		}},
		{"rate limit with bypass urls", func() bool {
			return hasRL(ZoneMedia, func(r inventory.RateLimit) bool { return len(r.Bypass) >= 2 && r.Bypass[0].Name == "url" })
		}},
		{"rate limit with _ALL_ methods", func() bool {
			return hasRL(ZoneShop, func(r inventory.RateLimit) bool { return slices.Contains(r.Match.Request.Methods, "_ALL_") })
		}},
		{"rate limit with a custom response body", func() bool {
			return hasRL(ZoneMedia, func(r inventory.RateLimit) bool { return r.Action.Response != nil && r.Action.Response.Body != "" })
		}},
		{"rate limit period and timeout outside the allowed sets", func() bool {
			return hasRL(ZoneShop, func(r inventory.RateLimit) bool {
				return r.Period == 900 && r.Action.Timeout == 3000 &&
					!slices.Contains(allowedPeriods, r.Period) && !slices.Contains(allowedTimeouts, r.Action.Timeout)
			})
		}},
		{"as many rate limits on a Pro zone as the new quota 2", func() bool {
			z := zone(ZoneShop)
			return z.Zone.Plan.LegacyID == inventory.PlanPro && len(z.RateLimits) == 2
		}},
		{"OWASP anomaly package in simulate at medium", func() bool {
			return slices.ContainsFunc(zone(ZoneShop).WAFPackages, func(p inventory.WAFPackageInventory) bool {
				return p.Package.DetectionMode == "anomaly" && p.Package.ActionMode == "simulate" && p.Package.Sensitivity == "medium"
			})
		}},
		{"traditional package with a group off and changed rules", func() bool {
			return slices.ContainsFunc(zone(ZoneShop).WAFPackages, func(p inventory.WAFPackageInventory) bool {
				return p.Package.DetectionMode == "traditional" &&
					slices.ContainsFunc(p.Groups, func(g inventory.WAFGroup) bool { return g.Mode == "off" }) &&
					slices.ContainsFunc(p.Rules, func(r inventory.WAFRule) bool { return r.Mode != r.DefaultMode })
			})
		}},
		{"URL overrides with urls, rules and groups", func() bool {
			return slices.ContainsFunc(zone(ZoneMedia).WAFOverrides, func(o inventory.WAFOverride) bool {
				return len(o.URLs) > 0 && len(o.Rules) > 0 && len(o.Groups) > 0
			}) && len(zone(ZoneShop).WAFOverrides) > 0
		}},
		{"SRV data fields that conflict with the name", func() bool {
			return anyRecord(s, func(r inventory.DNSRecord) bool {
				if r.Type != "SRV" || !r.Data.HasDeprecatedSRVFields() {
					return false
				}
				return r.Name != *r.Data.Service+"."+*r.Data.Proto+"."+*r.Data.Name
			})
		}},
		{"SRV data fields that agree with the name", func() bool {
			return anyRecord(s, func(r inventory.DNSRecord) bool {
				return r.Type == "SRV" && r.Data.HasDeprecatedSRVFields() && r.Name == *r.Data.Service+"."+*r.Data.Proto+"."+*r.Data.Name
			})
		}},
		{"cf.threat_score behind a rule on the Enterprise zone", func() bool {
			return anyRule(s, func(z *inventory.ZoneInventory, r inventory.FirewallRule) bool {
				return z.Zone.Name == ZoneAPI && strings.Contains(r.Filter.Expression, "cf.threat_score")
			})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !c.ok() {
				t.Error("not found where the package documentation says")
			}
		})
	}
}

func TestBalanced(t *testing.T) {
	for expr, want := range map[string]bool{
		`(a eq "(")`:                     true,
		`(a eq "x"`:                      false,
		`a eq "\")"`:                     true,
		`(a) and (b))`:                   false,
		`http.request.uri.path ~ "^/x$"`: true,
	} {
		if got := balanced(expr); got != want {
			t.Errorf("balanced(%q) = %v, want %v", expr, got, want)
		}
	}
}
