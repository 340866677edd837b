package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/cfapi"
)

// confirmJournal runs before a resumed scope counts as done when the journal did some of
// its steps: it re-reads the scope's targets (each entry point holds the plan's rules; one
// this run read or wrote with nothing written since is not read again) and the objects the journal says it created, changed or deleted (a list per
// collection where the API has one). A journal replayed against an account it was not
// written for (another API, another token's account, a restored backup) must not report
// its scopes done. Each read that may pass is retried, like a step.
func (r *scopeRun) confirmJournal(ctx context.Context) error {
	var err error
	for _, t := range r.sc.targets {
		if err = r.retried(ctx, func() error { return r.verifyEntrypoint(ctx, t.Phase, true) }); err != nil {
			break
		}
	}
	for coll, steps := range r.journaled() {
		if err != nil {
			break
		}
		err = r.retried(ctx, func() error { return r.confirmSteps(ctx, coll, steps) })
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
// entry point: the targets cover those), by the collection read to confirm them: a
// create's own path (found by what it does), the list of a listed collection, "" for the objects
// read on their own.
func (r *scopeRun) journaled() map[string][]migrate.Step {
	out := map[string][]migrate.Step{}
	for _, st := range r.sc.steps {
		if _, ok := r.opts.Done[r.key(st)]; !ok {
			continue
		}
		switch migrate.SpecOf(st).Op {
		case migrate.OpCreate:
			out[st.Path] = append(out[st.Path], st)
		case migrate.OpUpdate, migrate.OpDelete:
			coll := collectionOf(st.Path)
			out[coll] = append(out[coll], st)
		}
	}
	return out
}

// collectionOf is the listed collection holding the object at path, "" when the object
// is read on its own (listedCollections) or path is no path (a hand-edited plan, priced by
// the HTML report before any check).
func collectionOf(path string) string {
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return ""
	}
	coll := path[:i]
	if slices.ContainsFunc(listedCollections, func(c string) bool { return strings.HasSuffix(coll, "/"+c) }) {
		return coll
	}
	return ""
}

// confirmSteps reads the steps' objects once and checks each: created, changed (or gone
// and deleted by a later step), deleted.
func (r *scopeRun) confirmSteps(ctx context.Context, coll string, steps []migrate.Step) error {
	if migrate.SpecOf(steps[0]).Op == migrate.OpCreate {
		return r.confirmCreates(ctx, coll, steps)
	}
	paths := make([]string, len(steps))
	for i, st := range steps {
		paths[i] = st.Path
	}
	live, err := r.readSources(ctx, coll, paths)
	if err != nil {
		return err
	}
	for _, st := range steps {
		if err := r.confirmObject(st, live[st.Path]); err != nil {
			return err
		}
	}
	return nil
}

// confirmCreates: for each create, an object that does what it made is in the collection
// (read once).
func (r *scopeRun) confirmCreates(ctx context.Context, coll string, steps []migrate.Step) error {
	list, err := cfapi.ListAt[json.RawMessage](ctx, r.opts.Client, coll)
	if err != nil {
		return err
	}
	for _, st := range steps {
		found, err := matching(migrate.SpecOf(st), list, st.Body)
		if err != nil {
			return err
		}
		if len(found) == 0 {
			return unsafe("nothing under %s does what %s made", coll, st.ID)
		}
	}
	return nil
}

// confirmObject checks one changed or deleted object as read back.
func (r *scopeRun) confirmObject(st migrate.Step, live any) error {
	switch {
	case live == nil && (migrate.SpecOf(st).Op == migrate.OpDelete || r.deletesLater(st, false)):
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

// confirmReads is how many reads confirmJournal makes when nothing fails and every list
// is one page: a target the run knows with nothing written since is not read again.
func (r *scopeRun) confirmReads() int {
	n := 0
	for _, t := range r.sc.targets {
		if _, ok := r.fresh(t.Phase); !ok {
			n++
		}
	}
	for coll, steps := range r.journaled() {
		if coll == "" {
			n += len(steps)
		} else {
			n++
		}
	}
	return n
}
