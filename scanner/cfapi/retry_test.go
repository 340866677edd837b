package cfapi

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// hangUp hijacks the connection and closes it without an answer: the client sees a reset
// or EOF.
func hangUp(t *testing.T, w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		t.Error("response writer cannot hijack")
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		t.Error(err)
		return
	}
	_ = conn.Close()
}

func TestRetries(t *testing.T) {
	zone := `{"result":{"id":"z1","name":"a.example"},"success":true,"errors":[],"messages":[]}`
	// step answers attempt n (from 1).
	type step func(t *testing.T, w http.ResponseWriter, n int)
	status := func(code int, hdr ...string) step {
		return func(t *testing.T, w http.ResponseWriter, n int) {
			for i := 0; i+1 < len(hdr); i += 2 {
				w.Header().Set(hdr[i], hdr[i+1])
			}
			writeJSON(w, code, `{"result":null,"success":false,"errors":[{"code":`+strconv.Itoa(code)+`,"message":"try later"}],"messages":[]}`)
		}
	}
	ok := func(t *testing.T, w http.ResponseWriter, n int) { writeJSON(w, 200, zone) }
	reset := func(t *testing.T, w http.ResponseWriter, n int) { hangUp(t, w) }
	httpDate := t0.Add(2 * time.Minute).Format(http.TimeFormat)

	tests := []struct {
		name       string
		method     string // GET (GetZone) or POST (CreateRulesetRule)
		steps      []step // attempt n gets steps[min(n, len)-1]
		maxRetries int
		wantErr    bool
		wantStatus int
		attempts   int
		sleeps     []time.Duration // exact waits, with jitter fixed at 0.5
	}{
		{name: "5xx then success", steps: []step{status(502), status(503), ok},
			attempts: 3, sleeps: []time.Duration{375 * time.Millisecond, 750 * time.Millisecond}},
		{name: "429 with Retry-After seconds", steps: []step{status(429, "Retry-After", "7"), ok},
			attempts: 2, sleeps: []time.Duration{7 * time.Second}},
		{name: "429 with Retry-After HTTP date", steps: []step{status(429, "Retry-After", httpDate), ok},
			attempts: 2, sleeps: []time.Duration{2 * time.Minute}},
		{name: "429 without Retry-After waits the backoff", steps: []step{status(429), ok},
			attempts: 2, sleeps: []time.Duration{time.Second}},
		{name: "503 with Retry-After longer than the backoff", steps: []step{status(503, "Retry-After", "20"), ok},
			attempts: 2, sleeps: []time.Duration{20 * time.Second}},
		{name: "connection reset then success", steps: []step{reset, reset, ok},
			attempts: 3, sleeps: []time.Duration{375 * time.Millisecond, 750 * time.Millisecond}},
		{name: "give up after max retries", steps: []step{status(500)}, maxRetries: 3,
			wantErr: true, wantStatus: 500, attempts: 4,
			sleeps: []time.Duration{375 * time.Millisecond, 750 * time.Millisecond, 1500 * time.Millisecond}},
		{name: "give up on resets", steps: []step{reset}, maxRetries: 2,
			wantErr: true, attempts: 3, sleeps: []time.Duration{375 * time.Millisecond, 750 * time.Millisecond}},
		{name: "no retry on 400", steps: []step{status(400), ok}, wantErr: true, wantStatus: 400, attempts: 1},
		{name: "no retry on 401", steps: []step{status(401), ok}, wantErr: true, wantStatus: 401, attempts: 1},
		{name: "no retry on 403", steps: []step{status(403), ok}, wantErr: true, wantStatus: 403, attempts: 1},
		{name: "no retry on 404", steps: []step{status(404), ok}, wantErr: true, wantStatus: 404, attempts: 1},
		{name: "no retry on 501", steps: []step{status(501), ok}, wantErr: true, wantStatus: 501, attempts: 1},
		{name: "retries disabled", steps: []step{status(503), ok}, maxRetries: -1, wantErr: true, wantStatus: 503, attempts: 1},
		{name: "POST not retried after 5xx", method: "POST", steps: []step{status(502), ok}, wantErr: true, wantStatus: 502, attempts: 1},
		{name: "POST not retried after a reset", method: "POST", steps: []step{reset, ok}, wantErr: true, attempts: 1},
		{name: "POST retried after 429", method: "POST", steps: []step{status(429, "Retry-After", "3"), ok},
			attempts: 2, sleeps: []time.Duration{3 * time.Second}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int64
			srv := server(t, func(w http.ResponseWriter, r *http.Request) {
				i := int(n.Add(1))
				tc.steps[min(i, len(tc.steps))-1](t, w, i)
			})
			c, clk := testClient(t, srv.URL, func(c *Config) { c.MaxRetries = tc.maxRetries })
			var err error
			if tc.method == "POST" {
				_, err = c.CreateRulesetRule(context.Background(), "z1", "rs1", ruleForTest(), nil)
			} else {
				_, err = c.GetZone(context.Background(), "z1")
			}
			if got := int(n.Load()); got != tc.attempts {
				t.Errorf("server saw %d attempts, want %d", got, tc.attempts)
			}
			if !reflect.DeepEqual(clk.Sleeps(), tc.sleeps) {
				t.Errorf("sleeps %v, want %v", clk.Sleeps(), tc.sleeps)
			}
			if !tc.wantErr {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%T %v is not an *Error", err, err)
			}
			if e.Status != tc.wantStatus || e.Attempts != tc.attempts {
				t.Errorf("status %d attempts %d, want %d %d (%v)", e.Status, e.Attempts, tc.wantStatus, tc.attempts, err)
			}
			if st := c.Stats(); st.Requests != int64(tc.attempts) || st.Retries != int64(tc.attempts-1) {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func TestBackoffGrowsAndCaps(t *testing.T) {
	c, _ := testClient(t, "https://api.example", func(c *Config) {
		c.RetryBaseDelay = time.Second
		c.RetryMaxDelay = 10 * time.Second
		c.Rand = func() float64 { return 1 }
	})
	var got []time.Duration
	for a := 1; a <= 6; a++ {
		got = append(got, c.backoff(a))
	}
	want := []time.Duration{1, 2, 4, 8, 10, 10}
	for i := range want {
		want[i] *= time.Second
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("backoff %v, want %v", got, want)
	}
	c.rand = func() float64 { return 0 }
	if d := c.backoff(3); d != 2*time.Second {
		t.Errorf("least jittered backoff %v, want half of 4s", d)
	}
}

func TestRetryAfterParsing(t *testing.T) {
	tests := []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"12", 12 * time.Second, true},
		{"-3", 0, false},
		{"soon", 0, false},
		{"100000", maxRetryAfter, true},
		{t0.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{t0.Add(-time.Hour).Format(http.TimeFormat), 0, true},
	}
	for _, tc := range tests {
		h := http.Header{}
		if tc.v != "" {
			h.Set("Retry-After", tc.v)
		}
		got, ok := retryAfter(h, t0)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Retry-After %q: %v %v, want %v %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
}

// TestRetryAfterTimeout: an attempt that times out (the HTTP client's own timeout, while
// the caller's context is still live) is retried.
func TestRetryAfterTimeout(t *testing.T) {
	var n atomic.Int64
	release := make(chan struct{})
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			select { // never answer the first attempt
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		okEnvelope(w, map[string]any{"id": "z1", "name": "a.example"}, nil)
	})
	t.Cleanup(func() { close(release) }) // runs before the server's Close, which waits for handlers
	c, clk := testClient(t, srv.URL, func(c *Config) { c.HTTPClient = &http.Client{Timeout: 100 * time.Millisecond} })
	z, err := c.GetZone(context.Background(), "z1")
	if err != nil {
		t.Fatal(err)
	}
	if z.ID != "z1" || n.Load() != 2 || len(clk.Sleeps()) != 1 {
		t.Errorf("zone %q after %d attempts, sleeps %v", z.ID, n.Load(), clk.Sleeps())
	}
}
