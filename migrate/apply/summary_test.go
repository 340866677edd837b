package apply_test

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// carriedOver counts the plan's findings a rescan of the account still reports.
func carriedOver(a *account, p *migrate.Plan) int {
	a.t.Helper()
	ours := map[string]bool{}
	for _, st := range p.Steps() {
		for _, fp := range st.Resolves {
			ours[fp] = true
		}
	}
	for _, fp := range p.Unplanned {
		ours[fp] = true
	}
	_, rescan := a.scan()
	n := 0
	for _, f := range rescan.Findings {
		if ours[f.Fingerprint] {
			n++
		}
	}
	return n
}

// sameObjects reports whether sum counts the objects the plan's own summary does (its
// changes are Summary's changes and pauses); with keepOld the deletions are held back.
func sameObjects(sum apply.Summary, p *migrate.Plan, keepOld bool) bool {
	deleted, held := p.Summary.Delete, 0
	if keepOld {
		deleted, held = 0, p.Summary.Delete
	}
	return sum.Created == p.Summary.Create && sum.Changed == p.Summary.Change && sum.Paused == p.Summary.Pause && sum.Paused > 0 &&
		sum.Deleted == deleted && sum.Held == held
}

// TestSummaryOfAnApply: a finished apply counts every object the plan changes as
// created, changed, paused or deleted, every scope done, and the findings it leaves are
// those a rescan reports, every one for a manual step.
func TestSummaryOfAnApply(t *testing.T) {
	a := serve(t, seed.Demo(), emulator.Options{})
	p, before := a.plan()
	sum := apply.Summarize(p, a.run(p, before, apply.Options{}), nil)
	if !sameObjects(sum, p, false) {
		t.Errorf("summary %+v, the plan's %+v", sum, p.Summary)
	}
	if sum.Scopes != (apply.ScopeCounts{Done: len(p.Accounts) + len(p.Zones)}) {
		t.Errorf("scopes %+v, want all %d done", sum.Scopes, len(p.Accounts)+len(p.Zones))
	}
	if got := carriedOver(a, p); sum.Left.Total != got || sum.Left.Manual != got || got == 0 {
		t.Errorf("findings left %+v, a rescan reports %d of the plan's", sum.Left, got)
	}
}

// TestSummaryKeepOld: with --keep-old the scopes whose deletions wait are partial, never
// done, nothing is deleted, and the findings left count the old objects kept apart.
func TestSummaryKeepOld(t *testing.T) {
	a := serve(t, seed.Demo(), emulator.Options{})
	p, before := a.plan()
	res := a.run(p, before, apply.Options{KeepOld: true})
	sum := apply.Summarize(p, res, nil)
	if !sameObjects(sum, p, true) {
		t.Errorf("summary %+v, the plan's %+v with --keep-old", sum, p.Summary)
	}
	partial := 0
	for _, sc := range res.Scopes {
		if sc.Count(apply.OutcomeHeld) > 0 {
			partial++
		}
	}
	if partial == 0 || sum.Scopes.Partial != partial || sum.Scopes.Done != len(res.Scopes)-partial {
		t.Errorf("scopes %+v, want %d partial (held back deletions) and the rest done", sum.Scopes, partial)
	}
	got := carriedOver(a, p)
	if sum.Left.Total != got || sum.Left.KeptOld == 0 || sum.Left.Manual+sum.Left.KeptOld != got {
		t.Errorf("findings left %+v, a rescan reports %d of the plan's", sum.Left, got)
	}
}

// TestSummaryStoppedScope: a zone stopped as stale counts as stopped, and what it did not
// reach is in the findings left.
func TestSummaryStoppedScope(t *testing.T) {
	a := serve(t, seed.Demo(), emulator.Options{})
	p, before := a.plan()
	for _, st := range p.Steps() {
		if st.Kind == migrate.KindFirewallRulePause {
			body := strings.Replace(string(st.Body), `"paused":true`, `"paused":false,"description":"edited since the scan"`, 1)
			if err := a.client.Call(context.Background(), "PUT", st.Path, []byte(body), nil); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	sum := apply.Summarize(p, a.run(p, before, apply.Options{}), nil)
	if sum.Scopes.Stopped != 1 || sum.Scopes.Done != len(p.Accounts)+len(p.Zones)-1 {
		t.Errorf("scopes %+v, want 1 stopped, the rest done", sum.Scopes)
	}
	got := carriedOver(a, p)
	if sum.Left.Total != got || sum.Left.NotReached == 0 || sum.Left.Manual+sum.Left.NotReached != got {
		t.Errorf("findings left %+v, a rescan reports %d of the plan's", sum.Left, got)
	}
}

// TestSummaryManualSteps: the manual steps are counted by kind, most first, in words, and
// add up to the plan's; a dry run's summary is what the apply would do.
func TestSummaryManualSteps(t *testing.T) {
	a := serve(t, seed.Demo(), emulator.Options{})
	p, before := a.plan()
	sum := apply.Summarize(p, a.run(p, before, apply.Options{DryRun: true}), &apply.Rescan{Severity: func(string, bool) string { return "notice" }})
	kinds := map[string]int{}
	for _, st := range p.Steps() {
		if st.Manual {
			kinds[string(st.Kind)]++
		}
	}
	total := 0
	for i, m := range sum.Manual {
		total += m.Count
		if kinds[m.Kind] != m.Count || m.What == "" || strings.Contains(m.What, m.Kind) {
			t.Errorf("%s: %d %q, the plan has %d", m.Kind, m.Count, m.What, kinds[m.Kind])
		}
		if i > 0 && sum.Manual[i-1].Count < m.Count {
			t.Errorf("%s (%d) after %s (%d)", m.Kind, m.Count, sum.Manual[i-1].Kind, sum.Manual[i-1].Count)
		}
	}
	if len(kinds) < 2 || len(sum.Manual) != len(kinds) || total != p.Summary.Manual || sum.ManualSteps != total {
		t.Errorf("%d manual kinds, %d steps (%d), the plan has %d kinds, %d steps", len(sum.Manual), total, sum.ManualSteps, len(kinds), p.Summary.Manual)
	}
	if !sameObjects(sum, p, false) {
		t.Errorf("dry run summary %+v, the plan's %+v", sum, p.Summary)
	}
	if sum.Left.BySeverity["notice"] != sum.Left.Total || sum.Left.Total == 0 {
		t.Errorf("findings left %+v", sum.Left)
	}
}

// TestSummaryCountsWhatTheApplyCreates: the findings a summary says a rescan will report
// are the ones it reports, by severity, those on the rules the apply creates included
// (custom rules created disabled because they still name cf.threat_score), and none of a
// review of an object the apply deleted, nor of a review of how old objects stood together
// (a filter two rules shared, a free plan's quota the old rules overran) once the apply
// deleted them. The dry run's projection is the apply's. Each generated account has one of
// these kinds.
func TestSummaryCountsWhatTheApplyCreates(t *testing.T) {
	for _, tc := range []struct {
		zones int
		seed  int64
	}{{24, 1}, {24, 3}, {48, 1}} {
		t.Run(fmt.Sprintf("zones=%d/seed=%d", tc.zones, tc.seed), func(t *testing.T) {
			projectionHolds(t, seed.Generate(tc.zones, tc.seed))
		})
	}
}

// projectionHolds applies the plan of data and checks the summary's projection against a
// rescan.
func projectionHolds(t *testing.T, data *inventory.Snapshot) {
	a := serve(t, data, emulator.Options{})
	snap, res := a.scan()
	p := migrate.Build(snap, res, migrate.Options{AsOf: a.day})
	rescan := apply.NewRescan(snap, res.Findings, func(z *inventory.ZoneInventory) []scanner.Finding {
		return scanner.ScanSnapshot(&inventory.Snapshot{Zones: []inventory.ZoneInventory{*z}}, nil, scanner.Options{AsOf: a.day}).Findings
	})
	dry := apply.Summarize(p, a.run(p, snap, apply.Options{DryRun: true}), rescan)
	sum := apply.Summarize(p, a.run(p, snap, apply.Options{}), rescan)
	_, after := a.scan()
	got := map[string]int{}
	for _, f := range after.Findings {
		got[f.Severity.String()]++
	}
	if sum.Left.Created == 0 {
		t.Fatalf("nothing counted on what the apply creates: %+v", sum.Left)
	}
	if sum.Left.Total != len(after.Findings) || !maps.Equal(sum.Left.BySeverity, got) {
		t.Errorf("the summary says a rescan reports %d %v, it reports %d %v", sum.Left.Total, sum.Left.BySeverity, len(after.Findings), got)
	}
	if !reflect.DeepEqual(dry.Left, sum.Left) {
		t.Errorf("the dry run foresees %+v, the apply %+v", dry.Left, sum.Left)
	}
}
