package cli

import (
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// BenchmarkScanSinceAfterOnePercent scans the 2,000-zone generated account in full with
// --snapshot-out, changes 1% of its zones through the API (a setting each, recorded in the
// audit log), and rescans with --since. It reports each run's requests and wall time
// (unpaced, against the in-process emulator), the time those requests take at the API's
// budget (--rps default), and the rescan's requests over the target: the changed zones'
// requests in the full scan + the listing (accounts and zone pages) + the audit log pages
// (target ratio within 1.2).
//
//	go test -run '^$' -bench ScanSinceAfterOnePercent -benchtime 1x ./cmd/sunset/internal/cli
func BenchmarkScanSinceAfterOnePercent(b *testing.B) {
	const zones, changedShare = 2000, 100 // one zone in 100 changes
	for i := 0; i < b.N; i++ {
		srv, err := emulator.New(emulator.Options{Seed: seed.Generate(zones, 1), AsOf: fixedNow, Token: seed.DemoToken})
		if err != nil {
			b.Fatal(err)
		}
		hs := httptest.NewServer(srv)
		b.Cleanup(hs.Close)
		base := hs.URL + emulator.BasePath
		dir := b.TempDir()
		old := filepath.Join(dir, "old.jsonl")
		args := func(extra ...string) []string {
			return append([]string{"scan", "--api-url", base, "--rps", "0", "--as-of", "2025-02-01", "--fail-on", "none",
				"--workers", "16", "--format", "json:" + filepath.Join(dir, "r.json")}, extra...)
		}
		start, n0 := time.Now(), srv.Stats().Total
		if r := (&testRun{env: demoEnv()}).exec(b.Context(), args("--snapshot-out", old)...); r.code != ExitOK {
			b.Fatalf("full scan: exit %d\n%s", r.code, r.stderr)
		}
		fullWall, fullReq := time.Since(start), srv.Stats().Total-n0

		snap := srv.Snapshot()
		accounts := len(snap.Accounts)
		changedReq := 0
		full := readStreamFile(b, old)
		byID := map[string]int{}
		for _, z := range full.Snapshot.Zones {
			byID[z.Zone.ID] = z.Requests
		}
		for j := 0; j < len(snap.Zones); j += changedShare {
			patchSetting(b, base, snap.Zones[j].Zone.ID)
			changedReq += byID[snap.Zones[j].Zone.ID]
		}

		start, n0 = time.Now(), srv.Stats().Total
		r := (&testRun{env: demoEnv()}).exec(b.Context(), args("--since", old)...)
		if r.code != ExitOK {
			b.Fatalf("--since: exit %d\n%s", r.code, r.stderr)
		}
		sinceWall, sinceReq := time.Since(start), srv.Stats().Total-n0
		listing := 1 + accounts*((zones/accounts+49)/50) // accounts, zone pages (50 a page)
		target := changedReq + listing + accounts        // one audit log page per account
		b.ReportMetric(float64(fullReq), "full-requests")
		b.ReportMetric(fullWall.Seconds(), "full-wall-s")
		b.ReportMetric(float64(fullReq)/cfapi.DefaultRPS/3600, "full-at-budget-h")
		b.ReportMetric(float64(sinceReq), "since-requests")
		b.ReportMetric(sinceWall.Seconds(), "since-wall-s")
		b.ReportMetric(float64(sinceReq)/cfapi.DefaultRPS/60, "since-at-budget-min")
		b.ReportMetric(float64(target), "target-requests")
		b.ReportMetric(float64(sinceReq)/float64(target), "ratio")
	}
}
