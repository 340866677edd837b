package reports

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// spillReports renders a report in every format, with the plan for the formats that show
// it.
func spillReports(t *testing.T, rep *Report, p *migrate.Plan) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, format := range Formats() {
		r, err := New(format, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r = WithPlan(r, p)
		var b bytes.Buffer
		if err := r.Write(&b, rep); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		out[format] = b.String()
	}
	return out
}

// sameReports checks that a report over a spilled list reads as the one over the slice.
func sameReports(t *testing.T, in Input, list *scanner.FindingList, p *migrate.Plan) {
	t.Helper()
	want := spillReports(t, NewReport(in), p)
	in.Findings, in.List = nil, list
	got := spillReports(t, NewReport(in), p)
	if err := list.Err(); err != nil {
		t.Fatal(err)
	}
	for format, w := range want {
		if got[format] != w {
			t.Errorf("%s differs when the findings are spilled (%d bytes against %d)", format, len(got[format]), len(w))
		}
	}
}

// TestSpilledFindingsGiveTheSameReports renders every format of a scan whose findings went
// to a temporary file after each zone (a zone listed twice, so fingerprints collide, and
// account findings) and of findings partly suppressed, and compares them byte for byte with
// the reports of the same findings in memory.
func TestSpilledFindingsGiveTheSameReports(t *testing.T) {
	asOf := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	snap := seed.Generate(12, 1)
	snap.Zones = append(snap.Zones, snap.Zones[3])
	cat := catalog.Default()
	res := scanner.ScanSnapshot(snap, cat, scanner.Options{AsOf: asOf})
	p := migrate.Build(snap, res, migrate.Options{AsOf: asOf, Catalog: cat})
	in := Input{
		AsOf: asOf, Source: Source{Kind: SourceSnapshot, Target: "generated.json"}, Findings: res.Findings,
		Errors: res.Errors, Retired: res.Retired, Counts: Counts{ZonesScanned: res.Zones, Accounts: res.Accounts}, Rules: cat,
		AccountNames: AccountNames(snap.Accounts),
	}
	dir := t.TempDir()
	t.Run("scan", func(t *testing.T) {
		l := scanner.NewLive(cat, scanner.Options{AsOf: asOf, SpillAfter: 1, SpillDir: dir})
		for i := range snap.Zones {
			l.Zone(&snap.Zones[i])
		}
		_, list, err := l.ResultList(snap)
		if err != nil || !list.Spilled() {
			t.Fatalf("not spilled: %v", err)
		}
		defer func() { _ = list.Close() }()
		accounts := 0
		for _, f := range list.All() {
			if f.ZoneID == "" {
				accounts++
			}
		}
		if accounts == 0 || list.Len() < 100 {
			t.Fatalf("%d findings, %d of accounts: want many, some of accounts", list.Len(), accounts)
		}
		sameReports(t, in, list, p)
	})
	t.Run("suppressed", func(t *testing.T) {
		fs := append([]scanner.Finding(nil), res.Findings...)
		for i := range fs {
			if i%5 == 0 {
				fs[i].Suppressed, fs[i].SuppressedBy = true, "baseline"
			}
		}
		fs = append(sampleFindings(), fs...)
		list, err := scanner.WriteFindingList(dir, fs)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = list.Close() }()
		in := in
		in.Findings = fs
		sameReports(t, in, list, p)
	})
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
