package apply_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// once runs do on the first request match accepts, then passes every request on.
func once(match func(*http.Request) bool, do func(w http.ResponseWriter, r *http.Request, next http.Handler)) func(http.Handler) http.Handler {
	var fired sync.Once
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if match(r) {
				hit := false
				fired.Do(func() { hit = true })
				if hit {
					do(w, r, next)
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// bulkCall reports whether r is a bulk call of the given method on the collection.
func bulkCall(r *http.Request, method, coll string) bool {
	return r.Method == method && strings.HasSuffix(r.URL.Path, "/"+coll)
}

// journalEntries reads a journal's entries (its header skipped).
func journalEntries(t *testing.T, path string) []apply.Entry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	var out []apply.Entry
	for n := 0; sc.Scan(); n++ {
		var e apply.Entry
		if n > 0 && json.Unmarshal(sc.Bytes(), &e) == nil {
			out = append(out, e)
		}
	}
	return out
}

// TestLostBulkAnswerResolvedByAListRead: the bulk deletion of a zone's firewall rules is
// carried out, and then the apply dies before the answer comes back (a kill). The journal
// holds the bulk call with every id it covered and none of its steps done; the resumed
// apply reads the list once, finds them gone, records them done without sending them again,
// and ends in the state of an apply without the fault.
func TestLostBulkAnswerResolvedByAListRead(t *testing.T) {
	data := seed.Demo()
	clean := serve(t, data, emulator.Options{})
	p, before := clean.plan()
	clean.run(p, before, apply.Options{})
	want := clean.state()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var lostZone string
	a := serveThrough(t, data, emulator.Options{}, once(func(r *http.Request) bool {
		return bulkCall(r, http.MethodDelete, "firewall/rules")
	}, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		next.ServeHTTP(httptest.NewRecorder(), r) // carried out; its answer goes nowhere
		lostZone = strings.Split(strings.TrimPrefix(r.URL.Path, emulator.BasePath+"/zones/"), "/")[0]
		cancel()
		panic(http.ErrAbortHandler)
	}))
	path := filepath.Join(t.TempDir(), "journal")
	j, err := apply.CreateJournal(path, p, before, a.client.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	_, err = apply.Apply(ctx, p, apply.Options{Client: a.client, Snapshot: before, Journal: j})
	_ = j.Close()
	if !errors.Is(err, context.Canceled) || lostZone == "" {
		t.Fatalf("the apply was not killed at the bulk call: %v", err)
	}
	var covered []string
	for _, e := range journalEntries(t, path) {
		if e.ID == lostZone && e.Method == http.MethodDelete && len(e.Steps) > 0 {
			covered = e.Steps
			if len(e.IDs) != len(e.Steps) {
				t.Errorf("the bulk call's entry names %d ids for %d steps", len(e.IDs), len(e.Steps))
			}
		}
	}
	if len(covered) == 0 {
		t.Fatal("the journal holds no bulk call naming its steps")
	}

	j, l, err := apply.AppendJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = j.Close() }()
	for _, st := range covered {
		if _, ok := l.Done()["zone/"+lostZone+"/"+st]; ok {
			t.Fatalf("step %s is journaled done though its answer was lost", st)
		}
	}
	res := a.run(p, before, apply.Options{Journal: j, Done: l.Done()})
	for _, s := range res.Scopes {
		if s.Status != apply.StatusDone {
			t.Errorf("%s: %s at %s: %s", s.Name, s.Status, s.StoppedAt, s.Reason)
		}
		for _, st := range s.Steps {
			if s.ID == lostZone && slices.Contains(covered, st.ID) && st.Outcome != apply.OutcomeAlready {
				t.Errorf("%s: %s, want found done by the list read", st.ID, st.Outcome)
			}
		}
	}
	if got := a.state(); got != want {
		t.Fatalf("the end state differs from a fault-free apply's:\n%s", firstDiff(got, want))
	}
}

// TestBulkRefusedForOneID: someone made a firewall rule use one of the filters the plan
// deletes. The API refuses that filter in the bulk deletion and carries out the others (a
// partial bulk call, as the API reports it); the apply records the others done from the
// list read back, sends the refused one alone, and stops the zone there with the API's
// reason. The filter stays; the other zones finish.
func TestBulkRefusedForOneID(t *testing.T) {
	data := seed.Demo()
	a0 := serve(t, data, emulator.Options{})
	p, before := a0.plan()
	z, filters := zoneWithFilters(t, p)
	kept := filters[len(filters)-1]
	a := serveThrough(t, data, emulator.Options{}, once(func(r *http.Request) bool {
		return bulkCall(r, http.MethodDelete, "filters") && strings.Contains(r.URL.Path, z.ZoneID)
	}, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		q := r.URL.Query()
		ids := slices.DeleteFunc(q["id"], func(id string) bool { return id == kept })
		q["id"] = ids
		r.URL.RawQuery = q.Encode()
		next.ServeHTTP(httptest.NewRecorder(), r)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"success":false,"errors":[{"code":10015,"message":"filter ` + kept + ` cannot be deleted"}],"messages":[],"result":null}`))
	}))
	// Someone else's rule, created after the scan, uses the filter.
	body := `[{"filter":{"id":"` + kept + `"},"action":"block","description":"someone else's"}]`
	if err := a.client.Call(context.Background(), http.MethodPost, "/zones/"+z.ZoneID+"/firewall/rules", json.RawMessage(body), nil); err != nil {
		t.Fatal(err)
	}
	res := a.run(p, before, apply.Options{})
	if s := othersDone(t, res, z.ZoneID); s != nil {
		// The reason is the API's answer to the filter's own DELETE, not the bulk call's.
		if s.Status != apply.StatusStopped || s.StoppedAt != "filter.delete:"+kept || !strings.Contains(s.Reason, "delete the rules first") {
			t.Fatalf("%s: %s at %s (%s), want stopped at filter.delete:%s with the API's answer to its own DELETE", s.Name, s.Status, s.StoppedAt, s.Reason, kept)
		}
		for _, st := range s.Steps {
			if st.Kind == string(migrate.KindFilterDelete) && st.ID != s.StoppedAt && st.Outcome != apply.OutcomeSent {
				t.Errorf("%s: %s, want sent by the bulk call", st.ID, st.Outcome)
			}
		}
	}
	live, err := a.client.ListFilters(context.Background(), z.ZoneID)
	if err != nil {
		t.Fatal(err)
	}
	if len(live) != 1 || live[0].ID != kept {
		t.Errorf("filters left: %v, want only %s", live, kept)
	}
}

// zoneWithFilters is a zone of the plan deleting at least two filters, and their ids.
func zoneWithFilters(t *testing.T, p *migrate.Plan) (*migrate.ZonePlan, []string) {
	for i := range p.Zones {
		var ids []string
		for _, st := range p.Zones[i].Steps {
			if st.Kind == migrate.KindFilterDelete {
				ids = append(ids, st.Path[strings.LastIndexByte(st.Path, '/')+1:])
			}
		}
		if len(ids) >= 2 {
			return &p.Zones[i], ids
		}
	}
	t.Fatal("no zone deletes two filters")
	return nil, nil
}

// TestConcurrentEditBetweenReadAndWrite: someone adds a rule to an entry point and edits a
// rule of it after the apply read it and before the apply's first write there. Neither is
// lost: the apply adds its rules one at a time around them, the zone ends done and names
// the rule added; resuming the journal afterwards writes nothing and finds it all in place.
func TestConcurrentEditBetweenReadAndWrite(t *testing.T) {
	data := seed.Demo()
	zone, _ := zoneAddingCustomRules(t, data)
	zone.Zone.Plan.LegacyID = "business" // room for the rule the other writer adds
	a0 := serve(t, data, emulator.Options{})
	p, before := a0.plan()
	z, add := zoneAddingRules(t, p)
	phase := migrate.KindSpecs[add.Kind].Phase
	var existing, entry string
	var edited []byte
	for _, r := range zoneOf(before, z.ZoneID).Rulesets {
		if r.Phase == phase && len(r.Rules) > 0 {
			entry = "/zones/" + z.ZoneID + "/rulesets/" + r.ID + "/rules"
			existing = entry + "/" + r.Rules[0].ID
			rule := r.Rules[0]
			rule.ID, rule.Version, rule.Description = "", "", "edited by someone else"
			edited, _ = json.Marshal(rule)
		}
	}
	if existing == "" {
		t.Fatal("the entry point rules are added to holds no rule")
	}
	theirs := `{"action":"block","expression":"http.host eq \"theirs.example\"","description":"added by someone else"}`
	a := serveThrough(t, data, emulator.Options{}, once(func(r *http.Request) bool {
		return r.Method != http.MethodGet && strings.Contains(r.URL.Path, "/zones/"+z.ZoneID+"/rulesets")
	}, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		for _, other := range []struct{ method, path, body string }{{http.MethodPatch, existing, string(edited)}, {http.MethodPost, entry, theirs}} {
			req := httptest.NewRequest(other.method, emulator.BasePath+other.path, strings.NewReader(other.body))
			req.Header.Set("Authorization", "Bearer "+seed.DemoToken)
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				t.Errorf("the other writer's %s failed: %d %s", other.method, rec.Code, rec.Body)
			}
		}
		next.ServeHTTP(w, r)
	}))
	path := filepath.Join(t.TempDir(), "j")
	j, err := apply.CreateJournal(path, p, before, a.client.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	res := a.run(p, before, apply.Options{Journal: j})
	_ = j.Close()
	if s := othersDone(t, res, z.ZoneID); s.Status != apply.StatusDone || !slices.ContainsFunc(s.Notices, func(n string) bool { return strings.Contains(n, "added by someone else") }) {
		t.Fatalf("%s: %s at %s (%s), notices %q: want done, naming the rule someone added", s.Name, s.Status, s.StoppedAt, s.Reason, s.Notices)
	}
	theirsKept := func() {
		t.Helper()
		live, err := a.client.GetEntrypointRuleset(context.Background(), z.ZoneID, phase)
		if err != nil || live == nil {
			t.Fatalf("read the entry point: %v", err)
		}
		descs := map[string]bool{}
		for _, r := range live.Rules {
			descs[r.Description] = true
		}
		if !descs["added by someone else"] || !descs["edited by someone else"] {
			t.Fatalf("the other writer's work is lost: rules %v", descs)
		}
	}
	theirsKept()
	l, err := apply.LoadJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	writes := a.writes()
	res = a.run(l.Plan, l.Snapshot, apply.Options{Done: l.Done()})
	if s := othersDone(t, res, z.ZoneID); s.Status != apply.StatusDone || a.writes() != writes {
		t.Fatalf("resumed: %s (%s), %d writes", s.Status, s.Reason, a.writes()-writes)
	}
	theirsKept()
}

// zoneAddingRules is a zone of the plan adding custom rules to an existing entry point, and
// its first such step.
func zoneAddingRules(t *testing.T, p *migrate.Plan) (*migrate.ZonePlan, migrate.Step) {
	for i := range p.Zones {
		for _, st := range p.Zones[i].Steps {
			if st.Kind == migrate.KindCustomRulesAdd {
				return &p.Zones[i], st
			}
		}
	}
	t.Fatal("no zone adds custom rules to an existing entry point")
	return nil, migrate.Step{}
}

// othersDone checks that every scope but zoneID's is done, and returns zoneID's.
func othersDone(t *testing.T, res *apply.Result, zoneID string) *apply.ScopeResult {
	t.Helper()
	var out *apply.ScopeResult
	for i, s := range res.Scopes {
		switch {
		case s.ID == zoneID:
			out = &res.Scopes[i]
		case s.Status != apply.StatusDone:
			t.Errorf("%s: %s (%s)", s.Name, s.Status, s.Reason)
		}
	}
	if out == nil {
		t.Fatalf("zone %s has no result", zoneID)
	}
	return out
}

// TestBulkCallsKeepToTheAPICaps: a zone retiring more firewall rules than one bulk update
// takes (cfapi.MaxBulkRuleUpdate) pauses them in calls of at most that many, deletes them
// and their filters in calls of at most cfapi.MaxBulkDelete ids, ends done, and the apply
// sends exactly the requests EstimateRequests says.
func TestBulkCallsKeepToTheAPICaps(t *testing.T) {
	data := seed.GenerateMigratable(200, 1)
	i := slices.IndexFunc(data.Zones, func(z inventory.ZoneInventory) bool {
		return len(z.FirewallRules) > cfapi.MaxBulkRuleUpdate && len(z.FirewallRules) <= cfapi.MaxBulkDelete
	})
	if i < 0 {
		t.Fatal("the generated account has no zone with 26 to 100 firewall rules")
	}
	data.Zones = data.Zones[i : i+1]
	var (
		mu   sync.Mutex
		puts []int // items of each bulk PUT
		dels []int // ids of each bulk DELETE
	)
	a := serveThrough(t, data, emulator.Options{}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			switch {
			case bulkCall(r, http.MethodPut, "firewall/rules"):
				body, _ := io.ReadAll(r.Body)
				var items []json.RawMessage
				_ = json.Unmarshal(body, &items)
				puts = append(puts, len(items))
				r.Body = io.NopCloser(bytes.NewReader(body))
			case bulkCall(r, http.MethodDelete, "firewall/rules"), bulkCall(r, http.MethodDelete, "filters"):
				dels = append(dels, len(r.URL.Query()["id"]))
			}
			mu.Unlock()
			next.ServeHTTP(w, r)
		})
	})
	p, before := a.plan()
	sent := a.srv.Stats().Total
	res := a.run(p, before, apply.Options{})
	if s := res.Scopes[len(res.Scopes)-1]; s.Status != apply.StatusDone {
		t.Fatalf("%s: %s at %s (%s)", s.Name, s.Status, s.StoppedAt, s.Reason)
	}
	if got, want := a.srv.Stats().Total-sent, apply.EstimateRequests(p, false); got != want {
		t.Errorf("the apply sent %d requests, EstimateRequests says %d", got, want)
	}
	n := 0
	for _, st := range p.Zones[0].Steps {
		if st.Kind == migrate.KindFirewallRulePause {
			n++
		}
	}
	if len(puts) != (n+cfapi.MaxBulkRuleUpdate-1)/cfapi.MaxBulkRuleUpdate || slices.Max(puts) != cfapi.MaxBulkRuleUpdate {
		t.Errorf("%d rules paused in bulk calls of %v, want calls of at most %d", n, puts, cfapi.MaxBulkRuleUpdate)
	}
	if len(dels) != 2 || slices.Max(dels) > cfapi.MaxBulkDelete {
		t.Errorf("deleted in bulk calls of %v ids, want one for the rules and one for the filters", dels)
	}
}

// TestBulkAnswerNotShowingTheChangeIsReadBack: a bulk pause is carried out but its answer
// lists none of the rules it wrote (an API that answers short). The answer is not taken for
// the read back: the collection is read once more, shows the pauses, and the zone finishes
// done with that one read more than the estimate.
func TestBulkAnswerNotShowingTheChangeIsReadBack(t *testing.T) {
	data := seed.Demo()
	a := serveThrough(t, data, emulator.Options{}, once(func(r *http.Request) bool {
		return bulkCall(r, http.MethodPut, "firewall/rules")
	}, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		next.ServeHTTP(httptest.NewRecorder(), r) // carried out; answered short
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"success":true,"errors":[],"messages":[],"result":[]}`))
	}))
	p, before := a.plan()
	sent := a.srv.Stats().Total
	res := a.run(p, before, apply.Options{})
	for _, s := range res.Scopes {
		if s.Status != apply.StatusDone {
			t.Errorf("%s: %s at %s (%s)", s.Name, s.Status, s.StoppedAt, s.Reason)
		}
	}
	if got, want := a.srv.Stats().Total-sent, apply.EstimateRequests(p, false)+1; got != want {
		t.Errorf("the apply sent %d requests, want %d: the estimate and one read of the list", got, want)
	}
}
