package apply_test

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// BenchmarkApplyAtBudget applies the plan of the generated 2,000-zone account against an
// emulator that enforces the API's limit (1,200 requests a window) with the window scaled
// down (SUNSET_BENCH_WINDOW, default 3s, instead of 5 minutes), the client paced as the CLI
// paces it (one under the budget, burst 1). It reports the requests (per zone too), the
// 429s (target 0), the wall time against requests / rate (target about 1), and the time at
// the real budget: requests / (1,199 per 5 minutes). SUNSET_BENCH_ZONES changes the size.
//
//	go test -run '^$' -bench ApplyAtBudget -benchtime 1x -timeout 2h ./migrate/apply
func BenchmarkApplyAtBudget(b *testing.B) {
	zones, window := 2000, 3*time.Second
	if v, err := strconv.Atoi(os.Getenv("SUNSET_BENCH_ZONES")); err == nil {
		zones = v
	}
	if v, err := time.ParseDuration(os.Getenv("SUNSET_BENCH_WINDOW")); err == nil {
		window = v
	}
	data := seed.GenerateMigratable(zones, 1)
	for i := 0; i < b.N; i++ {
		// The plan comes from an unlimited copy of the account (the same seed, so the same
		// objects); the limited one is only applied to.
		p, before := serve(b, data, emulator.Options{}).plan()
		a := serve(b, data, emulator.Options{RateLimit: emulator.RateLimitSpec{Requests: 1200, Window: window}})
		rps := 1199 / window.Seconds()
		client, err := cfapi.New(cfapi.Config{BaseURL: a.client.BaseURL(), Credentials: cfapi.TokenCredentials(seed.DemoToken), RPS: rps, Burst: 1})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		res, err := apply.Apply(context.Background(), p, apply.Options{Client: client, Snapshot: before})
		wall := time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(res.Stopped()); n > 0 {
			b.Fatalf("%d scopes stopped, the first: %s", n, res.Stopped()[0].Reason)
		}
		st := client.Stats()
		ideal := time.Duration(float64(st.Requests-1) / rps * float64(time.Second))
		b.ReportMetric(float64(st.Requests), "requests")
		b.ReportMetric(float64(st.Requests)/float64(len(p.Zones)), "requests/zone")
		b.ReportMetric(float64(apply.EstimateRequests(p, false)), "estimated")
		b.ReportMetric(float64(st.RateLimited), "429s")
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(float64(wall)/float64(ideal), "ratio")
		b.ReportMetric(float64(st.Requests)/cfapi.DefaultRPS/3600, "real-budget-h")
	}
}
