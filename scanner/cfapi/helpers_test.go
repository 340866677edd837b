package cfapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

const (
	testToken = "tok_SECRET_4f2a9c7e1b"
	testEmail = "alice@example.com"
	testKey   = "key_SECRET_c0ffee1234"
)

// t0 is the frozen time of the fake clock; whole seconds so HTTP dates round-trip.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// fakeClock never moves on its own: Now is always the same instant and Sleep records the
// duration and returns at once (or ctx's error). Reservations made on it form the exact
// schedule the limiter would impose.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newFakeClock() *fakeClock { return &fakeClock{now: t0} }

func (f *fakeClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	f.sleeps = append(f.sleeps, d)
	f.mu.Unlock()
	return ctx.Err()
}

func (f *fakeClock) Sleeps() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.sleeps...)
}

// testClient returns a client on base with a token, the fake clock, no pacing and a fixed
// jitter of 0.5.
func testClient(t *testing.T, base string, mod ...func(*Config)) (*Client, *fakeClock) {
	t.Helper()
	clk := newFakeClock()
	cfg := Config{
		BaseURL:     base,
		Credentials: TokenCredentials(testToken),
		Now:         clk.Now,
		Sleep:       clk.Sleep,
		Rand:        func() float64 { return 0.5 },
	}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c, clk
}

// server starts an httptest server around h and closes it at the end of the test.
func server(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return s
}

// okEnvelope writes a success envelope around result (and result_info when not nil).
func okEnvelope(w http.ResponseWriter, result any, info any) {
	env := map[string]any{"result": result, "success": true, "errors": []any{}, "messages": []any{}}
	if info != nil {
		env["result_info"] = info
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(env)
}

// writeJSON writes a raw JSON body with a status.
func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}
