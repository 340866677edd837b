package migrate_test

import (
	"os"
	"sort"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// TestPlansPassTheirCheck: every plan the planner builds holds Plan.Check against its
// snapshot, on each day that changes what is planned: what apply refuses is only what
// sunset does not plan (the tamper cases are in package apply).
func TestPlansPassTheirCheck(t *testing.T) {
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
