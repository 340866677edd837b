package cfapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/vocab"
	"golang.org/x/time/rate"
)

// slotRecorder collects the pacer slot of every attempt the client sends.
type slotRecorder struct {
	mu    sync.Mutex
	slots []time.Time
}

func (s *slotRecorder) record(t time.Time) {
	s.mu.Lock()
	s.slots = append(s.slots, t)
	s.mu.Unlock()
}

func (s *slotRecorder) sorted() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]time.Time(nil), s.slots...)
	sort.Slice(out, func(i, j int) bool { return out[i].Before(out[j]) })
	return out
}

func (s *slotRecorder) reset() {
	s.mu.Lock()
	s.slots = nil
	s.mu.Unlock()
}

// maxInWindow is the largest number of slots inside any half-open window of length w.
func maxInWindow(slots []time.Time, w time.Duration) int {
	best := 0
	for i := range slots {
		n := 0
		for j := i; j < len(slots) && slots[j].Before(slots[i].Add(w)); j++ {
			n++
		}
		best = max(best, n)
	}
	return best
}

func zoneServer(t *testing.T, served *atomic.Int64) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		okEnvelope(w, map[string]any{"id": "z1", "name": "a.example"}, nil)
	})
	return mux
}

// TestLimiterUnderConcurrency runs 50 goroutines through one client on a frozen clock: the
// slots the shared limiter hands out are the schedule the server would see, and no window
// holds more than burst + rate*window of them.
func TestLimiterUnderConcurrency(t *testing.T) {
	for _, tc := range []struct {
		rps   float64
		burst int
	}{{4, 4}, {DefaultRPS, 0}, {10, 1}} {
		var served atomic.Int64
		srv := server(t, zoneServer(t, &served).ServeHTTP)
		c, _ := testClient(t, srv.URL, func(c *Config) { c.RPS = tc.rps; c.Burst = tc.burst })
		burst := c.pace.baseBurst
		var rec slotRecorder
		c.onSend = rec.record
		var wg sync.WaitGroup
		for range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := c.GetZone(context.Background(), "z1"); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		slots := rec.sorted()
		if served.Load() != 50 || len(slots) != 50 {
			t.Fatalf("server saw %d requests, %d slots; want 50", served.Load(), len(slots))
		}
		for _, w := range []time.Duration{time.Second, 5 * time.Second, 5 * time.Minute} {
			limit := burst + int(tc.rps*w.Seconds())
			if got := maxInWindow(slots, w); got > limit {
				t.Errorf("rps %g burst %d: %d requests within %v, limit %d", tc.rps, burst, got, w, limit)
			}
		}
		// The limiter's own arithmetic: the first burst go at once, then one every 1/rps.
		want := t0.Add(time.Duration(float64(50-burst) / tc.rps * float64(time.Second)))
		if last := slots[len(slots)-1]; last.Sub(want).Abs() > time.Millisecond {
			t.Errorf("rps %g: last slot at %v, want %v", tc.rps, last.Sub(t0), want.Sub(t0))
		}
	}
}

func TestUnlimitedRPS(t *testing.T) {
	var served atomic.Int64
	srv := server(t, zoneServer(t, &served).ServeHTTP)
	c, clk := testClient(t, srv.URL, func(c *Config) { c.RPS = 0 })
	var rec slotRecorder
	c.onSend = rec.record
	for range 20 {
		if _, err := c.GetZone(context.Background(), "z1"); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range rec.sorted() {
		if !s.Equal(t0) {
			t.Fatalf("unlimited client delayed a request to %v", s.Sub(t0))
		}
	}
	if len(clk.Sleeps()) != 0 {
		t.Errorf("unlimited client slept %v", clk.Sleeps())
	}
}

// TestRateLimitedWorkerSlowsOthers: one worker's 429 (Retry-After 30) holds every other
// worker behind the gate, and the lowered rate spaces them out afterwards. The server holds
// the ten workers' answers until all ten have been sent: every answer raises the rate, so
// an answer that came back before the last slot was booked would make the schedule depend
// on how the goroutines were scheduled (on a busy machine the first slots came out 355 ms
// apart, not 444). With the answers held, the schedule on the frozen clock is exact.
func TestRateLimitedWorkerSlowsOthers(t *testing.T) {
	const workers = 10
	var n atomic.Int64
	allSent := make(chan struct{})
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		switch k := n.Add(1); {
		case k == 1:
			w.Header().Set("Retry-After", "30")
			writeJSON(w, 429, `{"success":false,"errors":[{"code":971,"message":"Please wait and consider throttling your request speed"}],"result":null}`)
			return
		case k == 2+workers:
			close(allSent)
		case k > 2:
			select {
			case <-allSent:
			case <-r.Context().Done():
				return
			}
		}
		okEnvelope(w, map[string]any{"id": "z1", "name": "a.example"}, nil)
	})
	c, _ := testClient(t, srv.URL, func(c *Config) { c.RPS = 4; c.Burst = 4 })
	var rec slotRecorder
	c.onSend = rec.record
	if _, err := c.GetZone(context.Background(), "z1"); err != nil {
		t.Fatal(err)
	}
	gate := t0.Add(30 * time.Second)
	if s := rec.sorted(); len(s) != 2 || !s[0].Equal(t0) || !s[1].Equal(gate) {
		t.Fatalf("first worker's slots %v, want t0 and t0+30s", s)
	}
	g, limit, burst := c.pace.snapshot()
	if !g.Equal(gate) || limit != 2.25 || burst != 1 { // halved, plus one answer's step
		t.Fatalf("pacer after 429: gate %v limit %v burst %d", g.Sub(t0), limit, burst)
	}
	rec.reset()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.GetZone(context.Background(), "z1"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	slots := rec.sorted()
	if len(slots) != workers {
		t.Fatalf("%d slots", len(slots))
	}
	// Booked before any of their answers: the gate's own slot went to the first worker's
	// retry, so the ten come one step of the lowered rate (2.25/s) apart after it.
	step := 4 * time.Second / 9 // 1/2.25 s
	for i, s := range slots {
		if want := gate.Add(time.Duration(i+1) * step); s.Sub(want).Abs() > time.Microsecond {
			t.Errorf("worker slot %d at %v, want %v: one step of the lowered rate after the last", i, s.Sub(t0), want.Sub(t0))
		}
	}
	if st := c.Stats(); st.RateLimited != 1 || st.Requests != 12 {
		t.Errorf("stats %+v", st)
	}
	if _, limit, burst := c.pace.snapshot(); limit != 4 || burst != 4 {
		t.Errorf("after 11 answers: limit %v burst %d, want the base 4 and 4", limit, burst)
	}
}

// TestGateMovesBookedSlots: a worker already waiting for a slot booked before another
// worker's 429 books again behind the gate instead of sending into the 429s.
func TestGateMovesBookedSlots(t *testing.T) {
	var p *pacer
	calls := 0
	sleep := func(ctx context.Context, d time.Duration) error {
		calls++
		if calls == 1 {
			p.block(10 * time.Second) // another worker's 429 while this one sleeps
		}
		return nil
	}
	p = newPacer(4, 1, func() time.Time { return t0 }, sleep)
	if s, err := p.wait(context.Background()); err != nil || !s.Equal(t0) {
		t.Fatalf("first slot %v %v", s, err)
	}
	s, err := p.wait(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !s.Equal(t0.Add(10 * time.Second)) {
		t.Fatalf("slot %v, want the gate t0+10s", s.Sub(t0))
	}
}

// TestRateRecoversAdditively: each 429 that says the pace is too fast halves the rate, down
// to base/16 with a burst of 1, but only once for the requests sent before that decrease;
// every answer that is not a 429 adds base/16 back, and the base rate and burst return after
// enough of them, whatever 429s came before (issue 12, item 11: the old penalty never
// lifted while new 429s came).
func TestRateRecoversAdditively(t *testing.T) {
	now := t0
	p := newPacer(8, 8, func() time.Time { return now }, func(context.Context, time.Duration) error { return nil })
	for i := range 6 {
		now = t0.Add(time.Duration(i) * time.Second)
		p.slowDown(now)
	}
	if _, limit, burst := p.snapshot(); limit != rate.Limit(8.0/16) || burst != 1 {
		t.Fatalf("after 6 429s: limit %v burst %d", limit, burst)
	}
	p.slowDown(t0) // a request sent before the last decrease: same congestion
	if _, limit, _ := p.snapshot(); limit != 0.5 {
		t.Fatalf("a stale 429 lowered the rate to %v", limit)
	}
	for i := 1; i <= 14; i++ {
		p.answered()
		if _, limit, burst := p.snapshot(); limit != rate.Limit(0.5+0.5*float64(i)) || burst != 1 {
			t.Fatalf("after %d answers: limit %v burst %d", i, limit, burst)
		}
	}
	p.answered()
	if _, limit, burst := p.snapshot(); limit != 8 || burst != 8 {
		t.Fatalf("after 15 answers: limit %v burst %d, want 8 and 8", limit, burst)
	}
	p.answered()
	if _, limit, _ := p.snapshot(); limit != 8 {
		t.Fatalf("the rate grew past the base: %v", limit)
	}
}

// TestShortRetryAfterHoldsOnlyItsRequest: a server that answers each new path once with
// 429 and Retry-After: 1 made every 429 hold back all workers and halve the shared rate, to
// 1/16 (a 3-zone scan took 9 minutes instead of 15 s, issue 12, item 11). On the frozen
// clock: each 429 costs its own request exactly the Retry-After, nobody else waits, the rate
// stays at the base, and the schedule of 8 workers' 64 requests is the clean one of 32 plus
// one slot per retry. A 429 that says the budget is spent (Ratelimit r=0) still holds
// everyone back.
func TestShortRetryAfterHoldsOnlyItsRequest(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		first := !seen[r.URL.Path]
		seen[r.URL.Path] = true
		mu.Unlock()
		if first {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, 429, `{"success":false,"errors":[{"code":971,"message":"Please wait"}],"result":null}`)
			return
		}
		okEnvelope(w, map[string]any{"id": "z1", "name": "a.example"}, nil)
	})
	c, clk := testClient(t, srv.URL, func(c *Config) { c.RPS = 4; c.Burst = 1 })
	var rec slotRecorder
	c.onSend = rec.record
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for z := range 4 {
				if _, err := c.GetZone(context.Background(), fmt.Sprint("z", w, "-", z)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	slots := rec.sorted()
	if len(slots) != 64 {
		t.Fatalf("%d requests, want 64", len(slots))
	}
	// 64 requests at 4/s with a burst of 1: exactly 63 quarter seconds from first to last.
	if span := slots[63].Sub(slots[0]); span != 63*250*time.Millisecond {
		t.Errorf("schedule spans %v, want 15.75s", span)
	}
	own := 0
	for _, d := range clk.Sleeps() {
		if d == time.Second {
			own++
		}
	}
	// One per 429, plus the pacer's own wait for the slot at t0+1s.
	if own != 32+1 {
		t.Errorf("%d waits of exactly 1s, want 33: one Retry-After per 429 and the slot at t0+1s", own)
	}
	if gate, limit, burst := c.pace.snapshot(); !gate.IsZero() || limit != 4 || burst != 1 {
		t.Errorf("pacer: gate %v limit %v burst %d; want no gate, the base rate", gate, limit, burst)
	}
	if st := c.Stats(); st.RateLimited != 32 || st.Requests != 64 {
		t.Errorf("stats %+v", st)
	}

	// The API's own block: a short Retry-After, but nothing remains in the window.
	srv2 := server(t, func(w http.ResponseWriter, r *http.Request) {
		if !seenOnce(&mu, seen, "block") {
			w.Header().Set("Retry-After", "3")
			w.Header().Set("Ratelimit", `"default";r=0;t=3`)
			writeJSON(w, 429, `{"success":false,"errors":[],"result":null}`)
			return
		}
		okEnvelope(w, map[string]any{"id": "z1", "name": "a.example"}, nil)
	})
	c2, _ := testClient(t, srv2.URL, func(c *Config) { c.RPS = 4; c.Burst = 1 })
	if _, err := c2.GetZone(context.Background(), "z1"); err != nil {
		t.Fatal(err)
	}
	if gate, limit, _ := c2.pace.snapshot(); !gate.Equal(t0.Add(3*time.Second)) || limit != 2.25 {
		t.Errorf("budget spent: gate %v limit %v; want t0+3s and the halved rate plus one answer's step", gate.Sub(t0), limit)
	}
}

// seenOnce reports whether key was seen before, and records it.
func seenOnce(mu *sync.Mutex, seen map[string]bool, key string) bool {
	mu.Lock()
	defer mu.Unlock()
	was := seen[key]
	seen[key] = true
	return was
}

// blockingSleep is the real sleep that reports when it starts waiting.
func blockingSleep(entered chan<- time.Duration) func(context.Context, time.Duration) error {
	return func(ctx context.Context, d time.Duration) error {
		entered <- d
		return sleepCtx(ctx, d)
	}
}

// TestCancellationWhileWaiting: a context cancelled while the client waits on the limiter,
// on a backoff or on an answer ends the call with context.Canceled. The waits are ~17
// minutes of real time, so a call that returns at all returned because of the cancel.
func TestCancellationWhileWaiting(t *testing.T) {
	tests := []struct {
		name    string
		rps     float64
		handler http.HandlerFunc
		sent    int64 // requests the server must see during the cancelled call
		inSleep bool  // the cancel happens during an injected sleep (else in flight)
	}{
		{name: "waiting on the limiter", rps: MinRPS, sent: 0, inSleep: true,
			handler: func(w http.ResponseWriter, r *http.Request) {
				okEnvelope(w, map[string]any{"id": "z1", "name": "a"}, nil)
			}},
		{name: "waiting on a backoff", sent: 1, inSleep: true,
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "1000")
				writeJSON(w, 503, `{"success":false,"errors":[{"code":503,"message":"busy"}],"result":null}`)
			}},
		{name: "waiting on a 429 gate", sent: 1, inSleep: true,
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "1000")
				writeJSON(w, 429, `{"success":false,"errors":[],"result":null}`)
			}},
		{name: "waiting on the answer", sent: 1,
			handler: func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var served atomic.Int64
			arrived := make(chan struct{}, 4)
			srv := server(t, func(w http.ResponseWriter, r *http.Request) {
				served.Add(1)
				arrived <- struct{}{}
				tc.handler(w, r)
			})
			entered := make(chan time.Duration, 4)
			c, err := New(Config{BaseURL: srv.URL, Credentials: TokenCredentials(testToken), RPS: tc.rps, Burst: 1, Sleep: blockingSleep(entered)})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.rps > 0 { // spend the only token, so the next call waits ~10s for one
				if _, err := c.GetZone(ctx, "z1"); err != nil {
					t.Fatal(err)
				}
				<-arrived
				served.Store(0)
			}
			done := make(chan error, 1)
			go func() { _, err := c.GetZone(ctx, "z1"); done <- err }()
			if tc.inSleep {
				if d := <-entered; d < 5*time.Second {
					t.Fatalf("client sleeps only %v", d)
				}
			} else {
				<-arrived
			}
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("error %v, want context.Canceled", err)
				}
				var e *Error
				if !errors.As(err, &e) || e.Path != "/zones/z1" {
					t.Errorf("cancel error lacks the request: %v", err)
				}
			case <-time.After(time.Minute):
				t.Fatal("the call did not return after cancel")
			}
			if got := served.Load(); got != tc.sent {
				t.Errorf("server saw %d requests during the call", got)
			}
		})
	}
}

func TestCancelledContextSendsNothing(t *testing.T) {
	var served atomic.Int64
	srv := server(t, zoneServer(t, &served).ServeHTTP)
	c, _ := testClient(t, srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.ListZones(ctx, ZoneFilter{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v", err)
	}
	if served.Load() != 0 || c.Stats().Requests != 0 {
		t.Errorf("a cancelled context sent %d requests", served.Load())
	}
}

// TestRequestAccounting: Stats counts attempts by method, and WithRequestCounter counts the
// attempts made under one context (one zone's collection), retries included.
func TestRequestAccounting(t *testing.T) {
	var n atomic.Int64
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/zones/flaky" && n.Add(1) == 1 {
			writeJSON(w, 502, "bad gateway")
			return
		}
		if r.URL.Path == "/zones/a/filters" {
			okEnvelope(w, []any{}, nil)
			return
		}
		okEnvelope(w, map[string]any{"id": "x"}, nil)
	})
	c, _ := testClient(t, srv.URL)
	var zoneA, zoneB atomic.Int64
	ctxA := WithRequestCounter(context.Background(), &zoneA)
	ctxB := WithRequestCounter(context.Background(), &zoneB)
	mustOK := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := c.GetZone(ctxA, "flaky") // 2 attempts
	mustOK(err)
	_, err = c.ListFilters(ctxA, "a")
	mustOK(err)
	_, err = c.PatchDNSSettings(ctxA, "a", map[string]any{})
	mustOK(err)
	mustOK(c.DeleteFilter(ctxB, "b", "f"))
	_, err = c.PutEntrypointRuleset(ctxB, "b", vocab.PhaseCustomRules, nil)
	mustOK(err)
	_, err = c.CreateRulesetRule(context.Background(), "c", "rs", ruleForTest(), nil)
	mustOK(err)
	if zoneA.Load() != 4 || zoneB.Load() != 2 {
		t.Errorf("per-context counts %d %d, want 4 2", zoneA.Load(), zoneB.Load())
	}
	st := c.Stats()
	want := map[string]int64{"GET": 3, "PATCH": 1, "DELETE": 1, "PUT": 1, "POST": 1}
	if st.Requests != 7 || st.Retries != 1 || len(st.ByMethod) != len(want) {
		t.Errorf("stats %+v", st)
	}
	for m, v := range want {
		if st.ByMethod[m] != v {
			t.Errorf("%s: %d, want %d", m, st.ByMethod[m], v)
		}
	}
}
