package apply_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

var replacedPhases = []vocab.Phase{vocab.PhaseCustomRules, vocab.PhaseRateLimiting, vocab.PhaseManaged, vocab.PhaseDynamicRedirect}

// removesFor reports whether a step kind removes what the phase's rules replace.
func removesFor(kind string, phase vocab.Phase) bool {
	spec := migrate.KindSpecs[migrate.StepKind(kind)]
	return spec != nil && spec.Removes && spec.Phase == phase
}

// zoneFor is the first zone of the plan with a target of phase and a removal of the kind
// wanted (op: migrate.OpUpdate for a pause or switch-off, -1 for any).
func zoneFor(t *testing.T, p *migrate.Plan, phase vocab.Phase, op migrate.Op) *migrate.ZonePlan {
	for i, z := range p.Zones {
		hasTarget := slices.ContainsFunc(z.Targets, func(tg migrate.Target) bool { return tg.Phase == phase })
		for _, st := range z.Steps {
			if hasTarget && !st.Manual && removesFor(string(st.Kind), phase) && (op < 0 || migrate.KindSpecs[st.Kind].Op == op) {
				return &p.Zones[i]
			}
		}
	}
	t.Skipf("no zone of the demo removes something %s replaces", phase)
	return nil
}

// activeOld lists the zone's old protections that the phase's rules replace, as they are.
func activeOld(z inventory.ZoneInventory, phase vocab.Phase) []string {
	var out []string
	switch phase {
	case vocab.PhaseCustomRules:
		for _, r := range z.FirewallRules {
			out = append(out, fmt.Sprintf("firewall rule %s paused %t", r.ID, r.Paused))
		}
	case vocab.PhaseRateLimiting:
		for _, r := range z.RateLimits {
			out = append(out, fmt.Sprintf("rate limit %s disabled %t", r.ID, r.Disabled))
		}
	case vocab.PhaseManaged:
		for _, o := range z.WAFOverrides {
			out = append(out, fmt.Sprintf("override %s paused %t", o.ID, o.Paused))
		}
		if s, ok := z.Setting("waf"); ok {
			out = append(out, "waf "+string(s.Value))
		}
	case vocab.PhaseDynamicRedirect:
		if s, ok := z.Setting("mobile_redirect"); ok {
			out = append(out, "mobile_redirect "+string(s.Value))
		}
	}
	slices.Sort(out)
	return out
}

func zoneOf(snap *inventory.Snapshot, id string) inventory.ZoneInventory {
	for _, z := range snap.Zones {
		if z.Zone.ID == id {
			return z
		}
	}
	return inventory.ZoneInventory{}
}

// removeAddedRule deletes one rule the apply added to the zone's entry point of phase.
func removeAddedRule(t *testing.T, a *account, before *inventory.Snapshot, zoneID string, phase vocab.Phase) {
	ctx := context.Background()
	live, err := a.client.GetEntrypointRuleset(ctx, zoneID, phase)
	if err != nil || live == nil {
		t.Errorf("read the %s entry point: %v", phase, err)
		return
	}
	old := map[string]bool{}
	zb := zoneOf(before, zoneID)
	if rs, ok := zb.Ruleset(phase); ok {
		for _, r := range rs.Rules {
			old[r.ID] = true
		}
	}
	for _, r := range live.Rules {
		if !old[r.ID] {
			if err := a.client.Call(ctx, "DELETE", "/zones/"+zoneID+"/rulesets/"+live.ID+"/rules/"+r.ID, nil, nil); err != nil {
				t.Error(err)
			}
			return
		}
	}
	t.Errorf("the apply added no rule to the %s entry point", phase)
}

// midApply applies the demo plan; when trigger first accepts a step of the chosen zone, one
// of the rules the apply added to the phase's entry point is deleted (someone else's
// edit). It returns the zone's result, the removals of the phase sent in the zone after
// the edit, and the zone's old protections before and after.
func midApply(t *testing.T, phase vocab.Phase, op migrate.Op, trigger func(st apply.StepResult) bool) (apply.ScopeResult, int, []string, []string) {
	var day time.Time
	if phase == vocab.PhaseDynamicRedirect {
		day = time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC) // mobile_redirect still takes writes
	}
	a := serve(t, seed.Demo(), emulator.Options{AsOf: day})
	p, before := a.plan()
	z := zoneFor(t, p, phase, op)
	var (
		mu    sync.Mutex
		fired bool
		after int
	)
	opts := apply.Options{OnStep: func(s *apply.ScopeResult, st apply.StepResult) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case s.ID != z.ZoneID:
		case fired && removesFor(st.Kind, phase) && st.Outcome == apply.OutcomeSent:
			after++
		case !fired && trigger(st):
			fired = true
			removeAddedRule(t, a, before, z.ZoneID, phase)
		}
	}}
	res := a.run(p, before, opts)
	if !fired {
		t.Fatalf("the trigger never fired in zone %s", z.ZoneName)
	}
	for _, s := range res.Scopes {
		if s.ID == z.ZoneID {
			now, _ := a.scan()
			return s, after, activeOld(zoneOf(before, z.ZoneID), phase), activeOld(zoneOf(now, z.ZoneID), phase)
		}
	}
	t.Fatal("the zone has no result")
	return apply.ScopeResult{}, 0, nil, nil
}

// TestReplacementRemovedBeforeARemoval: in every phase, a replacement rule deleted by
// someone else after the zone's removals began, before the first removal it guards, stops
// the zone before that removal: nothing of the phase is paused, disabled, deleted or
// switched off.
func TestReplacementRemovedBeforeARemoval(t *testing.T) {
	for _, phase := range replacedPhases {
		t.Run(string(phase), func(t *testing.T) {
			res, after, was, is := midApply(t, phase, -1, func(st apply.StepResult) bool {
				// After the zone's first removal of another phase (custom rules' removals
				// come first: after their check), so the first check alone cannot catch it.
				spec := migrate.KindSpecs[migrate.StepKind(st.Kind)]
				if phase == vocab.PhaseCustomRules {
					return spec.Op == migrate.OpVerify && spec.Phase == phase && st.Outcome == apply.OutcomeChecked
				}
				return spec.Removes && spec.Phase != phase && st.Outcome == apply.OutcomeSent
			})
			if res.Status != apply.StatusStopped {
				t.Fatalf("zone %s: %s, want stopped", res.Name, res.Status)
			}
			if after != 0 {
				t.Errorf("%d removals of the phase were sent after its replacement went", after)
			}
			if !slices.Equal(was, is) {
				t.Errorf("the old protections changed:\nbefore %v\nafter  %v", was, is)
			}
		})
	}
}

// TestStopSwitchesBackOn: a replacement rule deleted by someone else after the first old
// protection it replaces was paused: the zone stops before the next removal, and switches
// the paused one back on, saying so.
func TestStopSwitchesBackOn(t *testing.T) {
	for _, phase := range replacedPhases {
		t.Run(string(phase), func(t *testing.T) {
			res, after, was, is := midApply(t, phase, migrate.OpUpdate, func(st apply.StepResult) bool {
				return removesFor(st.Kind, phase) && st.Outcome == apply.OutcomeSent
			})
			if res.Status != apply.StatusStopped {
				if after == 0 {
					t.Skipf("zone %s: the phase's only removal was its last step", res.Name)
				}
				t.Fatalf("zone %s: %s, want stopped", res.Name, res.Status)
			}
			if len(res.Restored) == 0 {
				t.Errorf("nothing switched back on (stopped at %s: %s)", res.StoppedAt, res.Reason)
			}
			if !slices.Equal(was, is) {
				t.Errorf("the old protections are not as before:\nbefore %v\nafter  %v", was, is)
			}
			if res.LastSafe == res.StoppedAt {
				t.Errorf("the last safe step is the one that stopped (%s)", res.StoppedAt)
			}
		})
	}
}
