package migrate_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// incompleteDemo is the demo account as an incomplete scan leaves it: the firewall rules and
// rate limits of docs.example.test failed (its other parts were read, so it is planned), a
// zone was never started, and the account's tunnels failed. It returns the snapshot and the
// names of the two zones.
func incompleteDemo(t *testing.T) (snap *inventory.Snapshot, failed, notStarted string) {
	t.Helper()
	snap = seed.Demo()
	failed, notStarted = "docs.example.test", ""
	for i := range snap.Zones {
		z := &snap.Zones[i]
		switch {
		case z.Zone.Name == failed:
			z.Errors = []inventory.CollectError{{What: "rate_limits", Message: "500"}, {What: "firewall/rules", Message: "500"}, {What: "rate_limits", Message: "500 again"}}
		case notStarted == "":
			notStarted = z.Zone.Name
			*z = inventory.ZoneInventory{Zone: z.Zone, Errors: []inventory.CollectError{{What: "zone", Message: "not scanned: interrupted"}}}
		}
	}
	snap.Accounts[0].Errors = []inventory.CollectError{{What: "tunnels", Message: "500"}}
	snap.Incomplete = true
	return snap, failed, notStarted
}

// TestIncompletePlanMarked: a plan built from an incomplete scan is marked incomplete, with
// each zone and account not read whole and what was not read of it, in plan order; the
// plan a scan builds a zone at a time marks it the same (the same plan.json and plan.md),
// and plan.md says so at its top with the way to plan them whole. A complete plan's
// plan.json and plan.md say nothing of it.
func TestIncompletePlanMarked(t *testing.T) {
	snap, failed, notStarted := incompleteDemo(t)
	p, res := planOf(snap, goldenAsOf)
	if _, ok := p.Zone(failed); !ok {
		t.Fatalf("%s is not planned: the test proves nothing", failed)
	}
	want := []migrate.Unread{
		{Scope: migrate.ScopeAccount, ID: snap.Accounts[0].Account.ID, Name: snap.Accounts[0].Account.Name, Parts: []string{"tunnels"}},
	}
	for _, z := range []string{failed, notStarted} {
		for _, zi := range snap.Zones {
			if zi.Zone.Name == z {
				want = append(want, migrate.Unread{Scope: migrate.ScopeZone, ID: zi.Zone.ID, Name: z, Parts: []string{"firewall/rules", "rate_limits"}})
			}
		}
	}
	want[2].Parts = []string{"zone"}
	if failed > notStarted { // zones in plan order: by name
		want[1], want[2] = want[2], want[1]
	}
	if !p.Incomplete || !slices.EqualFunc(p.Unread, want, func(a, b migrate.Unread) bool {
		return a.Scope == b.Scope && a.ID == b.ID && a.Name == b.Name && slices.Equal(a.Parts, b.Parts)
	}) {
		t.Fatalf("incomplete %v, unread %+v; want true, %+v", p.Incomplete, p.Unread, want)
	}

	var whole, md bytes.Buffer
	if err := p.WriteJSON(&whole); err != nil {
		t.Fatal(err)
	}
	if err := p.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	sp, head := spillPlan(t, snap, res)
	var spilled, spilledMD bytes.Buffer
	if err := sp.WriteJSON(&spilled, head); err != nil {
		t.Fatal(err)
	}
	if err := sp.WriteMarkdown(&spilledMD, head); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(spilled.String(), `"incomplete": true`) || !strings.Contains(spilled.String(), `"parts": [`) {
		t.Errorf("the spilled plan.json is not marked:\n%.600s", spilled.String())
	}
	// Build's plan.json differs only by the verification the spill adds.
	if !strings.Contains(whole.String(), `"incomplete": true`) {
		t.Errorf("plan.json is not marked:\n%.600s", whole.String())
	}
	top := strings.SplitN(spilledMD.String(), "\n## ", 2)[0]
	for _, w := range []string{"**The scan was incomplete: this plan covers only what it read.**", "3 zones or accounts were not read whole",
		"- zone " + failed + " (`", "not read: `firewall/rules`, `rate_limits`", "- zone " + notStarted + " (`", "not read at all",
		"not read: `tunnels`", "`--partial`", "`sunset scan --resume SNAPSHOT --plan-dir DIR`"} {
		if !strings.Contains(top, w) {
			t.Errorf("the top of plan.md lacks %q:\n%s", w, top)
		}
	}
	if !strings.HasPrefix(md.String(), strings.SplitN(top, "**Plan:", 2)[0]) {
		t.Errorf("Build's plan.md opens otherwise than the spilled one's:\n%s", firstDiff(md.String(), spilledMD.String()))
	}

	complete, _ := planOf(seed.Demo(), goldenAsOf)
	var cj, cm bytes.Buffer
	_ = complete.WriteJSON(&cj)
	_ = complete.WriteMarkdown(&cm)
	if strings.Contains(cj.String(), `"incomplete"`) || strings.Contains(cj.String(), `"unread"`) || strings.Contains(cm.String(), "incomplete") {
		t.Error("a complete plan says something of an incomplete scan")
	}
}

// TestSameAsHoldsTheMarks: a plan edited to drop what it says of an incomplete scan (the
// mark, a zone's mark, what was not read, its source) is refused by its rebuild, as any
// other edited plan, and marked again from its snapshot by WithMarksOf (verify); the plan
// of the zones read whole (ReadWhole, what apply --partial carries out and journals) is not
// refused, against the whole snapshot or the part of it a journal keeps; narrowing a plan
// narrows its marks.
func TestSameAsHoldsTheMarks(t *testing.T) {
	snap, failed, _ := incompleteDemo(t)
	p, _ := planOf(snap, goldenAsOf)
	built, err := p.Rebuild(snap, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SameAs(built); err != nil {
		t.Fatalf("the plan as built: %v", err)
	}
	zone, _ := p.Zone(failed)
	for _, c := range []struct {
		name string
		edit func(q *migrate.Plan)
		want string
	}{
		{"unmarked", func(q *migrate.Plan) { q.Incomplete, q.Unread = false, nil }, "plan: it is not marked incomplete"},
		{"zone unmarked", func(q *migrate.Plan) {
			q.Unread = slices.DeleteFunc(slices.Clone(q.Unread), func(u migrate.Unread) bool { return u.ID == zone.ZoneID })
		}, "zone " + zone.ZoneID + ": not marked unread, and its snapshot says firewall/rules, rate_limits were not read"},
		{"parts dropped", func(q *migrate.Plan) {
			q.Unread = slices.Clone(q.Unread)
			for i := range q.Unread {
				if q.Unread[i].ID == zone.ZoneID {
					q.Unread[i].Parts = []string{"rate_limits"}
				}
			}
		}, "marked unread in rate_limits, and its snapshot says firewall/rules, rate_limits"},
		{"source", func(q *migrate.Plan) { q.Source = "https://api.example.test/client/v4" }, `its source "https://api.example.test/client/v4" is not its snapshot's`},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := *p
			c.edit(&q)
			if err := q.SameAs(built); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
			// Verify builds nothing again: it takes the snapshot's marks too.
			if m := q.WithMarksOf(snap); !m.Incomplete || !slices.Equal(unreadIDs(m), unreadIDs(p)) {
				t.Errorf("WithMarksOf: incomplete %v, unread %v; want the snapshot's %v", m.Incomplete, unreadIDs(m), unreadIDs(p))
			}
		})
	}

	whole := p.ReadWhole()
	unreadAccount := snap.Accounts[0].Account.ID
	if !slices.ContainsFunc(p.Accounts, func(a migrate.AccountPlan) bool { return a.AccountID == unreadAccount }) {
		t.Fatalf("account %s is not planned: the test proves nothing", unreadAccount)
	}
	if _, ok := whole.Zone(failed); ok || len(whole.Accounts) != len(p.Accounts)-1 || len(whole.Zones) != len(p.Zones)-1 ||
		slices.ContainsFunc(whole.Accounts, func(a migrate.AccountPlan) bool { return a.AccountID == unreadAccount }) ||
		!slices.Equal(unreadIDs(whole), unreadIDs(p)) || !whole.Incomplete {
		t.Fatalf("ReadWhole: %d of %d zones, %d of %d accounts, unread %v: want the scopes read whole, the marks kept",
			len(whole.Zones), len(p.Zones), len(whole.Accounts), len(p.Accounts), unreadIDs(whole))
	}
	if err := whole.SameAs(built); err != nil {
		t.Fatalf("the plan of the zones read whole: %v", err)
	}
	part := &inventory.Snapshot{SchemaVersion: snap.SchemaVersion, Source: snap.Source}
	for _, z := range snap.Zones {
		if _, ok := whole.Zone(z.Zone.ID); ok {
			part.Zones = append(part.Zones, z)
		}
	}
	for _, a := range snap.Accounts {
		if slices.ContainsFunc(whole.Accounts, func(ap migrate.AccountPlan) bool { return ap.AccountID == a.Account.ID }) {
			part.Accounts = append(part.Accounts, a)
		}
	}
	partBuilt, _ := whole.Rebuild(part, nil)
	if err := whole.SameAs(partBuilt); err != nil {
		t.Fatalf("the plan of the zones read whole, against the part of the snapshot a journal keeps: %v", err)
	}

	only := p.Only(map[string]bool{zone.ZoneID: true}, map[string]bool{})
	if got := unreadIDs(only); !slices.Equal(got, []string{zone.ZoneID}) || !only.Incomplete {
		t.Errorf("Only one zone: unread %v, incomplete %v; want that zone's mark alone, still incomplete", got, only.Incomplete)
	}
}

func unreadIDs(p *migrate.Plan) []string {
	var out []string
	for _, u := range p.Unread {
		out = append(out, u.ID)
	}
	return out
}

// TestUnreadOfACompleteScan: a snapshot without errors has no unread scope, and its plan no
// mark (scanner.Result is not read for it).
func TestUnreadOfACompleteScan(t *testing.T) {
	snap := seed.Demo()
	if got := migrate.UnreadOf(snap); len(got) != 0 {
		t.Errorf("UnreadOf a complete snapshot: %+v", got)
	}
	p := migrate.Build(snap, scanner.Result{}, migrate.Options{})
	if p.Incomplete || p.Unread != nil {
		t.Errorf("a complete scan's plan is marked: %v %+v", p.Incomplete, p.Unread)
	}
}
