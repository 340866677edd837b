package scanner

import (
	"math/rand/v2"
	"os"
	"reflect"
	"testing"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/safefile"
)

// spillSnapshot has every kind of finding, colliding fingerprints within a zone, a zone
// listed twice and a zone id under two names.
func spillSnapshot() *inventory.Snapshot {
	snap := richSnapshot()
	dup := zoneOn("free")
	dup.Zone.ID, dup.Zone.Name = "dups", "dups.example"
	dup.DNSRecords = []inventory.DNSRecord{
		{ID: "dup", Type: "SRV", Name: "_imap._tcp.example.com", Data: &inventory.RecordData{Service: ptr("_imap"), Proto: ptr("_tcp"), Name: ptr("example.com")}},
		{ID: "dup", Type: "SRV", Name: "_pop3._tcp.example.com", Data: &inventory.RecordData{Service: ptr("_imap"), Proto: ptr("_pop3"), Name: ptr("example.com")}},
		{ID: "dup", Type: "SRV", Name: "_pop3._tcp.example.com", Data: &inventory.RecordData{Service: ptr("_imap"), Proto: ptr("_pop3"), Name: ptr("example.com")}},
	}
	renamed := snap.Zones[1]
	renamed.Zone.Name = "renamed.example"
	snap.Zones = append(snap.Zones, dup, snap.Zones[0], renamed, dup)
	return snap
}

// spilledScan scans snap as ScanSnapshot does with a spill after every zone.
func spilledScan(t *testing.T, snap *inventory.Snapshot, dir string) (Result, *FindingList) {
	t.Helper()
	l := NewLive(nil, Options{AsOf: asOf2024, SpillAfter: 1, SpillDir: dir})
	for i := range snap.Zones {
		l.Zone(&snap.Zones[i])
	}
	res, list, err := l.ResultList(snap)
	if err != nil {
		t.Fatal(err)
	}
	if !list.Spilled() {
		t.Fatal("the scan did not spill")
	}
	return res, list
}

// openTemps is how many temporary files (safefile.Temp) the process has open: they have
// no name, so no listing of their directory shows them.
func openTemps() int {
	n, _ := safefile.TempInUse()
	return n
}

func TestSpilledScanEqualsInMemory(t *testing.T) {
	snap := spillSnapshot()
	want := ScanSnapshot(snap, nil, Options{AsOf: asOf2024})
	dir := t.TempDir()
	before := openTemps()
	res, list := spilledScan(t, snap, dir)
	got := list.Slice()
	if err := list.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want.Findings) < 50 || !reflect.DeepEqual(got, want.Findings) {
		t.Fatalf("spilled findings differ from the in-memory ones: %d against %d\n%s", len(got), len(want.Findings), dump(got))
	}
	res.Findings = want.Findings
	if !reflect.DeepEqual(res, want) {
		t.Error("the rest of the result differs")
	}
	if err := list.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 || openTemps() > before {
		t.Errorf("temporary files left: %v, %d open", left, openTemps()-before)
	}
}

func TestSpilledListReadInAnyOrder(t *testing.T) {
	res, list := spilledScan(t, spillSnapshot(), t.TempDir())
	defer func() { _ = list.Close() }()
	_ = res
	seq := list.Slice()
	r := rand.New(rand.NewPCG(3, 4))
	for range 3 * len(seq) {
		i := r.IntN(len(seq))
		if got := list.At(i); !reflect.DeepEqual(got, seq[i]) {
			t.Fatalf("At(%d) = %+v, want %+v", i, got, seq[i])
		}
	}
	for i, f := range list.All() {
		if !reflect.DeepEqual(f, seq[i]) {
			t.Fatalf("All()'s %d differs", i)
		}
	}
}

func TestLiveResultReadsASpillBack(t *testing.T) {
	snap := spillSnapshot()
	dir := t.TempDir()
	before := openTemps()
	l := NewLive(nil, Options{AsOf: asOf2024, SpillAfter: 1, SpillDir: dir})
	for i := range snap.Zones {
		l.Zone(&snap.Zones[i])
	}
	if got, want := l.Result(snap), ScanSnapshot(snap, nil, Options{AsOf: asOf2024}); !reflect.DeepEqual(got, want) {
		t.Error("Result of a spilled scan differs from ScanSnapshot's")
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 || openTemps() > before {
		t.Errorf("temporary files left: %v, %d open", left, openTemps()-before)
	}
}

func TestSpillAfterKeepsSmallScansInMemory(t *testing.T) {
	snap := spillSnapshot()
	l := NewLive(nil, Options{AsOf: asOf2024, SpillAfter: 1 << 20, SpillDir: t.TempDir()})
	for i := range snap.Zones {
		l.Zone(&snap.Zones[i])
	}
	_, list, err := l.ResultList(snap)
	if err != nil || list.Spilled() {
		t.Fatalf("spilled below the threshold (err %v)", err)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	full := Finding{
		RuleID: "r", Severity: SeverityError, Title: "t", Message: "m\x00ü", Source: SourceFile,
		AccountID: "a", ZoneID: "z", ZoneName: "n", Resource: Resource{Kind: "k", ID: "i", Name: "rn"},
		Location:     &Location{Path: "p.tf", StartLine: 1, StartColumn: -2, EndLine: 1 << 40, EndColumn: 4},
		DeprecatedOn: "2024-01-01", EndOfLife: "2025-01-01", Replacement: "x", DocURL: "https://d",
		Fingerprint: Fingerprint("f"), Suppressed: true, SuppressedBy: "baseline",
	}
	for _, f := range []Finding{{}, full, {Location: &Location{}}, {Severity: SeverityNone - 1}} {
		var d recordDecoder
		b := appendFinding([]byte("x"), &f)[1:]
		var got Finding
		rest, err := d.decode(append(b, 'y'), &got)
		if err != nil || string(rest) != "y" || !reflect.DeepEqual(got, f) {
			t.Errorf("round trip of %+v: %+v, rest %q, %v", f, got, rest, err)
		}
	}
}

func FuzzRecordDecode(f *testing.F) {
	f.Add(appendFinding(nil, &Finding{Location: &Location{Path: "p"}, Message: "m"}))
	f.Fuzz(func(t *testing.T, b []byte) {
		var d recordDecoder
		var got Finding
		if _, err := d.decode(b, &got); err != nil {
			return
		}
		// What decodes encodes to a record that decodes to the same finding.
		var again Finding
		if _, err := d.decode(appendFinding(nil, &got), &again); err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("re-encoded %+v decodes to %+v (%v)", got, again, err)
		}
	})
}

// BenchmarkFindingList measures a spilled list: writing it, then reading it in order and
// nearly in order (At), per finding.
func BenchmarkFindingList(b *testing.B) {
	fs := ScanSnapshot(bigSnapshot(50), nil, Options{AsOf: asOf2024}).Findings
	dir := b.TempDir()
	b.Run("write", func(b *testing.B) {
		for b.Loop() {
			list, err := WriteFindingList(dir, fs)
			if err != nil {
				b.Fatal(err)
			}
			_ = list.Close()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(fs)), "ns/finding")
	})
	list, err := WriteFindingList(dir, fs)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = list.Close() }()
	b.Run("read", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, f := range list.All() {
				if f.Fingerprint == "" {
					b.Fatal("empty finding")
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(fs)), "ns/finding")
	})
}

// TestZoneFindingsAreTheZoneScannedAlone shows that a zone's findings handed back as the scan
// goes, spilling or not, are those of a scan of the zone alone, and that the scan's result
// does not change.
func TestZoneFindingsAreTheZoneScannedAlone(t *testing.T) {
	snap := spillSnapshot()
	for _, spillAfter := range []int{0, 1} {
		l := NewLive(nil, Options{AsOf: asOf2024, SpillAfter: spillAfter, SpillDir: t.TempDir()})
		for i := range snap.Zones {
			one := snapOf([]inventory.ZoneInventory{snap.Zones[i]})
			want := ScanSnapshot(one, nil, Options{AsOf: asOf2024}).Findings
			if got := l.ZoneFindings(&snap.Zones[i]); !reflect.DeepEqual(got, want) {
				t.Errorf("spill after %d: zone %s: %d findings, want %d", spillAfter, snap.Zones[i].Zone.Name, len(got), len(want))
			}
		}
		if got, want := l.Result(snap), ScanSnapshot(snap, nil, Options{AsOf: asOf2024}); !reflect.DeepEqual(got, want) {
			t.Errorf("spill after %d: the result differs from ScanSnapshot's", spillAfter)
		}
	}
}
