package apply_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/meaning"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// An account is shared: these tests put other writers (another tool, a second run of the
// same plan, someone adding rules while the apply runs) beside the apply.

// made is one object a plan creates, as another tool writes it: where, and its body.
type made struct {
	zone  string      // the zone's id; "" for an account object
	phase vocab.Phase // the entry point's phase (rules)
	rule  inventory.RulesetRule
	path  string          // the collection (account objects)
	body  json.RawMessage // the object (account objects)
}

// creates are what the plan creates: each rule it adds to an entry point or creates one
// with, and each account object.
func creates(p *migrate.Plan) []made {
	var out []made
	for _, z := range p.Zones {
		for _, st := range z.Steps {
			spec := migrate.SpecOf(st)
			switch {
			case st.Manual || spec == nil:
			case spec.Op == migrate.OpCreateEntrypoint:
				var body struct {
					Rules []inventory.RulesetRule `json:"rules"`
				}
				_ = json.Unmarshal(st.Body, &body)
				for _, r := range body.Rules {
					out = append(out, made{zone: z.ZoneID, phase: spec.Phase, rule: r})
				}
			case spec.Op == migrate.OpAddRule:
				var r inventory.RulesetRule
				_ = json.Unmarshal(st.Body, &r)
				delete(r.Extra, "position")
				out = append(out, made{zone: z.ZoneID, phase: spec.Phase, rule: r})
			}
		}
	}
	for _, acc := range p.Accounts {
		for _, st := range acc.Steps {
			if spec := migrate.SpecOf(st); spec != nil && spec.Op == migrate.OpCreate && !st.Manual {
				out = append(out, made{path: st.Path, body: st.Body})
			}
		}
	}
	return out
}

// byAnotherTool writes the objects as another tool would: rules with refs and descriptions
// of its own, in another order (an entry point it creates holds them shuffled; rules added
// to an existing one go at random positions), policies under another name.
func byAnotherTool(t *testing.T, a *account, objs []made, rng *rand.Rand) {
	t.Helper()
	ctx := context.Background()
	rng.Shuffle(len(objs), func(i, j int) { objs[i], objs[j] = objs[j], objs[i] })
	for i, o := range objs {
		if o.zone == "" {
			var body map[string]any
			_ = json.Unmarshal(o.body, &body)
			if strings.Contains(o.path, "/alerting/") {
				body["name"] = fmt.Sprintf("policy %d by another tool", i)
			}
			raw, _ := json.Marshal(body)
			if err := a.client.Call(ctx, http.MethodPost, o.path, raw, nil); err != nil {
				t.Fatalf("another tool's %s: %v", o.path, err)
			}
			continue
		}
		r := o.rule
		r.Ref, r.Description = fmt.Sprintf("tool_%d", i), "by another tool: "+r.Description
		live, err := a.client.GetEntrypointRuleset(ctx, o.zone, o.phase)
		if err != nil {
			t.Fatal(err)
		}
		if live == nil {
			body, _ := json.Marshal(map[string]any{"rules": []inventory.RulesetRule{r}})
			err = a.client.Call(ctx, http.MethodPut, "/zones/"+o.zone+"/rulesets/phases/"+string(o.phase)+"/entrypoint", body, nil)
		} else {
			body := map[string]any{}
			raw, _ := json.Marshal(r)
			_ = json.Unmarshal(raw, &body)
			body["position"] = map[string]int{"index": 1 + rng.IntN(len(live.Rules)+1)}
			raw, _ = json.Marshal(body)
			err = a.client.Call(ctx, http.MethodPost, "/zones/"+o.zone+"/rulesets/"+live.ID+"/rules", raw, nil)
		}
		if err != nil {
			t.Fatalf("another tool's rule in %s %s: %v", o.zone, o.phase, err)
		}
	}
}

// meanings counts what the account's entry points and account objects do: each rule's and
// object's meaning key by zone and phase (or account), so that two states that do the same
// compare equal whatever ids, refs, labels and order they have.
func meanings(a *account) map[string]int {
	out := map[string]int{}
	snap := a.srv.Snapshot()
	for _, z := range snap.Zones {
		for _, rs := range z.Rulesets {
			for _, r := range rs.Rules {
				out[z.Zone.ID+" "+string(rs.Phase)+" "+string(meaning.Rule(rs.Phase, r))]++
			}
		}
	}
	for _, acc := range snap.Accounts {
		apps, policies := a.srv.Replacements(acc.Account.ID)
		for _, o := range apps {
			raw, _ := json.Marshal(o)
			k, _ := migrate.KindSpecs[migrate.KindAccessAppCreate].Same(raw)
			out[acc.Account.ID+" app "+string(k)]++
		}
		for _, o := range policies {
			raw, _ := json.Marshal(o)
			k, _ := migrate.KindSpecs[migrate.KindNotificationPolicyNew].Same(raw)
			out[acc.Account.ID+" policy "+string(k)]++
		}
	}
	return out
}

// diffCounts lists how two meaning counts differ.
func diffCounts(got, want map[string]int) []string {
	var out []string
	for k, n := range want {
		if got[k] != n {
			out = append(out, fmt.Sprintf("%d x (want %d) %s", got[k], n, k))
		}
	}
	for k, n := range got {
		if _, ok := want[k]; !ok {
			out = append(out, fmt.Sprintf("%d x (want 0) %s", n, k))
		}
	}
	sort.Strings(out)
	return out
}

// reference is what one apply of the account's plan gives, alone on its own copy.
func reference(t *testing.T, data *inventory.Snapshot) map[string]int {
	t.Helper()
	a := serve(t, data, emulator.Options{})
	p, before := a.plan()
	a.run(p, before, apply.Options{})
	return meanings(a)
}

// TestMadeByAnotherToolNotPlannedAgain: another tool has created every rule and object the
// plan would create, under refs, names and positions of its own. The plan built on a rescan
// creates none of them again and says which existing rule stands for each; its apply creates
// nothing, retires the old objects, and ends where an apply of the first plan ends.
func TestMadeByAnotherToolNotPlannedAgain(t *testing.T) {
	data := seed.Demo()
	want := reference(t, data)
	a := serve(t, data, emulator.Options{})
	p0, _ := a.plan()
	byAnotherTool(t, a, creates(p0), rand.New(rand.NewPCG(1, 2)))
	p, before := a.plan()
	if again := creates(p); len(again) > 0 {
		t.Errorf("the plan creates %d rules and objects again, the first: %+v", len(again), again[0])
	}
	var md bytes.Buffer
	if err := p.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "already there") {
		t.Error("plan.md does not say which existing rules stand for the plan's")
	}
	res := a.run(p, before, apply.Options{})
	for _, s := range res.Scopes {
		if s.Status != apply.StatusDone {
			t.Errorf("%s: %s at %s (%s)", s.Name, s.Status, s.StoppedAt, s.Reason)
		}
	}
	if d := diffCounts(meanings(a), want); len(d) > 0 {
		t.Errorf("the account does not end where one apply ends:\n%s", strings.Join(d, "\n"))
	}
	cleanRescan(t, a, nil)
}

// cleanRescan checks that a rescan finds nothing at or above warning (in the zones and
// accounts of only, when given).
func cleanRescan(t *testing.T, a *account, only map[string]bool) {
	t.Helper()
	_, rescan := a.scan()
	for _, f := range rescan.Findings {
		scope := f.ZoneID
		if scope == "" {
			scope = f.AccountID
		}
		if f.Severity >= scanner.SeverityWarning && (only == nil || only[scope]) {
			t.Errorf("left: %s %s %s %s", f.RuleID, f.ZoneName, f.Resource.Kind, f.Resource.ID)
		}
	}
}

// pairedPOSTs holds each create POST of an account object until a second POST of the same
// object arrives (two runs of one plan racing), then lets both through: both runs have
// looked for the object before either created it.
func pairedPOSTs(next http.Handler) http.Handler {
	var mu sync.Mutex
	waiting := map[string]chan struct{}{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/access/apps") && !strings.HasSuffix(r.URL.Path, "/alerting/v3/policies") {
			next.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		key := r.URL.Path + " " + string(body)
		mu.Lock()
		ch, second := waiting[key]
		if !second {
			ch = make(chan struct{})
			waiting[key] = ch
		}
		mu.Unlock()
		if second {
			close(ch)
		} else {
			<-ch
		}
		next.ServeHTTP(w, r)
	})
}

// TestTwoRunsAtOnceCreateOnce: one plan applied by two runs at once, each with its own
// journal, both looking for each Access application and notification policy before either
// creates it, so both create it: each run reads the collection again after its create, and
// of the two copies the later is removed, the same one by both. Both runs end done, and the
// account ends where one apply ends.
func TestTwoRunsAtOnceCreateOnce(t *testing.T) {
	data := seed.Demo()
	want := reference(t, data)
	a := serveThrough(t, data, emulator.Options{}, pairedPOSTs)
	p, before := a.plan()
	dir := t.TempDir()
	results := make([]*apply.Result, 2)
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j, err := apply.CreateJournal(fmt.Sprintf("%s/j%d", dir, i), p, before, a.client.BaseURL())
			if err != nil {
				errs <- err
				return
			}
			defer func() { _ = j.Close() }()
			results[i], err = apply.Apply(context.Background(), p, apply.Options{Client: a.client, Snapshot: before, Journal: j})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, res := range results {
		for _, s := range res.Scopes {
			if s.Status != apply.StatusDone {
				t.Errorf("run %d: %s: %s at %s (%s)", i+1, s.Name, s.Status, s.StoppedAt, s.Reason)
			}
		}
	}
	if d := diffCounts(meanings(a), want); len(d) > 0 {
		t.Errorf("two runs at once do not end where one does:\n%s", strings.Join(d, "\n"))
	}
}

// foreignRules adds, before the n-th write of the apply (and every k-th after), a rule of
// someone else's to a zone's custom rules entry point that has room for it beside the plan's
// rules; it records the rules it added.
type foreignRules struct {
	t      *testing.T
	rng    *rand.Rand
	every  int
	quota  map[string]int // zone id -> custom rules left for others
	mu     sync.Mutex
	writes int
	added  map[string]string // rule id -> zone id
	// waiters are closed once the count of writes answered reaches theirs.
	waiters map[chan struct{}]int
}

func (f *foreignRules) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		f.mu.Lock()
		if strings.Contains(r.URL.Path, "/zones/") && (f.writes+1)%f.every == 0 {
			f.addOne(next)
		}
		f.mu.Unlock()
		next.ServeHTTP(w, r)
		f.mu.Lock()
		f.writes++
		for ch, n := range f.waiters {
			if f.writes >= n {
				close(ch)
				delete(f.waiters, ch)
			}
		}
		f.mu.Unlock()
	})
}

// wait returns once n writes were answered, or done is closed.
func (f *foreignRules) wait(n int, done <-chan struct{}) {
	f.mu.Lock()
	if f.writes >= n {
		f.mu.Unlock()
		return
	}
	ch := make(chan struct{})
	f.waiters[ch] = n
	f.mu.Unlock()
	select {
	case <-ch:
	case <-done:
	}
}

// addOne adds one foreign rule to a random zone with room whose entry point exists.
func (f *foreignRules) addOne(next http.Handler) {
	zones := make([]string, 0, len(f.quota))
	for z, left := range f.quota {
		if left > 0 {
			zones = append(zones, z)
		}
	}
	sort.Strings(zones)
	if len(zones) == 0 {
		return
	}
	z := zones[f.rng.IntN(len(zones))]
	get := f.call(next, http.MethodGet, "/zones/"+z+"/rulesets/phases/http_request_firewall_custom/entrypoint", "")
	var rs struct {
		Result inventory.Ruleset `json:"result"`
	}
	if get.Code != http.StatusOK || json.Unmarshal(get.Body.Bytes(), &rs) != nil {
		return // no entry point yet
	}
	n := len(f.added)
	body := fmt.Sprintf(`{"action":"block","expression":"http.host eq \"foreign-%d.example\"","description":"someone else's %d","position":{"index":%d}}`, n, n, 1+f.rng.IntN(len(rs.Result.Rules)+1))
	rec := f.call(next, http.MethodPost, "/zones/"+z+"/rulesets/"+rs.Result.ID+"/rules", body)
	var back struct {
		Result inventory.Ruleset `json:"result"`
	}
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &back) != nil {
		f.t.Errorf("someone else's rule in %s: %d %s", z, rec.Code, rec.Body)
		return
	}
	for _, r := range back.Result.Rules {
		if r.Description == fmt.Sprintf("someone else's %d", n) {
			f.added[r.ID] = z
		}
	}
	f.quota[z]--
}

func (f *foreignRules) call(next http.Handler, method, path, body string) *httptest.ResponseRecorder {
	return call(next, method, path, body)
}

// roomForOthers is, per zone, how many custom rules others can add beside the plan's
// without the zone's quota refusing one of them.
func roomForOthers(p *migrate.Plan, snap *inventory.Snapshot) map[string]int {
	out := map[string]int{}
	for _, z := range p.Zones {
		for _, tg := range z.Targets {
			if tg.Phase == vocab.PhaseCustomRules {
				if q := inventory.CustomRulesQuota(zoneOf(snap, z.ZoneID).Zone.Plan.LegacyID); q > 0 {
					out[z.ZoneID] = min(3, q-len(tg.Rules))
				}
			}
		}
	}
	return out
}

// TestConvergence: random subsets of the plan's creates made beforehand by another tool
// (other refs, positions, order), random second runs of the same plan started at a random
// write of the first, and rules someone else adds while they run; then scan, plan, apply,
// rescan. Whatever happens: no rule or object is there twice (the account ends where one
// apply ends, plus the others' rules), no rule someone else added is lost, every run ends
// done, and the rescan is clean of what the plan carried out.
func TestConvergence(t *testing.T) {
	data := seed.Demo()
	want := reference(t, data)
	for _, s := range []uint64{1, 2, 3, 4, 5, 6} {
		t.Run(fmt.Sprint(s), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(s, 34))
			convergeOnce(t, data, want, rng)
		})
	}
}

// convergeOnce is one random case of TestConvergence.
func convergeOnce(t *testing.T, data *inventory.Snapshot, want map[string]int, rng *rand.Rand) {
	setup := serve(t, data, emulator.Options{})
	p0, before0 := setup.plan()
	f := &foreignRules{t: t, rng: rng, every: 5 + rng.IntN(20), quota: roomForOthers(p0, before0), added: map[string]string{}, waiters: map[chan struct{}]int{}}
	a := serveThrough(t, data, emulator.Options{}, f.wrap)
	var some []made
	for _, o := range creates(p0) {
		if rng.IntN(3) == 0 {
			some = append(some, o)
		}
	}
	every := f.every
	f.every = 1 << 30 // another tool's writes come before the apply: no one adds rules among them
	byAnotherTool(t, a, some, rng)
	f.mu.Lock()
	f.writes, f.every = 0, every
	f.mu.Unlock()
	p, before := a.plan()
	runs := 1 + rng.IntN(3)
	t.Logf("%d of %d creates made by another tool; %d runs; someone adds a rule every %d writes", len(some), len(creates(p0)), runs, f.every)
	results := concurrentRuns(t, a, f, p, before, runs, rng)
	done := map[string]bool{}
	for i, res := range results {
		for _, s := range res.Scopes {
			if s.Status != apply.StatusDone {
				t.Errorf("run %d: %s: %s at %s (%s)", i+1, s.Name, s.Status, s.StoppedAt, s.Reason)
			}
			done[s.ID] = true
		}
	}
	got := meanings(a)
	for id, z := range f.added {
		k := ""
		for _, r := range entrypointRules(t, a, z) {
			if r.ID == id {
				k = z + " " + string(vocab.PhaseCustomRules) + " " + string(meaning.Rule(vocab.PhaseCustomRules, r))
			}
		}
		if k == "" {
			t.Errorf("rule %s someone else added to %s is lost", id, z)
			continue
		}
		got[k]--
		if got[k] == 0 {
			delete(got, k)
		}
	}
	if d := diffCounts(got, want); len(d) > 0 {
		t.Errorf("the account does not end where one apply ends (others' rules aside):\n%s", strings.Join(d, "\n"))
	}
	cleanRescan(t, a, done)
}

// concurrentRuns applies p by n runs: the first at once, each other one once the API has
// answered a random number of writes (or the first run has ended), each with its own
// journal.
func concurrentRuns(t *testing.T, a *account, f *foreignRules, p *migrate.Plan, before *inventory.Snapshot, n int, rng *rand.Rand) []*apply.Result {
	t.Helper()
	dir := t.TempDir()
	results := make([]*apply.Result, n)
	errs := make([]error, n)
	firstDone := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		start := rng.IntN(60)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i > 0 {
				f.wait(start, firstDone)
			} else {
				defer close(firstDone)
			}
			j, err := apply.CreateJournal(fmt.Sprintf("%s/j%d", dir, i), p, before, a.client.BaseURL())
			if err != nil {
				errs[i] = err
				return
			}
			defer func() { _ = j.Close() }()
			results[i], errs[i] = apply.Apply(context.Background(), p, apply.Options{Client: a.client, Snapshot: before, Journal: j})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return results
}

// TestRefusedWhileARacedCopyStands: the other run of the same plan added a copy of the rule
// this run added just before (both looked before either wrote) and has not removed it yet
// when this run sends its next rule: the entry point is at its plan's quota, and the API
// refuses the rule. The run removes the later copy of its earlier rule, as the other run
// would, and sends the rule again: it ends done where one apply ends, and says what it
// removed.
func TestRefusedWhileARacedCopyStands(t *testing.T) {
	data := seed.Demo()
	want := reference(t, data)
	rc := &racedCopy{}
	a := serveThrough(t, data, emulator.Options{}, rc.wrap)
	p, before := a.plan()
	res := a.run(p, before, apply.Options{})
	if !rc.injected {
		t.Fatal("no POST of a rule filled an entry point to its quota: the test would pass without a race")
	}
	removed := false
	for _, s := range res.Scopes {
		if s.Status != apply.StatusDone {
			t.Errorf("%s: %s at %s (%s)", s.Name, s.Status, s.StoppedAt, s.Reason)
		}
		for _, n := range s.Notices {
			removed = removed || strings.Contains(n, "a second copy of")
		}
	}
	if !removed {
		t.Error("no notice says which copy the run removed")
	}
	if d := diffCounts(meanings(a), want); len(d) > 0 {
		t.Errorf("the account does not end where one apply ends:\n%s", strings.Join(d, "\n"))
	}
}

// racedCopy, once, before a POST of a rule that would fill a free zone's custom rules entry
// point to its quota, adds a copy of the rule POSTed there just before (another run's, not
// yet removed), so the API refuses the POST.
type racedCopy struct {
	mu       sync.Mutex
	last     map[string][]byte // ruleset rules path -> the last rule POSTed there, without its position
	injected bool
}

func (c *racedCopy) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/rules") {
			next.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		c.mu.Lock()
		defer c.mu.Unlock()
		path := strings.TrimPrefix(r.URL.Path, emulator.BasePath)
		if prev := c.last[path]; prev != nil && !c.injected && c.count(next, path) == inventory.CustomRulesQuota("free")-1 {
			if rec := call(next, http.MethodPost, path, string(prev)); rec.Code == http.StatusOK {
				c.injected = true
			}
		}
		var rule map[string]json.RawMessage
		if json.Unmarshal(body, &rule) == nil {
			delete(rule, "position")
			if c.last == nil {
				c.last = map[string][]byte{}
			}
			c.last[path], _ = json.Marshal(rule)
		}
		next.ServeHTTP(w, r)
	})
}

// count is how many rules the ruleset whose rules are at path holds now.
func (c *racedCopy) count(next http.Handler, path string) int {
	rec := call(next, http.MethodGet, strings.TrimSuffix(path, "/rules"), "")
	var rs struct {
		Result inventory.Ruleset `json:"result"`
	}
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &rs) != nil {
		return -1
	}
	return len(rs.Result.Rules)
}

// call sends one request to the emulator behind a middleware, as the demo account's owner.
func call(next http.Handler, method, path, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, emulator.BasePath+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+seed.DemoToken)
	rec := httptest.NewRecorder()
	next.ServeHTTP(rec, req)
	return rec
}
