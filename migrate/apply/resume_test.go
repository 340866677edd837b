package apply_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// TestFaultyApplyResumesToTheSameEndState applies a plan to an emulator that answers 429s,
// 5xx, drops connections and loses the answers of writes it carried out; the scopes that
// stop are resumed from the journal until every one is done. The end state is the one a
// fault-free apply reaches, with no rule added twice.
func TestFaultyApplyResumesToTheSameEndState(t *testing.T) {
	t.Parallel() // its own emulators: it overlaps the others
	data := seed.Demo()
	clean := serve(t, data, emulator.Options{Rand: 3})
	p, before := clean.plan()
	clean.run(p, before, apply.Options{})
	want := clean.state()

	faulty := serve(t, data, emulator.Options{Rand: 3, Faults: emulator.FaultSpec{
		TooMany: 0.05, ServerError: 0.25, Drop: 0.1, Lost: 0.15, RetryAfter: time.Millisecond,
	}})
	// Without the client's own retries, faults reach the apply and stop scopes.
	noRetry, err := cfapi.New(cfapi.Config{BaseURL: faulty.client.BaseURL(), Credentials: cfapi.TokenCredentials(seed.DemoToken), MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	faulty.client = noRetry
	path := filepath.Join(t.TempDir(), "journal")
	j, err := apply.CreateJournal(path, p, before, faulty.client.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	runs, stopped := 0, 0
	for opts := (apply.Options{Journal: j}); ; {
		runs++
		res := faulty.run(p, before, opts)
		n := len(res.Stopped())
		stopped += n
		if n == 0 {
			break
		}
		for _, s := range res.Stopped() {
			t.Logf("run %d: %s stopped at %s restored %v: %.120s", runs, s.Name, s.StoppedAt, s.Restored, s.Reason)
			if strings.Contains(s.Reason, "stale") || strings.Contains(s.Reason, "read back") {
				t.Fatalf("%s stopped for a reason faults do not explain: %s", s.Name, s.Reason)
			}
		}
		if runs == 100 { // every read may fail here (no client retries, 40% faults): 20 to 40 runs
			t.Fatalf("still %d scopes stopped after %d runs", n, runs)
		}
		l, err := apply.LoadJournal(path)
		if err != nil {
			t.Fatal(err)
		}
		opts.Done = l.Done()
	}
	_ = j.Close()
	st := faulty.srv.Stats()
	t.Logf("%d runs, %d scope stops; faults injected %d (%d connections closed, before a write or after it)", runs, stopped, st.FaultsInjected, st.Dropped)
	if stopped == 0 {
		t.Fatal("no scope stopped: the faults did not reach the apply")
	}
	if d := faulty.duplicates(); len(d) > 0 {
		t.Fatalf("rules added twice: %v", d)
	}
	if got := faulty.state(); got != want {
		t.Fatalf("the end state differs from a fault-free apply's:\n%s", firstDiff(got, want))
	}
}

// TestRollbackRestoresTheBeforeState: an apply that kept the old objects (--keep-old) is
// undone whole: the account is as it was before, member for member. A finished apply's
// rollback stops at the first deletion of each zone, with the replacements in place.
func TestRollbackRestoresTheBeforeState(t *testing.T) {
	a := serve(t, seed.Demo(), emulator.Options{})
	p, before := a.plan()
	was := a.apiState()
	path := filepath.Join(t.TempDir(), "journal")
	j, err := apply.CreateJournal(path, p, before, a.client.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	a.run(p, before, apply.Options{Journal: j, KeepOld: true})
	_ = j.Close()
	if a.apiState() == was {
		t.Fatal("the apply changed nothing")
	}
	res := a.rollback(path)
	for _, s := range res.Scopes {
		if s.Status != apply.StatusDone {
			t.Errorf("rollback of %s: %s (%s)", s.Name, s.Status, s.Reason)
		}
	}
	if got := a.apiState(); got != was {
		t.Fatalf("after the rollback the account differs from before:\n%s", firstDiff(got, was))
	}
	// A rollback of the rollback's journal has nothing left to undo.
	l2, err := apply.LoadJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	writes := a.writes()
	if _, err := apply.Rollback(context.Background(), l2, apply.Options{Client: a.client}); err != nil || a.writes() != writes {
		t.Fatalf("a second rollback wrote %d times (%v)", a.writes()-writes, err)
	}
}

// TestRollbackStopsAtADeletion: past a deletion nothing is undone, and what stays is safe.
func TestRollbackStopsAtADeletion(t *testing.T) {
	a, p, path := appliedWithJournal(t, false)
	l, err := apply.LoadJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := apply.Rollback(context.Background(), l, apply.Options{Client: a.client})
	if err != nil {
		t.Fatal(err)
	}
	stopped := 0
	for _, s := range res.Scopes {
		if s.Status != apply.StatusStopped {
			continue
		}
		stopped++
		if !strings.Contains(s.Reason, "cannot be undone") {
			t.Errorf("%s: %s", s.Name, s.Reason)
		}
	}
	if stopped == 0 {
		t.Fatal("a finished apply ends in deletions; no rollback stopped at one")
	}
	// Every replacement is still in place.
	for _, z := range p.Zones {
		for _, tg := range z.Targets {
			rs, err := a.client.GetEntrypointRuleset(context.Background(), z.ZoneID, tg.Phase)
			if err != nil || rs == nil || len(rs.Rules) != len(tg.Rules) {
				t.Errorf("zone %s: the %s entry point is not the plan's after the rollback (%v)", z.ZoneName, tg.Phase, err)
			}
		}
	}
}

// firstDiff shows the first differing line of two states with some context.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			lo := max(0, i-8)
			return "got:\n" + strings.Join(g[lo:min(len(g), i+4)], "\n") + "\nwant:\n" + strings.Join(w[lo:min(len(w), i+4)], "\n")
		}
	}
	return "one is a prefix of the other"
}

// TestFinishedJournalOnAnotherAccount: a finished journal resumed against an account it
// never touched (here a fresh copy with the same ids, the worst case) does not report its
// scopes done: each one's targets and created objects are read again, and are not there.
func TestFinishedJournalOnAnotherAccount(t *testing.T) {
	a := serve(t, seed.Demo(), emulator.Options{})
	p, before := a.plan()
	path := filepath.Join(t.TempDir(), "journal")
	j, err := apply.CreateJournal(path, p, before, a.client.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	a.run(p, before, apply.Options{Journal: j})
	_ = j.Close()
	l, err := apply.LoadJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	other := serve(t, seed.Demo(), emulator.Options{})
	res := other.run(l.Plan, l.Snapshot, apply.Options{Done: l.Done()})
	if other.writes() != 0 {
		t.Errorf("%d writes reached the other account", other.writes())
	}
	for _, s := range res.Scopes {
		if s.Count(apply.OutcomeJournal) == 0 {
			continue // manual steps only: nothing was done there
		}
		if s.Status != apply.StatusStopped || !strings.Contains(s.Reason, "was the journal written for this account") {
			t.Errorf("%s %s: %s (%s), want stopped: the journal does not match the account", s.Scope, s.Name, s.Status, s.Reason)
		}
	}
}
