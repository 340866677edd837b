package inventory_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

var streamStart = time.Date(2026, 11, 24, 22, 0, 0, 0, time.UTC)

// writeStream writes snap as a scan does: every zone, then Finish.
func writeStream(t testing.TB, snap *inventory.Snapshot) []byte {
	t.Helper()
	var buf bytes.Buffer
	sw, err := inventory.NewStreamWriter(&buf, snap.Source, streamStart)
	if err != nil {
		t.Fatal(err)
	}
	for i := range snap.Zones {
		sw.Zone(&snap.Zones[i])
	}
	if err := sw.Finish(snap); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if !bytes.Equal(g, w) {
		t.Fatalf("%s: the snapshot read back differs from the one written:\n%s\n%s", what, g, w)
	}
}

func TestStreamRoundTripAndOldFormat(t *testing.T) {
	snap := seed.Generate(30, 1)
	snap.Sort()
	st, err := inventory.ReadStream(bytes.NewReader(writeStream(t, snap)))
	if err != nil {
		t.Fatal(err)
	}
	if !st.Ended || st.Truncated || !st.Header.TakenAt.Equal(streamStart) || st.Header.TakenAtIs != inventory.TakenAtCollectionStart {
		t.Fatalf("header or end wrong: %+v ended=%v truncated=%v", st.Header, st.Ended, st.Truncated)
	}
	sameJSON(t, "stream", st.Snapshot, snap)

	var doc bytes.Buffer
	if err := snap.Write(&doc); err != nil {
		t.Fatal(err)
	}
	old, err := inventory.ReadStream(&doc)
	if err != nil {
		t.Fatal(err)
	}
	if !old.Header.TakenAt.IsZero() || len(old.Complete) != len(snap.Zones) {
		t.Fatalf("old format: taken_at %v, %d complete zones of %d", old.Header.TakenAt, len(old.Complete), len(snap.Zones))
	}
	sameJSON(t, "old format", old.Snapshot, snap)
}

// TestStreamSurvivesAKillAtAnyByte cuts the stream at every byte: the reader takes every
// cut, keeps exactly the zones whose line is whole, each as written, and a resumed writer
// appending the rest at Valid yields the whole snapshot.
func TestStreamSurvivesAKillAtAnyByte(t *testing.T) {
	snap := seed.Generate(3, 2)
	snap.Sort()
	data := writeStream(t, snap)
	byID := map[string]inventory.ZoneInventory{}
	for _, z := range snap.Zones {
		byID[z.Zone.ID] = z
	}
	headerLen := bytes.IndexByte(data, '\n') + 1
	for _, n := range cuts(data) {
		st, err := inventory.ReadStream(bytes.NewReader(data[:n]))
		if n < headerLen {
			if !errors.Is(err, inventory.ErrStreamHeaderCut) {
				t.Fatalf("cut at %d (in the header): %v", n, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("cut at %d: %v", n, err)
		}
		if whole := n == len(data) || data[n-1] == '\n'; st.Truncated == whole || st.Valid > int64(n) {
			t.Fatalf("cut at %d: truncated=%v valid=%d", n, st.Truncated, st.Valid)
		}
		if n < len(data) && !st.Snapshot.Incomplete {
			t.Fatalf("cut at %d: a cut stream reads as complete", n)
		}
		for _, z := range st.Snapshot.Zones {
			sameJSON(t, "zone "+z.Zone.Name, z, byID[z.Zone.ID])
		}
		resumed := append([]byte(nil), data[:st.Valid]...)
		buf := bytes.NewBuffer(resumed)
		sw := inventory.AppendStreamWriter(buf, st)
		for i := range snap.Zones {
			sw.Zone(&snap.Zones[i])
		}
		if err := sw.Finish(snap); err != nil {
			t.Fatal(err)
		}
		again, err := inventory.ReadStream(buf)
		if err != nil {
			t.Fatalf("cut at %d, resumed: %v", n, err)
		}
		sameJSON(t, "resumed", again.Snapshot, snap)
	}
}

func TestStreamLaterLinesWin(t *testing.T) {
	snap := seed.Generate(2, 3)
	snap.Sort()
	failed := snap.Zones[0]
	failed.Errors = []inventory.CollectError{{What: "zone", Message: "not scanned: interrupted"}}
	var buf bytes.Buffer
	sw, _ := inventory.NewStreamWriter(&buf, snap.Source, streamStart)
	sw.Zone(&failed)
	_ = sw.Finish(&inventory.Snapshot{Zones: []inventory.ZoneInventory{failed}, Incomplete: true})
	first, err := inventory.ReadStream(bytes.NewReader(buf.Bytes()))
	if err != nil || first.Complete[failed.Zone.ID] || !first.Snapshot.Incomplete || !first.Ended {
		t.Fatalf("interrupted zone: err %v complete %v", err, first.Complete)
	}
	sw = inventory.AppendStreamWriter(&buf, first)
	sw.Zone(&snap.Zones[0])
	sw.Zone(&snap.Zones[1])
	_ = sw.Finish(snap)
	st, err := inventory.ReadStream(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Complete) != 2 || st.Snapshot.Incomplete {
		t.Fatalf("after the resumed lines: %d complete, incomplete %v", len(st.Complete), st.Snapshot.Incomplete)
	}
	sameJSON(t, "later lines", st.Snapshot, snap)
}

func TestStreamRefusesNewerSchema(t *testing.T) {
	line := `{"format":"sunset-snapshot-stream","schema_version":99,"taken_at":"2026-01-01T00:00:00Z","taken_at_is":"collection start"}` + "\n"
	if _, err := inventory.ReadStream(bytes.NewReader([]byte(line))); err == nil {
		t.Fatal("a newer stream schema was read")
	}
}

// cuts are the kill points tried: every byte of the header, every line end and the bytes
// either side of it, and every 997th byte between (every byte of a stream would parse it
// quadratically often).
func cuts(data []byte) []int {
	var out []int
	headerEnd := bytes.IndexByte(data, '\n') + 1
	for n := 0; n <= len(data); n++ {
		if n <= headerEnd || n%997 == 0 || n == len(data) ||
			data[n-1] == '\n' || (n >= 2 && data[n-2] == '\n') || (n < len(data) && data[n] == '\n') {
			out = append(out, n)
		}
	}
	return out
}

// FuzzReadStream: any bytes read without a panic, and what is read whole ends within them.
func FuzzReadStream(f *testing.F) {
	snap := seed.Generate(1, 4)
	data := writeStream(f, snap)
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte(`{"format":"sunset-snapshot-stream","schema_version":1}` + "\n" + `{"end":{}}` + "\n" + `{"zone":{}}`))
	f.Add([]byte(`{"schema_version":1,"accounts":[],"zones":[]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		st, err := inventory.ReadStream(bytes.NewReader(in))
		if err == nil && (st.Valid > int64(len(in)) || st.Snapshot == nil) {
			t.Fatalf("valid %d of %d bytes, snapshot %v", st.Valid, len(in), st.Snapshot != nil)
		}
	})
}

// TestStreamDropsWhatAResumedRunNoLongerLists resumes a stream of three zones in an account
// that now lists two: the file read back holds the two, as an uninterrupted scan would.
func TestStreamDropsWhatAResumedRunNoLongerLists(t *testing.T) {
	snap := seed.Generate(3, 5)
	snap.Sort()
	first, err := inventory.ReadStream(bytes.NewReader(writeStream(t, snap)))
	if err != nil {
		t.Fatal(err)
	}
	now := *snap
	now.Zones = snap.Zones[1:]
	var buf bytes.Buffer
	buf.Write(writeStream(t, snap))
	sw := inventory.AppendStreamWriter(&buf, first)
	if err := sw.Finish(&now); err != nil {
		t.Fatal(err)
	}
	st, err := inventory.ReadStream(&buf)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "after the drop", st.Snapshot, &now)
}
