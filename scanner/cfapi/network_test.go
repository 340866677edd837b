package cfapi

import (
	"context"
	"errors"
	"math"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// closedAddr returns a loopback address nothing listens on (a port just released).
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// TestConnectionRefusedIsRetried: the README says network failures are retried; a refused
// connection was not (issue 12, item 13). Here the API comes up during the second backoff,
// so the third attempt succeeds; a POST is retried too, as its connection never opened.
func TestConnectionRefusedIsRetried(t *testing.T) {
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		addr := closedAddr(t)
		var served atomic.Int64
		var sleeps int
		c, _ := testClient(t, "http://"+addr, func(cfg *Config) {
			cfg.MaxRetries = 3
			cfg.Sleep = func(ctx context.Context, d time.Duration) error {
				if sleeps++; sleeps == 2 {
					ln, err := net.Listen("tcp", addr)
					if err != nil {
						t.Fatal(err)
					}
					srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						served.Add(1)
						okEnvelope(w, map[string]any{"id": "r1", "name": "a.example", "rules": []any{}}, nil)
					}), ReadHeaderTimeout: time.Second}
					go func() { _ = srv.Serve(ln) }()
					t.Cleanup(func() { _ = srv.Close() })
				}
				return ctx.Err()
			}
		})
		var err error
		if method == http.MethodGet {
			_, err = c.GetZone(context.Background(), "z1")
		} else {
			_, err = c.CreateRulesetRule(context.Background(), "z1", "rs1", inventory.RulesetRule{Action: "block", Expression: "true"}, nil)
		}
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if st := c.Stats(); st.Requests != 3 || st.Retries != 2 || served.Load() != 1 {
			t.Errorf("%s: stats %+v, served %d; want 3 attempts, 2 retries, 1 served", method, st, served.Load())
		}
	}
}

// TestConnectionRefusedGivesUp: with nothing listening, every attempt is made and the error
// says what happened.
func TestConnectionRefusedGivesUp(t *testing.T) {
	c, clk := testClient(t, "http://"+closedAddr(t), func(cfg *Config) { cfg.MaxRetries = 2 })
	_, err := c.GetZone(context.Background(), "z1")
	var e *Error
	if !errors.As(err, &e) || e.Attempts != 3 || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("err %v (attempts %v)", err, e)
	}
	if n := len(clk.Sleeps()); n != 2 {
		t.Errorf("%d backoffs, want 2", n)
	}
}

// TestRPSValidated: NaN and infinite rates meant "unpaced" and a tiny one hung the scan
// (issue 12, item 13); New refuses them.
func TestRPSValidated(t *testing.T) {
	for _, rps := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e-9, MinRPS / 2} {
		_, err := New(Config{BaseURL: "http://127.0.0.1:1", Credentials: TokenCredentials(testToken), RPS: rps})
		if err == nil {
			t.Errorf("RPS %g accepted", rps)
		}
	}
	for _, rps := range []float64{0, -1, MinRPS, DefaultRPS, 1e6} {
		if _, err := New(Config{BaseURL: "http://127.0.0.1:1", Credentials: TokenCredentials(testToken), RPS: rps}); err != nil {
			t.Errorf("RPS %g refused: %v", rps, err)
		}
	}
}
