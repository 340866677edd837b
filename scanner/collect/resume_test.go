package collect

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// TestResumeFetchesOnlyMissingZones interrupts a streamed collection after some zones,
// resumes it from the stream read back, and checks that no request of the resumed run
// names a zone the stream holds complete, and that the resumed stream equals an
// uninterrupted collection.
func TestResumeFetchesOnlyMissingZones(t *testing.T) {
	data := seed.Generate(40, 5)
	srv, err := emulator.New(emulator.Options{Seed: data, Token: emulatorToken})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	api := ts.URL + emulator.BasePath

	full, err := Collect(context.Background(), clientSource{newClient(t, api, 2)}, clientOptions(2))
	if err != nil {
		t.Fatal(err)
	}

	// First run: stopped once 15 zones were handed over.
	var buf bytes.Buffer
	sw, err := inventory.NewStreamWriter(&buf, "", streamTestStart)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	n := 0
	opts := clientOptions(2)
	opts.OnZone = func(z *inventory.ZoneInventory) {
		sw.Zone(z)
		mu.Lock()
		if n++; n == 15 {
			cancel()
		}
		mu.Unlock()
	}
	snap, err := Collect(ctx, clientSource{newClient(t, api, 2)}, opts)
	if err == nil || snap == nil {
		t.Fatalf("the first run was not interrupted: %v", err)
	}
	if err := sw.Finish(snap); err != nil {
		t.Fatal(err)
	}
	st, err := inventory.ReadStream(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Complete) == 0 || len(st.Complete) >= len(full.Zones) {
		t.Fatalf("%d zones complete of %d: the test proves nothing", len(st.Complete), len(full.Zones))
	}

	// Resumed run: appends to the stream, reusing the complete zones.
	client := newClient(t, api, 2)
	sw = inventory.AppendStreamWriter(&buf, st)
	opts = clientOptions(2)
	opts.OnZone = sw.Zone
	opts.Reuse = ReuseComplete(st)
	var last Progress
	opts.Progress = func(p Progress) { last = p }
	before := len(srv.Requests())
	resumed, err := Collect(context.Background(), clientSource{client}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := sw.Finish(resumed); err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.Requests()[before:] {
		for id := range st.Complete {
			if strings.Contains(r.Path, id) {
				t.Errorf("the resumed run fetched %s of a zone the stream holds complete", r.Path)
			}
		}
	}
	perZone := 0
	for _, z := range full.Zones {
		if !st.Complete[z.Zone.ID] {
			perZone += z.Requests
		}
	}
	// 1 account listing, 1 zone listing page, the account's parts, and the missing zones.
	if want := 1 + 1 + AccountRequests(&full.Accounts[0]) + perZone; int(client.Stats().Requests) != want {
		t.Errorf("resumed run sent %d requests, want %d", client.Stats().Requests, want)
	}
	if last.ZonesReused != len(st.Complete) || last.ZonesDone != len(full.Zones) || last.Requests != perZone {
		t.Errorf("progress: %+v, want %d reused of %d zones, %d requests", last, len(st.Complete), len(full.Zones), perZone)
	}
	final, err := inventory.ReadStream(&buf)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := json.Marshal(final.Snapshot)
	w, _ := json.Marshal(full)
	if !bytes.Equal(g, w) {
		t.Error("the resumed stream differs from an uninterrupted collection")
	}
}

var streamTestStart = time.Date(2026, 11, 24, 22, 0, 0, 0, time.UTC)
