package collect

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// BenchmarkCollectRateLimited collects against an emulator enforcing a global limit like
// the real one, scaled down (40 requests per 10 s instead of 1,200 per 5 minutes), with the
// client paced the way the CLI paces it (one under the budget, burst 1). It reports the
// 429s seen (target 0) and the wall time against requests / rate (target within 5%).
//
//	go test -run '^$' -bench CollectRateLimited -benchtime 1x ./scanner/collect
func BenchmarkCollectRateLimited(b *testing.B) {
	const (
		limit  = 40
		window = 10 * time.Second
	)
	data := seed.Generate(8, 1)
	ts := startEmulatorWith(b, emulator.Options{
		Seed: data, AsOf: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC),
		RateLimit: emulator.RateLimitSpec{Requests: limit, Window: window},
	})
	rps := float64(limit-1) / window.Seconds()
	for i := 0; i < b.N; i++ {
		client, err := cfapi.New(cfapi.Config{
			BaseURL: ts.URL + emulator.BasePath, Credentials: cfapi.TokenCredentials(emulatorToken),
			RPS: rps, Burst: 1,
		})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		snap, err := Collect(context.Background(), clientSource{client}, clientOptions(8))
		wall := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if snap.Incomplete {
			b.Fatalf("incomplete collection under the limit: %+v", snap.Zones[0].Errors)
		}
		st := client.Stats()
		// The first request goes at once; the other n-1 are spaced 1/rps apart.
		ideal := time.Duration(float64(st.Requests-1) / rps * float64(time.Second))
		b.ReportMetric(float64(st.Requests), "requests")
		b.ReportMetric(float64(st.RateLimited), "429s")
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(ideal.Seconds(), "ideal-s")
		b.ReportMetric(float64(wall)/float64(ideal), "ratio")
	}
}

// BenchmarkScanMemory collects and scans generated accounts of growing size with an
// unpaced client and reports the peak heap in use: it should grow with the objects and
// findings kept, not with the responses read (collect keeps typed objects only and drops
// the DNS records no rule needs).
//
//	go test -run '^$' -bench ScanMemory -benchtime 1x ./scanner/collect
func BenchmarkScanMemory(b *testing.B) {
	for _, zones := range []int{2500, 10000} {
		b.Run(fmt.Sprintf("zones=%d", zones), func(b *testing.B) {
			// Only the emulator holds the generated data, so the heap measured below is the
			// emulator's and the collector's, not a second copy.
			ts := startEmulator(b, seed.Generate(zones, 1), 0)
			for i := 0; i < b.N; i++ {
				client := newClient(b, ts.URL+emulator.BasePath, 64)
				runtime.GC()
				var base runtime.MemStats
				runtime.ReadMemStats(&base)
				peak, stop := sampleHeap()
				snap, err := Collect(context.Background(), clientSource{client}, clientOptions(32))
				if err != nil {
					b.Fatal(err)
				}
				res := scanner.ScanSnapshot(snap, nil, scanner.Options{AsOf: time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)})
				stop()
				runtime.GC()
				var after runtime.MemStats
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(client.Stats().Requests), "requests")
				b.ReportMetric(float64(len(res.Findings)), "findings")
				b.ReportMetric(float64(peak.Load()-base.HeapInuse)/(1<<20), "peak-heap-MB")
				b.ReportMetric(float64(after.HeapInuse-base.HeapInuse)/(1<<20), "kept-heap-MB")
				runtime.KeepAlive(snap)
				runtime.KeepAlive(res)
			}
		})
	}
}

// sampleHeap polls HeapInuse every 20 ms until stopped; the emulator's own state is in
// the same process, which is why the figures are relative to a baseline taken after it
// was built.
func sampleHeap() (*atomic.Uint64, func()) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return &peak, func() { close(done); wg.Wait() }
}
