package fix

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/collect"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// The zone testdata/sequence declares, on Business: the live objects provider v4 made of it.
const sequenceZone = "7c1cbd0ae7f1a2bbf1a5bb0a8c6b8f02"

// sequenceAccount is the account as a scan finds it before the fix: the firewall rules,
// their filters and the rate limits of testdata/sequence, no entry points.
func sequenceAccount() *inventory.Snapshot {
	account := inventory.Ref{ID: seed.ID("account", "sequence"), Name: "sequence"}
	admin := inventory.Filter{ID: seed.ID("filter", "admin"), Description: "admin from outside",
		Expression: `(http.request.uri.path contains "/admin" and not ip.src in {192.0.2.0/24})`}
	bots := inventory.Filter{ID: seed.ID("filter", "bots"), Expression: `(http.user_agent contains "BadBot")`}
	return &inventory.Snapshot{
		SchemaVersion: inventory.SnapshotSchemaVersion,
		Accounts:      []inventory.AccountInventory{{Account: inventory.Account{ID: account.ID, Name: account.Name}}},
		Zones: []inventory.ZoneInventory{{
			Zone: inventory.Zone{ID: sequenceZone, Name: "sequence.example", Status: "active", Type: "full", Account: account,
				Plan: inventory.ZonePlan{ID: seed.ID("plan", inventory.PlanBusiness), Name: "Business Website", LegacyID: inventory.PlanBusiness}},
			Filters: []inventory.Filter{admin, bots},
			FirewallRules: []inventory.FirewallRule{
				{ID: seed.ID("firewall_rule", "admin"), Filter: inventory.Filter{ID: admin.ID}, Action: vocab.ActionBlock, Priority: intp(1), Description: "Block the admin area from outside"},
				{ID: seed.ID("firewall_rule", "bots"), Filter: inventory.Filter{ID: bots.ID}, Action: vocab.ActionManagedChallenge, Priority: intp(2)},
			},
			RateLimits: []inventory.RateLimit{
				{ID: seed.ID("rate_limit", "login"), Description: "login", Threshold: 10, Period: 60,
					Match:  inventory.RateLimitMatch{Request: &inventory.RateLimitRequest{URL: "shop.sequence.example/login*", Methods: []string{"POST"}, Schemes: []string{"_ALL_"}}},
					Action: inventory.RateLimitAction{Mode: "ban", Timeout: 600}},
				{ID: seed.ID("rate_limit", "api"), Description: "api", Threshold: 100, Period: 60,
					Match:  inventory.RateLimitMatch{Request: &inventory.RateLimitRequest{URL: "api.sequence.example/*", Methods: []string{"_ALL_"}, Schemes: []string{"_ALL_"}}},
					Action: inventory.RateLimitAction{Mode: "challenge"}},
			},
		}},
	}
}

// liveAccount is the emulator serving an account, with a client on it.
type liveAccount struct {
	t      *testing.T
	srv    *emulator.Server
	client *cfapi.Client
	day    time.Time
}

func serveAccount(t *testing.T, snap *inventory.Snapshot, day time.Time) *liveAccount {
	t.Helper()
	srv, err := emulator.New(emulator.Options{Seed: snap, Token: seed.DemoToken, AsOf: day})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	c, err := cfapi.New(cfapi.Config{BaseURL: ts.URL + emulator.BasePath, Credentials: cfapi.TokenCredentials(seed.DemoToken),
		MaxRetries: 3, RetryBaseDelay: time.Millisecond, RetryMaxDelay: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return &liveAccount{t: t, srv: srv, client: c, day: day}
}

type zoneLister struct{ *cfapi.Client }

func (l zoneLister) ListZones(ctx context.Context, accountID, name string) ([]inventory.Zone, error) {
	return l.Client.ListZones(ctx, cfapi.ZoneFilter{AccountID: accountID, Name: name})
}

// scan is `sunset scan`: the account collected and judged.
func (a *liveAccount) scan() (*inventory.Snapshot, scanner.Result) {
	a.t.Helper()
	snap, err := collect.Collect(context.Background(), zoneLister{a.client}, collect.Options{IsRetired: cfapi.IsRetired, IsFatal: cfapi.IsAuth, StatusOf: cfapi.StatusOf})
	if err != nil || snap.Incomplete {
		a.t.Fatalf("collect: %v (incomplete %v)", err, snap != nil && snap.Incomplete)
	}
	return snap, scanner.ScanSnapshot(snap, nil, scanner.Options{AsOf: a.day})
}

// TestFixSnapshotThenScanPlanApply is the sequence fix's summary promises: after `sunset fix
// --snapshot` is written and Terraform has created its rulesets, the old firewall rules,
// filters and rate limits are still in the account; a scan says each rate limit's
// replacement is in place, the plan built from it creates nothing (it recognises the rules
// fix wrote, by their refs and by what they do) and deletes every old object, and the apply
// leaves the new rules as Terraform made them.
func TestFixSnapshotThenScanPlanApply(t *testing.T) {
	validInput(t, "sequence", "4.52.8")
	a := serveAccount(t, sequenceAccount(), time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC))
	before, _ := a.scan()
	dir := copyFixture(t, "sequence")
	res, err := Run(Options{Root: dir, Target: terraform.ProviderV5, Snapshot: before})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Write(); err != nil {
		t.Fatal(err)
	}
	// Terraform applies the rewritten configuration: each ruleset as fix wrote it.
	made := 0
	for _, phase := range []vocab.Phase{vocab.PhaseCustomRules, vocab.PhaseRateLimiting} {
		rules := rulesOf(t, dir, phase)
		made += len(rules)
		if _, err := a.client.PutEntrypointRuleset(context.Background(), sequenceZone, phase, rules); err != nil {
			t.Fatalf("%s: %v", phase, err)
		}
	}
	snap, found := a.scan()
	for _, f := range found.Findings {
		if f.RuleID == vocab.RateLimitingV1 && f.Resource.Kind == vocab.KindRateLimit && !strings.Contains(f.Message, "its replacement is in place") {
			t.Errorf("rate limit %s: %s", f.Resource.ID, f.Message)
		}
	}
	plan := migrate.Build(snap, found, migrate.Options{AsOf: a.day})

	deleted := map[migrate.StepKind]int{}
	for _, z := range plan.Zones {
		for _, st := range z.Steps {
			if st.Change == migrate.ChangeCreate {
				t.Errorf("the plan creates again: %s %s (%s)", st.Kind, st.Title, st.Reason)
			}
			if st.Change == migrate.ChangeDelete {
				deleted[st.Kind]++
			}
		}
	}
	if deleted[migrate.KindFirewallRuleDelete] != 2 || deleted[migrate.KindFilterDelete] != 2 || deleted[migrate.KindRateLimitDelete] != 2 {
		t.Errorf("deletes %v, want both firewall rules, filters and rate limits", deleted)
	}
	if _, err := apply.Apply(context.Background(), plan, apply.Options{Client: a.client, Snapshot: snap}); err != nil {
		t.Fatal(err)
	}
	after := a.srv.Snapshot().Zones[0]
	kept := 0
	for _, rs := range after.Rulesets {
		kept += len(rs.Rules)
	}
	if len(after.FirewallRules)+len(after.Filters)+len(after.RateLimits) != 0 || kept != made {
		t.Errorf("after the apply: %d firewall rules, %d filters, %d rate limits, %d rules (want 0, 0, 0, %d)",
			len(after.FirewallRules), len(after.Filters), len(after.RateLimits), kept, made)
	}
	if _, found := a.scan(); slices.ContainsFunc(found.Findings, func(f scanner.Finding) bool {
		return f.RuleID == vocab.RateLimitingV1 || f.RuleID == vocab.FirewallRules || f.RuleID == vocab.Filters
	}) {
		t.Errorf("the migrated account still has findings: %v", found.Findings)
	}
}

// A rule that does what a rate limit does is in the zone's entry point already (made in the
// dashboard, without a ref): the imported ruleset keeps it and gets no copy of it, although
// the rule fix writes keeps the variable its url reads (it is compared by its values).
func TestFixSnapshotAddsNoCopyOfARuleThere(t *testing.T) {
	snap := sequenceAccount()
	z := &snap.Zones[0]
	login, _, _ := migrate.TranslateRateLimit(z.RateLimits[0], inventory.PlanBusiness)
	login.ID, login.Ref, login.Description = "dash", "", "made in the dashboard"
	z.Rulesets = []inventory.Ruleset{{ID: "rs-rl", Name: "default", Kind: "zone", Phase: vocab.PhaseRateLimiting, Rules: []inventory.RulesetRule{login}}}
	dir := copyFixture(t, "sequence")
	res, err := Run(Options{Root: dir, Target: terraform.ProviderV5, Snapshot: snap})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Write(); err != nil {
		t.Fatal(err)
	}
	rules := rulesOf(t, dir, vocab.PhaseRateLimiting)
	if len(rules) != 2 || rules[0].Description != "made in the dashboard" || rules[1].Ref != migrate.RateLimitRef(z.RateLimits[1].ID) {
		t.Errorf("rules %+v: want the dashboard's, then api's", rules)
	}
}
