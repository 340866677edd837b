package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

const testToken = "test-token-0123456789"

// Zone and account ids of the test seed.
var (
	accountID = id(0xa1)
	freeZone  = id(0xf1)
	proZone   = id(0xf2)
	bizZone   = id(0xf3)
	entZone   = id(0xf4)
	fullZone  = id(0xf5) // free plan, already at its firewall rule quota
	srvRecord = id(0xd5)
	ruleOnBiz = id(0xb1)
)

func id(n int) string { return fmt.Sprintf("%032x", n) }

// clock is a settable wall clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func day(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

// testSeed is a small account: one zone per plan, plus a free zone at its rule quota.
func testSeed() *inventory.Snapshot {
	yes := true
	zone := func(zid, name, plan string) inventory.ZoneInventory {
		return inventory.ZoneInventory{Zone: inventory.Zone{ID: zid, Name: name, Status: "active",
			Account: inventory.Ref{ID: accountID, Name: "Acme"}, Plan: inventory.ZonePlan{LegacyID: plan, Name: strings.ToUpper(plan[:1]) + plan[1:] + " Website"}}}
	}
	prio := 10
	free := zone(freeZone, "free.example", inventory.PlanFree)
	free.Settings = []inventory.Setting{{ID: "cname_flattening", Value: json.RawMessage(`"flatten_all"`)}, {ID: "ssl", Value: json.RawMessage(`"full"`)}}
	free.LegacyDNSSettings = []inventory.Setting{{ID: "use_apex_ns", Value: json.RawMessage(`true`)}}
	svc, proto, name := "_sip", "_tcp", "free.example"
	free.DNSRecords = []inventory.DNSRecord{
		{ID: id(0xd1), Type: "A", Name: "www.free.example", Content: "192.0.2.1", TTL: 1, Proxied: &yes},
		{ID: srvRecord, Type: "SRV", Name: "_sip._tcp.free.example", Content: "5 5060 sip.free.example", TTL: 3600,
			Data: &inventory.RecordData{Service: &svc, Proto: &proto, Name: &name, Priority: &prio, Weight: &prio, Port: intPtr(5060), Target: "sip.free.example"}},
	}
	free.RateLimits = []inventory.RateLimit{{ID: id(0xc1), Match: inventory.RateLimitMatch{Request: &inventory.RateLimitRequest{URL: "*.free.example/login*"}},
		Threshold: 10, Period: 60, Action: inventory.RateLimitAction{Mode: "challenge"}}}
	free.HealthChecks = []inventory.HealthCheck{{ID: id(0xe1), Name: "origin", Address: "origin.free.example", NotificationEmail: "ops@free.example"}}

	biz := zone(bizZone, "biz.example", inventory.PlanBusiness)
	biz.FirewallRules = []inventory.FirewallRule{{ID: ruleOnBiz, Action: "block", Priority: &prio,
		Filter: inventory.Filter{ID: id(0xb2), Expression: `http.request.uri.path ~ "^/wp-login.php$"`}}}
	biz.WAFPackages = []inventory.WAFPackageInventory{{
		Package: inventory.WAFPackage{ID: id(0x71), Name: "OWASP ModSecurity Core Rule Set", DetectionMode: "anomaly", Sensitivity: "high", ActionMode: "challenge"},
		Groups:  []inventory.WAFGroup{{ID: id(0x72), Name: "OWASP XSS", Mode: "on", AllowedModes: []string{"on", "off"}, RulesCount: 1}},
		Rules:   []inventory.WAFRule{{ID: id(0x73), Description: "XSS probe", Mode: "on", AllowedModes: []string{"on", "off"}, Group: &inventory.Ref{ID: id(0x72)}}},
	}}

	full := zone(fullZone, "full.example", inventory.PlanFree)
	for i := 0; i < 5; i++ {
		full.FirewallRules = append(full.FirewallRules, inventory.FirewallRule{ID: id(0x100 + i), Action: "block",
			Filter: inventory.Filter{ID: id(0x200 + i), Expression: fmt.Sprintf(`ip.src eq 192.0.2.%d`, i+1)}})
	}

	return &inventory.Snapshot{
		SchemaVersion: inventory.SnapshotSchemaVersion,
		Accounts: []inventory.AccountInventory{{
			Account:           inventory.Account{ID: accountID, Name: "Acme", Settings: &inventory.AccountSettings{DefaultNameservers: "custom.tenant"}},
			Tunnels:           []inventory.Tunnel{{ID: id(0x31), Name: "legacy"}},
			AccessBookmarks:   []inventory.AccessBookmark{{ID: id(0x32), Name: "wiki", Domain: "wiki.example"}},
			LoadBalancerPools: []inventory.LoadBalancerPool{{ID: id(0x33), Name: "primary", NotificationEmail: "noc@acme.example"}},
		}},
		Zones: []inventory.ZoneInventory{free, zone(proZone, "pro.example", inventory.PlanPro), biz, zone(entZone, "ent.example", inventory.PlanEnterprise), full},
	}
}

// harness is an emulator behind an httptest server with a settable clock.
type harness struct {
	t     *testing.T
	srv   *Server
	ts    *httptest.Server
	clock *clock
}

// newHarness starts an emulator; zero options get a token, the test seed, a fixed clock and
// an as-of date of 2025-01-01.
func newHarness(t *testing.T, opts Options) *harness {
	t.Helper()
	clk := &clock{t: time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)}
	if opts.Token == "" && opts.Email == "" {
		opts.Token = testToken
	}
	if opts.Seed == nil {
		opts.Seed = testSeed()
	}
	if opts.Now == nil {
		opts.Now = clk.Now
	}
	if opts.AsOf.IsZero() {
		opts.AsOf = day("2025-01-01")
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return &harness{t: t, srv: srv, ts: ts, clock: clk}
}

// result is a decoded response.
type result struct {
	status int
	header http.Header
	env    Envelope
}

// into decodes the result payload.
func (r result) into(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.env.Result, v); err != nil {
		t.Fatalf("decode result %s: %v", r.env.Result, err)
	}
}

// code returns the first error code, or 0.
func (r result) code() int {
	if len(r.env.Errors) == 0 {
		return 0
	}
	return r.env.Errors[0].Code
}

// do sends a request with the harness token; body may be nil, a string or a value to encode.
func (h *harness) do(method, path string, body any) result {
	h.t.Helper()
	return h.doWith(method, path, body, func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+testToken) })
}

func (h *harness) doWith(method, path string, body any, auth func(*http.Request)) result {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, h.ts.URL+BasePath+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth != nil {
		auth(req)
	}
	resp, err := h.ts.Client().Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	var env Envelope
	if err := json.Unmarshal(data, &env); err != nil {
		h.t.Fatalf("%s %s: body is not an envelope: %v\n%s", method, path, err, data)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		h.t.Errorf("%s %s: Content-Type %q", method, path, ct)
	}
	if env.Success != (len(env.Errors) == 0) || env.Errors == nil || env.Messages == nil {
		h.t.Errorf("%s %s: malformed envelope %s", method, path, data)
	}
	return result{status: resp.StatusCode, header: resp.Header, env: env}
}

// mustOK fails the test unless the request succeeded.
func (h *harness) mustOK(method, path string, body any) result {
	h.t.Helper()
	r := h.do(method, path, body)
	if r.status != http.StatusOK || !r.env.Success {
		h.t.Fatalf("%s %s: status %d, errors %+v", method, path, r.status, r.env.Errors)
	}
	return r
}

// zoneState returns the counts of filters and rules of a zone in the current snapshot.
func (h *harness) counts(zoneID string) (filters, rules int) {
	for _, z := range h.srv.Snapshot().Zones {
		if z.Zone.ID == zoneID {
			return len(z.Filters), len(z.FirewallRules)
		}
	}
	h.t.Fatalf("zone %s not in snapshot", zoneID)
	return 0, 0
}
