package migrate_test

import (
	"bytes"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/verify"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// spillPlan plans snap a zone at a time, as a scan does while it collects: each zone scanned
// alone, planned, verified and spilled; then the accounts from the whole scan's findings.
func spillPlan(t *testing.T, snap *inventory.Snapshot, res scanner.Result) (*migrate.Spill, *migrate.Plan) {
	t.Helper()
	sp, err := migrate.NewSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sp.Close() })
	opts := migrate.Options{AsOf: goldenAsOf}
	// Backwards, so that the spill has to put the zones in order.
	for i := len(snap.Zones) - 1; i >= 0; i-- {
		check := func(zp *migrate.ZonePlan, z *inventory.ZoneInventory) { zp.Verification = verify.Zone(zp, z) }
		one := &inventory.Snapshot{Zones: []inventory.ZoneInventory{snap.Zones[i]}}
		fs := scanner.ScanSnapshot(one, nil, scanner.Options{AsOf: goldenAsOf}).Findings
		if err := sp.Zone(&snap.Zones[i], fs, opts, check); err != nil {
			t.Fatal(err)
		}
	}
	head, err := sp.Finish(snap, scanner.NewFindingList(res.Findings), opts)
	if err != nil {
		t.Fatal(err)
	}
	return sp, head
}

// TestSpillPlanIsBuildPlan shows that a plan built, verified and spilled a zone at a time
// writes the same plan.json and plan.md as the whole plan Build gives, and reads back as
// that plan: the demo, and a generated account whose zones have hundreds of steps (spilled
// a step at a time).
func TestSpillPlanIsBuildPlan(t *testing.T) {
	for _, snap := range []*inventory.Snapshot{seed.Demo(), seed.Generate(40, 3)} {
		testSpillPlanIsBuildPlan(t, snap)
	}
}

func testSpillPlanIsBuildPlan(t *testing.T, snap *inventory.Snapshot) {
	// A file finding and a finding of a zone the snapshot does not hold: no step takes them.
	res := scanner.ScanSnapshot(snap, nil, scanner.Options{AsOf: goldenAsOf})
	res.Findings = append(res.Findings,
		scanner.Finding{Fingerprint: "file-finding", Source: "repo"},
		scanner.Finding{Fingerprint: "gone-zone", ZoneID: "gone", Source: scanner.SourceLive})
	p := migrate.Build(snap, res, migrate.Options{AsOf: goldenAsOf})
	verify.Verify(p, snap)
	var want bytes.Buffer
	if err := p.WriteJSON(&want); err != nil {
		t.Fatal(err)
	}
	if len(p.Zones) < 2 || len(p.Unplanned) < 2 {
		t.Fatalf("the demo plans %d zones with %d unplanned findings: want a few of each", len(p.Zones), len(p.Unplanned))
	}
	sp, head := spillPlan(t, snap, res)
	var got bytes.Buffer
	if err := sp.WriteJSON(&got, head); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Fatalf("spilled plan.json differs from Build's at %s", firstDiff(got.String(), want.String()))
	}
	var wantMD, gotMD bytes.Buffer
	if err := p.WriteMarkdown(&wantMD); err != nil {
		t.Fatal(err)
	}
	if err := sp.WriteMarkdown(&gotMD, head); err != nil {
		t.Fatal(err)
	}
	if gotMD.String() != wantMD.String() {
		t.Fatalf("spilled plan.md differs from the whole plan's at %s", firstDiff(gotMD.String(), wantMD.String()))
	}
	whole := *head
	whole.Zones = []migrate.ZonePlan{}
	if err := sp.Zones(func(zp *migrate.ZonePlan) error {
		whole.Zones = append(whole.Zones, *zp)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := whole.WriteJSON(&again); err != nil {
		t.Fatal(err)
	}
	if again.String() != want.String() {
		t.Fatalf("spilled plan read back differs from Build's at %s", firstDiff(again.String(), want.String()))
	}
}

// TestSpillEmptyPlan: no zone with a step writes Build's empty plan.
func TestSpillEmptyPlan(t *testing.T) {
	snap := &inventory.Snapshot{Source: "empty"}
	res := scanner.ScanSnapshot(snap, nil, scanner.Options{AsOf: goldenAsOf})
	var want, got bytes.Buffer
	if err := migrate.Build(snap, res, migrate.Options{AsOf: goldenAsOf}).WriteJSON(&want); err != nil {
		t.Fatal(err)
	}
	sp, head := spillPlan(t, snap, res)
	if err := sp.WriteJSON(&got, head); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Fatalf("got %s, want %s", got.String(), want.String())
	}
}

// TestSpillRefusesAZoneTwice: a zone handed over twice would be planned twice.
func TestSpillRefusesAZoneTwice(t *testing.T) {
	sp, err := migrate.NewSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sp.Close() }()
	zp := migrate.ZonePlan{ZoneID: "z", ZoneName: "a.example"}
	if err := sp.Add("z", zp, true, nil); err != nil {
		t.Fatal(err)
	}
	if err := sp.Add("z", zp, true, nil); err == nil {
		t.Fatal("a zone added twice was taken")
	}
}
