package apply

import (
	"context"
	"fmt"

	"github.com/sunsetscan/sunset/migrate"
)

// confirmJournal runs before a resumed scope counts as done when the journal did some of
// its steps: it re-reads the scope's targets (each entry point holds exactly the plan's
// rules) and the objects the journal says it created, changed or deleted. A journal
// replayed against an account it was not written for (another API, another token's
// account, a restored backup) must not report its scopes done. Each read that may pass is
// retried, like a step.
func (r *scopeRun) confirmJournal(ctx context.Context) error {
	var err error
	for _, t := range r.sc.targets {
		if err = r.retried(ctx, func() error { return r.verifyEntrypoint(ctx, t.Phase) }); err != nil {
			break
		}
	}
	for _, st := range r.journaled() {
		if err != nil {
			break
		}
		err = r.retried(ctx, func() error { return r.confirmStep(ctx, st) })
	}
	if err != nil && !transient(err) && ctx.Err() == nil {
		return fmt.Errorf("the journal says this %s's steps are done, but the account does not show it (%w): was the journal written for this account? Build a new plan from a new scan", r.sc.kind, err)
	}
	return err
}

// retried runs read until it succeeds, fails in a way that will not pass, or runs out of
// attempts (maxAttempts).
func (r *scopeRun) retried(ctx context.Context, read func() error) error {
	var err error
	for n := 1; n <= maxAttempts; n++ {
		if err = read(); err == nil || ctx.Err() != nil || !transient(err) {
			return err
		}
	}
	return err
}

// journaled are the scope's steps an earlier run did whose effect is an object (not an
// entry point: the targets cover those).
func (r *scopeRun) journaled() []migrate.Step {
	var out []migrate.Step
	for _, st := range r.sc.steps {
		if _, ok := r.opts.Done[r.key(st)]; ok {
			switch migrate.SpecOf(st).Op {
			case migrate.OpCreate, migrate.OpUpdate, migrate.OpDelete:
				out = append(out, st)
			}
		}
	}
	return out
}

// confirmStep reads one journaled step's object: created, changed (or deleted since by a
// later step), deleted.
func (r *scopeRun) confirmStep(ctx context.Context, st migrate.Step) error {
	if migrate.SpecOf(st).Op == migrate.OpCreate {
		id, err := r.findByName(ctx, st.Path, nameOf(st))
		if err == nil && id == "" && nameOf(st) != "" {
			err = unsafe("no %q under %s", nameOf(st), st.Path)
		}
		return err
	}
	live, err := r.read(ctx, st.Path)
	switch {
	case err != nil:
		return err
	case live == nil && (migrate.SpecOf(st).Op == migrate.OpDelete || r.deletesLater(st)):
		return nil
	case live == nil:
		return unsafe("%s is gone", st.Path)
	case migrate.SpecOf(st).Op == migrate.OpDelete:
		return unsafe("%s still exists", st.Path)
	}
	body, err := decodeAny(st.Body)
	if err != nil {
		return err
	}
	took := contains
	if migrate.SpecOf(st).Whole {
		took = containsWhole
	}
	if !took(live, body) {
		return unsafe("%s does not show the change", st.Path)
	}
	return nil
}

// confirmReads is how many reads confirmJournal makes when nothing fails (one page each).
func (r *scopeRun) confirmReads() int { return len(r.sc.targets) + len(r.journaled()) }
