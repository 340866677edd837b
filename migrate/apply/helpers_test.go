package apply_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/cfapi/openapi/openapitest"
	"github.com/sunsetscan/sunset/scanner/collect"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// asOf is past every end of life the scan knows: a migrated account then scans clean.
var asOf = time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)

// account is an emulated account with a client on it.
type account struct {
	t      testing.TB
	srv    *emulator.Server
	client *cfapi.Client
	day    time.Time // the day the account is on (its scans judge as of it)
}

// serve starts the emulator on snap with opts (Seed, AsOf and Token set here). With the
// corpus, it refuses every write whose body breaks the API's request schema.
func serve(t testing.TB, snap *inventory.Snapshot, opts emulator.Options) *account {
	t.Helper()
	return serveThrough(t, snap, opts, nil)
}

// serveThrough is serve with every request going through mw first (nil: none): what a
// test does between the client and the emulator.
func serveThrough(t testing.TB, snap *inventory.Snapshot, opts emulator.Options, mw func(http.Handler) http.Handler) *account {
	t.Helper()
	if opts.AsOf.IsZero() {
		opts.AsOf = asOf
	}
	opts.Seed, opts.Token = snap, seed.DemoToken
	if tt, ok := t.(*testing.T); ok && opts.OpenAPI == nil {
		opts.OpenAPI = openapitest.Doc(tt, openapitest.PlanOpsFile)
	}
	srv, err := emulator.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler = srv
	if mw != nil {
		h = mw(srv)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	c, err := cfapi.New(cfapi.Config{
		BaseURL: ts.URL + emulator.BasePath, Credentials: cfapi.TokenCredentials(seed.DemoToken),
		MaxRetries: 3, RetryBaseDelay: time.Millisecond, RetryMaxDelay: 5 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	return &account{t: t, srv: srv, client: c, day: opts.AsOf}
}

type lister struct{ *cfapi.Client }

func (l lister) ListZones(ctx context.Context, accountID, name string) ([]inventory.Zone, error) {
	return l.Client.ListZones(ctx, cfapi.ZoneFilter{AccountID: accountID, Name: name})
}

// scan collects the account and scans it.
func (a *account) scan() (*inventory.Snapshot, scanner.Result) {
	a.t.Helper()
	snap, err := collect.Collect(context.Background(), lister{a.client}, collect.Options{
		IsRetired: cfapi.IsRetired, IsFatal: cfapi.IsAuth, StatusOf: cfapi.StatusOf,
	})
	if err != nil {
		a.t.Fatal(err)
	}
	if snap.Incomplete {
		a.t.Fatalf("collection incomplete")
	}
	return snap, scanner.ScanSnapshot(snap, nil, scanner.Options{AsOf: a.day})
}

// plan scans the account and builds its plan.
func (a *account) plan() (*migrate.Plan, *inventory.Snapshot) {
	a.t.Helper()
	snap, res := a.scan()
	return migrate.Build(snap, res, migrate.Options{AsOf: a.day}), snap
}

// writes counts the writes the emulator received.
func (a *account) writes() int { return a.srv.Stats().Writes }

// apiState is the account as a scan reads it, without what differs between two runs that
// did the same (as state).
func (a *account) apiState() string {
	a.t.Helper()
	snap, _ := a.scan()
	return render(a.t, snap)
}

// state is the emulator's state without what differs between two runs that did the same:
// ids the emulator assigns, versions and timestamps; with each account's Access
// applications and notification policies (the snapshot does not hold them), sorted, so one
// created twice shows.
func (a *account) state() string {
	a.t.Helper()
	snap := a.srv.Snapshot()
	out := render(a.t, snap)
	for _, acc := range snap.Accounts {
		apps, policies := a.srv.Replacements(acc.Account.ID)
		out += fmt.Sprintf("\n%s apps %s\n%s policies %s", acc.Account.ID, contentLines(apps), acc.Account.ID, contentLines(policies))
	}
	return out
}

// contentLines renders objects one per line, sorted, without the members the emulator
// assigns (ids and timestamps).
func contentLines(objs []map[string]any) string {
	lines := make([]string, len(objs))
	for i, o := range objs {
		for k := range o {
			if k == "id" || k == "aud" || k == "created" || k == "modified" || unstable[k] {
				delete(o, k)
			}
		}
		raw, _ := json.Marshal(o)
		lines[i] = string(raw)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func render(t testing.TB, snap *inventory.Snapshot) string {
	raw, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.MarshalIndent(strip(v), "", " ")
	return string(out)
}

var unstable = map[string]bool{"requests": true, "version": true, "last_updated": true, "modified_on": true, "created_on": true, "created_at": true, "updated_at": true, "modified_at": true}

func strip(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if !unstable[k] {
				out[k] = strip(e)
			}
		}
		// Rules of entry points carry emulator-assigned ids (and refs when the plan gives
		// none): compare them by content.
		if _, ok := x["phase"]; ok {
			if rules, ok := out["rules"].([]any); ok {
				for _, r := range rules {
					if m, ok := r.(map[string]any); ok {
						delete(m, "id")
						delete(m, "ref")
					}
				}
			}
			delete(out, "id")
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = strip(e)
		}
		return out
	}
	return v
}

// run applies p to the account and fails the test on an error of the whole apply.
func (a *account) run(p *migrate.Plan, snap *inventory.Snapshot, opts apply.Options) *apply.Result {
	a.t.Helper()
	opts.Client, opts.Snapshot = a.client, snap
	res, err := apply.Apply(context.Background(), p, opts)
	if err != nil {
		a.t.Fatal(err)
	}
	return res
}

// duplicates lists rules that appear twice in one entry point.
func (a *account) duplicates() []string {
	var out []string
	for _, z := range a.srv.Snapshot().Zones {
		for _, rs := range z.Rulesets {
			seen := map[string]bool{}
			for _, r := range rs.Rules {
				k := string(r.Action) + " " + r.Ref + " " + r.Expression
				if seen[k] {
					out = append(out, z.Zone.Name+" "+string(rs.Phase)+": "+k)
				}
				seen[k] = true
			}
		}
	}
	sort.Strings(out)
	return out
}
