package collect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

func snapJSON(t *testing.T, s *inventory.Snapshot) string {
	t.Helper()
	var b bytes.Buffer
	if err := s.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// sameSnapshot compares two snapshots by their JSON, and shows the first differing line.
func sameSnapshot(t *testing.T, got, want *inventory.Snapshot) {
	t.Helper()
	g, w := snapJSON(t, got), snapJSON(t, want)
	if g == w {
		return
	}
	gl, wl := strings.Split(g, "\n"), strings.Split(w, "\n")
	for i := 0; i < len(gl) && i < len(wl); i++ {
		if gl[i] != wl[i] {
			t.Fatalf("snapshots differ at line %d:\n got: %s\nwant: %s", i+1, gl[i], wl[i])
		}
	}
	t.Fatalf("snapshots differ in length: got %d lines, want %d", len(gl), len(wl))
}

func newFixture(n int) (*fake, *inventory.Snapshot) {
	data, records := fixture(n)
	f := newFake(data)
	f.records = records
	return f, data
}

func TestCollectsEveryPart(t *testing.T) {
	f, data := newFixture(4)
	snap, err := Collect(context.Background(), f, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if snap.Incomplete {
		t.Error("Incomplete set without failures")
	}
	sameSnapshot(t, snap, expected(data, "fake"))

	z := snap.Zones[0]
	if len(z.DNSRecords) != 2 || z.DNSRecords[0].Type == "A" || z.DNSRecords[1].Type == "A" {
		t.Errorf("DNS records kept: %+v; want the SRV and the locked CNAME only", z.DNSRecords)
	}
	for _, p := range snap.Zones[1].WAFPackages {
		if len(p.Groups)+len(p.Rules) != 0 {
			t.Errorf("package %s (inactive) has groups or rules", p.Package.Name)
		}
	}
	// The inactive OWASP package's groups and rules are never requested.
	owasp := data.Zones[0].WAFPackages[0].Package
	for _, part := range []string{"groups", "rules"} {
		if n := f.callCount(data.Zones[0].Zone.ID + " firewall/waf/packages/" + owasp.ID + "/" + part); n != 0 {
			t.Errorf("%s of the inactive package requested %d times", part, n)
		}
	}
	// Only the existing entry point is read; the managed ruleset in the list is not one.
	for _, phase := range []string{"http_request_firewall_custom", "http_ratelimit", "http_request_firewall_managed"} {
		want := 0
		if phase == "http_request_firewall_custom" {
			want = 1
		}
		if n := f.callCount(data.Zones[0].Zone.ID + " rulesets/phases/" + phase + "/entrypoint"); n != want {
			t.Errorf("entry point %s read %d times, want %d", phase, n, want)
		}
	}
	// One listing of all DNS record types per zone.
	if n := f.callCount(data.Zones[0].Zone.ID + " dns_records"); n != 1 {
		t.Errorf("dns_records requested %d times, want 1", n)
	}
}

func TestWAFPackageActive(t *testing.T) {
	for _, tc := range []struct {
		p    inventory.WAFPackage
		want bool
	}{
		{inventory.WAFPackage{Status: "active", DetectionMode: "traditional"}, true},
		{inventory.WAFPackage{DetectionMode: "traditional"}, true},
		{inventory.WAFPackage{Status: "off", DetectionMode: "traditional"}, false},
		{inventory.WAFPackage{Status: "active", DetectionMode: "anomaly", Sensitivity: "low"}, true},
		{inventory.WAFPackage{Status: "active", DetectionMode: "anomaly", Sensitivity: "off"}, false},
		{inventory.WAFPackage{Status: "active", DetectionMode: "traditional", Sensitivity: "off"}, true},
	} {
		if got := wafPackageActive(tc.p); got != tc.want {
			t.Errorf("wafPackageActive(%+v) = %v, want %v", tc.p, got, tc.want)
		}
	}
}

func TestRequestsPerZone(t *testing.T) {
	if RequestsPerZone != 14 || RequestsPerEntrypoint != 1 || RequestsPerWAFZone != 1 || RequestsPerActiveWAFPackage != 2 {
		t.Fatalf("documented counts changed: %d + %d per entry point + %d with packages + %d per active package", RequestsPerZone, RequestsPerEntrypoint, RequestsPerWAFZone, RequestsPerActiveWAFPackage)
	}
	// Both zones have a custom rules entry point; zone 0 has an active WAF package.
	f, data := newFixture(2)
	zid := data.Zones[0].Zone.ID
	f.pages[zid+" firewall/rules"] = 3 // two more pages

	t.Run("client counts", func(t *testing.T) {
		opts := testOptions()
		opts.RequestsFor = requestsFor
		snap, err := Collect(context.Background(), f, opts)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, z := range snap.Zones {
			got[z.Zone.Name] = z.Requests
		}
		want := map[string]int{"z000.example.com": 15 + 1 + 2 + 2, "z001.example.com": 15 + 1}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("requests per zone = %v, want %v", got, want)
		}
	})
	t.Run("calls counted", func(t *testing.T) {
		snap, err := Collect(context.Background(), f, testOptions())
		if err != nil {
			t.Fatal(err)
		}
		if a, b := snap.Zones[0].Requests, snap.Zones[1].Requests; a != 18 || b != 16 {
			t.Errorf("requests = %d, %d; want 18 (active WAF package), 16", a, b)
		}
	})
	t.Run("fake agrees", func(t *testing.T) {
		f2, d2 := newFixture(2)
		if _, err := Collect(context.Background(), f2, testOptions()); err != nil {
			t.Fatal(err)
		}
		for i, want := range []int{18, 16} {
			n := 0
			for k, c := range f2.calls {
				if strings.HasPrefix(k, d2.Zones[i].Zone.ID+" ") {
					n += c
				}
			}
			if n != want {
				t.Errorf("zone %d: the source saw %d calls, want %d", i, n, want)
			}
		}
	})
}

func TestPartialFailure(t *testing.T) {
	f, data := newFixture(4)
	bad := data.Zones[1].Zone
	f.fail[bad.ID+" filters"] = &statusErr{500, "internal error"}
	f.fail[bad.ID+" settings/brotli"] = &statusErr{502, "bad gateway"}
	f.fail[bad.ID+" rulesets/phases/http_request_firewall_custom/entrypoint"] = errors.New("connection reset")
	var last Progress
	opts := testOptions()
	opts.Progress = func(p Progress) { last = p }
	snap, err := Collect(context.Background(), f, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Incomplete {
		t.Error("Incomplete not set")
	}
	want := expected(data, "fake")
	wz := &want.Zones[1]
	wz.Filters = nil
	wz.Rulesets = nil
	wz.Settings = slices.DeleteFunc(wz.Settings, func(s inventory.Setting) bool { return s.ID == "brotli" })
	wz.Errors = []inventory.CollectError{
		{What: "filters", Message: "HTTP 500: internal error"},
		{What: "rulesets/phases/http_request_firewall_custom/entrypoint", Message: "connection reset"},
		{What: "settings/brotli", Message: "HTTP 502: bad gateway"},
	}
	want.Incomplete = true
	sameSnapshot(t, snap, want)
	if last.ZonesDone != 4 || last.ZonesFailed != 1 {
		t.Errorf("last progress %+v, want 4 done, 1 failed", last)
	}

	t.Run("account parts", func(t *testing.T) {
		f, data := newFixture(2)
		acc := data.Accounts[0].Account.ID
		f.fail[acc+" dns_settings"] = &statusErr{500, "boom"}
		f.fail[acc+" zones"] = &statusErr{500, "zones down"}
		snap, err := Collect(context.Background(), f, testOptions())
		if err != nil {
			t.Fatal(err)
		}
		if !snap.Incomplete || len(snap.Zones) != 1 {
			t.Fatalf("incomplete=%v zones=%d; want true, 1", snap.Incomplete, len(snap.Zones))
		}
		a := snap.Accounts[0]
		wantErr := []inventory.CollectError{{What: "dns_settings", Message: "HTTP 500: boom"}, {What: "zones", Message: "HTTP 500: zones down"}}
		if !reflect.DeepEqual(a.Errors, wantErr) || a.DNSSettings != nil || len(a.Tunnels) != 1 {
			t.Errorf("account: errors %v, dns settings %v, tunnels %d", a.Errors, a.DNSSettings, len(a.Tunnels))
		}
	})

	t.Run("listing accounts fails", func(t *testing.T) {
		f, _ := newFixture(1)
		f.fail["accounts"] = &statusErr{500, "down"}
		snap, err := Collect(context.Background(), f, testOptions())
		if snap != nil || err == nil || statusOf(err) != 500 {
			t.Fatalf("got %v, %v; want nil and the HTTP 500", snap, err)
		}
	})
}

func TestFatalAborts(t *testing.T) {
	for _, key := range []string{"zone filters", "account tunnels", "account zones", "accounts"} {
		t.Run(key, func(t *testing.T) {
			f, data := newFixture(30)
			f.delay = func(string) time.Duration { return time.Millisecond }
			switch key {
			case "zone filters":
				f.fail[data.Zones[5].Zone.ID+" filters"] = &statusErr{403, "forbidden"}
			case "account tunnels":
				f.fail[data.Accounts[1].Account.ID+" tunnels"] = &statusErr{401, "unauthorized"}
			case "account zones":
				f.fail[data.Accounts[1].Account.ID+" zones"] = &statusErr{403, "forbidden"}
			case "accounts":
				f.fail["accounts"] = &statusErr{401, "unauthorized"}
			}
			opts := testOptions()
			opts.Workers = 2
			snap, err := Collect(context.Background(), f, opts)
			if snap != nil {
				t.Error("snapshot returned with a fatal error")
			}
			var se *statusErr
			if !errors.As(err, &se) || (se.status != 401 && se.status != 403) {
				t.Fatalf("err = %v, want the 401/403 in its chain", err)
			}
			if key == "zone filters" && !strings.Contains(err.Error(), "zone z005.example.com: filters") {
				t.Errorf("err %q does not say where", err)
			}
			started := 0
			for _, z := range data.Zones {
				started += f.callCount(z.Zone.ID + " firewall/rules")
			}
			if started >= len(data.Zones) {
				t.Errorf("all %d zones were started after the fatal error", started)
			}
		})
	}
}

func TestRetired(t *testing.T) {
	f, data := newFixture(2)
	acc := data.Accounts[0].Account.ID
	f.fail[acc+" tunnels"] = &statusErr{410, "gone"}
	f.fail[acc+" access/bookmarks"] = &statusErr{404, "not found"}
	zid := data.Zones[0].Zone.ID
	f.fail[zid+" firewall/waf/packages"] = &statusErr{404, "not found"}
	snap, err := Collect(context.Background(), f, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if snap.Incomplete {
		t.Error("retired endpoints made the snapshot incomplete")
	}
	a := snap.Accounts[0]
	wantA := []inventory.Retired{
		{Method: "GET", Path: "/accounts/" + acc + "/access/bookmarks", Status: 404},
		{Method: "GET", Path: "/accounts/" + acc + "/tunnels", Status: 410},
	}
	if !reflect.DeepEqual(a.Retired, wantA) || len(a.Errors) != 0 || a.Tunnels != nil {
		t.Errorf("account retired = %v, errors = %v, tunnels = %v", a.Retired, a.Errors, a.Tunnels)
	}
	z := snap.Zones[0]
	wantZ := []inventory.Retired{
		{Method: "GET", Path: "/zones/" + zid + "/firewall/waf/packages", Status: 404},
		{Method: "GET", Path: "/zones/" + zid + "/settings/privacy_pass", Status: 404},
	}
	if !reflect.DeepEqual(z.Retired, wantZ) || len(z.Errors) != 0 || z.WAFPackages != nil {
		t.Errorf("zone retired = %v, errors = %v", z.Retired, z.Errors)
	}
	if z.Requests != RequestsPerZone+RequestsPerEntrypoint {
		t.Errorf("requests = %d: groups and rules must not be read without packages", z.Requests)
	}

	t.Run("without IsRetired it is an error", func(t *testing.T) {
		f, _ := newFixture(1)
		snap, err := Collect(context.Background(), f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !snap.Incomplete || len(snap.Zones[0].Errors) != 1 || snap.Zones[0].Errors[0].What != "settings/privacy_pass" {
			t.Errorf("zone errors %v", snap.Zones[0].Errors)
		}
	})
}

func TestCancellation(t *testing.T) {
	f, data := newFixture(40)
	fast := map[string]bool{}
	for _, i := range []int{0, 2, 4} { // the first three zones submitted (account 1 lists first)
		fast[data.Zones[i].Zone.ID] = true
	}
	// Those zones answer at once; every other zone call hangs until cancelled.
	slowStarted := make(chan struct{})
	var once sync.Once
	f.delay = func(key string) time.Duration {
		id, _, _ := strings.Cut(key, " ")
		if fast[id] || !strings.HasPrefix(id, "e") { // accounts answer at once
			return 0
		}
		once.Do(func() { close(slowStarted) })
		return time.Hour
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := testOptions()
	opts.Workers = 4
	opts.Progress = func(p Progress) {
		if p.ZonesDone == 3 {
			// Cancel once a slow zone is under way, so that a partial zone exists however the
			// scheduler ordered the tasks.
			go func() {
				<-slowStarted
				cancel()
			}()
		}
	}
	type outcome struct {
		snap *inventory.Snapshot
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		snap, err := Collect(ctx, f, opts)
		done <- outcome{snap, err}
	}()
	out := <-done // a Collect that ignores the cancel hangs here, for the test timeout to report
	if !errors.Is(out.err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", out.err)
	}
	snap := out.snap
	if snap == nil || !snap.Incomplete {
		t.Fatalf("snapshot %v: want a partial, incomplete snapshot", snap)
	}
	if len(snap.Zones) != len(data.Zones) {
		t.Fatalf("%d zones in the snapshot, want all %d", len(snap.Zones), len(data.Zones))
	}
	want := expected(data, "fake")
	complete, partial, notStarted := 0, 0, 0
	for i, z := range snap.Zones {
		switch {
		case fast[z.Zone.ID]:
			complete++
			if snapJSONZone(t, z) != snapJSONZone(t, want.Zones[i]) {
				t.Errorf("zone %s scanned before the cancellation differs from the expected one", z.Zone.Name)
			}
		case len(z.Errors) == 1 && z.Errors[0] == (inventory.CollectError{What: "zone", Message: NotScannedInterrupted}):
			notStarted++
			if z.FirewallRules != nil || z.Requests != 0 {
				t.Errorf("zone %s not started has data", z.Zone.Name)
			}
		default:
			partial++
			if len(z.Errors) == 0 {
				t.Errorf("zone %s: no errors recorded", z.Zone.Name)
			}
			for _, e := range z.Errors {
				if e.Message != NotScannedInterrupted || e.What == "zone" {
					t.Errorf("zone %s: error %+v", z.Zone.Name, e)
				}
			}
		}
	}
	if complete != 3 || partial == 0 || partial > opts.Workers || notStarted == 0 {
		t.Errorf("complete %d, partial %d, not started %d", complete, partial, notStarted)
	}

	t.Run("before the start", func(t *testing.T) {
		f, _ := newFixture(2)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		snap, err := Collect(ctx, f, testOptions())
		if !errors.Is(err, context.Canceled) || snap == nil || !snap.Incomplete {
			t.Fatalf("got %v, %v", snap, err)
		}
	})
	t.Run("during account listing", func(t *testing.T) {
		f, data := newFixture(4)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		hang := data.Accounts[1].Account.ID + " zones"
		f.delay = func(key string) time.Duration {
			if key == hang {
				cancel()
				return time.Hour
			}
			return 0
		}
		opts := testOptions()
		opts.Workers = 1
		snap, err := Collect(ctx, f, opts)
		if !errors.Is(err, context.Canceled) || snap == nil || !snap.Incomplete {
			t.Fatalf("got %v, %v", snap, err)
		}
		if len(snap.Accounts) != 2 {
			t.Fatalf("%d accounts, want 2", len(snap.Accounts))
		}
		for _, z := range snap.Zones {
			if !hasInterrupted(z.Errors) {
				t.Errorf("zone %s: %v", z.Zone.Name, z.Errors)
			}
		}
		if !hasInterrupted(snap.Accounts[1].Errors) {
			t.Errorf("account errors %v", snap.Accounts[1].Errors)
		}
	})
}

func snapJSONZone(t *testing.T, z inventory.ZoneInventory) string {
	return snapJSON(t, &inventory.Snapshot{Zones: []inventory.ZoneInventory{z}})
}

func zoneNames(s *inventory.Snapshot) []string {
	var out []string
	for _, z := range s.Zones {
		out = append(out, z.Zone.Name)
	}
	return out
}

func TestZoneSelection(t *testing.T) {
	_, data := newFixture(6)
	a1, a2 := data.Accounts[0].Account.ID, data.Accounts[1].Account.ID
	for _, tc := range []struct {
		name     string
		opts     Options
		zones    []string
		accounts []string
		queries  []string // zone listings asked, sorted
	}{
		{
			name:     "names",
			opts:     Options{Zones: []string{"z001.example.com", "Z003.EXAMPLE.COM.", "z001.example.com"}},
			zones:    []string{"z001.example.com", "z003.example.com"},
			accounts: []string{a2},
			queries:  []string{a1 + "|z001.example.com", a1 + "|z003.example.com", a2 + "|z001.example.com", a2 + "|z003.example.com"},
		},
		{
			name:     "id and name",
			opts:     Options{Zones: []string{data.Zones[2].Zone.ID, "z005.example.com"}},
			zones:    []string{"z002.example.com", "z005.example.com"},
			accounts: []string{a1, a2},
			queries:  []string{a1 + "|", a2 + "|"},
		},
		{
			name:     "glob",
			opts:     Options{ZoneFilter: "z00[0-2].*"},
			zones:    []string{"z000.example.com", "z001.example.com", "z002.example.com"},
			accounts: []string{a1, a2},
			queries:  []string{a1 + "|", a2 + "|"},
		},
		{
			name:     "names and glob",
			opts:     Options{Zones: []string{"z000.example.com", "z004.example.com"}, ZoneFilter: "*4.example.com"},
			zones:    []string{"z004.example.com"},
			accounts: []string{a1},
			queries:  []string{a1 + "|z000.example.com", a1 + "|z004.example.com", a2 + "|z000.example.com", a2 + "|z004.example.com"},
		},
		{
			name:     "named account",
			opts:     Options{Accounts: []string{a2}, ZoneFilter: "z000.*"},
			zones:    nil,
			accounts: []string{a2},
			queries:  []string{a2 + "|"},
		},
		{
			name:     "all",
			zones:    []string{"z000.example.com", "z001.example.com", "z002.example.com", "z003.example.com", "z004.example.com", "z005.example.com"},
			accounts: []string{a1, a2},
			queries:  []string{a1 + "|", a2 + "|"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := newFixture(6)
			opts := tc.opts
			opts.IsRetired = isRetired
			snap, err := Collect(context.Background(), f, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := zoneNames(snap); !slices.Equal(got, tc.zones) {
				t.Errorf("zones %v, want %v", got, tc.zones)
			}
			var accs []string
			for _, a := range snap.Accounts {
				accs = append(accs, a.Account.ID)
			}
			if !slices.Equal(accs, tc.accounts) {
				t.Errorf("accounts %v, want %v", accs, tc.accounts)
			}
			q := slices.Clone(f.zoneQueries)
			slices.Sort(q)
			if !slices.Equal(q, tc.queries) {
				t.Errorf("zone listings %v, want %v", q, tc.queries)
			}
			listedAll := f.callCount("accounts") == 1
			if listedAll == (len(opts.Accounts) > 0) {
				t.Errorf("GET /accounts called %d times with accounts %v", f.callCount("accounts"), opts.Accounts)
			}
		})
	}

	t.Run("unmatched", func(t *testing.T) {
		f, _ := newFixture(2)
		_, err := Collect(context.Background(), f, Options{Zones: []string{"z000.example.com", "nope.example.com", "0123456789abcdef0123456789abcdef"}})
		var ue *UnmatchedZonesError
		if !errors.As(err, &ue) || !slices.Equal(ue.Zones, []string{"nope.example.com", "0123456789abcdef0123456789abcdef"}) {
			t.Fatalf("err = %v", err)
		}
		if n := f.callCount(f.snap.Zones[0].Zone.ID + " filters"); n != 0 {
			t.Error("zones scanned before the selection error")
		}
	})
	t.Run("unmatched after a failed listing is not certain", func(t *testing.T) {
		f, data := newFixture(2)
		f.fail[data.Accounts[1].Account.ID+" zones"] = &statusErr{500, "down"}
		snap, err := Collect(context.Background(), f, Options{Zones: []string{"z001.example.com"}})
		if err != nil || !snap.Incomplete {
			t.Fatalf("got %v, %v", snap, err)
		}
	})
	t.Run("bad glob", func(t *testing.T) {
		_, err := Collect(context.Background(), newFake(data), Options{ZoneFilter: "[z"})
		if !errors.Is(err, path.ErrBadPattern) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("unknown named account", func(t *testing.T) {
		f, _ := newFixture(2)
		missing := hexID(0, 9)
		snap, err := Collect(context.Background(), f, testOptions2(Options{Accounts: []string{missing, a1}}))
		if err != nil {
			t.Fatal(err)
		}
		if len(snap.Accounts) != 2 || len(snap.Zones) != 1 {
			t.Fatalf("accounts %d zones %d", len(snap.Accounts), len(snap.Zones))
		}
		// GET /accounts/:id answering 404 is a failure (never "retired": the endpoint is
		// not deprecated); the account is kept with its id.
		var got inventory.AccountInventory
		for _, a := range snap.Accounts {
			if a.Account.ID == missing {
				got = a
			}
		}
		want := []inventory.CollectError{{What: "account", Message: "HTTP 404: account not found"}}
		if !reflect.DeepEqual(got.Errors, want) || len(got.Retired) != 0 || !snap.Incomplete {
			t.Errorf("missing account: %+v", got)
		}
	})
}

func testOptions2(o Options) Options {
	t := testOptions()
	t.Accounts, t.Zones, t.ZoneFilter = o.Accounts, o.Zones, o.ZoneFilter
	return t
}

func TestDeterministicAcrossWorkers(t *testing.T) {
	var first string
	for _, workers := range []int{1, 8, 32} {
		for _, fanOut := range []int{1, 4} {
			f, data := newFixture(48)
			f.fail[data.Zones[7].Zone.ID+" dns_records"] = &statusErr{500, "boom"}
			f.fail[data.Zones[7].Zone.ID+" healthchecks"] = &statusErr{500, "boom"}
			f.delay = hashDelay
			opts := testOptions()
			opts.Workers, opts.ZoneFanOut = workers, fanOut
			snap, err := Collect(context.Background(), f, opts)
			if err != nil {
				t.Fatal(err)
			}
			got := snapJSON(t, snap)
			if first == "" {
				first = got
				continue
			}
			if got != first {
				t.Fatalf("workers=%d fanout=%d: snapshot differs from workers=1", workers, fanOut)
			}
		}
	}
}

func TestPoolIsBounded(t *testing.T) {
	for _, tc := range []struct{ workers, fanOut int }{{3, 1}, {5, 1}, {2, 3}} {
		f, _ := newFixture(24)
		f.delay = func(string) time.Duration { return 2 * time.Millisecond }
		opts := testOptions()
		opts.Workers, opts.ZoneFanOut = tc.workers, tc.fanOut
		if _, err := Collect(context.Background(), f, opts); err != nil {
			t.Fatal(err)
		}
		limit := int64(tc.workers * tc.fanOut)
		if m := f.maxInflight.Load(); m > limit || m < 2 {
			t.Errorf("%+v: %d calls in flight at most, want 2..%d", tc, m, limit)
		}
	}
}

func TestProgress(t *testing.T) {
	f, data := newFixture(20)
	f.fail[data.Zones[3].Zone.ID+" filters"] = &statusErr{500, "boom"}
	f.delay = hashDelay
	var (
		busy atomic.Bool
		mu   sync.Mutex
		got  []Progress
	)
	opts := testOptions()
	opts.Workers = 8
	opts.Progress = func(p Progress) {
		if !busy.CompareAndSwap(false, true) {
			t.Error("Progress called concurrently")
		}
		time.Sleep(200 * time.Microsecond)
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
		busy.Store(false)
	}
	snap, err := Collect(context.Background(), f, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(data.Zones) {
		t.Fatalf("Progress called %d times for %d zones", len(got), len(data.Zones))
	}
	for i, p := range got {
		if p.ZonesDone != i+1 || p.ZonesTotal != 20 {
			t.Errorf("call %d: %+v", i, p)
		}
		if i > 0 && p.Requests <= got[i-1].Requests {
			t.Errorf("call %d: requests did not grow: %+v", i, p)
		}
	}
	total := 0
	for _, z := range snap.Zones {
		total += z.Requests
	}
	if last := got[len(got)-1]; last.Requests != total || last.ZonesFailed != 1 {
		t.Errorf("last progress %+v, want %d requests and 1 failed zone", last, total)
	}
}

// overlapping makes a zone's filters and rate limits reads wait until both have arrived:
// a collection that sends a zone's reads one after another never ends (the test's guard
// fails it).
type overlapping struct {
	*fake
	arrived chan string
	both    chan struct{}
	once    sync.Once
	seen    atomic.Int32
}

func (o *overlapping) meet(ctx context.Context, what string) error {
	if o.seen.Add(1) == 2 {
		o.once.Do(func() { close(o.both) })
	}
	o.arrived <- what
	select {
	case <-o.both:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (o *overlapping) ListFilters(ctx context.Context, zoneID string) ([]inventory.Filter, error) {
	if err := o.meet(ctx, "filters"); err != nil {
		return nil, err
	}
	return o.fake.ListFilters(ctx, zoneID)
}

func (o *overlapping) ListRateLimits(ctx context.Context, zoneID string) ([]inventory.RateLimit, error) {
	if err := o.meet(ctx, "rate_limits"); err != nil {
		return nil, err
	}
	return o.fake.ListRateLimits(ctx, zoneID)
}

// collectInBackground runs Collect and hands over its snapshot when it ends.
func collectInBackground(ctx context.Context, src Source, opts Options) <-chan *inventory.Snapshot {
	done := make(chan *inventory.Snapshot, 1)
	go func() {
		snap, _ := Collect(ctx, src, opts)
		done <- snap
	}()
	return done
}

// TestZoneReadsOverlap shows one zone's independent reads in flight together, with one
// worker: its filters and rate limits reads each wait for the other to arrive.
func TestZoneReadsOverlap(t *testing.T) {
	f, data := newFixture(1)
	src := &overlapping{fake: f, arrived: make(chan string, 2), both: make(chan struct{})}
	opts := testOptions()
	opts.Workers = 1
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := collectInBackground(ctx, src, opts)
	var got []string
	for len(got) < 2 {
		select {
		case what := <-src.arrived:
			got = append(got, what)
		case <-time.After(time.Minute): // a guard against a hang, not a timing assertion
			cancel()
			t.Fatalf("only %v arrived: the zone's reads went one after another", got)
		}
	}
	snap := <-done
	if snap == nil || snap.Incomplete {
		t.Fatalf("collection incomplete: %+v", snap)
	}
	sameSnapshot(t, snap, expected(data, "fake"))
}

func TestZoneFanOutSameResult(t *testing.T) {
	f1, data := newFixture(3)
	opts := testOptions()
	opts.ZoneFanOut = 6
	f1.delay = hashDelay
	snap, err := Collect(context.Background(), f1, opts)
	if err != nil {
		t.Fatal(err)
	}
	sameSnapshot(t, snap, expected(data, "fake"))
}

func TestNilSource(t *testing.T) {
	if _, err := Collect(context.Background(), nil, Options{}); err == nil {
		t.Fatal("no error for a nil source")
	}
}

func TestFailingZoneIsSkippedAfterRepeatedFailures(t *testing.T) {
	f, data := newFixture(3)
	bad := data.Zones[1].Zone
	parts := []string{"firewall/rules", "filters", "rate_limits", "firewall/waf/packages", "firewall/waf/overrides", "dns_settings", "dns_records", "healthchecks", "rulesets"}
	for _, name := range zoneSettings {
		parts = append(parts, "settings/"+name)
	}
	for _, phase := range entrypointPhases {
		parts = append(parts, "rulesets/phases/"+string(phase)+"/entrypoint")
	}
	for _, part := range parts {
		f.fail[bad.ID+" "+part] = &statusErr{500, "zone down"}
	}
	// Failures after the zone answered once never open the breaker, even in a row.
	ok := data.Zones[2].Zone
	f.fail[ok.ID+" firewall/rules"] = &statusErr{500, "blip"}
	f.fail[ok.ID+" filters"] = &statusErr{500, "blip"}
	f.fail[ok.ID+" rate_limits"] = &statusErr{500, "blip"}

	snap, err := Collect(context.Background(), f, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, z := range snap.Zones {
		skipped := 0
		for _, e := range z.Errors {
			if strings.HasPrefix(e.Message, SkippedAfterFailures) {
				skipped++
			}
		}
		switch z.Zone.ID {
		case bad.ID:
			if z.Requests != DefaultFailureLimit {
				t.Errorf("failing zone sent %d requests, want %d before the breaker opened", z.Requests, DefaultFailureLimit)
			}
			if want := RequestsPerZone - DefaultFailureLimit; skipped != want || len(z.Errors) != RequestsPerZone {
				t.Errorf("%d parts skipped and %d errors, want %d and %d: %+v", skipped, len(z.Errors), want, RequestsPerZone, z.Errors)
			}
		case ok.ID:
			if skipped != 0 || len(z.Errors) != 3 {
				t.Errorf("isolated failures opened the breaker: %+v", z.Errors)
			}
		}
	}

	t.Run("a negative limit never skips", func(t *testing.T) {
		opts := testOptions()
		opts.FailureLimit = -1
		snap, err := Collect(context.Background(), f, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, z := range snap.Zones {
			for _, e := range z.Errors {
				if strings.HasPrefix(e.Message, SkippedAfterFailures) {
					t.Fatalf("skipped with the breaker off: %+v", e)
				}
			}
		}
	})
}

// TestWAFOffSkipsGroupsAndRules: a zone whose waf setting is off runs no previous-version
// package, so the packages' groups and rules are not read; the setting is kept in the
// snapshot for the scan.
func TestWAFOffSkipsGroupsAndRules(t *testing.T) {
	f, data := newFixture(1)
	z := &data.Zones[0]
	for i := range z.Settings {
		if z.Settings[i].ID == "waf" {
			z.Settings[i].Value = json.RawMessage(`"off"`)
		}
	}
	snap, err := Collect(context.Background(), f, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range data.Zones[0].WAFPackages {
		for _, part := range []string{"groups", "rules"} {
			if n := f.callCount(z.Zone.ID + " firewall/waf/packages/" + p.Package.ID + "/" + part); n != 0 {
				t.Errorf("%s of package %s read %d times with the WAF off", part, p.Package.Name, n)
			}
		}
	}
	got, ok := snap.Zones[0].Setting("waf")
	if !ok || string(got.Value) != `"off"` {
		t.Errorf("waf setting in the snapshot: %+v %v", got, ok)
	}
	if n := snap.Zones[0].Requests; n != RequestsPerZone+RequestsPerEntrypoint+RequestsPerWAFZone {
		t.Errorf("requests %d", n)
	}
}

type waitHookKey struct{}

// lending holds zone a's filters read in a wait before a retry, told through the wait hook
// as the client tells it, until a read of zone b has arrived.
type lending struct {
	*fake
	a, b     string
	bArrived chan struct{}
	once     sync.Once
}

func (l *lending) ListFilters(ctx context.Context, zoneID string) ([]inventory.Filter, error) {
	switch zoneID {
	case l.a:
		hook := ctx.Value(waitHookKey{}).(func(bool))
		hook(true)
		select {
		case <-l.bArrived:
		case <-ctx.Done():
		}
		hook(false)
	case l.b:
		l.once.Do(func() { close(l.bArrived) })
	}
	return l.fake.ListFilters(ctx, zoneID)
}

// TestWaitingZoneLendsItsPlace shows that a request waiting before a retry does not hold a
// worker: with one worker, zone a's read waits (as in a Retry-After) until zone b's read
// has arrived, which it can only when a lent its place.
func TestWaitingZoneLendsItsPlace(t *testing.T) {
	f, data := newFixture(2)
	src := &lending{fake: f, a: data.Zones[0].Zone.ID, b: data.Zones[1].Zone.ID, bArrived: make(chan struct{})}
	opts := testOptions()
	opts.Workers = 1
	opts.WaitsFor = func(ctx context.Context, hook func(bool)) context.Context {
		return context.WithValue(ctx, waitHookKey{}, hook)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := collectInBackground(ctx, src, opts)
	select {
	case <-src.bArrived:
	case <-time.After(time.Minute): // a guard against a hang, not a timing assertion
		cancel()
		t.Fatal("zone b was not read while zone a waited: the waiting zone holds the worker")
	}
	snap := <-done
	if snap == nil || snap.Incomplete {
		t.Fatalf("collection incomplete: %+v", snap)
	}
	sameSnapshot(t, snap, expected(data, "fake"))
}
