package apply_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// TestApplyMigratesAndRescanIsClean applies the demo's and a generated account's plans:
// every scope is done, every write was accepted, the requests are the ones
// EstimateRequests counts, and the rescan has nothing at or above warning.
func TestApplyMigratesAndRescanIsClean(t *testing.T) {
	t.Parallel() // the package's slowest: it overlaps the others
	// 16 zones of seed 14 hold every plan level, rate limits and WAF packages, as the 40 zones
	// of seed 3 did, at a quarter of the rules (123, not 374): a third of the time under -race.
	for name, snap := range map[string]*inventory.Snapshot{"demo": seed.Demo(), "migratable": seed.GenerateMigratable(16, 14)} {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each account has its own emulator
			if lack := seed.MissingVariety(snap); lack != "" {
				t.Fatalf("the account is too plain to test: %s", lack)
			}
			a := serve(t, snap, emulator.Options{})
			p, before := a.plan()
			sent := a.srv.Stats().Total
			res := a.run(p, before, apply.Options{})
			if got, want := a.srv.Stats().Total-sent, apply.EstimateRequests(p, false); got != want {
				t.Errorf("the apply sent %d requests, EstimateRequests says %d", got, want)
			}
			for _, s := range res.Scopes {
				if s.Status != apply.StatusDone {
					t.Errorf("%s %s: %s at %s: %s", s.Scope, s.Name, s.Status, s.StoppedAt, s.Reason)
				}
			}
			for _, r := range a.srv.Requests() {
				if r.Method != "GET" && r.Status >= 400 {
					t.Errorf("write %s %s answered %d", r.Method, r.Path, r.Status)
				}
			}
			_, rescan := a.scan()
			for _, f := range rescan.Findings {
				if f.Severity >= scanner.SeverityWarning {
					t.Errorf("left: %s %s %s %s", f.RuleID, f.ZoneName, f.Resource.Kind, f.Resource.ID)
				}
			}
		})
	}
}

// TestDryRunSendsNothing: a dry run lists the steps and sends no request at all.
func TestDryRunSendsNothing(t *testing.T) {
	a := serve(t, seed.Demo(), emulator.Options{})
	p, before := a.plan()
	total := a.srv.Stats().Total
	res := a.run(p, before, apply.Options{DryRun: true})
	if got := a.srv.Stats().Total; got != total {
		t.Fatalf("a dry run sent %d requests (%d writes)", got-total, a.writes())
	}
	would := 0
	for _, s := range res.Scopes {
		would += s.Count(apply.OutcomeWould)
	}
	if want := p.Summary.Create + p.Summary.Change + p.Summary.Pause + p.Summary.Delete + p.Summary.Verify; would != want {
		t.Fatalf("dry run lists %d steps, the plan has %d", would, want)
	}
}

// TestRerunChangesNothing: applying a finished plan again (no journal) finds every step
// done and writes nothing; resuming its journal writes nothing and reads only what
// confirms the journal (the targets, the objects it created).
func TestRerunChangesNothing(t *testing.T) {
	a := serve(t, seed.Demo(), emulator.Options{})
	p, before := a.plan()
	path := filepath.Join(t.TempDir(), "j")
	j, err := apply.CreateJournal(path, p, before, a.client.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	a.run(p, before, apply.Options{Journal: j})
	_ = j.Close()
	done, state := a.writes(), a.state()
	res := a.run(p, before, apply.Options{})
	if a.writes() != done || a.state() != state {
		t.Fatalf("a second apply wrote %d times", a.writes()-done)
	}
	for _, s := range res.Scopes {
		if s.Status != apply.StatusDone || s.Count(apply.OutcomeSent) > 0 {
			t.Fatalf("%s: %s at %s (%s), %d sent", s.Name, s.Status, s.StoppedAt, s.Reason, s.Count(apply.OutcomeSent))
		}
	}
	l, err := apply.LoadJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	total, writes := a.srv.Stats().Total, a.writes()
	res = a.run(l.Plan, l.Snapshot, apply.Options{Done: l.Done()})
	if a.writes() != writes {
		t.Fatalf("resuming a finished journal wrote %d times", a.writes()-writes)
	}
	if got, want := a.srv.Stats().Total-total, apply.ConfirmReads(l.Plan, l.Done()); got != want || want == 0 {
		t.Fatalf("resuming a finished journal sent %d requests, want %d reads", got, want)
	}
	for _, s := range res.Scopes {
		if s.Status != apply.StatusDone {
			t.Fatalf("%s: %s (%s)", s.Name, s.Status, s.Reason)
		}
	}
}

// TestStaleZoneStops: a firewall rule changed after the scan stops its zone before the
// rule is touched; the other zones finish.
func TestStaleZoneStops(t *testing.T) {
	a := serve(t, seed.Demo(), emulator.Options{})
	p, before := a.plan()
	// Change the action of the first firewall rule the plan pauses.
	var zoneID, path string
	for _, z := range p.Zones {
		for _, st := range z.Steps {
			if st.Kind == "firewall-rule.pause" && path == "" {
				zoneID, path = z.ZoneID, st.Path
				body := strings.Replace(string(st.Body), `"paused":true`, `"paused":false,"description":"edited since the scan"`, 1)
				if err := a.client.Call(context.Background(), "PUT", st.Path, []byte(body), nil); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	res := a.run(p, before, apply.Options{})
	for _, s := range res.Scopes {
		switch {
		case s.ID == zoneID:
			if s.Status != apply.StatusStopped || !strings.Contains(s.Reason, "plan is stale: rebuild") {
				t.Errorf("zone %s: %s (%s), want stopped as stale", s.Name, s.Status, s.Reason)
			}
		case s.Status != apply.StatusDone:
			t.Errorf("%s: %s (%s)", s.Name, s.Status, s.Reason)
		}
	}
	var fr inventory.FirewallRule
	if err := a.client.Call(context.Background(), "GET", path, nil, &fr); err != nil || fr.Paused {
		t.Fatalf("the edited rule was touched: paused=%v err=%v", fr.Paused, err)
	}
}

// TestExistingEntrypointKeptInPlace: the rules an entry point held before are there after,
// in the same order; a rule someone added since the scan is kept, named, and the plan's
// rules are added around it; when it leaves no room for them under the quota, the zone
// stops before adding any.
func TestExistingEntrypointKeptInPlace(t *testing.T) {
	for _, tc := range []struct {
		plan string
		room bool
	}{{"business", true}, {"free", false}} {
		t.Run(tc.plan, func(t *testing.T) {
			data := seed.Demo()
			zone, rs := zoneAddingCustomRules(t, data)
			zone.Zone.Plan.LegacyID = tc.plan
			a := serve(t, data, emulator.Options{})
			p, before := a.plan()
			added := "http.host eq \"added.example\""
			// One rule where there is room; else as many as leave no room for the plan's.
			for n := len(rs.Rules) + countAdds(p, zone.Zone.ID); n == len(rs.Rules)+countAdds(p, zone.Zone.ID) || !tc.room && n <= inventory.CustomRulesQuota(tc.plan); n++ {
				addRule(t, a, zone.Zone.ID, rs.ID, fmt.Sprintf(`{"action":"block","expression":%q,"description":"added since the scan"}`, added))
			}
			live := entrypointRules(t, a, zone.Zone.ID)
			res := a.run(p, before, apply.Options{})
			s := othersDone(t, res, zone.Zone.ID)
			after := entrypointRules(t, a, zone.Zone.ID)
			if !tc.room {
				if s.Status != apply.StatusStopped || !strings.Contains(s.Reason, "stale") || !strings.Contains(s.Reason, "quota") || len(after) != len(live) {
					t.Fatalf("%s: %s (%s), %d rules after, %d before: want stopped before adding any", s.Name, s.Status, s.Reason, len(after), len(live))
				}
				return
			}
			if s.Status != apply.StatusDone || !slices.ContainsFunc(s.Notices, func(n string) bool { return strings.Contains(n, "added since the scan") }) {
				t.Fatalf("%s: %s (%s), notices %q: want done, naming the rule added since the scan", s.Name, s.Status, s.Reason, s.Notices)
			}
			k := 0
			for _, r := range after {
				if k < len(live) && r.ID == live[k].ID {
					k++
				}
			}
			if k != len(live) || len(after) != len(live)+countAdds(p, zone.Zone.ID) {
				t.Fatalf("after the apply, %d of the %d rules there before are in place, %d rules in all", k, len(live), len(after))
			}
		})
	}
}

// zoneAddingCustomRules is the demo zone whose custom rules entry point exists and gets rules.
func zoneAddingCustomRules(t *testing.T, snap *inventory.Snapshot) (*inventory.ZoneInventory, inventory.Ruleset) {
	t.Helper()
	for i := range snap.Zones {
		if rs, ok := snap.Zones[i].Ruleset("http_request_firewall_custom"); ok && len(snap.Zones[i].FirewallRules) > 0 {
			return &snap.Zones[i], rs
		}
	}
	t.Fatal("the demo has no zone with an existing custom rules entry point and firewall rules")
	return nil, inventory.Ruleset{}
}

// countAdds counts the custom rules the plan adds to the zone's existing entry point.
func countAdds(p *migrate.Plan, zoneID string) int {
	n := 0
	for _, z := range p.Zones {
		for _, st := range z.Steps {
			if z.ZoneID == zoneID && st.Kind == migrate.KindCustomRulesAdd {
				n++
			}
		}
	}
	return n
}

// addRule adds a rule to an entry point, as someone else would.
func addRule(t *testing.T, a *account, zoneID, rulesetID, body string) {
	t.Helper()
	if err := a.client.Call(context.Background(), "POST", "/zones/"+zoneID+"/rulesets/"+rulesetID+"/rules", []byte(body), nil); err != nil {
		t.Fatal(err)
	}
}

// entrypointRules are the rules of the zone's custom rules entry point now.
func entrypointRules(t *testing.T, a *account, zoneID string) []inventory.RulesetRule {
	t.Helper()
	live, err := a.client.GetEntrypointRuleset(context.Background(), zoneID, "http_request_firewall_custom")
	if err != nil || live == nil {
		t.Fatalf("read the entry point: %v", err)
	}
	return live.Rules
}

// TestReplacementRemovedMidApplyStops: when one of the rules the apply put in place is
// deleted by someone else right after the zone's first pauses (its firewall rules, paused
// by one bulk call), the read before the next removal finds it missing and stops the zone
// there: no old rule is deleted while its replacement is gone, the paused rules are
// switched back on, and the other zones finish.
func TestReplacementRemovedMidApplyStops(t *testing.T) {
	a := serve(t, seed.Demo(), emulator.Options{})
	p, before := a.plan()
	var (
		mu       sync.Mutex
		zoneID   string
		removals int // removals sent in zoneID
		pauses   int // firewall rule pauses in zoneID's plan
	)
	opts := apply.Options{OnStep: func(s *apply.ScopeResult, st apply.StepResult) {
		mu.Lock()
		defer mu.Unlock()
		removal := st.Kind == "firewall-rule.pause" || strings.HasSuffix(st.Kind, ".delete")
		if !removal || st.Outcome != apply.OutcomeSent {
			return
		}
		if zoneID == "" && st.Kind == "firewall-rule.pause" {
			zoneID = s.ID
			deleteAddedRule(t, a, before, s.ID)
		}
		if s.ID == zoneID {
			removals++
		}
	}}
	res := a.run(p, before, opts)
	if zoneID == "" {
		t.Fatal("no firewall rule was paused")
	}
	for _, s := range res.Scopes {
		switch {
		case s.ID == zoneID:
			if s.Status != apply.StatusStopped || !strings.Contains(s.Reason, "replacements not in place") {
				t.Errorf("zone %s: %s (%s), want stopped: replacements not in place", s.Name, s.Status, s.Reason)
			}
			for _, z := range p.Zones {
				for _, st := range z.Steps {
					if z.ZoneID == zoneID && st.Kind == migrate.KindFirewallRulePause {
						pauses++
					}
				}
			}
			if removals != pauses || !strings.HasPrefix(s.StoppedAt, "firewall-rule.delete:") {
				t.Errorf("zone %s: %d removals done, stopped at %s: want the %d pauses done and the zone stopped at the first deletion", s.Name, removals, s.StoppedAt, pauses)
			}
			if len(s.Restored) != pauses {
				t.Errorf("zone %s: switched back on %v, want the %d paused rules", s.Name, s.Restored, pauses)
			}
		case s.Status != apply.StatusDone:
			t.Errorf("%s: %s (%s)", s.Name, s.Status, s.Reason)
		}
	}
}

// deleteAddedRule deletes one custom rule the apply added to a zone's entry point.
func deleteAddedRule(t *testing.T, a *account, before *inventory.Snapshot, zoneID string) {
	t.Helper()
	ctx := context.Background()
	live, err := a.client.GetEntrypointRuleset(ctx, zoneID, "http_request_firewall_custom")
	if err != nil || live == nil {
		t.Fatalf("read the entry point: %v", err)
	}
	old := map[string]bool{}
	for _, z := range before.Zones {
		if rs, ok := z.Ruleset("http_request_firewall_custom"); ok && z.Zone.ID == zoneID {
			for _, r := range rs.Rules {
				old[r.ID] = true
			}
		}
	}
	for _, r := range live.Rules {
		if !old[r.ID] {
			if err := a.client.Call(ctx, "DELETE", "/zones/"+zoneID+"/rulesets/"+live.ID+"/rules/"+r.ID, nil, nil); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatal("the apply added no custom rule")
}
