package migrate_test

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// TestPlansPassTheirCheck: every plan the planner builds holds Plan.Check against its
// snapshot, on each day that changes what is planned: what apply refuses is only what
// sunset does not plan (the tamper cases are in package apply).
func TestPlansPassTheirCheck(t *testing.T) {
	t.Parallel() // one of the package's slowest: it overlaps the others
	snaps := map[string]*inventory.Snapshot{
		"demo": seed.Demo(), "generated": seed.Generate(300, 7), "migratable": seed.GenerateMigratable(300, 5),
	}
	if dir := os.Getenv("SUNSET_CORPUS"); dir != "" {
		for name, s := range realworldSnapshots(t, dir) {
			snaps["realworld/"+name] = s
		}
	}
	names := make([]string, 0, len(snaps))
	for n := range snaps {
		names = append(names, n)
	}
	sort.Strings(names)
	days := []time.Time{{}, goldenAsOf, time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // the snapshots are only read
			for _, day := range days {
				p, _ := planOf(snaps[name], day)
				if len(p.Steps()) == 0 && name != "generated" {
					t.Fatalf("as of %s: no step planned", day.Format(time.DateOnly))
				}
				if err := p.Check(snaps[name]); err != nil {
					t.Errorf("as of %s: %v", day.Format(time.DateOnly), err)
				}
			}
		})
	}
}

// TestCheckNeedsTheSnapshot: without the snapshot the plan came from, nothing can be checked.
func TestCheckNeedsTheSnapshot(t *testing.T) {
	p, _ := planOf(seed.Demo(), goldenAsOf)
	if err := p.Check(nil); err == nil {
		t.Fatal("a plan checked against no snapshot passed")
	}
	if err := p.Check(&inventory.Snapshot{}); err == nil {
		t.Fatal("a plan checked against an empty snapshot passed")
	}
}

// TestSameAsRefusesRulesItDoesNotTranslate: a plan whose custom rules were rewritten by
// hand, consistently in the create step and the target (so Check holds), is refused by its
// rebuild; the plan as built, or with zones left out, is not.
func TestSameAsRefusesRulesItDoesNotTranslate(t *testing.T) {
	snap := seed.Demo()
	p, _ := planOf(snap, goldenAsOf)
	built, err := p.Rebuild(snap, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SameAs(built); err != nil {
		t.Fatalf("the plan as built: %v", err)
	}
	p.Zones = p.Zones[1:]
	if err := p.SameAs(built); err != nil {
		t.Fatalf("a plan with a zone left out: %v", err)
	}
	z := &p.Zones[1] // docs.example.test: its custom rules entry point is created
	edited := false
	for i := range z.Steps {
		st := &z.Steps[i]
		if st.Kind != migrate.KindCustomRulesCreate {
			continue
		}
		for k := range z.Targets {
			if z.Targets[k].Phase == "http_request_firewall_custom" {
				z.Targets[k].Rules[0] = json.RawMessage(`{"action":"skip","expression":"true","action_parameters":{"ruleset":"current"}}`)
				st.Body, _ = json.Marshal(map[string]any{"rules": z.Targets[k].Rules})
				edited = true
			}
		}
	}
	if !edited {
		t.Fatalf("zone %s creates no custom rules entry point", z.ZoneName)
	}
	if err := p.Check(snap); err != nil {
		t.Fatalf("the consistent edit should hold the shape check: %v", err)
	}
	err = p.SameAs(built)
	if err == nil || !strings.Contains(err.Error(), "custom-rules.create: its body") || !strings.Contains(err.Error(), "target http_request_firewall_custom: its rules") {
		t.Fatalf("want the create step and the target refused, got %v", err)
	}
}

// FuzzPlanCheck: a plan.json of any shape is checked against the demo snapshot without a
// panic, and a plan that passes holds only kinds the registry knows, on the snapshot's
// zones and accounts.
func FuzzPlanCheck(f *testing.F) {
	snap := zoneSnapshot(seed.Demo(), "docs.example.test") // a small plan: a fast, minimisable seed
	p, _ := planOf(snap, goldenAsOf)
	var buf strings.Builder
	if err := p.WriteJSON(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(buf.String()))
	f.Add([]byte(`{"schema_version":1,"zones":[{"zone_id":"x","steps":[{"id":"a","kind":"firewall-rule.delete","method":"DELETE","path":"/zones/x/firewall/rules/../../y"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := migrate.ReadPlan(strings.NewReader(string(data)))
		if err != nil {
			return
		}
		if p.Check(snap) != nil {
			return
		}
		for _, st := range p.Steps() {
			if migrate.KindSpecs[st.Kind] == nil {
				t.Fatalf("step %s of unknown kind %q passed", st.ID, st.Kind)
			}
		}
	})
}
