package migrate_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/customrules"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/cfapi/openapi"
	"github.com/sunsetscan/sunset/scanner/cfapi/openapi/openapitest"
	"github.com/sunsetscan/sunset/scanner/collect"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// lister adapts the client's zone listing to collect.Source.
type lister struct{ *cfapi.Client }

func (l lister) ListZones(ctx context.Context, accountID, name string) ([]inventory.Zone, error) {
	return l.Client.ListZones(ctx, cfapi.ZoneFilter{AccountID: accountID, Name: name})
}

// planOpsDoc is the API's OpenAPI description of every operation sunset reads or writes,
// from the corpus (nil without SUNSET_CORPUS: the emulator then checks bodies only as far as
// its handlers do).
func planOpsDoc(t *testing.T) *openapi.Doc {
	t.Helper()
	return openapitest.Doc(t, openapitest.PlanOpsFile)
}

// live is an account served by the emulator, with a client on it.
type live struct {
	t      *testing.T
	srv    *emulator.Server
	client *cfapi.Client
	asOf   time.Time
}

// newLive serves snap at asOf. With the corpus, the emulator refuses every write whose body
// breaks the API's request schema, as the real API would.
func newLive(t *testing.T, snap *inventory.Snapshot, asOf time.Time) *live {
	t.Helper()
	srv, err := emulator.New(emulator.Options{AsOf: asOf, Seed: snap, Token: seed.DemoToken, OpenAPI: planOpsDoc(t)})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	c, err := cfapi.New(cfapi.Config{BaseURL: ts.URL + emulator.BasePath, Credentials: cfapi.TokenCredentials(seed.DemoToken), MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	return &live{t: t, srv: srv, client: c, asOf: asOf}
}

// scan collects the account over HTTP and scans it.
func (l *live) scan() (*inventory.Snapshot, scanner.Result) {
	l.t.Helper()
	snap, err := collect.Collect(context.Background(), lister{l.client}, collect.Options{
		IsRetired: cfapi.IsRetired, IsFatal: cfapi.IsAuth, StatusOf: cfapi.StatusOf,
	})
	if err != nil {
		l.t.Fatal(err)
	}
	if snap.Incomplete {
		l.t.Fatalf("collection incomplete: %+v", snap)
	}
	return snap, scanner.ScanSnapshot(snap, nil, scanner.Options{AsOf: l.asOf})
}

// segments splits a step path into its segments.
func segments(p string) []string { return strings.Split(strings.Trim(p, "/"), "/") }

// execute runs one API step as written (method, path, body) through the client; a verify
// step's read is compared with the plan's target. The emulator answers a call the API does
// not have with 404 and, with the corpus, a body the API's schema refuses with 400: either
// fails the test.
func (l *live) execute(st migrate.Step, target map[string]migrate.Target) {
	t := l.t
	t.Helper()
	ctx := context.Background()
	seg := segments(st.Path)
	if st.Method == "GET" && len(seg) == 6 && seg[0] == "zones" && seg[2] == "rulesets" && seg[5] == "entrypoint" {
		rs, err := l.client.GetEntrypointRuleset(ctx, seg[1], vocab.Phase(seg[4]))
		if err != nil {
			t.Fatalf("step %s (%s %s): %v", st.ID, st.Method, st.Path, err)
		}
		want, ok := target[seg[1]+"/"+seg[4]]
		if !ok {
			t.Fatalf("verify step %s has no target", st.ID)
		}
		if rs == nil {
			t.Fatalf("verify step %s: no entry point", st.ID)
		}
		checkRules(t, st.ID, rs.Rules, want.Rules)
		return
	}
	if err := l.client.Call(ctx, st.Method, st.Path, st.Body, nil); err != nil {
		t.Fatalf("step %s (%s %s %s): %v", st.ID, st.Method, st.Path, st.Body, err)
	}
}

// checkRules compares an entry point's rules with the plan's target, member by member on
// what the plan sets (the service adds id, version, last_updated, and a ref when none).
func checkRules(t *testing.T, what string, got []inventory.RulesetRule, want []json.RawMessage) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: entry point has %d rules, plan wants %d", what, len(got), len(want))
	}
	for i := range want {
		var w inventory.RulesetRule
		mustDecode(t, want[i], &w)
		g := got[i]
		if g.Action != w.Action || g.Expression != w.Expression || g.Description != w.Description ||
			(w.Ref != "" && g.Ref != w.Ref) || enabled(g) != enabled(w) ||
			!sameJSON(g.ActionParameters, w.ActionParameters) || !sameJSON(g.RateLimit, w.RateLimit) {
			t.Fatalf("%s: rule %d is %+v, plan wants %+v", what, i+1, g, w)
		}
	}
}

func mustDecode(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
}

func enabled(r inventory.RulesetRule) bool { return r.Enabled == nil || *r.Enabled }

func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// guard checks a zone's invariant while a plan runs: every firewall rule that was active
// before the migration is either still active, or has its custom rule (ref = its id, its
// ref, or the ref the translator gives a merged pair) in the entry point.
type guard struct {
	l      *live
	zoneID string
	before []inventory.FirewallRule
	refOf  map[string]string // firewall rule id -> the ref its custom rule carries
	refs   map[string]bool   // refs in the entry point, as last read
}

func (l *live) guard(zoneID string, before []inventory.FirewallRule) *guard {
	g := &guard{l: l, zoneID: zoneID, before: before, refOf: map[string]string{}}
	for _, tr := range customrules.Translate(before, customrules.Options{}).Rules {
		if tr.Rule != nil {
			for _, id := range tr.FirewallRuleIDs {
				g.refOf[id] = tr.Rule.Ref
			}
		}
	}
	return g
}

// readRefs reads the refs of the zone's custom rules entry point.
func (g *guard) readRefs() {
	rs, err := g.l.client.GetEntrypointRuleset(context.Background(), g.zoneID, vocab.PhaseCustomRules)
	if err != nil {
		g.l.t.Fatal(err)
	}
	g.refs = map[string]bool{}
	if rs != nil {
		for _, r := range rs.Rules {
			g.refs[r.Ref] = true
		}
	}
}

func (g *guard) replaced(r inventory.FirewallRule) bool {
	return g.refs[r.ID] || (r.Ref != "" && g.refs[r.Ref]) || (g.refOf[r.ID] != "" && g.refs[g.refOf[r.ID]])
}

// after checks the invariant after a step. A custom rules write is checked against every
// rule (it could drop custom rules); a write to one firewall rule, against that rule, as
// no other object changed.
func (g *guard) after(st migrate.Step) {
	t := g.l.t
	t.Helper()
	ctx := context.Background()
	seg := segments(st.Path)
	switch {
	case strings.HasPrefix(st.Kind, "custom-rules."):
		g.readRefs()
		rules, err := g.l.client.ListFirewallRules(ctx, g.zoneID)
		if err != nil {
			t.Fatal(err)
		}
		active := map[string]bool{}
		for _, r := range rules {
			active[r.ID] = !r.Paused
		}
		for _, r := range g.before {
			if !r.Paused && !active[r.ID] && !g.replaced(r) {
				t.Fatalf("after step %s, zone %s has firewall rule %s (%q) neither active nor replaced by a custom rule", st.ID, g.zoneID, r.ID, r.Description)
			}
		}
	case len(seg) == 5 && seg[2] == "firewall" && seg[3] == "rules":
		if g.refs == nil {
			g.readRefs()
		}
		for _, r := range g.before {
			if r.ID == seg[4] && !r.Paused && !g.replaced(r) {
				t.Fatalf("step %s changed firewall rule %s (%q), which no custom rule replaces", st.ID, r.ID, r.Description)
			}
		}
	}
}

// apply scans the account, builds its plan and runs every non-manual step in order,
// checking dependencies and, after every step, that no zone lost protection. It returns the
// plan and the number of steps run.
func (l *live) apply() (*migrate.Plan, int) {
	t := l.t
	t.Helper()
	snap, res := l.scan()
	p := migrate.Build(snap, res, migrate.Options{AsOf: l.asOf})
	if len(p.Unplanned) > 0 {
		t.Fatalf("unplanned findings: %v", p.Unplanned)
	}
	target := map[string]migrate.Target{}
	for _, z := range p.Zones {
		for _, tg := range z.Targets {
			target[z.ZoneID+"/"+string(tg.Phase)] = tg
		}
	}
	guards := map[string]*guard{}
	for _, z := range snap.Zones {
		guards[z.Zone.ID] = l.guard(z.Zone.ID, z.FirewallRules)
	}
	ran := 0
	run := func(steps []migrate.Step, zoneID string) {
		done := map[string]bool{}
		for _, st := range steps {
			if st.Manual {
				continue
			}
			for _, d := range st.DependsOn {
				if !done[d] {
					t.Fatalf("step %s runs before %s, which it depends on", st.ID, d)
				}
			}
			l.execute(st, target)
			done[st.ID] = true
			ran++
			if zoneID != "" {
				guards[zoneID].after(st)
			}
		}
	}
	for _, a := range p.Accounts {
		run(a.Steps, "")
	}
	for _, z := range p.Zones {
		run(z.Steps, z.ZoneID)
	}
	// Every write the plan makes reaches a real endpoint and a body the API accepts.
	for _, r := range l.srv.Requests() {
		if r.Status >= 400 && slices.Contains([]string{"PUT", "POST", "PATCH", "DELETE"}, r.Method) {
			t.Errorf("write %s %s answered %d", r.Method, r.Path, r.Status)
		}
	}
	return p, ran
}

// TestApplyPlan executes the plan's API steps against the emulator seeded with the demo
// account, before the end of life of the SRV data fields (so every kind of step runs): only
// findings the plan marks manual remain, the custom rules are the translated ones, and the
// plan built on the migrated state has no step that changes anything.
func TestApplyPlan(t *testing.T) {
	l := newLive(t, seed.Demo(), goldenAsOf)
	p, ran := l.apply()
	if ran < 50 {
		t.Fatalf("only %d steps ran; the demo plan should have many more", ran)
	}
	after, res2 := l.scan()
	manual := p.ManualFindings()
	for _, f := range res2.Findings {
		if !manual[f.Fingerprint] && f.Severity >= scanner.SeverityWarning {
			t.Errorf("finding left after the plan ran: %s %s %s %s %s: %s", f.Severity, f.RuleID, f.ZoneName, f.Resource.Kind, f.Resource.ID, f.Message)
		}
	}
	// The custom rules in the entry points are the translated ones.
	for _, zp := range p.Zones {
		for _, want := range zp.Targets {
			if want.Phase != vocab.PhaseCustomRules {
				continue
			}
			i := slices.IndexFunc(after.Zones, func(z inventory.ZoneInventory) bool { return z.Zone.ID == zp.ZoneID })
			if i < 0 {
				t.Fatalf("zone %s is gone after the plan", zp.ZoneName)
			}
			rs, ok := after.Zones[i].Ruleset(vocab.PhaseCustomRules)
			if !ok {
				t.Fatalf("zone %s has no custom rules after the plan", zp.ZoneName)
			}
			checkRules(t, zp.ZoneName+" custom rules", rs.Rules, want.Rules)
		}
	}
	checkIdempotent(t, p, migrate.Build(after, res2, migrate.Options{AsOf: goldenAsOf}))
}

// checkIdempotent: the plan of the migrated state has nothing that changes anything, and its
// manual steps are the first plan's.
func checkIdempotent(t *testing.T, p, p2 *migrate.Plan) {
	t.Helper()
	firstIDs := map[string]bool{}
	for _, a := range p.Accounts {
		for _, st := range a.Steps {
			firstIDs["account:"+a.AccountID+"/"+st.ID] = true
		}
	}
	for _, z := range p.Zones {
		for _, st := range z.Steps {
			firstIDs["zone:"+z.ZoneID+"/"+st.ID] = true
		}
	}
	check := func(scope string, steps []migrate.Step) {
		for _, st := range steps {
			if !st.Manual {
				t.Errorf("the plan of the migrated state still has step %s %s (%s)", scope, st.ID, st.Title)
			} else if !firstIDs[scope+"/"+st.ID] {
				t.Errorf("the plan of the migrated state has a new manual step %s %s (%s)", scope, st.ID, st.Title)
			}
		}
	}
	for _, a := range p2.Accounts {
		check("account:"+a.AccountID, a.Steps)
	}
	for _, z := range p2.Zones {
		check("zone:"+z.ZoneID, z.Steps)
	}
	if p2.Summary.Create+p2.Summary.Change+p2.Summary.Delete+p2.Summary.Verify != 0 {
		t.Errorf("the plan of the migrated state is not empty of changes: %s", p2.Summary.Line())
	}
}

// migratedAsOf is a day past every end of life the live scan knows (spec dates): what is
// left of a deprecated setting then is inert, and a migrated account has nothing to change.
var migratedAsOf = time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)

// TestMigratedAccountScansClean is the property of a migration: build the account's plan,
// carry out every non-manual step against the emulator, scan again: nothing at or above the
// default --fail-on (warning) is left, and the scan is complete, so `sunset scan` exits 0.
// It holds for the demo account and for the generator's migratable account, whose zones are
// drawn from every plan.
func TestMigratedAccountScansClean(t *testing.T) {
	for name, snap := range map[string]*inventory.Snapshot{
		"demo":       seed.Demo(),
		"migratable": seed.GenerateMigratable(60, 3),
	} {
		t.Run(name, func(t *testing.T) {
			l := newLive(t, snap, migratedAsOf)
			p, ran := l.apply()
			if ran == 0 {
				t.Fatal("no step ran")
			}
			after, res := l.scan()
			if res.Incomplete {
				t.Fatalf("the rescan is incomplete: %+v", res.Errors)
			}
			for _, f := range res.Findings {
				if f.Severity >= scanner.SeverityWarning {
					t.Errorf("left at %s after the migration: %s %s %s %s: %s", f.Severity, f.RuleID, f.ZoneName, f.Resource.Kind, f.Resource.ID, f.Message)
				}
			}
			checkIdempotent(t, p, migrate.Build(after, res, migrate.Options{AsOf: migratedAsOf}))
		})
	}
}
