package collect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// statusErr is the fake's API error: an HTTP status and a message.
type statusErr struct {
	status int
	msg    string
}

func (e *statusErr) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.msg) }

func statusOf(err error) int {
	var e *statusErr
	if errors.As(err, &e) {
		return e.status
	}
	return 0
}

func isRetired(err error) bool { s := statusOf(err); return s == 404 || s == 410 }
func isFatal(err error) bool   { s := statusOf(err); return s == 401 || s == 403 }

// reqCounter is the context key under which RequestsFor puts a zone's request counter.
type reqCounter struct{}

func requestsFor(ctx context.Context) (context.Context, func() int) {
	n := new(atomic.Int64)
	return context.WithValue(ctx, reqCounter{}, n), func() int { return int(n.Load()) }
}

// testOptions returns options wired to the fake's error classification.
func testOptions() Options {
	return Options{IsRetired: isRetired, IsFatal: isFatal, StatusOf: statusOf, Source: "fake"}
}

// fake is an in-memory Source serving a snapshot. Every call has a key: "accounts", or
// "<account id> <part>", or "<zone id> <part>" with the part named as collect names it.
type fake struct {
	snap *inventory.Snapshot
	// records holds every DNS record of a zone, including the ones collect drops; zones
	// without an entry serve their snapshot records.
	records map[string][]inventory.DNSRecord
	// fail makes a call return an error.
	fail map[string]error
	// pages makes a list call cost more than one request (for RequestsFor).
	pages map[string]int
	// delay is the latency of a call; nil means none.
	delay func(key string) time.Duration
	// share serves the fake's own objects instead of copies.
	share bool

	mu          sync.Mutex
	calls       map[string]int
	zoneQueries []string // "account|name"

	inflight    atomic.Int64
	maxInflight atomic.Int64
}

func newFake(snap *inventory.Snapshot) *fake {
	return &fake{snap: snap, records: map[string][]inventory.DNSRecord{}, fail: map[string]error{}, pages: map[string]int{}, calls: map[string]int{}}
}

// enter accounts for one call and returns its injected error, or a context error when
// the context ends during the call's latency.
func (f *fake) enter(ctx context.Context, key string) (func(), error) {
	n := f.inflight.Add(1)
	for {
		m := f.maxInflight.Load()
		if n <= m || f.maxInflight.CompareAndSwap(m, n) {
			break
		}
	}
	done := func() { f.inflight.Add(-1) }
	f.mu.Lock()
	f.calls[key]++
	err := f.fail[key]
	pages := f.pages[key]
	f.mu.Unlock()
	if c, ok := ctx.Value(reqCounter{}).(*atomic.Int64); ok {
		c.Add(int64(max(pages, 1)))
	}
	if f.delay != nil {
		if d := f.delay(key); d > 0 {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
				return done, ctx.Err()
			}
		}
	}
	if ctx.Err() != nil {
		return done, ctx.Err()
	}
	return done, err
}

func (f *fake) callCount(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[key]
}

func (f *fake) zone(id string) *inventory.ZoneInventory {
	for i := range f.snap.Zones {
		if f.snap.Zones[i].Zone.ID == id {
			return &f.snap.Zones[i]
		}
	}
	return &inventory.ZoneInventory{}
}

func (f *fake) account(id string) (*inventory.AccountInventory, bool) {
	for i := range f.snap.Accounts {
		if f.snap.Accounts[i].Account.ID == id {
			return &f.snap.Accounts[i], true
		}
	}
	return &inventory.AccountInventory{}, false
}

func (f *fake) ListAccounts(ctx context.Context) ([]inventory.Account, error) {
	done, err := f.enter(ctx, "accounts")
	defer done()
	if err != nil {
		return nil, err
	}
	var out []inventory.Account
	for _, a := range f.snap.Accounts {
		out = append(out, a.Account)
	}
	return out, nil
}

func (f *fake) GetAccount(ctx context.Context, id string) (*inventory.Account, error) {
	done, err := f.enter(ctx, id+" account")
	defer done()
	if err != nil {
		return nil, err
	}
	a, ok := f.account(id)
	if !ok {
		return nil, &statusErr{404, "account not found"}
	}
	return ptr(cp(f, a.Account)), nil
}

func (f *fake) ListZones(ctx context.Context, accountID, name string) ([]inventory.Zone, error) {
	done, err := f.enter(ctx, accountID+" zones")
	defer done()
	f.mu.Lock()
	f.zoneQueries = append(f.zoneQueries, accountID+"|"+name)
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	var out []inventory.Zone
	for _, z := range f.snap.Zones {
		if z.Zone.Account.ID == accountID && (name == "" || name == z.Zone.Name) {
			out = append(out, z.Zone)
		}
	}
	return out, nil
}

// list serves a zone's list part.
func list[T any](ctx context.Context, f *fake, zoneID, part string, get func(*inventory.ZoneInventory) []T) ([]T, error) {
	done, err := f.enter(ctx, zoneID+" "+part)
	defer done()
	if err != nil {
		return nil, err
	}
	return cp(f, get(f.zone(zoneID))), nil
}

// clone deep-copies through JSON, so collected objects never alias the fake's data.
func clone[T any](v T) T {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// cp returns v as served: a deep copy, or v itself when the fake shares its data (for
// benchmarks, where copying would cost more than collecting).
func cp[T any](f *fake, v T) T {
	if f.share {
		return v
	}
	return clone(v)
}

func (f *fake) ListFirewallRules(ctx context.Context, zoneID string) ([]inventory.FirewallRule, error) {
	return list(ctx, f, zoneID, "firewall/rules", func(z *inventory.ZoneInventory) []inventory.FirewallRule { return z.FirewallRules })
}

func (f *fake) ListFilters(ctx context.Context, zoneID string) ([]inventory.Filter, error) {
	return list(ctx, f, zoneID, "filters", func(z *inventory.ZoneInventory) []inventory.Filter { return z.Filters })
}

func (f *fake) ListWAFPackages(ctx context.Context, zoneID string) ([]inventory.WAFPackage, error) {
	return list(ctx, f, zoneID, "firewall/waf/packages", func(z *inventory.ZoneInventory) []inventory.WAFPackage {
		var out []inventory.WAFPackage
		for _, p := range z.WAFPackages {
			out = append(out, p.Package)
		}
		return out
	})
}

func wafPackage(z *inventory.ZoneInventory, id string) inventory.WAFPackageInventory {
	for _, p := range z.WAFPackages {
		if p.Package.ID == id {
			return p
		}
	}
	return inventory.WAFPackageInventory{}
}

func (f *fake) ListWAFGroups(ctx context.Context, zoneID, pkgID string) ([]inventory.WAFGroup, error) {
	return list(ctx, f, zoneID, "firewall/waf/packages/"+pkgID+"/groups", func(z *inventory.ZoneInventory) []inventory.WAFGroup { return wafPackage(z, pkgID).Groups })
}

func (f *fake) ListWAFRules(ctx context.Context, zoneID, pkgID string) ([]inventory.WAFRule, error) {
	return list(ctx, f, zoneID, "firewall/waf/packages/"+pkgID+"/rules", func(z *inventory.ZoneInventory) []inventory.WAFRule { return wafPackage(z, pkgID).Rules })
}

func (f *fake) ListWAFOverrides(ctx context.Context, zoneID string) ([]inventory.WAFOverride, error) {
	return list(ctx, f, zoneID, "firewall/waf/overrides", func(z *inventory.ZoneInventory) []inventory.WAFOverride { return z.WAFOverrides })
}

func (f *fake) ListRateLimits(ctx context.Context, zoneID string) ([]inventory.RateLimit, error) {
	return list(ctx, f, zoneID, "rate_limits", func(z *inventory.ZoneInventory) []inventory.RateLimit { return z.RateLimits })
}

func (f *fake) ListDNSRecords(ctx context.Context, zoneID, recordType string) ([]inventory.DNSRecord, error) {
	return list(ctx, f, zoneID, "dns_records", func(z *inventory.ZoneInventory) []inventory.DNSRecord {
		all, ok := f.records[zoneID]
		if !ok {
			all = z.DNSRecords
		}
		var out []inventory.DNSRecord
		for _, r := range all {
			if recordType == "" || r.Type == recordType {
				out = append(out, r)
			}
		}
		return out
	})
}

func findSetting(f *fake, ss []inventory.Setting, name string) (*inventory.Setting, error) {
	for _, s := range ss {
		if s.ID == name {
			return ptr(cp(f, s)), nil
		}
	}
	return nil, &statusErr{404, "no route for " + name}
}

func (f *fake) GetZoneSetting(ctx context.Context, zoneID, name string) (*inventory.Setting, error) {
	done, err := f.enter(ctx, zoneID+" settings/"+name)
	defer done()
	if err != nil {
		return nil, err
	}
	return findSetting(f, f.zone(zoneID).Settings, name)
}

func (f *fake) GetDNSSettings(ctx context.Context, zoneID string) (*inventory.DNSSettings, error) {
	done, err := f.enter(ctx, zoneID+" dns_settings")
	defer done()
	if err != nil {
		return nil, err
	}
	return cp(f, f.zone(zoneID).DNSSettings), nil
}

func (f *fake) ListRulesets(ctx context.Context, zoneID string) ([]inventory.Ruleset, error) {
	return list(ctx, f, zoneID, "rulesets", func(z *inventory.ZoneInventory) []inventory.Ruleset {
		out := []inventory.Ruleset{{ID: "efb7b8c949ac4650a09736fc376e9aee", Name: "Cloudflare Managed Ruleset", Kind: "managed", Phase: "http_request_firewall_managed"}}
		for _, rs := range z.Rulesets {
			rs.Rules = nil // the list carries no rules
			out = append(out, rs)
		}
		return out
	})
}

func (f *fake) GetEntrypointRuleset(ctx context.Context, zoneID string, phase vocab.Phase) (*inventory.Ruleset, error) {
	done, err := f.enter(ctx, zoneID+" rulesets/phases/"+string(phase)+"/entrypoint")
	defer done()
	if err != nil {
		return nil, err
	}
	rs, ok := f.zone(zoneID).Ruleset(phase)
	if !ok {
		return nil, nil
	}
	rs = cp(f, rs)
	return &rs, nil
}

func (f *fake) GetAccountDNSSettings(ctx context.Context, accountID string) (*inventory.AccountDNSSettings, error) {
	done, err := f.enter(ctx, accountID+" dns_settings")
	defer done()
	if err != nil {
		return nil, err
	}
	a, _ := f.account(accountID)
	return cp(f, a.DNSSettings), nil
}

func accountList[T any](ctx context.Context, f *fake, accountID, part string, get func(*inventory.AccountInventory) []T) ([]T, error) {
	done, err := f.enter(ctx, accountID+" "+part)
	defer done()
	if err != nil {
		return nil, err
	}
	a, _ := f.account(accountID)
	return cp(f, get(a)), nil
}

func (f *fake) ListLoadBalancerPools(ctx context.Context, accountID string) ([]inventory.LoadBalancerPool, error) {
	return accountList(ctx, f, accountID, "load_balancers/pools", func(a *inventory.AccountInventory) []inventory.LoadBalancerPool { return a.LoadBalancerPools })
}

func (f *fake) ListTunnels(ctx context.Context, accountID string) ([]inventory.Tunnel, error) {
	return accountList(ctx, f, accountID, "tunnels", func(a *inventory.AccountInventory) []inventory.Tunnel { return a.Tunnels })
}

func (f *fake) ListAccessBookmarks(ctx context.Context, accountID string) ([]inventory.AccessBookmark, error) {
	return accountList(ctx, f, accountID, "access/bookmarks", func(a *inventory.AccountInventory) []inventory.AccessBookmark { return a.AccessBookmarks })
}

func (f *fake) ListAccessApps(ctx context.Context, accountID string) ([]inventory.AccessApp, error) {
	return accountList(ctx, f, accountID, inventory.PartAccessApps, func(a *inventory.AccountInventory) []inventory.AccessApp { return a.AccessApps })
}

func (f *fake) ListNotificationPolicies(ctx context.Context, accountID string) ([]inventory.NotificationPolicy, error) {
	return accountList(ctx, f, accountID, inventory.PartNotificationPolicies, func(a *inventory.AccountInventory) []inventory.NotificationPolicy { return a.NotificationPolicies })
}

// hashDelay is a latency of 0 to 2 ms that depends on the call, so completion order
// differs from submission order without randomness.
func hashDelay(key string) time.Duration {
	h := fnv.New32a()
	h.Write([]byte(key))
	return time.Duration(h.Sum32()%3) * time.Millisecond
}

func ptr[T any](v T) *T { return &v }

func hexID(kind byte, n int) string { return fmt.Sprintf("%c%031x", 'a'+kind, n) }

// fixture builds n zones over two accounts. Even zones have an active WAF package; every
// zone has an anomaly package with sensitivity off (whose groups must not be fetched), no
// privacy_pass setting (retired), and DNS records of which only some are kept.
func fixture(n int) (*inventory.Snapshot, map[string][]inventory.DNSRecord) {
	accounts := []string{hexID(0, 1), hexID(0, 2)}
	snap := &inventory.Snapshot{SchemaVersion: inventory.SnapshotSchemaVersion}
	for i, id := range accounts {
		snap.Accounts = append(snap.Accounts, inventory.AccountInventory{
			Account:           inventory.Account{ID: id, Name: fmt.Sprintf("account %d", i+1), Settings: &inventory.AccountSettings{DefaultNameservers: "custom.account"}},
			DNSSettings:       &inventory.AccountDNSSettings{ZoneDefaults: inventory.DNSSettings{FlattenAllCNAMEs: ptr(false)}},
			Tunnels:           []inventory.Tunnel{{ID: hexID(1, i), Name: "tunnel"}},
			AccessBookmarks:   []inventory.AccessBookmark{{ID: hexID(2, i), Name: "bookmark", Domain: "intranet.example"}},
			LoadBalancerPools: []inventory.LoadBalancerPool{{ID: hexID(3, i), Name: "pool", NotificationEmail: "ops@example.com"}},
		})
	}
	records := map[string][]inventory.DNSRecord{}
	for i := 0; i < n; i++ {
		zid := hexID(4, i)
		z := inventory.ZoneInventory{Zone: inventory.Zone{
			ID: zid, Name: fmt.Sprintf("z%03d.example.com", i), Status: "active",
			Account: inventory.Ref{ID: accounts[i%2]}, Plan: inventory.ZonePlan{LegacyID: inventory.PlanPro},
		}}
		f1 := inventory.Filter{ID: hexID(5, 2*i), Expression: `http.request.uri.path contains "/admin"`}
		f2 := inventory.Filter{ID: hexID(5, 2*i+1), Expression: `ip.src eq 192.0.2.1`, Description: "orphan"}
		z.Filters = []inventory.Filter{f1, f2}
		z.FirewallRules = []inventory.FirewallRule{
			{ID: hexID(6, 2*i), Filter: f1, Action: "block", Priority: ptr(10)},
			{ID: hexID(6, 2*i+1), Filter: f1, Action: "log", Paused: true},
		}
		z.RateLimits = []inventory.RateLimit{{ID: hexID(7, i), Threshold: 60, Period: 900, Action: inventory.RateLimitAction{Mode: "ban", Timeout: 600}}}
		owasp := inventory.WAFPackageInventory{
			Package: inventory.WAFPackage{ID: hexID(8, 2*i), Name: "OWASP ModSecurity Core Rule Set", DetectionMode: "anomaly", Status: "active", Sensitivity: "off", ActionMode: "simulate"},
			Groups:  []inventory.WAFGroup{{ID: hexID(9, 2*i), Name: "never fetched", Mode: "on"}},
		}
		z.WAFPackages = []inventory.WAFPackageInventory{owasp}
		if i%2 == 0 {
			z.WAFPackages = append(z.WAFPackages, inventory.WAFPackageInventory{
				Package: inventory.WAFPackage{ID: hexID(8, 2*i+1), Name: "WordPress rules", DetectionMode: "traditional", Status: "active"},
				Groups:  []inventory.WAFGroup{{ID: hexID(9, 2*i+1), Name: "WordPress", Mode: "on", RulesCount: 1}},
				Rules:   []inventory.WAFRule{{ID: hexID(10, i), Description: "xmlrpc", Priority: "5", Mode: "block", Group: &inventory.Ref{ID: hexID(9, 2*i+1)}}},
			})
		}
		z.WAFOverrides = []inventory.WAFOverride{{ID: hexID(11, i), URLs: []string{"example.com/api/*"}, Priority: 1, Rules: map[string]string{"100015": "disable"}}}
		raw := func(s string) json.RawMessage { return json.RawMessage(s) }
		z.Settings = []inventory.Setting{
			{ID: "brotli", Value: raw(`"on"`)},
			{ID: "cname_flattening", Value: raw(`"flatten_all"`)},
			{ID: "minify", Value: raw(`{"css":"on","html":"off","js":"off"}`)},
			{ID: "mobile_redirect", Value: raw(`{"status":"off","mobile_subdomain":null,"strip_uri":false}`)},
			{ID: "server_side_exclude", Value: raw(`"on"`)},
			{ID: "waf", Value: raw(`"on"`)},
		}
		z.DNSSettings = &inventory.DNSSettings{FlattenAllCNAMEs: ptr(true), MultiProvider: ptr(true)}
		srv := inventory.DNSRecord{ID: hexID(12, 3*i), Type: "SRV", Name: "_sip._tcp." + z.Zone.Name, Data: &inventory.RecordData{Service: ptr("_sip"), Proto: ptr("_tcp"), Priority: ptr(1), Weight: ptr(1), Port: ptr(5060), Target: "sip." + z.Zone.Name}}
		locked := inventory.DNSRecord{ID: hexID(12, 3*i+1), Type: "CNAME", Name: "www." + z.Zone.Name, Content: z.Zone.Name, Locked: ptr(false), ZoneID: ptr(zid)}
		plain := inventory.DNSRecord{ID: hexID(12, 3*i+2), Type: "A", Name: z.Zone.Name, Content: "192.0.2.10"}
		records[zid] = []inventory.DNSRecord{plain, srv, locked}
		z.DNSRecords = []inventory.DNSRecord{srv, locked}
		z.Rulesets = []inventory.Ruleset{{ID: hexID(14, i), Phase: "http_request_firewall_custom", Kind: "zone", Rules: []inventory.RulesetRule{{ID: hexID(15, i), Action: "block", Expression: "ip.src eq 192.0.2.2", Enabled: ptr(true)}}}}
		snap.Zones = append(snap.Zones, z)
	}
	return snap, records
}

// expected is what collecting the fixture yields: the inactive packages without groups or
// rules, privacy_pass retired, request counts filled in.
func expected(data *inventory.Snapshot, source string) *inventory.Snapshot {
	want := clone(data)
	want.Source = source
	for i := range want.Zones {
		z := &want.Zones[i]
		active := 0
		for j := range z.WAFPackages {
			if !wafPackageActive(z.WAFPackages[j].Package) {
				z.WAFPackages[j].Groups, z.WAFPackages[j].Rules = nil, nil
			} else {
				active++
			}
		}
		z.Retired = []inventory.Retired{{Method: "GET", Path: "/zones/" + z.Zone.ID + "/settings/privacy_pass", Status: 404}}
		z.Requests = RequestsPerZone + len(z.Rulesets)*RequestsPerEntrypoint + active*RequestsPerActiveWAFPackage
		if len(z.WAFPackages) > 0 {
			z.Requests += RequestsPerWAFZone
		}
	}
	want.Sort()
	return want
}
