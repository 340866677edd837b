package apply_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// appliedWithJournal applies the demo plan through a journal (keepOld as given) and loads it.
func appliedWithJournal(t *testing.T, keepOld bool) (*account, *migrate.Plan, string) {
	t.Helper()
	a := serve(t, seed.Demo(), emulator.Options{})
	p, before := a.plan()
	path := filepath.Join(t.TempDir(), "journal")
	j, err := apply.CreateJournal(path, p, before, a.client.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	a.run(p, before, apply.Options{Journal: j, KeepOld: keepOld})
	_ = j.Close()
	return a, p, path
}

// dryRollback loads the journal at path and runs its rollback's dry run.
func dryRollback(t *testing.T, path string) (*apply.Loaded, *apply.Result) {
	t.Helper()
	l, err := apply.LoadJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	dry, err := apply.Rollback(context.Background(), l, apply.Options{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	return l, dry
}

// rollback rolls the journal at path back on the account, journaling it.
func (a *account) rollback(path string) *apply.Result {
	a.t.Helper()
	jr, l, err := apply.AppendJournal(path)
	if err != nil {
		a.t.Fatal(err)
	}
	res, err := apply.Rollback(context.Background(), l, apply.Options{Client: a.client, Journal: jr})
	_ = jr.Close()
	if err != nil {
		a.t.Fatal(err)
	}
	return res
}

// calls lists a result's requests as "METHOD path", scope by scope.
func calls(res *apply.Result, outcome string) []string {
	var out []string
	for _, sc := range res.Scopes {
		for _, st := range sc.Steps {
			if st.Outcome == outcome {
				out = append(out, sc.ID+" "+st.Method+" "+st.Path)
			}
		}
	}
	return out
}

// TestRollbackDryRunListsTheUndo: the dry run of a rollback lists the requests the rollback
// then sends, in its order: deletes of what the apply created and writes of what it
// overwrote, never the apply's own PUT of an entry point or POST of a rule; and
// EstimateRollback is the count the rollback sends.
func TestRollbackDryRunListsTheUndo(t *testing.T) {
	a, p, path := appliedWithJournal(t, true)
	l, dry := dryRollback(t, path)
	kinds := map[string]migrate.StepKind{}
	for _, st := range p.Steps() {
		kinds[st.ID] = st.Kind
	}
	for _, sc := range dry.Scopes {
		for _, st := range sc.Steps {
			spec := migrate.SpecOf(migrate.Step{Kind: kinds[st.ID]})
			want := http.MethodDelete
			if spec.Op == migrate.OpUpdate {
				want = "PUT or PATCH"
			}
			if st.Outcome != apply.OutcomeWould || !strings.Contains(want, st.Method) || st.What == "" {
				t.Errorf("%s %s: %s %s %q (%s), want %s", sc.Name, st.ID, st.Method, st.Path, st.What, st.Outcome, want)
			}
			if spec.Op == migrate.OpUpdate && !strings.Contains(st.What, "write back") {
				t.Errorf("%s %s: %q does not say what it writes back", sc.Name, st.ID, st.What)
			}
		}
	}
	estimate := apply.EstimateRollback(l)
	total := a.srv.Stats().Total
	res := a.rollback(path)
	listed, sent := calls(dry, apply.OutcomeWould), calls(res, apply.OutcomeUndone)
	if strings.Join(listed, "\n") != strings.Join(sent, "\n") {
		t.Fatalf("the dry run listed:\n%s\nthe rollback sent:\n%s", strings.Join(listed, "\n"), strings.Join(sent, "\n"))
	}
	if len(sent) == 0 {
		t.Fatal("nothing rolled back")
	}
	if n := a.srv.Stats().Total - total; n != estimate {
		t.Fatalf("the rollback sent %d requests, its estimate is %d", n, estimate)
	}
}

// TestRollbackDryRunStopsAtADeletion: past a deletion the dry run lists nothing, and says
// why at the deletion, as the rollback does.
func TestRollbackDryRunStopsAtADeletion(t *testing.T) {
	_, _, path := appliedWithJournal(t, false)
	_, dry := dryRollback(t, path)
	stopped := 0
	for _, sc := range dry.Scopes {
		if sc.Status != apply.StatusStopped {
			continue
		}
		stopped++
		last := sc.Steps[len(sc.Steps)-1]
		if last.ID != sc.StoppedAt || last.Method != "" || !strings.Contains(sc.Reason, "cannot be undone") {
			t.Errorf("%s: ends at %s %s %s (%s)", sc.Name, last.ID, last.Method, last.Path, sc.Reason)
		}
	}
	if stopped == 0 {
		t.Fatal("a finished apply ends in deletions; no dry run stopped at one")
	}
}
