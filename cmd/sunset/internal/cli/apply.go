package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// applyJournalDefault is where --yes writes its journal when --journal is not given.
const applyJournalDefault = "sunset-apply.journal"

// applyFlags are the source and judging groups (to build the plan when given none), the
// saved plan's, a --format of apply's own, and apply's flags, grouped in its help by the
// form of apply each serves: a plan directory, a journal, or a plan built as sunset plan
// builds it.
func applyFlags() []ucli.Flag {
	return regroup(slices.Concat(sourceFlags(), judgingFlags(), savedPlanFlags(), []ucli.Flag{
		outputFlag("text", "json"),
		&ucli.BoolFlag{Name: "yes", Usage: "carry the steps out (without it, a dry run that sends no write)"},
		&ucli.StringFlag{Name: "journal", Value: applyJournalDefault, Usage: "record what is done in `FILE` (new; --yes only)"},
		&ucli.StringFlag{Name: "resume", Usage: "continue the apply recorded in `JOURNAL`"},
		&ucli.StringFlag{Name: "rollback", Usage: "undo what `JOURNAL` did, in reverse, to the last safe point"},
		&ucli.BoolFlag{Name: "keep-old", Usage: "create the replacements and pause the old objects, delete nothing (resume later without it)"},
		toOtherAPIFlag(),
	}),
		flagGroup{"Apply", []string{"yes", "journal", "resume", "rollback", "keep-old", flagFormat}},
		flagGroup{"The plan directory (PLAN_DIR or --plan-dir)", []string{flagPlanDir, "plan-in", flagPartial, flagToOtherAPI}},
		flagGroup{"Accounts and zones: of the plan, the journal or the live scan", []string{"account", "zone", "zone-filter"}},
		flagGroup{"API: where --yes sends, and where a plan built without PLAN_DIR is read", apiFlagNames},
		flagGroup{"Catalog: the one the plan was built with", []string{flagCatalog, flagDates}},
		flagGroup{"Without a plan directory or journal: the plan built as sunset plan builds it, live or from --snapshot", []string{"snapshot", "snapshot-out", flagAsOf}},
	)
}

func applyCommand(s *Streams) *ucli.Command {
	return &ucli.Command{
		Name:      "apply",
		Usage:     "carry out a migration plan's API steps (a dry run unless --yes)",
		ArgsUsage: "[PLAN_DIR]",
		Description: "Reads the plan directory `sunset plan --plan-dir` wrote (the plan and the snapshot it was\n" +
			"built from), or builds the plan as `sunset plan` does (live, or --snapshot), and prints per\n" +
			"zone the requests it would send (a bulk call as one line), what of it cannot be undone and\n" +
			"the manual steps it will not; with this plan's journal, what is left of it (No changes).\n" +
			"A plan from a directory or a journal must be the one sunset builds from its snapshot, step for\n" +
			"step: anything else is refused whole before the first request (exit 2).\n" +
			"With --yes it sends them: zones concurrently behind one rate limiter, steps in order, a\n" +
			"phase at a time (the API's bulk calls for firewall rules and filters, one write per entry\n" +
			"point), each object held to the snapshot first (a zone whose objects changed since the scan\n" +
			"stops: plan is stale, rebuild), each change read back, old rules paused and deleted only\n" +
			"while their replacements are in place. The journal records every step and bulk call;\n" +
			"--resume JOURNAL continues an interrupted apply, --rollback JOURNAL undoes one: only a\n" +
			"journal as sunset wrote it (its lines chained by sha256), against the API and accounts it\n" +
			"was written for, and one run at a time (JOURNAL.lock).\n" +
			"A plan directory is applied to the API it was read from unless --api-url (or SUNSET_API_URL)\n" +
			"names it; another one is refused before any request unless --to-other-api. A plan from an\n" +
			"incomplete scan is refused; --partial applies only the zones and accounts read whole.\n" +
			"Manual steps are never run: counted by kind at the end, each one in plan.md and --format json.\n" +
			"Exit 0 every zone done, 2 usage, 3 fatal (credentials, journal), 4 some zones stopped or skipped.",
		Flags: applyFlags(),
		Action: func(c *ucli.Context) error {
			o, err := resolveApply(c, s)
			if err != nil {
				return err
			}
			return runApply(c.Context, s, o)
		},
	}
}

// applyOptions is what `sunset apply` resolved from its flags and argument.
type applyOptions struct {
	source  *scanOptions
	saved   savedPlan
	formats []reports.FormatSpec
	yes     bool
	keepOld bool
	// journal is where a new apply records (--journal); journalIn is the journal of --resume
	// or --rollback.
	journal, journalIn string
	rollback           bool
	// toOtherAPI lets a plan directory go to another API than it was read from
	// (planAPIURL); partial takes a plan from an incomplete scan (holdIncomplete).
	toOtherAPI, partial bool
}

// resolveApply reads apply's flags and argument, and the credentials once when the run sends
// requests: every write (--yes), or a live scan to build the plan.
func resolveApply(c *ucli.Context, s *Streams) (*applyOptions, error) {
	o := &applyOptions{yes: c.Bool("yes"), keepOld: c.Bool("keep-old"), journal: c.String("journal"),
		toOtherAPI: c.Bool(flagToOtherAPI), partial: c.Bool(flagPartial)}
	var err error
	if o.formats, err = outputSpecs(c, "text", "json"); err != nil {
		return nil, err
	}
	resume, rollback := c.String("resume"), c.String("rollback")
	if resume != "" && rollback != "" {
		return nil, usageErrorf("--resume and --rollback are alternatives: give one")
	}
	o.journalIn, o.rollback = resume+rollback, rollback != ""
	if o.saved, err = savedPlanOf(c, s); err != nil {
		return nil, err
	}
	if o.journalIn != "" && (o.saved.plan != "" || c.String("snapshot") != "") {
		return nil, usageErrorf("the journal holds the plan and its snapshot: no plan directory or --snapshot with --resume or --rollback")
	}
	buildsLive := o.journalIn == "" && o.saved.plan == "" && c.String("snapshot") == ""
	if o.source, err = resolvePlanSource(c, s, o.yes || buildsLive, o.saved.snapshot); err != nil {
		return nil, err
	}
	if !o.yes && !buildsLive && !o.rollback && o.readsJournal() {
		// A dry run reads back what a journal did when it has credentials, else says so.
		if o.source.sourceOptions, err = o.source.withCredentials(c, s); errors.Is(err, cfapi.ErrNoCredentials) {
			err = nil
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case o.toOtherAPI && o.saved.plan == "":
		return nil, usageErrorf("--%s applies a plan directory to another API than it was read from: give it with the plan directory", flagToOtherAPI)
	case o.toOtherAPI && !o.source.baseURLGiven:
		return nil, usageErrorf("--%s needs --api-url URL (or SUNSET_API_URL): the API to apply the plan to", flagToOtherAPI)
	}
	return o, nil
}

// readsJournal reports whether the run goes on from a journal: --resume's, or the one at
// --journal when it exists (it may hold this plan: adoptJournal).
func (o *applyOptions) readsJournal() bool {
	if o.journalIn != "" {
		return true
	}
	_, err := os.Lstat(o.journal)
	return err == nil
}

// journalPath is the journal the run writes or would write: --resume's or --rollback's,
// else --journal.
func (o *applyOptions) journalPath() string {
	if o.journalIn != "" {
		return o.journalIn
	}
	return o.journal
}

// applyRun is what runApply works on: the plan, its snapshot, the journal, and how to run.
type applyRun struct {
	plan     *migrate.Plan
	snap     *inventory.Snapshot
	loaded   *apply.Loaded  // --resume or --rollback
	journal  *apply.Journal // held (locked) from --resume or --rollback with --yes, or the new one
	rollback bool
	yes      bool
	keepOld  bool
	rps      float64
	// skipped are the zones and accounts of a plan from an incomplete scan that --partial
	// leaves out (holdIncomplete).
	skipped []migrate.Unread
}

func runApply(ctx context.Context, s *Streams, o *applyOptions) error {
	run, err := prepareApply(ctx, s, o)
	if err != nil {
		return err
	}
	defer func() { _ = run.journal.Close() }() // every entry was synced as written
	opts := o.source
	base, err := planAPIURL(s, o, run.plan.Source)
	if err != nil {
		return err
	}
	client, err := opts.clientAt(base)
	if err != nil && run.yes {
		return usageErrorf("%v", err)
	}
	if err := checkJournalBinding(ctx, o, run, client, base); err != nil {
		return err
	}
	if !run.yes && opts.creds.IsZero() {
		client = nil // a dry run without credentials reads nothing
	}
	aopts := apply.Options{Client: client, Snapshot: run.snap, DryRun: !run.yes, KeepOld: run.keepOld, Workers: opts.collect.Workers}
	if run.yes {
		if err := openJournal(o.journal, run, client); err != nil {
			return err
		}
		aopts.Journal = run.journal
		fmt.Fprintf(s.Err, "sunset: journal %s\n", textsafe.Sanitize(run.journal.Path()))
	}
	if run.loaded != nil && !run.rollback {
		aopts.Done = run.loaded.Done()
		if !run.yes && client != nil {
			n := apply.ConfirmReads(run.plan, aopts.Done)
			fmt.Fprintf(s.Err, "sunset: reading back what journal %s did: %s, %s\n", textsafe.Sanitize(o.journalPath()), plural(n, "request", "requests"), dryRunTime(n, run.rps))
		}
	}
	prog := newApplyProgress(s, run, client)
	aopts.OnStep, aopts.OnScope = prog.step, prog.scope
	var res *apply.Result
	if run.rollback {
		res, err = apply.Rollback(ctx, run.loaded, aopts)
	} else {
		res, err = apply.Apply(ctx, run.plan, aopts)
	}
	prog.done()
	if res == nil {
		return applyOutcome(ctx, s, err, res, run, opts)
	}
	v := &applyView{run: run, res: res, sum: summarizeApply(run, res, opts.asOf, opts.catalog), client: client,
		manualAt: manualListAt(o.saved.plan, o.journalIn), journal: o.journalPath()}
	if werr := v.writeOutputs(s, o.formats); werr != nil {
		return werr
	}
	outcome := applyOutcome(ctx, s, err, res, run, opts)
	if exitCode(outcome) != ExitUsage && exitCode(outcome) != ExitFatal {
		printEnding(s.Err, v.wrote(o), v.next(o))
	}
	return outcome
}

// applyOutcome is the exit status of an apply that ran: refused (2), the API refusing the
// credentials or another failure (3), interrupted, some scopes stopped or skipped (4).
func applyOutcome(ctx context.Context, s *Streams, err error, res *apply.Result, run *applyRun, opts *scanOptions) error {
	var refused *apply.RefusedError
	switch {
	case errors.As(err, &refused):
		return usageErrorf("%v", refused)
	case err != nil && cfapi.IsAuth(err):
		return fatalError(fmt.Errorf("the API refused %s: %w", opts.creds.Describe(), err))
	case err != nil && ctx.Err() != nil:
		fmt.Fprintf(s.Err, "sunset: apply %s; resume with --resume\n", stopReason(err))
		return &exitError{code: ExitIncomplete}
	case err != nil:
		return fatalError(err)
	case len(res.Stopped()) > 0, len(run.skipped) > 0:
		return &exitError{code: ExitIncomplete}
	}
	return nil
}

// prepareApply reads the plan's source (a journal, a plan directory, or a scan) and holds
// it to what this sunset would plan before anything is sent.
func prepareApply(ctx context.Context, s *Streams, o *applyOptions) (*applyRun, error) {
	opts := o.source
	run := &applyRun{yes: o.yes, keepOld: o.keepOld, rps: opts.rps}
	var err error
	if o.journalIn != "" {
		if run.loaded, run.journal, err = loadApplyJournal(o.journalIn, run.yes); err != nil {
			return nil, err
		}
		run.plan, run.snap, run.rollback = run.loaded.Plan, run.loaded.Snapshot, o.rollback
	} else if err := planOfApply(ctx, s, opts, run, o.saved.plan); err != nil {
		return nil, err
	}
	if err := narrowApply(s, opts, run); err != nil {
		_ = run.journal.Close() // nothing was written to it
		return nil, err
	}
	if run.loaded != nil || o.saved.plan != "" {
		if err := vetPlan(run.plan, run.snap, opts.catalog); err != nil {
			_ = run.journal.Close() // nothing was written to it
			return nil, err
		}
	}
	if err := holdIncomplete(o, run); err != nil {
		_ = run.journal.Close() // nothing was written to it
		return nil, err
	}
	if err := adoptJournal(s, o, run); err != nil {
		return nil, err
	}
	return run, nil
}

// adoptJournal goes on from the journal at --journal when it exists and holds this very
// plan, as --resume would: applying a plan again continues its journal (a dry run says
// what is left, often nothing; --yes carries out the rest) instead of refusing. A journal of
// another plan is never written to: --yes is refused saying what to do, a dry run says so.
func adoptJournal(s *Streams, o *applyOptions, run *applyRun) error {
	if run.loaded != nil || !o.readsJournal() {
		return nil
	}
	j := textsafe.Sanitize(o.journal)
	l, err := apply.LoadJournal(o.journal)
	switch {
	case err != nil && run.yes:
		return fatalError(fmt.Errorf("cannot write the journal: journal %s exists and cannot be resumed (%w): choose another --journal", j, err))
	case err != nil:
		fmt.Fprintf(s.Err, "sunset: journal %s exists and cannot be resumed (%v): with --yes, choose another --journal\n", j, err)
		return nil
	case !l.Holds(run.plan) && run.yes:
		return fatalError(fmt.Errorf("cannot write the journal: journal %s exists and holds another plan: resume that one (sunset apply --resume %s --yes), or give this plan its own journal (--journal FILE)", j, j))
	case !l.Holds(run.plan):
		fmt.Fprintf(s.Err, "sunset: journal %s holds another plan: with --yes, give this plan its own journal (--journal FILE), or resume that one (--resume %s)\n", j, j)
		return nil
	}
	if run.loaded, run.journal, err = loadApplyJournal(o.journal, run.yes); err != nil {
		return err
	}
	fmt.Fprintf(s.Err, "sunset: journal %s holds this plan: going on from it, as --resume %s\n", j, j)
	return nil
}

// holdIncomplete refuses a plan from an incomplete scan (exit 2) unless --partial, and with
// it leaves out the zones and accounts not read whole, keeping them in run.skipped for the
// output. A journal's plan is one only when --partial was given (its plan is the one
// carried out: the scopes read whole, with the marks): resumed, it goes on skipping them. A
// rollback undoes what the journal did, whatever the plan.
func holdIncomplete(o *applyOptions, run *applyRun) error {
	if !run.plan.Incomplete || run.rollback {
		return nil
	}
	if !o.partial && run.loaded == nil {
		return incompleteRefusal(run.plan, "apply")
	}
	run.skipped, run.plan = run.plan.Unread, run.plan.ReadWhole()
	if run.loaded != nil {
		run.loaded.Plan = run.plan
	}
	return nil
}

// vetPlan holds a plan read from a file or a journal to what this sunset plans from the
// snapshot it came with, before anything is sent: its steps' shape (migrate.Plan.Check),
// then their content (the plan built again from the snapshot, migrate.Plan.SameAs).
func vetPlan(p *migrate.Plan, snap *inventory.Snapshot, cat *catalog.Catalog) error {
	err := p.Check(snap)
	if err == nil {
		var built *migrate.Plan
		if built, err = p.Rebuild(snap, cat); err == nil {
			err = p.SameAs(built)
		}
	}
	if err != nil {
		return usageErrorf("%v", &apply.RefusedError{Err: err})
	}
	return nil
}

// planOfApply builds the plan from a scan (live or --snapshot) or reads the saved plan.
func planOfApply(ctx context.Context, s *Streams, opts *scanOptions, run *applyRun, planIn string) error {
	snap, _, collectErr := acquireSnapshot(ctx, s, opts)
	if snap == nil {
		return collectErr
	}
	if collectErr != nil {
		return &exitError{code: ExitIncomplete, err: fmt.Errorf("scan %s: nothing applied", stopReason(collectErr))}
	}
	if opts.snapshotOut != "" {
		if err := writeSnapshot(opts.snapshotOut, snap); err != nil {
			return err
		}
	}
	run.snap = snap
	if planIn != "" {
		var err error
		run.plan, err = readPlanInput(s, planIn)
		return err
	}
	res := scanner.ScanSnapshot(snap, opts.catalog, scanner.Options{AsOf: opts.asOf})
	run.plan = buildPlan(snap, res, opts)
	return nil
}

// loadApplyJournal reads the journal of --resume or --rollback; with --yes the run will
// write to it, so it first takes its lock (held until the journal is closed) and keeps it
// open to append.
func loadApplyJournal(path string, yes bool) (*apply.Loaded, *apply.Journal, error) {
	if !yes {
		l, err := apply.LoadJournal(path)
		if err != nil {
			return nil, nil, usageErrorf("%v", err)
		}
		return l, nil, nil
	}
	j, l, err := apply.AppendJournal(path)
	var lockErr *apply.LockError
	switch {
	case errors.As(err, &lockErr):
		return nil, nil, fatalError(err)
	case err != nil:
		return nil, nil, usageErrorf("%v", err)
	}
	return l, j, nil
}

// checkJournalBinding refuses, before any write, a resume or rollback against another API
// than the journal's (base, the source's URL: no request sent) or, with --yes, with
// credentials that do not reach the journal's accounts.
func checkJournalBinding(ctx context.Context, o *applyOptions, run *applyRun, client *cfapi.Client, base string) error {
	if run.loaded == nil {
		return nil
	}
	opts := o.source
	var err error
	if run.yes {
		err = run.loaded.CheckBinding(ctx, client)
	} else {
		err = run.loaded.CheckAPIURL(base)
	}
	var bindErr *apply.BindingError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &bindErr):
		return usageErrorf("journal %s: %v", textsafe.Sanitize(o.journalIn), err)
	case cfapi.IsAuth(err):
		return fatalError(fmt.Errorf("the API refused %s: %w", opts.creds.Describe(), err))
	}
	return fatalError(err)
}

// openJournal creates the journal of a new apply (taking its lock); a resumed or rolled
// back one is open already (loadApplyJournal).
func openJournal(path string, run *applyRun, client *cfapi.Client) error {
	if run.journal != nil {
		return nil
	}
	j, err := apply.CreateJournal(path, run.plan, run.snap, client.BaseURL())
	var lockErr *apply.LockError
	switch {
	case errors.As(err, &lockErr):
		return fatalError(err)
	case err != nil:
		return fatalError(fmt.Errorf("cannot write the journal: %w", err))
	}
	run.journal = j
	return nil
}
