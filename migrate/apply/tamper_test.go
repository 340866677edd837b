package apply_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// tamperCase edits a plan (and may read the snapshot it was built from) the way an
// attacker or a careless hand would; apply must refuse the whole plan, naming the step.
type tamperCase struct {
	name string
	edit func(t *testing.T, p *migrate.Plan, snap *inventory.Snapshot)
	// want is in the refusal.
	want string
}

// zonePlan is the plan's zone of the given name.
func zonePlan(t *testing.T, p *migrate.Plan, name string) *migrate.ZonePlan {
	for i := range p.Zones {
		if p.Zones[i].ZoneName == name {
			return &p.Zones[i]
		}
	}
	t.Fatalf("no zone %s in the plan", name)
	return nil
}

// stepOf is the zone's first step of a kind.
func stepOf(t *testing.T, z *migrate.ZonePlan, kind migrate.StepKind) *migrate.Step {
	for i := range z.Steps {
		if z.Steps[i].Kind == kind {
			return &z.Steps[i]
		}
	}
	t.Fatalf("no %s step in zone %s", kind, z.ZoneName)
	return nil
}

var tamperCases = []tamperCase{
	{"another zone's object", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		other := stepOf(t, zonePlan(t, p, "blog.example.org"), migrate.KindFirewallRuleDelete)
		stepOf(t, zonePlan(t, p, "api.example.com"), migrate.KindFirewallRuleDelete).Path = other.Path
	}, "not this zone"},
	{"another zone's object under this zone's id", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		other := stepOf(t, zonePlan(t, p, "blog.example.org"), migrate.KindFirewallRuleDelete)
		z := zonePlan(t, p, "api.example.com")
		st := stepOf(t, z, migrate.KindFirewallRuleDelete)
		st.Path = "/zones/" + z.ZoneID + "/firewall/rules/" + other.Path[strings.LastIndex(other.Path, "/")+1:]
	}, "the snapshot holds no firewall rule"},
	{"an unknown object", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		z := zonePlan(t, p, "api.example.com")
		stepOf(t, z, migrate.KindRateLimitDelete).Path = "/zones/" + z.ZoneID + "/rate_limits/0123456789abcdef0123456789abcdef"
	}, "the snapshot holds no rate limit"},
	{"a write no kind makes: a setting", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		z := zonePlan(t, p, "docs.example.test")
		st := stepOf(t, z, migrate.KindWAFOff)
		st.Path = "/zones/" + z.ZoneID + "/settings/security_level"
		st.Body = json.RawMessage(`{"value":"essentially_off"}`)
	}, "kind waf.previous-version-off sends PATCH"},
	{"a write no kind makes: purge the cache", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		z := zonePlan(t, p, "api.example.com")
		z.Steps = append(z.Steps, migrate.Step{ID: "dns-settings.patch", Kind: migrate.KindDNSSettingsPatch, Change: migrate.ChangeUpdate, Method: "POST", Path: "/zones/" + z.ZoneID + "/purge_cache", Body: json.RawMessage(`{"purge_everything":true}`)})
	}, "kind dns-settings.patch sends PATCH"},
	{"a kind sunset does not plan", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		z := zonePlan(t, p, "api.example.com")
		z.Steps = append(z.Steps, migrate.Step{ID: "x", Kind: "security-level.patch", Method: "PATCH", Path: "/zones/" + z.ZoneID + "/settings/security_level"})
	}, `kind "security-level.patch" is not one sunset plans`},
	{"a removal given a non-removal kind", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		st := stepOf(t, zonePlan(t, p, "api.example.com"), migrate.KindFirewallRuleDelete)
		st.Kind, st.Change, st.DependsOn = migrate.KindDNSRecordPatch, migrate.ChangeUpdate, nil
	}, "kind dns-record.patch sends PATCH"},
	{"a deletion that says it creates (--keep-old would send it)", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		stepOf(t, zonePlan(t, p, "api.example.com"), migrate.KindFirewallRuleDelete).Change = migrate.ChangeCreate
	}, `change "create": kind firewall-rule.delete makes a "delete"`},
	{"a removal before the check of its replacements", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		stepOf(t, zonePlan(t, p, "api.example.com"), migrate.KindFirewallRulePause).DependsOn = nil
	}, "does not depend on the check of its replacements"},
	{"a filter deleted before its rule", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		z := zonePlan(t, p, "api.example.com")
		for i := range z.Steps {
			if z.Steps[i].Kind == migrate.KindFilterDelete && len(z.Steps[i].DependsOn) > 0 {
				z.Steps[i].DependsOn = nil
				return
			}
		}
		t.Fatal("no filter deletion with a dependency")
	}, "which this plan does not delete before it"},
	{"a pause that changes the rule", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		st := stepOf(t, zonePlan(t, p, "api.example.com"), migrate.KindFirewallRulePause)
		st.Body = json.RawMessage(strings.Replace(string(st.Body), `"paused":true`, `"paused":false`, 1))
	}, "not the body the planner writes"},
	{"a rule that is not the target's", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		st := stepOf(t, zonePlan(t, p, "blog.example.org"), migrate.KindCustomRulesAdd)
		var body map[string]any
		_ = json.Unmarshal(st.Body, &body)
		body["action"], body["expression"] = "skip", "true"
		st.Body, _ = json.Marshal(body)
	}, "not the target's rule"},
	{"a huge body", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		st := stepOf(t, zonePlan(t, p, "api.example.com"), migrate.KindCustomRulesCreate)
		st.Body = json.RawMessage(`{"rules":[{"action":"block","expression":"true","description":"` + strings.Repeat("x", 20<<20) + `"}]}`)
	}, "the planner writes at most"},
	{"a body on a deletion", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		stepOf(t, zonePlan(t, p, "api.example.com"), migrate.KindFirewallRuleDelete).Body = json.RawMessage(`{"id":"x"}`)
	}, "sends no body"},
	{"a manual step made automatic", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		stepOf(t, zonePlan(t, p, "shop.example"), migrate.KindZoneSettingStop).Manual = false
	}, "is a manual step"},
	{"a dependency on a later step", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		z := zonePlan(t, p, "api.example.com")
		z.Steps[0].DependsOn = []string{z.Steps[len(z.Steps)-1].ID}
	}, "not an earlier step"},
	{"a target that drops the entry point's rules", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		z := zonePlan(t, p, "blog.example.org")
		for i := range z.Targets {
			if z.Targets[i].RulesetID != "" {
				z.Targets[i].Rules = z.Targets[i].Rules[len(z.Targets[i].Rules)-1:]
				return
			}
		}
	}, "is not kept in place"},
	{"a target on another ruleset", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		z := zonePlan(t, p, "blog.example.org")
		z.Targets[0].RulesetID = "0123456789abcdef0123456789abcdef"
	}, "the snapshot's entry point is"},
	{"a zone the snapshot does not hold", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		zonePlan(t, p, "api.example.com").ZoneID = "0123456789abcdef0123456789abcdef"
	}, "the snapshot holds no such zone"},
	{"an absolute URL", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		st := stepOf(t, zonePlan(t, p, "api.example.com"), migrate.KindFirewallRuleDelete)
		st.Path = "https://attacker.example" + st.Path
	}, "kind firewall-rule.delete sends DELETE"},
	{"a path that climbs out", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		z := zonePlan(t, p, "api.example.com")
		stepOf(t, z, migrate.KindFirewallRuleDelete).Path = "/zones/" + z.ZoneID + "/firewall/rules/../../../../accounts"
	}, "kind firewall-rule.delete sends DELETE"},
	{"an account write in a zone", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		z := zonePlan(t, p, "api.example.com")
		z.Steps = append(z.Steps, p.Accounts[0].Steps[0])
	}, "belongs to a account"},
	{"a step id twice", func(t *testing.T, p *migrate.Plan, _ *inventory.Snapshot) {
		z := zonePlan(t, p, "api.example.com")
		z.Steps[1].ID = z.Steps[0].ID
	}, "not unique"},
}

// TestApplyRefusesTamperedPlans: every tampered plan is refused whole, naming what is
// wrong, before a single request reaches the API; so is its rollback.
func TestApplyRefusesTamperedPlans(t *testing.T) {
	for _, tc := range tamperCases {
		t.Run(tc.name, func(t *testing.T) {
			a := serve(t, seed.Demo(), emulator.Options{})
			p, snap := a.plan()
			before := a.srv.Stats().Total
			tc.edit(t, p, snap)
			for _, dry := range []bool{false, true} {
				_, err := apply.Apply(context.Background(), p, apply.Options{Client: a.client, Snapshot: snap, DryRun: dry})
				var refused *apply.RefusedError
				if !errors.As(err, &refused) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("dry run %t: want a refusal with %q, got %v", dry, tc.want, err)
				}
			}
			_, err := apply.Rollback(context.Background(), &apply.Loaded{Plan: p, Snapshot: snap}, apply.Options{Client: a.client})
			if !strings.Contains(fmtErr(err), tc.want) {
				t.Fatalf("rollback: want a refusal with %q, got %v", tc.want, err)
			}
			if n := a.srv.Stats().Total - before; n != 0 {
				t.Fatalf("%d requests reached the API", n)
			}
		})
	}
}

func fmtErr(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestEditedSnapshotCreatesNothing: a snapshot edited by hand (a filter's expression, the
// one its firewall rule and so the new custom rule are translated from), with the plan
// built from it so that both agree, stops its zone before its first write: the old objects
// are read back and compared with the snapshot before anything is created from them.
func TestEditedSnapshotCreatesNothing(t *testing.T) {
	a := serve(t, seed.Demo(), emulator.Options{})
	_, snap := a.plan()
	var zoneID string
	for i := range snap.Zones {
		z := &snap.Zones[i]
		if z.Zone.Name != "api.example.com" || len(z.FirewallRules) == 0 {
			continue
		}
		zoneID = z.Zone.ID
		fid := z.FirewallRules[0].Filter.ID
		edit := `(http.request.uri.path eq "/never-matches-anything")`
		z.FirewallRules[0].Filter.Expression = edit
		for k := range z.Filters {
			if z.Filters[k].ID == fid {
				z.Filters[k].Expression = edit
			}
		}
	}
	if zoneID == "" {
		t.Fatal("no firewall rule in api.example.com")
	}
	p := migrate.Build(snap, scanOf(snap), migrate.Options{AsOf: asOf})
	before := a.srv.Stats().Writes
	res := a.run(p, snap, apply.Options{})
	for _, s := range res.Scopes {
		if s.ID == zoneID && (s.Status != apply.StatusStopped || !strings.Contains(s.Reason, "stale")) {
			t.Fatalf("%s: %s (%s), want stopped: stale", s.Name, s.Status, s.Reason)
		}
	}
	rs, err := a.client.GetEntrypointRuleset(context.Background(), zoneID, "http_request_firewall_custom")
	if err != nil || rs != nil {
		t.Fatalf("the zone's custom rules entry point: %v, %v; want none created", rs, err)
	}
	if a.srv.Stats().Writes == before {
		t.Fatal("the other zones wrote nothing either: the apply did not run")
	}
}

// scanOf scans a snapshot as the tests' account does.
func scanOf(snap *inventory.Snapshot) scanner.Result {
	return scanner.ScanSnapshot(snap, nil, scanner.Options{AsOf: asOf})
}
