package apply_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/apply"
)

// writeBenchJournal writes a journal of entries lines over steps distinct steps (begin
// with what the step overwrote, then done with the ids created, as a long apply resumed
// many times writes) and returns its path.
func writeBenchJournal(b *testing.B, entries, steps int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "journal")
	j, err := apply.CreateJournal(path, &migrate.Plan{}, nil, "http://127.0.0.1/client/v4")
	if err != nil {
		b.Fatal(err)
	}
	_ = j.Close()
	head, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	last := sha256.Sum256(head)
	before := json.RawMessage(`{"value":"` + string(bytes.Repeat([]byte("x"), 160)) + `"}`)
	for n := 1; n <= entries; n++ {
		i := (n - 1) / 2 % steps
		e := apply.Entry{Seq: int64(n), Prev: hex.EncodeToString(last[:]), Event: apply.EventBegin, Scope: "zone",
			ID: fmt.Sprintf("%032d", i/10), Step: "s" + strconv.Itoa(i%10), Kind: "setting.change", Method: "PATCH",
			Path: fmt.Sprintf("/zones/%032d/settings/s%d", i/10, i%10), Before: before, Time: "2026-11-26T20:00:00.123456789Z"}
		if n%2 == 0 {
			e.Event, e.Before, e.Created = apply.EventDone, nil, map[string]string{"id": strconv.Itoa(n)}
		}
		line, _ := json.Marshal(e)
		line = append(line, '\n')
		_, _ = w.Write(line)
		last = sha256.Sum256(line)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkLoadJournal loads journals of 400,000 entries (about 140 MB): one of a long
// apply resumed many times (20,000 steps, each begun and done 10 times) and one of a single
// pass over 200,000 steps. The memory held is bounded by the steps, not by the entries. It
// reports the bytes allocated per entry (garbage, mostly decoded strings), the heap the
// loaded journal holds per step and against the file's size.
//
//	go test -run '^$' -bench LoadJournal -benchtime 3x ./migrate/apply
func BenchmarkLoadJournal(b *testing.B) {
	for _, bc := range []struct {
		name           string
		entries, steps int
	}{
		{"resumed", 400_000, 20_000},
		{"one-pass", 400_000, 200_000},
	} {
		b.Run(bc.name, func(b *testing.B) { benchLoad(b, bc.entries, bc.steps) })
	}
}

func benchLoad(b *testing.B, entries, steps int) {
	path := writeBenchJournal(b, entries, steps)
	info, _ := os.Stat(path)
	b.SetBytes(info.Size())
	b.ResetTimer()
	var alloc, live uint64
	for i := 0; i < b.N; i++ {
		var m0, m1, m2 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		l, err := apply.LoadJournal(path)
		if err != nil {
			b.Fatal(err)
		}
		runtime.ReadMemStats(&m1)
		runtime.GC()
		runtime.ReadMemStats(&m2)
		if l.Entries != int64(entries) || len(l.Done()) != steps {
			b.Fatalf("%d entries, %d done; want %d, %d", l.Entries, len(l.Done()), entries, steps)
		}
		alloc += m1.TotalAlloc - m0.TotalAlloc
		live += m2.HeapAlloc - m0.HeapAlloc
		runtime.KeepAlive(l)
	}
	b.ReportMetric(float64(alloc)/float64(b.N)/float64(entries), "alloc-B/entry")
	b.ReportMetric(float64(live)/float64(b.N)/float64(steps), "live-B/step")
	b.ReportMetric(float64(live)/float64(b.N)/float64(info.Size()), "live/file")
}
