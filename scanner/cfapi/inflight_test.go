package cfapi

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestWaitingRequestHoldsNoPlace shows that a request waiting out a Retry-After gives its
// place among the requests in flight to another: with MaxInFlight 1, zone A's read is held
// in its Retry-After (a sleep that returns only when the test says) while zone B's read is
// sent and answered; then A's retry goes. Were the place held, B would never be sent. The
// wait hook (WithWaitHook) is told when A's wait begins and ends.
func TestWaitingRequestHoldsNoPlace(t *testing.T) {
	var inFlight, most atomic.Int32
	var aCalls atomic.Int32
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); {
			m = most.Load()
		}
		if strings.Contains(r.URL.Path, "/zones/a/") && aCalls.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			writeJSON(w, http.StatusTooManyRequests, `{"success":false,"errors":[{"code":971,"message":"Please wait"}],"result":null}`)
			return
		}
		okEnvelope(w, []any{}, nil)
	})
	waiting, resume := make(chan time.Duration, 1), make(chan struct{})
	c, _ := testClient(t, srv.URL, func(cfg *Config) {
		cfg.MaxInFlight = 1
		cfg.Sleep = func(ctx context.Context, d time.Duration) error {
			waiting <- d
			select {
			case <-resume:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hooks := make(chan bool, 2)
	aCtx := WithWaitHook(ctx, func(waiting bool) { hooks <- waiting })
	aDone := make(chan error, 1)
	go func() {
		_, err := c.ListFilters(aCtx, "a")
		aDone <- err
	}()
	if d := <-waiting; d != time.Second {
		t.Fatalf("A waits %v, want its Retry-After of 1s", d)
	}
	bDone := make(chan error, 1)
	go func() {
		_, err := c.ListFilters(ctx, "b")
		bDone <- err
	}()
	select {
	case err := <-bDone:
		if err != nil {
			t.Fatalf("B: %v", err)
		}
	case err := <-aDone:
		t.Fatalf("A ended before B while held in its Retry-After: %v", err)
	case <-time.After(time.Minute): // a guard against a hang, not a timing assertion
		t.Fatal("B was not sent while A waited: the waiting request holds its place")
	}
	close(resume)
	if err := <-aDone; err != nil {
		t.Fatalf("A after its wait: %v", err)
	}
	if got := aCalls.Load(); got != 2 {
		t.Errorf("A sent %d times, want 2", got)
	}
	if began, ended := <-hooks, <-hooks; !began || ended {
		t.Errorf("wait hook told %t then %t, want true (the wait begins) then false", began, ended)
	}
	if m := most.Load(); m != 1 {
		t.Errorf("%d requests in flight at once, want at most 1", m)
	}
}
