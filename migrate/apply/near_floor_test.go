package apply_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// nearFloor is the most an apply may send for what FloorRequests counts (issue 39).
const nearFloor = 1.25

// TestApplyNearItsFloor: on the generated 200-zone account, the benchmark's, an apply sends
// at most 1.25 times the same-safety minimum (FloorRequests): its requests are the ones
// EstimateRequests counts (TestApplyMigratesAndRescanIsClean holds the two equal, and
// BenchmarkApplyFloor measures them). With -v it logs where they go, by kind and purpose.
func TestApplyNearItsFloor(t *testing.T) {
	t.Parallel()
	p, _ := serve(t, seed.GenerateMigratable(200, 1), emulator.Options{}).plan()
	got, floor := apply.EstimateRequests(p, false), apply.FloorRequests(p)
	t.Logf("%d requests, the same-safety minimum %d: %.3fx\n%s", got, floor, float64(got)/float64(floor), apply.CostTable(p))
	if float64(got) > nearFloor*float64(floor) {
		t.Errorf("the apply sends %d requests, %.3f times the same-safety minimum (%d): want at most %.2f times", got, float64(got)/float64(floor), floor, nearFloor)
	}
}

// BenchmarkApplyFloor applies the plans of the generated 200- and 2,000-zone accounts
// (SUNSET_BENCH_ZONES: one size) against the emulator, unpaced, and reports the requests
// sent, EstimateRequests, the same-safety minimum (FloorRequests), their ratio, and the time
// at the API's budget (1,199 requests per 5 minutes). It logs the table of where the
// requests go, by kind of step and purpose.
//
//	go test -run '^$' -bench ApplyFloor -benchtime 1x -timeout 1h ./migrate/apply
func BenchmarkApplyFloor(b *testing.B) {
	sizes := []int{200, 2000}
	if v, err := strconv.Atoi(os.Getenv("SUNSET_BENCH_ZONES")); err == nil {
		sizes = []int{v}
	}
	for _, zones := range sizes {
		b.Run(strconv.Itoa(zones)+"-zones", func(b *testing.B) {
			data := seed.GenerateMigratable(zones, 1)
			for i := 0; i < b.N; i++ {
				a := serve(b, data, emulator.Options{})
				p, before := a.plan()
				sent := a.srv.Stats().Total
				res, err := apply.Apply(context.Background(), p, apply.Options{Client: a.client, Snapshot: before})
				if err != nil {
					b.Fatal(err)
				}
				if n := len(res.Stopped()); n > 0 {
					b.Fatalf("%d scopes stopped, the first: %s", n, res.Stopped()[0].Reason)
				}
				sent = a.srv.Stats().Total - sent
				floor := apply.FloorRequests(p)
				b.ReportMetric(float64(sent), "requests")
				b.ReportMetric(float64(apply.EstimateRequests(p, false)), "estimated")
				b.ReportMetric(float64(floor), "floor")
				b.ReportMetric(float64(sent)/float64(floor), "x-floor")
				b.ReportMetric(float64(sent)/float64(len(p.Zones)), "requests/zone")
				b.ReportMetric(float64(sent)/cfapi.DefaultRPS/3600, "real-budget-h")
				if i == 0 {
					b.Logf("where the requests go:\n%s", apply.CostTable(p))
				}
			}
		})
	}
}
