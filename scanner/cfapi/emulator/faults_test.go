package emulator

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"testing"
	"time"
)

// TestInjected429Share checks the share of injected 429s, that each carries Retry-After, and
// that the same seed gives the same decisions.
func TestInjected429Share(t *testing.T) {
	run := func(rnd int64) []int {
		h := newHarness(t, Options{Faults: FaultSpec{TooMany: 0.3, RetryAfter: 2 * time.Second}, Rand: rnd})
		var statuses []int
		for i := 0; i < 300; i++ {
			r := h.do("GET", "/zones?page="+strconv.Itoa(i%7+1), nil)
			statuses = append(statuses, r.status)
			if r.status == http.StatusTooManyRequests {
				if r.header.Get("Retry-After") != "2" || r.code() != CodeRateLimited {
					t.Fatalf("429 without Retry-After 2 / code 971: %v %+v", r.header, r.env.Errors)
				}
			} else if r.status != 200 {
				t.Fatalf("status %d", r.status)
			}
		}
		st := h.srv.Stats()
		n := 0
		for _, s := range statuses {
			if s == 429 {
				n++
			}
		}
		if st.TooManyRequests != n || st.FaultsInjected != n {
			t.Errorf("stats %+v, counted %d", st, n)
		}
		if n < 60 || n > 120 {
			t.Errorf("%d of 300 requests got 429, want about 90", n)
		}
		return statuses
	}
	a, b, c := run(7), run(7), run(8)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("same seed, different faults")
	}
	if reflect.DeepEqual(a, c) {
		t.Errorf("different seeds, same faults")
	}
}

// TestInjected5xxAndDrop checks 5xx answers and dropped connections.
func TestInjected5xxAndDrop(t *testing.T) {
	h := newHarness(t, Options{Faults: FaultSpec{ServerError: 1}})
	r := h.do("GET", "/zones", nil)
	if r.status < 500 || r.status > 504 || r.code() != CodeInternal {
		t.Errorf("5xx: %d %+v", r.status, r.env.Errors)
	}
	h = newHarness(t, Options{Faults: FaultSpec{Drop: 1}})
	req, _ := http.NewRequest("GET", h.ts.URL+BasePath+"/zones", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := h.ts.Client().Do(req)
	if err == nil {
		_ = resp.Body.Close()
		t.Fatalf("dropped connection answered %d", resp.StatusCode)
	}
	if st := h.srv.Stats(); st.Dropped < 1 || st.FaultsInjected != st.Dropped {
		t.Errorf("stats %+v", st)
	}
}

// TestAlwaysFailingZone checks that every zone-scoped request of a configured zone fails,
// by id or by name, and that other zones and the zone list are unaffected.
func TestAlwaysFailingZone(t *testing.T) {
	for _, which := range []string{freeZone, "free.example"} {
		h := newHarness(t, Options{Faults: FaultSpec{Zones: []string{which}}})
		for _, p := range []string{"/zones/" + freeZone, "/zones/" + freeZone + "/firewall/rules", "/zones/" + freeZone + "/dns_records/" + srvRecord} {
			if r := h.do("GET", p, nil); r.status != 500 {
				t.Errorf("%s %s: %d", which, p, r.status)
			}
		}
		h.mustOK("GET", "/zones", nil)
		h.mustOK("GET", "/zones/"+proZone+"/firewall/rules", nil)
	}
	if _, err := New(Options{Token: "x", Seed: testSeed(), Faults: FaultSpec{Zones: []string{"nowhere.example"}}}); err == nil {
		t.Errorf("an unknown failing zone must be refused")
	}
}

// TestRateLimitWindow checks the global limit: over N requests in the window every call is a
// 429 with Retry-After until the window has passed, per credential.
func TestRateLimitWindow(t *testing.T) {
	h := newHarness(t, Options{RateLimit: RateLimitSpec{Requests: 3, Window: time.Minute}, Email: "a@acme.example", Key: "k", Token: testToken})
	for i := 0; i < 3; i++ {
		r := h.mustOK("GET", "/zones", nil)
		if r.header.Get("Ratelimit-Policy") == "" || r.header.Get("Ratelimit") == "" {
			t.Errorf("no Ratelimit headers: %v", r.header)
		}
	}
	r := h.do("GET", "/zones", nil)
	if r.status != 429 || r.header.Get("Retry-After") != "60" {
		t.Fatalf("over the limit: %d Retry-After %q", r.status, r.header.Get("Retry-After"))
	}
	// Another credential has its own window.
	other := h.doWith("GET", "/zones", nil, func(r *http.Request) { r.Header.Set("X-Auth-Email", "a@acme.example"); r.Header.Set("X-Auth-Key", "k") })
	if other.status != 200 {
		t.Errorf("other credential: %d", other.status)
	}
	h.clock.Advance(30 * time.Second)
	if r := h.do("GET", "/zones", nil); r.status != 429 || r.header.Get("Retry-After") != "30" {
		t.Errorf("still blocked: %d Retry-After %q", r.status, r.header.Get("Retry-After"))
	}
	h.clock.Advance(30 * time.Second)
	h.mustOK("GET", "/zones", nil)
	if st := h.srv.Stats(); st.RateLimited != 2 || st.TooManyRequests != 2 || st.FaultsInjected != 0 {
		t.Errorf("stats %+v", st)
	}
	log := h.srv.Requests()
	if log[3].Fault != "rate_limit" || log[3].Status != 429 {
		t.Errorf("log entry %+v", log[3])
	}
}

// TestLatencyRespectsCancellation checks that a long latency ends with the request context:
// the client cancels once the request is in the handler, and the handler returns, logging
// the request as cancelled.
func TestLatencyRespectsCancellation(t *testing.T) {
	h := newHarness(t, Options{Latency: LatencySpec{Min: time.Minute, Max: time.Minute}})
	arrived, served := make(chan struct{}), make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		h.srv.ServeHTTP(w, r)
		close(served)
	}))
	defer ts.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-arrived
		cancel()
	}()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+BasePath+"/zones", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	if _, err := ts.Client().Do(req); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	<-served // a handler that ignores the cancel returns after its minute, not cancelled
	if log := h.srv.Requests(); len(log) != 1 || log[0].Fault != "cancelled" {
		t.Errorf("log %+v, want the one request, cancelled", log)
	}
}

// TestLatencyDraws checks that drawn latencies stay in range.
func TestLatencyDraws(t *testing.T) {
	s := &Server{opts: Options{Latency: LatencySpec{Min: 10 * time.Millisecond, Max: 30 * time.Millisecond}}}
	for _, u := range []float64{0, 0.25, 0.5, 0.999999} {
		if d := s.latencyFor(u); d < 10*time.Millisecond || d > 30*time.Millisecond {
			t.Errorf("u=%v: %v", u, d)
		}
	}
	s.opts.Latency = LatencySpec{Min: 20 * time.Millisecond, Max: 20 * time.Millisecond}
	if d := s.latencyFor(0.7); d != 20*time.Millisecond {
		t.Errorf("fixed latency %v", d)
	}
}

// TestParseSpecs covers the three option parsers.
func TestParseSpecs(t *testing.T) {
	lat := []struct {
		in   string
		want LatencySpec
		err  bool
	}{
		{"", LatencySpec{}, false},
		{"20ms", LatencySpec{20 * time.Millisecond, 20 * time.Millisecond}, false},
		{"10ms-30ms", LatencySpec{10 * time.Millisecond, 30 * time.Millisecond}, false},
		{" 1s - 2s ", LatencySpec{time.Second, 2 * time.Second}, false},
		{"30ms-10ms", LatencySpec{}, true},
		{"fast", LatencySpec{}, true},
	}
	for _, tc := range lat {
		got, err := ParseLatency(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseLatency(%q) = %v, %v", tc.in, got, err)
		}
	}
	faults := []struct {
		in   string
		want FaultSpec
		err  bool
	}{
		{"429=0.1,5xx=0.2,drop=0.05,zone=example.com", FaultSpec{TooMany: 0.1, ServerError: 0.2, Drop: 0.05, Zones: []string{"example.com"}}, false},
		{"zone=a.example, zone=b.example ,retry-after=3s", FaultSpec{Zones: []string{"a.example", "b.example"}, RetryAfter: 3 * time.Second}, false},
		{"", FaultSpec{}, false},
		{"429=1.5", FaultSpec{}, true},
		{"429=0.6,5xx=0.6", FaultSpec{}, true},
		{"teapot=0.1", FaultSpec{}, true},
		{"429", FaultSpec{}, true},
		{"retry-after=-1s", FaultSpec{}, true},
	}
	for _, tc := range faults {
		got, err := ParseFaults(tc.in)
		if (err != nil) != tc.err || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseFaults(%q) = %+v, %v", tc.in, got, err)
		}
	}
	limits := []struct {
		in   string
		want RateLimitSpec
		err  bool
	}{
		{"1200/5m", RateLimitSpec{1200, 5 * time.Minute}, false},
		{"4/1s", RateLimitSpec{4, time.Second}, false},
		{"100/s", RateLimitSpec{100, time.Second}, false},
		{"", RateLimitSpec{}, false},
		{"0/5m", RateLimitSpec{}, true},
		{"1200", RateLimitSpec{}, true},
		{"1200/forever", RateLimitSpec{}, true},
	}
	for _, tc := range limits {
		got, err := ParseRateLimit(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseRateLimit(%q) = %+v, %v", tc.in, got, err)
		}
	}
	if s := (RateLimitSpec{1200, 5 * time.Minute}).String(); s != "1200/5m0s" {
		t.Errorf("String %q", s)
	}
}

// TestFirstCallTooMany checks the first429 mode: each endpoint (method and path) answers
// its first call with 429 and Retry-After, its next ones normally, whatever the query.
func TestFirstCallTooMany(t *testing.T) {
	f, err := ParseFaults("first429=1")
	if err != nil || !f.FirstCallTooMany || !f.Enabled() {
		t.Fatalf("ParseFaults(first429=1) = %+v, %v", f, err)
	}
	h := newHarness(t, Options{Faults: f})
	rules := "/zones/" + freeZone + "/firewall/rules"
	for i, c := range []struct {
		path   string
		status int
	}{
		{rules, 429}, {rules, 200}, {rules + "?page=2", 200}, {"/zones", 429}, {"/zones?page=1", 200}, {rules, 200},
	} {
		r := h.do("GET", c.path, nil)
		if r.status != c.status {
			t.Fatalf("call %d, GET %s: status %d, want %d", i, c.path, r.status, c.status)
		}
		if r.status == 429 && (r.header.Get("Retry-After") != "1" || r.code() != CodeRateLimited) {
			t.Errorf("429 without Retry-After 1 / code 971: %v", r.header)
		}
	}
	if _, err := ParseFaults("first429=maybe"); err == nil {
		t.Error("first429=maybe accepted")
	}
}
