package collect

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// TestOnZoneScanEqualsSnapshotScan shows that scanning each zone as it is handed over, then
// the stripped snapshot, finds exactly what scanning the whole snapshot finds, and that the
// stripped snapshot no longer holds the zones' objects.
func TestOnZoneScanEqualsSnapshotScan(t *testing.T) {
	for _, data := range []*inventory.Snapshot{seed.Demo(), seed.Generate(60, 7)} {
		testOnZoneScan(t, data)
	}
}

func testOnZoneScan(t *testing.T, data *inventory.Snapshot) {
	ts := startEmulator(t, data, 0)
	asOf := scanner.Options{AsOf: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}

	full, err := Collect(context.Background(), clientSource{newClient(t, ts.URL+emulator.BasePath, 4)}, clientOptions(4))
	if err != nil {
		t.Fatal(err)
	}
	want := scanner.ScanSnapshot(full, nil, asOf)

	live := scanner.NewLive(nil, asOf)
	var mu sync.Mutex
	seen := map[string]int{}
	opts := clientOptions(4)
	opts.OnZone = func(z *inventory.ZoneInventory) {
		mu.Lock()
		seen[z.Zone.ID]++
		mu.Unlock()
		live.Zone(z)
	}
	stripped, err := Collect(context.Background(), clientSource{newClient(t, ts.URL+emulator.BasePath, 4)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	got := live.Result(stripped)
	if len(want.Findings) == 0 {
		t.Fatal("the account gives no findings: the comparison would prove nothing")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("streamed scan differs: %d findings, want %d", len(got.Findings), len(want.Findings))
	}
	if len(seen) != len(full.Zones) {
		t.Errorf("OnZone saw %d zones, want %d", len(seen), len(full.Zones))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("zone %s handed over %d times", id, n)
		}
	}
	for _, z := range stripped.Zones {
		if z.FirewallRules != nil || z.DNSRecords != nil || z.Settings != nil || z.Rulesets != nil || z.WAFPackages != nil {
			t.Errorf("zone %s kept its objects after OnZone", z.Zone.Name)
		}
		if z.Requests == 0 {
			t.Errorf("zone %s lost its request count", z.Zone.Name)
		}
	}
}
