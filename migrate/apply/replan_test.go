package apply_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// TestKeepOldThenANewPlanFinishes: after an apply with --keep-old (replacements made, old
// objects paused), a new scan's plan deletes the old objects once it has checked that their
// replacements are there, and every zone finishes.
func TestKeepOldThenANewPlanFinishes(t *testing.T) {
	a := serve(t, seed.Demo(), emulator.Options{})
	p, before := a.plan()
	a.run(p, before, apply.Options{KeepOld: true})
	p2, before2 := a.plan()
	res := a.run(p2, before2, apply.Options{})
	for _, s := range res.Scopes {
		if s.Status == apply.StatusStopped {
			t.Errorf("%s: stopped at %s: %s", s.Name, s.StoppedAt, s.Reason)
		}
	}
}

// TestNewPlanChecksEarlierReplacements: an earlier apply made the new rules and
// stopped before touching the old ones (active still). A new scan's plan has nothing to
// create, only the check of the entry point as scanned (the planner found the rules by
// ref) before the removals; with one of those rules deleted after the scan, its zone stops
// before any removal.
func TestNewPlanChecksEarlierReplacements(t *testing.T) {
	for _, removeOne := range []bool{false, true} {
		t.Run(map[bool]string{false: "in place", true: "one removed"}[removeOne], func(t *testing.T) {
			a := serve(t, seed.Demo(), emulator.Options{})
			p, before := a.plan()
			for _, z := range p.Zones {
				for i := range z.Steps {
					if spec := migrate.KindSpecs[z.Steps[i].Kind]; spec != nil && spec.Removes {
						z.Steps[i].Manual = true // the first apply creates only
					}
				}
			}
			a.run(p, before, apply.Options{})
			p2, before2 := a.plan()
			var zoneID string
			for _, z := range p2.Zones {
				verifies := slices.ContainsFunc(z.Steps, func(st migrate.Step) bool { return st.Kind == migrate.KindCustomRulesVerify })
				creates := slices.ContainsFunc(z.Steps, func(st migrate.Step) bool {
					return st.Kind == migrate.KindCustomRulesCreate || st.Kind == migrate.KindCustomRulesAdd
				})
				if zoneID == "" && verifies && !creates {
					zoneID = z.ZoneID
				}
			}
			if zoneID == "" {
				t.Fatal("no zone whose new plan checks custom rules an earlier run made")
			}
			if removeOne {
				removeAddedRule(t, a, before, zoneID, vocab.PhaseCustomRules)
			}
			res := a.run(p2, before2, apply.Options{})
			for _, s := range res.Scopes {
				switch {
				case removeOne && s.ID == zoneID:
					if s.Status != apply.StatusStopped || !strings.Contains(s.Reason, "http_request_firewall_custom entry point") || s.Count(apply.OutcomeSent) > 0 {
						t.Errorf("%s: %s, %d sent (%s); want stopped before any removal", s.Name, s.Status, s.Count(apply.OutcomeSent), s.Reason)
					}
				case s.Status == apply.StatusStopped:
					t.Errorf("%s: stopped at %s: %s", s.Name, s.StoppedAt, s.Reason)
				}
			}
		})
	}
}
