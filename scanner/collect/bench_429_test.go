package collect

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// throttling wraps an API handler: it answers each new path (with its query) once with 429
// and Retry-After: 1, and every 7th request with 503, the server of issue 12, item 11.
func throttling(next http.Handler) http.Handler {
	var mu sync.Mutex
	seen := map[string]bool{}
	n := 0
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		key := r.URL.RequestURI()
		first, seventh := !seen[key], n%7 == 0
		seen[key] = true
		mu.Unlock()
		switch {
		case first:
			w.Header().Set("Retry-After", "1")
			http.Error(w, `{"success":false,"errors":[{"code":971,"message":"Please wait"}],"result":null}`, http.StatusTooManyRequests)
		case seventh:
			http.Error(w, `{"success":false,"errors":[{"code":10000,"message":"unavailable"}],"result":null}`, http.StatusServiceUnavailable)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// BenchmarkCollectThrottled collects 3 zones at the CLI's pace (DefaultRPS, burst 1, 8
// workers) from a clean emulator and from the same emulator behind throttling, and reports
// both wall times and their ratio (target: within 4x; it was 9 minutes against 15 s when
// every 429 held back all workers and halved the shared rate). It takes about a minute.
//
//	go test -run '^$' -bench CollectThrottled -benchtime 1x ./scanner/collect
func BenchmarkCollectThrottled(b *testing.B) {
	data := seed.Generate(3, 1)
	srv, err := emulator.New(emulator.Options{Seed: data, Token: emulatorToken, AsOf: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		b.Fatal(err)
	}
	run := func(h http.Handler) (time.Duration, cfapi.Stats) {
		ts := httptest.NewServer(h)
		defer ts.Close()
		client, err := cfapi.New(cfapi.Config{
			BaseURL: ts.URL + emulator.BasePath, Credentials: cfapi.TokenCredentials(emulatorToken),
			RPS: cfapi.DefaultRPS, Burst: 1,
		})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		snap, err := Collect(context.Background(), clientSource{client}, clientOptions(8))
		wall := time.Since(start)
		if err != nil || snap.Incomplete {
			b.Fatalf("collection failed or incomplete: %v", err)
		}
		return wall, client.Stats()
	}
	for i := 0; i < b.N; i++ {
		clean, cs := run(srv)
		throttled, ts := run(throttling(srv))
		b.ReportMetric(clean.Seconds(), "clean-s")
		b.ReportMetric(throttled.Seconds(), "throttled-s")
		b.ReportMetric(float64(throttled)/float64(clean), "ratio")
		b.ReportMetric(float64(cs.Requests), "clean-requests")
		b.ReportMetric(float64(ts.Requests), "throttled-requests")
		b.ReportMetric(float64(ts.RateLimited), "429s")
	}
}
