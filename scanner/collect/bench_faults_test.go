package collect

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// Shape of BenchmarkCollectFaults: the CLI's default workers, and a latency that stands
// for the API's answer time, so that a clean scan is bound by its requests in flight.
const (
	faultBenchZones   = 200
	faultBenchWorkers = DefaultWorkers
	faultBenchLatency = 20 * time.Millisecond
)

// BenchmarkCollectFaults scans a generated 200-zone account unpaced (no rate), as the CLI
// does with --workers 8, three times in one run: from a clean emulator, with the emulator's
// faults (10% 429 with Retry-After: 1, 5% 5xx), and with every endpoint answering its first
// call with a 429 and Retry-After: 1 (first429). It reports each wall time and the
// faulty/clean ratios (target: at most 2). It takes about a minute.
//
//	go test -run '^$' -bench CollectFaults -benchtime 1x ./scanner/collect
func BenchmarkCollectFaults(b *testing.B) {
	data := seed.Generate(faultBenchZones, 1)
	run := func(faults emulator.FaultSpec) (time.Duration, cfapi.Stats) {
		srv, err := emulator.New(emulator.Options{
			Seed: data, Token: emulatorToken, AsOf: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC),
			Latency: emulator.LatencySpec{Min: faultBenchLatency, Max: faultBenchLatency}, Faults: faults,
		})
		if err != nil {
			b.Fatal(err)
		}
		ts := httptest.NewServer(srv)
		defer ts.Close()
		client := benchClient(b, ts.URL+emulator.BasePath, faultBenchWorkers)
		start := time.Now()
		snap, err := Collect(context.Background(), clientSource{client}, clientOptions(faultBenchWorkers))
		wall := time.Since(start)
		if err != nil || snap.Incomplete {
			b.Fatalf("collection failed or incomplete: %v", err)
		}
		return wall, client.Stats()
	}
	for i := 0; i < b.N; i++ {
		clean, cs := run(emulator.FaultSpec{})
		faulty, fs := run(emulator.FaultSpec{TooMany: 0.1, ServerError: 0.05})
		first, ps := run(emulator.FaultSpec{FirstCallTooMany: true})
		b.ReportMetric(clean.Seconds(), "clean-s")
		b.ReportMetric(faulty.Seconds(), "faults-s")
		b.ReportMetric(first.Seconds(), "first429-s")
		b.ReportMetric(float64(faulty)/float64(clean), "faults/clean")
		b.ReportMetric(float64(first)/float64(clean), "first429/clean")
		b.ReportMetric(float64(cs.Requests), "clean-requests")
		b.ReportMetric(float64(fs.Requests), "faults-requests")
		b.ReportMetric(float64(ps.Requests), "first429-requests")
	}
}

// benchClient is the CLI's client, unpaced: at most workers requests in flight, and room
// for as many idle connections.
func benchClient(b *testing.B, baseURL string, workers int) *cfapi.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = workers
	client, err := cfapi.New(cfapi.Config{
		BaseURL: baseURL, Credentials: cfapi.TokenCredentials(emulatorToken),
		HTTPClient: &http.Client{Transport: tr, Timeout: time.Minute}, MaxInFlight: workers,
	})
	if err != nil {
		b.Fatal(err)
	}
	return client
}
