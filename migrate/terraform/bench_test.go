package terraform

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// generatedPlan is the plan of a generated account of n zones, as of demoAsOf.
func generatedPlan(tb testing.TB, n int) *migrate.Plan {
	tb.Helper()
	snap := seed.Generate(n, 26)
	res := scanner.ScanSnapshot(snap, nil, scanner.Options{AsOf: demoAsOf})
	return migrate.Build(snap, res, migrate.Options{AsOf: demoAsOf})
}

// spilled puts the zones of p in a spill, as a scan leaves them: the head (p without its
// zones) and the spill's Zones.
func spilled(tb testing.TB, p *migrate.Plan) (*migrate.Plan, Zones) {
	tb.Helper()
	sp, err := migrate.NewSpill(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = sp.Close() })
	for _, z := range p.Zones {
		if err := sp.Add(z.ZoneID, z, true, nil); err != nil {
			tb.Fatal(err)
		}
	}
	head := *p
	head.Zones = nil
	return &head, sp.Zones
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkWriteZones renders the Terraform directory of a generated plan of 500 and 2,000
// zones whose zones come from a spill, as WriteZones does, and reports peak-live-B: the most
// the live heap grew over its level before the render, sampled every 100 zones and around
// each file that is not a zone's (the cleanup files and README.md, which grow with the
// account). The files go to io.Discard: WriteZones streams them to disk the same way.
func BenchmarkWriteZones(b *testing.B) {
	for _, n := range []int{500, 2000} {
		b.Run(fmt.Sprintf("zones=%d", n), func(b *testing.B) { benchWriteZones(b, n) })
	}
}

func benchWriteZones(b *testing.B, zoneCount int) {
	p := generatedPlan(b, zoneCount)
	retired := 0
	for _, z := range p.Zones {
		retired += len(z.Retired)
	}
	head, zones := spilled(b, p)
	p = nil
	var peak uint64
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		base := liveHeap()
		sample := func() {
			if h := liveHeap(); h > base && h-base > peak {
				peak = h - base
			}
		}
		n := 0
		every := func(fn func(*migrate.ZonePlan) error) error {
			return zones(func(z *migrate.ZonePlan) error {
				if n++; n%100 == 0 {
					sample()
				}
				return fn(z)
			})
		}
		err := generate(head, every, true, func(name string, write func(io.Writer) error) error {
			if strings.HasPrefix(name, "zone_") {
				return write(io.Discard)
			}
			sample()
			err := write(io.Discard)
			sample()
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(peak), "peak-live-B")
	b.ReportMetric(float64(retired), "retired")
}
