package apply

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// FuzzLoadJournal: a journal of any bytes is read without a panic, and one that loads has
// its entries in sequence (the loader refuses the rest).
func FuzzLoadJournal(f *testing.F) {
	path := filepath.Join(f.TempDir(), "j")
	p := &migrate.Plan{SchemaVersion: migrate.SchemaVersion, Zones: []migrate.ZonePlan{{ZoneID: "z1", Steps: []migrate.Step{{ID: "s", Kind: migrate.KindWAFOff}}}}}
	j, err := CreateJournal(path, p, &inventory.Snapshot{}, "http://127.0.0.1/client/v4")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range []Entry{
		{Event: EventBegin, Scope: "zone", ID: "z1", Step: "s", Before: []byte(`{"value":"on"}`)},
		{Event: EventDone, Scope: "zone", ID: "z1", Step: "s"},
		{Event: EventUndone, Scope: "zone", ID: "z1", Step: "s"},
	} {
		if err := j.Record(e); err != nil {
			f.Fatal(err)
		}
	}
	_ = j.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := loadFrom("fuzz", bytes.NewReader(data))
		if err != nil {
			return
		}
		if l.Plan == nil || int64(l.seq) != l.Entries {
			t.Fatalf("loaded without a plan, or %d entries up to seq %d", l.Entries, l.seq)
		}
	})
}
