package collect

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// clientSource adapts *cfapi.Client to Source: the client filters zones with its own
// ZoneFilter struct, which collect cannot name without importing cfapi.
type clientSource struct{ *cfapi.Client }

func (s clientSource) ListZones(ctx context.Context, accountID, name string) ([]inventory.Zone, error) {
	return s.Client.ListZones(ctx, cfapi.ZoneFilter{AccountID: accountID, Name: name})
}

var _ Source = clientSource{}

// clientOptions wires the client's error classification and request counter.
func clientOptions(workers int) Options {
	return Options{
		Workers:   workers,
		IsRetired: cfapi.IsRetired,
		IsFatal:   cfapi.IsAuth,
		StatusOf:  cfapi.StatusOf,
		WaitsFor:  cfapi.WithWaitHook,
		RequestsFor: func(ctx context.Context) (context.Context, func() int) {
			n := new(atomic.Int64)
			return cfapi.WithRequestCounter(ctx, n), func() int { return int(n.Load()) }
		},
	}
}

const emulatorToken = "collect-test-token"

func startEmulator(tb testing.TB, data *inventory.Snapshot, latency time.Duration) *httptest.Server {
	tb.Helper()
	return startEmulatorWith(tb, emulator.Options{
		Seed:    data,
		AsOf:    time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC),
		Latency: emulator.LatencySpec{Min: latency, Max: latency},
	})
}

func startEmulatorWith(tb testing.TB, opts emulator.Options) *httptest.Server {
	tb.Helper()
	opts.Token = emulatorToken
	srv, err := emulator.New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	tb.Cleanup(ts.Close)
	return ts
}

func newClient(tb testing.TB, baseURL string, conns int) *cfapi.Client {
	tb.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = conns // the default 2 would reopen connections under load
	c, err := cfapi.New(cfapi.Config{
		BaseURL:     baseURL,
		Credentials: cfapi.TokenCredentials(emulatorToken),
		HTTPClient:  &http.Client{Transport: tr, Timeout: time.Minute},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func ids[T any](xs []T, id func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = id(x)
	}
	slices.Sort(out)
	return out
}

// TestCollectFromEmulator collects the demo account through the real client and the
// emulator and checks that every zone and its objects came back.
func TestCollectFromEmulator(t *testing.T) {
	data := seed.Demo()
	ts := startEmulator(t, data, 0)
	client := newClient(t, ts.URL+emulator.BasePath, 8)
	snap, err := Collect(context.Background(), clientSource{client}, clientOptions(4))
	if err != nil {
		t.Fatal(err)
	}
	for _, z := range snap.Zones {
		if len(z.Errors) > 0 {
			t.Errorf("zone %s: errors %v", z.Zone.Name, z.Errors)
		}
	}
	if got, want := ids(snap.Zones, func(z inventory.ZoneInventory) string { return z.Zone.ID }), ids(data.Zones, func(z inventory.ZoneInventory) string { return z.Zone.ID }); !slices.Equal(got, want) {
		t.Fatalf("zones %v, want %v", got, want)
	}
	if got, want := ids(snap.Accounts, func(a inventory.AccountInventory) string { return a.Account.ID }), ids(data.Accounts, func(a inventory.AccountInventory) string { return a.Account.ID }); !slices.Equal(got, want) {
		t.Fatalf("accounts %v, want %v", got, want)
	}
	byID := map[string]inventory.ZoneInventory{}
	for _, z := range data.Zones {
		byID[z.Zone.ID] = z
	}
	total := 0
	for _, z := range snap.Zones {
		w := byID[z.Zone.ID]
		fr := func(r inventory.FirewallRule) string { return r.ID }
		fl := func(f inventory.Filter) string { return f.ID }
		rl := func(r inventory.RateLimit) string { return r.ID }
		if !slices.Equal(ids(z.FirewallRules, fr), ids(w.FirewallRules, fr)) ||
			!slices.Equal(ids(z.Filters, fl), ids(w.Filters, fl)) ||
			!slices.Equal(ids(z.RateLimits, rl), ids(w.RateLimits, rl)) ||
			len(z.WAFPackages) != len(w.WAFPackages) || len(z.WAFOverrides) != len(w.WAFOverrides) {
			t.Errorf("zone %s: objects differ from the seed", z.Zone.Name)
		}
		for _, r := range z.DNSRecords {
			if !keepRecord(r) {
				t.Errorf("zone %s: record %s kept", z.Zone.Name, r.ID)
			}
		}
		if z.Requests < RequestsPerZone {
			t.Errorf("zone %s: %d requests counted, want at least %d", z.Zone.Name, z.Requests, RequestsPerZone)
		}
		total += z.Requests
	}
	t.Logf("%d zones, %d zone requests, client total %d", len(snap.Zones), total, client.Stats().Requests)
}

// TestCollectRetiredFromEmulator collects the demo account after the end of life of the
// old APIs, with the emulator answering their routes 404: they are recorded as retired,
// not as failures, and nothing else is lost.
func TestCollectRetiredFromEmulator(t *testing.T) {
	ts := startEmulatorWith(t, emulator.Options{Seed: seed.Demo(), AsOf: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Retire: true})
	snap, err := Collect(context.Background(), clientSource{newClient(t, ts.URL+emulator.BasePath, 8)}, clientOptions(4))
	if err != nil {
		t.Fatal(err)
	}
	if snap.Incomplete {
		t.Error("retired endpoints made the snapshot incomplete")
	}
	for _, z := range snap.Zones {
		if len(z.Errors) > 0 {
			t.Errorf("zone %s: errors %v", z.Zone.Name, z.Errors)
		}
		retired := map[string]bool{}
		for _, r := range z.Retired {
			if r.Method != "GET" || r.Status != 404 {
				t.Errorf("zone %s: retired %+v", z.Zone.Name, r)
			}
			retired[r.Path] = true
		}
		for _, part := range []string{"firewall/rules", "filters", "rate_limits", "firewall/waf/packages", "firewall/waf/overrides"} {
			if !retired["/zones/"+z.Zone.ID+"/"+part] {
				t.Errorf("zone %s: %s not recorded as retired: %v", z.Zone.Name, part, z.Retired)
			}
		}
		if len(z.FirewallRules)+len(z.Filters)+len(z.RateLimits)+len(z.WAFPackages) != 0 || z.DNSSettings == nil {
			t.Errorf("zone %s: objects of retired endpoints present, or DNS settings missing", z.Zone.Name)
		}
	}
}

// BenchmarkCollect collects 2,000 generated zones from the emulator at 20 ms latency per
// request, with an unpaced client, and reports how close the wall time comes to the lower
// bound requests x latency / workers.
func BenchmarkCollect(b *testing.B) {
	const latency = 20 * time.Millisecond
	data := seed.Generate(2000, 1)
	ts := startEmulator(b, data, latency)
	for _, workers := range []int{8, 32} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				client := newClient(b, ts.URL+emulator.BasePath, 2*workers)
				start := time.Now()
				snap, err := Collect(context.Background(), clientSource{client}, clientOptions(workers))
				wall := time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				zoneReqs := 0
				for _, z := range snap.Zones {
					zoneReqs += z.Requests
					if len(z.Errors) > 0 {
						b.Fatalf("zone %s: %v", z.Zone.Name, z.Errors)
					}
				}
				total := client.Stats().Requests
				lower := time.Duration(total) * latency / time.Duration(workers)
				b.ReportMetric(float64(zoneReqs)/float64(len(snap.Zones)), "req/zone")
				b.ReportMetric(float64(total), "requests")
				b.ReportMetric(wall.Seconds(), "wall-s")
				b.ReportMetric(lower.Seconds(), "bound-s")
				b.ReportMetric(float64(wall)/float64(lower), "ratio")
			}
		})
	}
}

// BenchmarkCollectScheduling runs the same collection as BenchmarkCollect against the
// in-memory fake with a 20 ms sleep per call: no HTTP and no JSON, so the ratio to the
// lower bound measures the pool's scheduling alone, whatever the machine's load.
func BenchmarkCollectScheduling(b *testing.B) {
	const latency = 20 * time.Millisecond
	data := seed.Generate(2000, 1)
	for _, workers := range []int{8, 32} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				f := newFake(data)
				f.share = true
				f.delay = func(string) time.Duration { return latency }
				opts := testOptions()
				opts.Workers = workers
				start := time.Now()
				snap, err := Collect(context.Background(), f, opts)
				wall := time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				total := 0
				for _, n := range f.calls {
					total += n
				}
				zoneReqs := 0
				for _, z := range snap.Zones {
					zoneReqs += z.Requests
				}
				lower := time.Duration(total) * latency / time.Duration(workers)
				b.ReportMetric(float64(zoneReqs)/float64(len(snap.Zones)), "req/zone")
				b.ReportMetric(float64(total), "requests")
				b.ReportMetric(wall.Seconds(), "wall-s")
				b.ReportMetric(lower.Seconds(), "bound-s")
				b.ReportMetric(float64(wall)/float64(lower), "ratio")
			}
		})
	}
}

// TestCollectUnderFirstCall429 collects a generated account through the client (at most
// Workers requests in flight, its waits told to the collector) from an emulator whose every
// endpoint answers its first call with a 429, and checks the snapshot equals a clean
// collection's (but for the requests counted). The client's waits return at once: the test checks what is read, not time.
func TestCollectUnderFirstCall429(t *testing.T) {
	data := seed.Generate(40, 3)
	asOf := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	collectFrom := func(faults emulator.FaultSpec, workers int) string {
		ts := startEmulatorWith(t, emulator.Options{Seed: data, AsOf: asOf, Faults: faults})
		client, err := cfapi.New(cfapi.Config{
			BaseURL: ts.URL + emulator.BasePath, Credentials: cfapi.TokenCredentials(emulatorToken),
			MaxInFlight: workers, Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
		})
		if err != nil {
			t.Fatal(err)
		}
		snap, err := Collect(context.Background(), clientSource{client}, clientOptions(workers))
		if err != nil || snap.Incomplete {
			t.Fatalf("workers %d, faults %+v: collection failed or incomplete: %v", workers, faults, err)
		}
		if st := client.Stats(); faults.FirstCallTooMany && st.RateLimited == 0 {
			t.Fatalf("no 429 met: %+v", st)
		}
		for i := range snap.Zones {
			snap.Zones[i].Requests = 0 // the retries count
		}
		return snapJSON(t, snap)
	}
	want := collectFrom(emulator.FaultSpec{}, 8)
	for _, workers := range []int{1, 3} {
		if got := collectFrom(emulator.FaultSpec{FirstCallTooMany: true}, workers); got != want {
			t.Errorf("workers %d: the snapshot under first-call 429s differs from the clean one", workers)
		}
	}
}
