// Package apply carries out a migration plan (package migrate) against the API: the only
// code of sunset that writes to an account.
//
// Zones (and accounts) run concurrently on one client, so they share its rate limiter;
// inside a scope, steps run in plan order, which is dependency order, a unit at a time
// (units.go): a step alone, or the steps of one kind the API has a bulk call for (bulk.go),
// or the rules added to one existing entry point (entrylist.go). Every unit:
//
//   - holds the objects it touches to the snapshot the plan was built from, as the
//     collection's last list (or a read of the object) shows them, and refuses the scope
//     ("plan is stale: rebuild") on a difference, allowing only what this apply did itself;
//   - finds out first whether a step is done already (an answer lost, a killed run
//     resumed, another run or another tool did it): the rules and objects a plan creates
//     are recognised by what they do (scanner/meaning, standing.go, objects.go), before and
//     after each create, so nothing is made twice, and of two copies a race of two runs
//     left the earlier stays;
//   - writes to an entry point without overwriting anyone's rules: a missing one is created
//     with the API's create call (refused when one exists by then), an existing one gets
//     each rule with its own positioned POST; a rule someone else adds at any moment is kept;
//   - is read back, and the scope's safety invariant checked (invariant.go): rules that were
//     there are there, and every rule the plan puts in the zone's entry points is in place
//     as planned before the first old firewall rule, filter, rate limit, WAF override or
//     WAF setting is paused, deleted or switched off, and again after each of those units;
//     rules others added besides are kept and named (ScopeResult.Notices).
//
// A failure stops its scope at the last step that held the invariant; the others go on.
// The journal (journal.go) records every write as it begins (a bulk call with the steps
// and ids it covers) and every step once it is read back, with the ids the API assigned, so
// Apply with Options.Done resumes without repeating a step and Rollback (rollback.go)
// undoes a journal in reverse.
package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/sourcegraph/conc/pool"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// DefaultWorkers is how many zones are applied at once by default.
const DefaultWorkers = 8

// Options steer Apply.
type Options struct {
	// Client sends every request; nil only for a dry run.
	Client *cfapi.Client
	// Snapshot is the snapshot the plan was built from: what the stale checks compare with.
	Snapshot *inventory.Snapshot
	// Journal records each step; nil records nothing (dry run, tests).
	Journal *Journal
	// Done are the steps an earlier run of the same journal did (Loaded.Done): skipped.
	Done map[string]Entry
	// DryRun sends nothing and reports what would be sent.
	DryRun bool
	// KeepOld creates the replacements and pauses the old objects, and deletes nothing: a
	// resumed run without it finishes the job.
	KeepOld bool
	// Workers is how many scopes run at once (DefaultWorkers when < 1).
	Workers int
	// OnStep, when set, sees every step outcome as it happens (progress), those of units
	// that continue one another (removals of one kind) once the last of them is done; it
	// may be called from several goroutines at once.
	OnStep func(scope *ScopeResult, step StepResult)
	// OnScope, when set, sees every scope as it ends (progress); it may be called from
	// several goroutines at once.
	OnScope func(scope *ScopeResult)
}

// Outcomes of a step.
const (
	OutcomeSent     = "sent"    // the write was sent and read back
	OutcomeChecked  = "checked" // a verify step's read matched the plan
	OutcomeAlready  = "already" // found done without sending (a lost answer, a resumed run)
	OutcomeJournal  = "journal" // done by an earlier run of the journal: nothing sent
	OutcomeWould    = "would"   // dry run: would be sent
	OutcomeHeld     = "held"    // not run: --keep-old, or it depends on a manual step
	OutcomeStopped  = "stopped" // the scope stopped at this step
	OutcomeNotReach = "not-reached"
)

// Statuses of a scope.
const (
	StatusDone    = "done"    // every non-manual step done
	StatusPartial = "partial" // done, with steps held back (--keep-old or manual dependencies)
	StatusStopped = "stopped" // stopped at a step: stale, failed or unsafe
	StatusDryRun  = "dry-run"
)

// StepResult is what happened to one step.
type StepResult struct {
	ID      string            `json:"id"`
	Kind    string            `json:"kind"`
	Method  string            `json:"method,omitempty"`
	Path    string            `json:"path,omitempty"`
	Outcome string            `json:"outcome"`
	Created map[string]string `json:"created,omitempty"`
	Reason  string            `json:"reason,omitempty"`
	// What says in words what a rollback's request (Method, Path) undoes or restores.
	What string `json:"what,omitempty"`
}

// ManualStep is a step an operator must carry out.
type ManualStep struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// What is what to do: the step's reason and note.
	What string `json:"what"`
}

// ScopeResult is one zone's or account's apply.
type ScopeResult struct {
	Scope  string       `json:"scope"` // "zone" or "account"
	ID     string       `json:"id"`
	Name   string       `json:"name,omitempty"`
	Status string       `json:"status"`
	Steps  []StepResult `json:"steps"`
	// StoppedAt is the step the scope stopped at, LastSafe the last step done before it
	// ("" when none was), Reason why it stopped.
	StoppedAt string       `json:"stopped_at,omitempty"`
	LastSafe  string       `json:"last_safe,omitempty"`
	Reason    string       `json:"reason,omitempty"`
	Manual    []ManualStep `json:"manual,omitempty"`
	// Restored are the steps undone when the scope stopped: old protections this apply
	// paused or switched off whose replacements were found missing, switched back on.
	Restored []string `json:"restored,omitempty"`
	// Notices say what the apply met of other writers in the scope: rules and objects
	// someone else wrote that stand for the plan's (not created again), rules they added
	// that were kept, copies a concurrent run left and which one was removed.
	Notices []string `json:"notices,omitempty"`
	// Requests are, in a dry run, the requests the apply would send for the scope's steps
	// in order, with the steps behind each (a bulk call carries several).
	Requests []Request `json:"requests,omitempty"`
}

// Count returns how many of the scope's steps had outcome o.
func (s *ScopeResult) Count(o string) int {
	n := 0
	for _, st := range s.Steps {
		if st.Outcome == o {
			n++
		}
	}
	return n
}

// Result is a whole apply: accounts first, then zones, in plan order.
type Result struct {
	DryRun bool `json:"dry_run"`
	// Rollback is set on the result of Rollback.
	Rollback bool          `json:"rollback,omitempty"`
	Scopes   []ScopeResult `json:"scopes"`
}

// Stopped returns the scopes that stopped.
func (r *Result) Stopped() []ScopeResult {
	var out []ScopeResult
	for _, s := range r.Scopes {
		if s.Status == StatusStopped {
			out = append(out, s)
		}
	}
	return out
}

// RefusedError is a plan (or a journal's plan) refused before the first request: a step
// that is not what the planner emits for its kind (migrate.Plan.Check).
type RefusedError struct{ Err error }

func (e *RefusedError) Error() string {
	return "the plan holds steps sunset does not plan; nothing was sent:\n" + e.Err.Error()
}

// Unwrap returns the refusals.
func (e *RefusedError) Unwrap() error { return e.Err }

// errFatal marks an error that ends the whole apply (a rejected credential, an unwritable
// journal), not only its scope.
var errFatal = errors.New("apply stopped")

// Apply carries out the plan's non-manual steps (see the package comment). It returns an
// error only when the whole apply must stop (the credential refused, the journal
// unwritable, the context cancelled); a scope that stops is in the result.
func Apply(ctx context.Context, p *migrate.Plan, opts Options) (*Result, error) {
	if opts.Client == nil && !opts.DryRun {
		return nil, errors.New("apply: no client")
	}
	if err := p.Check(opts.Snapshot); err != nil {
		return nil, &RefusedError{Err: err}
	}
	return eachScope(ctx, scopesOf(p, opts.Snapshot), &opts, (*scopeRun).run)
}

// eachScope runs do on every scope, opts.Workers at once, and returns the first error of
// the whole run (or the context's).
func eachScope(ctx context.Context, scopes []scope, opts *Options, do func(*scopeRun, context.Context) error) (*Result, error) {
	workers := opts.Workers
	if workers < 1 {
		workers = DefaultWorkers
	}
	res := &Result{DryRun: opts.DryRun, Scopes: make([]ScopeResult, len(scopes))}
	run := pool.New().WithErrors().WithFirstError().WithMaxGoroutines(workers)
	for i := range scopes {
		run.Go(func() error {
			err := do(&scopeRun{opts: opts, sc: scopes[i], res: &res.Scopes[i]}, ctx)
			if opts.OnScope != nil {
				opts.OnScope(&res.Scopes[i])
			}
			return err
		})
	}
	firstErr := run.Wait()
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	return res, firstErr
}

// scope is one zone's or account's steps with what the snapshot knew of it.
type scope struct {
	kind, id, name string
	steps          []migrate.Step
	index          map[string]int // step id -> position in steps
	targets        []migrate.Target
	// guards are the targets each step's dependencies write or verify (guardBits); nil
	// when guardBits cannot tell, and guardedPhases walks the dependencies.
	guards  []uint64
	zone    *inventory.ZoneInventory
	account *inventory.AccountInventory
}

func scopesOf(p *migrate.Plan, snap *inventory.Snapshot) []scope {
	zones, accounts := map[string]*inventory.ZoneInventory{}, map[string]*inventory.AccountInventory{}
	if snap != nil {
		for i := range snap.Zones {
			zones[snap.Zones[i].Zone.ID] = &snap.Zones[i]
		}
		for i := range snap.Accounts {
			accounts[snap.Accounts[i].Account.ID] = &snap.Accounts[i]
		}
	}
	var out []scope
	for _, a := range p.Accounts {
		out = append(out, scope{kind: "account", id: a.AccountID, name: a.AccountName, steps: a.Steps, index: indexSteps(a.Steps), account: accounts[a.AccountID]})
	}
	for _, z := range p.Zones {
		sc := scope{kind: "zone", id: z.ZoneID, name: z.ZoneName, steps: z.Steps, index: indexSteps(z.Steps), targets: z.Targets, zone: zones[z.ZoneID]}
		sc.guards = sc.guardBits()
		out = append(out, sc)
	}
	return out
}

func indexSteps(steps []migrate.Step) map[string]int {
	out := make(map[string]int, len(steps))
	for i, st := range steps {
		out[st.ID] = i
	}
	return out
}

// after is the scope's steps that come after st (none when st is not the scope's).
func (sc *scope) after(st migrate.Step) []migrate.Step {
	i, ok := sc.index[st.ID]
	if !ok {
		return nil
	}
	return sc.steps[i+1:]
}

// scopeRun runs one scope's steps in order.
type scopeRun struct {
	opts *Options
	sc   scope
	res  *ScopeResult
	// applied holds, per path, the members this apply wrote there: the stale check allows them.
	applied map[string]any
	// done and held are the step ids done and held back so far.
	done, held map[string]bool
	// replacedChecked is set once the replacements were read back in place.
	replacedChecked bool
	// befores holds what each write of this run overwrote, by step id (restore).
	befores map[string]json.RawMessage
	// fromJournal is set once a step was found done by an earlier run (confirmJournal).
	fromJournal bool
	// lists holds, by listed collection, its objects by path as last read (sourcesFresh, or
	// the read back of a bulk call); unsure the paths written since without a read back.
	lists  map[string]map[string]any
	unsure map[string]bool
	// writes counts the writes sent so far; known holds the entry points as last read or
	// written (known.go).
	writes int
	known  map[vocab.Phase]knownEntrypoint
	// continuing is set while a unit runs that continues the one before it (continues):
	// the read after that one stands for the read before this one. The step outcomes of
	// such a run of units are reported together (pending, OnStep) once it is over, so no
	// report comes between a read and the removal it stands before.
	continuing bool
	pending    []StepResult
}

func (r *scopeRun) run(ctx context.Context) error {
	r.res.Scope, r.res.ID, r.res.Name, r.res.Status = r.sc.kind, r.sc.id, r.sc.name, StatusDone
	r.res.Steps = []StepResult{}
	if r.opts.DryRun {
		r.res.Status = StatusDryRun
	}
	r.applied, r.done, r.held, r.befores = map[string]any{}, map[string]bool{}, map[string]bool{}, map[string]json.RawMessage{}
	r.lists, r.unsure = map[string]map[string]any{}, map[string]bool{}
	defer r.report()
	if err := r.freshAtStart(ctx); err != nil {
		return err
	}
	if r.res.Status == StatusStopped {
		return nil
	}
	units := r.sc.units()
	cont := r.sc.continued(units)
	for i, u := range units {
		if !cont[i] && !u.steps[0].Manual {
			r.report() // the run of units before it is over
		}
		r.continuing = cont[i]
		if stopped, err := r.runUnit(ctx, u); stopped {
			return err
		}
	}
	// A dry run with a client reads back what the journal did too: what it says is left
	// holds only if the account shows the rest done.
	if r.fromJournal && (!r.opts.DryRun || r.opts.Client != nil) {
		if err := r.confirmJournal(ctx); err != nil {
			r.res.Status, r.res.StoppedAt, r.res.Reason = StatusStopped, "journal check", err.Error()
			_ = r.opts.Journal.Record(Entry{Event: EventStopped, Scope: r.sc.kind, ID: r.sc.id, Reason: err.Error()})
			return nil
		}
	}
	if r.res.Status == StatusDone && len(r.held) > len(r.res.Manual) {
		r.res.Status = StatusPartial
	}
	return nil
}

// freshAtStart holds the scope's snapshot to the account before its first write
// (sourcesFresh); a resumed scope was held to it by the run that began it. A difference
// stops the scope at its first step with nothing sent.
func (r *scopeRun) freshAtStart(ctx context.Context) error {
	if r.opts.DryRun || r.resumed() {
		return nil
	}
	var err error
	for n := 1; n <= maxAttempts; n++ {
		if err = r.sourcesFresh(ctx); err == nil || ctx.Err() != nil || !transient(err) {
			break
		}
	}
	if err == nil {
		return nil
	}
	if cfapi.IsAuth(err) {
		err = fmt.Errorf("%w: %w", errFatal, err)
	}
	first := slices.IndexFunc(r.sc.steps, func(st migrate.Step) bool { return !st.Manual })
	if first < 0 {
		return nil
	}
	r.stop(r.sc.steps[first], err)
	r.notReached(first + 1)
	if ctx.Err() != nil || errors.Is(err, errFatal) {
		return err
	}
	return nil
}

// resumed reports whether an earlier run of the journal did some of the scope's steps.
func (r *scopeRun) resumed() bool {
	for _, st := range r.sc.steps {
		if _, ok := r.opts.Done[r.key(st)]; ok {
			return true
		}
	}
	return false
}

// settled is the result of a step that is not sent: done by an earlier run of the journal,
// held back, or a dry run's; false when it is to be sent.
func (r *scopeRun) settled(st migrate.Step) (StepResult, bool) {
	out := resultOf(st, "", nil)
	if e, ok := r.opts.Done[r.key(st)]; ok {
		r.fromJournal = true
		r.markDone(st)
		out.Outcome, out.Created = OutcomeJournal, e.Created
		return out, true
	}
	if why := r.holdReason(st); why != "" {
		r.held[st.ID] = true
		out.Outcome, out.Reason = OutcomeHeld, why
		return out, true
	}
	if r.opts.DryRun {
		r.done[st.ID] = true
		out.Outcome = OutcomeWould
		return out, true
	}
	return out, false
}

// resultOf is a step's result with an outcome and the ids it created.
func resultOf(st migrate.Step, outcome string, created map[string]string) StepResult {
	return StepResult{ID: st.ID, Kind: string(st.Kind), Method: st.Method, Path: st.Path, Outcome: outcome, Created: created}
}

// holdReason says why a step is not run this time, "" when it runs.
func (r *scopeRun) holdReason(st migrate.Step) string {
	if r.opts.KeepOld && deletes(st) {
		return keepOldReason
	}
	for _, d := range st.DependsOn {
		if r.held[d] {
			return "depends on " + d + ", which is not done (manual or held back)"
		}
	}
	return ""
}

// markDone records a done step and what it wrote, for the stale checks of later steps.
func (r *scopeRun) markDone(st migrate.Step) {
	r.done[st.ID] = true
	if (st.Method == "PUT" || st.Method == "PATCH") && len(st.Body) > 0 {
		if body, err := decodeAny(st.Body); err == nil {
			r.applied[st.Path] = overlay(r.applied[st.Path], body)
		}
	}
}

func (r *scopeRun) key(st migrate.Step) string {
	return Entry{Scope: r.sc.kind, ID: r.sc.id, Step: st.ID}.key()
}

func (r *scopeRun) record(out StepResult) {
	r.res.Steps = append(r.res.Steps, out)
	switch out.Outcome {
	case OutcomeSent, OutcomeChecked, OutcomeAlready, OutcomeJournal:
		r.res.LastSafe = out.ID // the last step actually done
	}
	if r.opts.OnStep != nil {
		r.pending = append(r.pending, out)
	}
}

// report hands the outcomes recorded since the last report to OnStep.
func (r *scopeRun) report() {
	for _, out := range r.pending {
		r.opts.OnStep(r.res, out)
	}
	r.pending = r.pending[:0]
}

// stop ends the scope at st and journals why.
func (r *scopeRun) stop(st migrate.Step, err error) {
	r.res.Status, r.res.StoppedAt, r.res.Reason = StatusStopped, st.ID, err.Error()
	r.record(StepResult{ID: st.ID, Kind: string(st.Kind), Method: st.Method, Path: st.Path, Outcome: OutcomeStopped, Reason: err.Error()})
	_ = r.opts.Journal.Record(Entry{Event: EventStopped, Scope: r.sc.kind, ID: r.sc.id, Step: st.ID, Kind: string(st.Kind), Reason: err.Error()})
}

// notReached lists the steps after a stop, manual ones with what to do.
func (r *scopeRun) notReached(from int) {
	for _, st := range r.sc.steps[from:] {
		if st.Manual {
			r.res.Manual = append(r.res.Manual, ManualStep{ID: st.ID, Title: st.Title, What: joinText(st.Reason, st.Note)})
			continue
		}
		r.res.Steps = append(r.res.Steps, StepResult{ID: st.ID, Kind: string(st.Kind), Method: st.Method, Path: st.Path, Outcome: OutcomeNotReach})
	}
}

func joinText(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " " + b
}

// staleError is a stale check's refusal: the account changed since the scan.
type staleError struct{ what string }

func (e *staleError) Error() string { return "plan is stale: rebuild (" + e.what + ")" }

func stale(format string, args ...any) error { return &staleError{what: fmt.Sprintf(format, args...)} }

// unsafeError is a read back that breaks the safety invariant or misses the step's effect.
type unsafeError struct{ what string }

func (e *unsafeError) Error() string { return "read back: " + e.what }

func unsafe(format string, args ...any) error {
	return &unsafeError{what: fmt.Sprintf(format, args...)}
}
