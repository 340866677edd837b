package collect

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// TestAdmitHoldsTheNextZoneBack shows Options.Admit deciding when a zone starts: a consumer
// that takes one zone at a time (its Admit waits for the last zone's hand-over) has no more
// than one zone read and not yet taken, however many workers there are, and every zone is
// read; an Admit that fails starts no more zones, and those are marked not scanned, as in an
// interrupted collection.
func TestAdmitHoldsTheNextZoneBack(t *testing.T) {
	data := seed.Generate(12, 3)
	ts := startEmulator(t, data, 0)

	var (
		mu             sync.Mutex
		started, taken int
		most           int
	)
	turn := make(chan struct{}, 1)
	turn <- struct{}{}
	opts := clientOptions(4)
	opts.Admit = func(ctx context.Context) error {
		select {
		case <-turn:
		case <-ctx.Done():
			return ctx.Err()
		}
		mu.Lock()
		started++
		most = max(most, started-taken)
		mu.Unlock()
		return nil
	}
	opts.OnZone = func(*inventory.ZoneInventory) {
		mu.Lock()
		taken++
		mu.Unlock()
		turn <- struct{}{}
	}
	snap, err := Collect(context.Background(), clientSource{newClient(t, ts.URL+emulator.BasePath, 4)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if taken != len(snap.Zones) || taken < 12 {
		t.Fatalf("%d zones handed over of %d", taken, len(snap.Zones))
	}
	if most != 1 {
		t.Errorf("at most %d zones were started and not handed over, want 1", most)
	}

	stop := errors.New("no more")
	admitted := 0
	opts = clientOptions(4)
	opts.Admit = func(context.Context) error {
		if admitted == 3 {
			return stop
		}
		admitted++
		return nil
	}
	snap, err = Collect(context.Background(), clientSource{newClient(t, ts.URL+emulator.BasePath, 4)}, opts)
	if !errors.Is(err, context.Canceled) || snap == nil || !snap.Incomplete {
		t.Fatalf("Admit failed after three zones: %v, want an incomplete snapshot and context.Canceled", err)
	}
	notScanned := 0
	for _, z := range snap.Zones {
		for _, e := range z.Errors {
			if e.Message == NotScannedInterrupted {
				notScanned++
			}
		}
	}
	if notScanned != len(snap.Zones)-3 {
		t.Errorf("%d of %d zones marked not scanned after three were admitted, want %d", notScanned, len(snap.Zones), len(snap.Zones)-3)
	}
}
