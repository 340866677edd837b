package migrate_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/verify"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// viewParts is everything a plan view gives, as JSON where it is a plan's.
type viewParts struct {
	head         string
	count, steps int
	keys, zones  []string
}

func partsOf(t *testing.T, v migrate.PlanView) viewParts {
	t.Helper()
	js := func(x any) string {
		b, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	out := viewParts{head: js(v.Head()), count: v.ZoneCount(), steps: v.ZoneSteps()}
	v.ZoneKeys(func(id, name string) { out.keys = append(out.keys, id+" "+name) })
	if err := v.EachZone(func(z *migrate.ZonePlan) error {
		out.zones = append(out.zones, js(z))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSpillViewIsPlanView shows the view of a spilled plan gives what the whole plan gives:
// the same head (no zones), counts, keys and zones in plan order.
func TestSpillViewIsPlanView(t *testing.T) {
	snap := seed.Demo()
	res := scanner.ScanSnapshot(snap, nil, scanner.Options{AsOf: goldenAsOf})
	p := migrate.Build(snap, res, migrate.Options{AsOf: goldenAsOf})
	verify.Verify(p, snap)
	sp, head := spillPlan(t, snap, res)
	want, got := partsOf(t, p), partsOf(t, sp.View(head))
	if want.count < 2 || want.steps == 0 || want.head == "" || len(p.Head().Zones) != 0 {
		t.Fatalf("the demo plan's view: %d zones, %d steps, head %q", want.count, want.steps, want.head)
	}
	if got.head != want.head || got.count != want.count || got.steps != want.steps {
		t.Errorf("head, zones, steps: got %s %d %d, want %s %d %d", got.head, got.count, got.steps, want.head, want.count, want.steps)
	}
	if !slices.Equal(got.keys, want.keys) || !slices.Equal(got.zones, want.zones) {
		t.Errorf("the zones differ: keys %v, want %v", got.keys, want.keys)
	}
}
