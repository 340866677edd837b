package migrate_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/apply"
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

// apply scans the account, builds its plan and carries out every non-manual step with
// package apply, which checks dependencies, reads every step back, verifies the entry points
// against the plan's targets and keeps the zone protected throughout: every scope must end
// done. It returns the plan and the number of steps sent.
func (l *live) apply() (*migrate.Plan, int) {
	t := l.t
	t.Helper()
	snap, res := l.scan()
	p := migrate.Build(snap, res, migrate.Options{AsOf: l.asOf})
	if len(p.Unplanned) > 0 {
		t.Fatalf("unplanned findings: %v", p.Unplanned)
	}
	out, err := apply.Apply(context.Background(), p, apply.Options{Client: l.client, Snapshot: snap})
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, s := range out.Scopes {
		if s.Status != apply.StatusDone {
			t.Fatalf("%s %s: %s at %s: %s", s.Scope, s.Name, s.Status, s.StoppedAt, s.Reason)
		}
		ran += s.Count(apply.OutcomeSent) + s.Count(apply.OutcomeChecked)
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
// findings the plan marks manual remain (the entry points were verified against the plan's
// targets by its verify steps), and the plan built on the migrated state has no step that
// changes anything.
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
	if p2.Summary.Create+p2.Summary.Change+p2.Summary.Pause+p2.Summary.Delete+p2.Summary.Verify != 0 {
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
	t.Parallel() // one of the package's slowest: it overlaps the others
	for name, snap := range map[string]*inventory.Snapshot{
		"demo": seed.Demo(),
		// 16 zones of seed 16 hold every plan level, rate limits and WAF packages (as the 60
		// zones of seed 3 did) at a fifth of the time under -race.
		"migratable": seed.GenerateMigratable(16, 16),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each account has its own emulator
			if lack := seed.MissingVariety(snap); lack != "" {
				t.Fatalf("the account is too plain to test: %s", lack)
			}
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
