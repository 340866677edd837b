package cli

import (
	"errors"
	"fmt"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// applyJournalDefault is where --yes writes its journal when --journal is not given.
const applyJournalDefault = "sunset-apply.journal"

// applyFlags are the plan's source flags (a live scan, --snapshot, or --plan-in with the
// --snapshot it was built from), the judging flags, and apply's own.
func applyFlags() []ucli.Flag {
	out := []ucli.Flag{}
	for _, f := range scanFlags() {
		switch f.Names()[0] {
		case flagFormat:
			out = append(out, &ucli.StringFlag{Name: flagFormat, Value: "text", Usage: "output `FORMAT`: text or json (what was done), to stdout"})
		case flagFailOn, flagColor:
		default:
			out = append(out, f)
		}
	}
	return append(out,
		&ucli.StringFlag{Name: "plan-in", Usage: "apply the saved plan `FILE` (plan.json), built from --snapshot"},
		&ucli.BoolFlag{Name: "yes", Usage: "carry the steps out (without it, a dry run that sends no write)"},
		&ucli.StringFlag{Name: "journal", Value: applyJournalDefault, Usage: "record what is done in `FILE` (new; --yes only)"},
		&ucli.StringFlag{Name: "resume", Usage: "continue the apply recorded in `JOURNAL`"},
		&ucli.StringFlag{Name: "rollback", Usage: "undo what `JOURNAL` did, in reverse, to the last safe point"},
		&ucli.BoolFlag{Name: "keep-old", Usage: "create the replacements and pause the old objects, delete nothing (resume later without it)"},
	)
}

func applyCommand(s *Streams) *ucli.Command {
	return &ucli.Command{
		Name:  "apply",
		Usage: "carry out a migration plan's API steps (a dry run unless --yes)",
		Description: "Builds the plan as `sunset plan` does (live, or --snapshot), or reads --plan-in with its\n" +
			"--snapshot, and prints per zone the steps it would send and the manual steps it will not.\n" +
			"A plan from a file or a journal must be the one sunset builds from its snapshot, step for\n" +
			"step: anything else is refused whole before the first request (exit 2).\n" +
			"With --yes it sends them: zones concurrently behind one rate limiter, steps in order, each\n" +
			"object re-read first (a zone whose objects changed since the scan stops: plan is stale,\n" +
			"rebuild), each change read back, old rules paused and deleted only while their replacements\n" +
			"are in place. The journal records every step; --resume JOURNAL continues an interrupted\n" +
			"apply, --rollback JOURNAL undoes one: only a journal as sunset wrote it (its lines chained by\n" +
			"sha256), against the API and accounts it was written for, and one run at a time (JOURNAL.lock).\n" +
			"Manual steps are never run: counted by kind at the end, each one in plan.md and --format json.\n" +
			"Exit 0 every zone done, 2 usage, 3 fatal (credentials, journal), 4 some zones stopped.",
		Flags:  applyFlags(),
		Action: func(c *ucli.Context) error { return runApply(c, s) },
	}
}

// applyRun is what runApply resolved: the plan, its snapshot, and how to run it.
type applyRun struct {
	plan     *migrate.Plan
	snap     *inventory.Snapshot
	loaded   *apply.Loaded  // --resume or --rollback
	journal  *apply.Journal // held (locked) from --resume or --rollback with --yes, or the new one
	rollback bool
	yes      bool
	keepOld  bool
	rps      float64
	format   string
}

func runApply(c *ucli.Context, s *Streams) error {
	if err := noArgs(c); err != nil {
		return err
	}
	run, opts, err := resolveApply(c, s)
	if err != nil {
		return err
	}
	defer func() { _ = run.journal.Close() }() // every entry was synced as written
	run.keepOld, run.rps = c.Bool("keep-old"), opts.rps
	client, err := cfapi.New(cfapi.Config{
		BaseURL: opts.baseURL, Credentials: opts.creds, UserAgent: cfapi.UserAgent(Version), RPS: opts.rps,
		MaxRetries: maxRetries(opts.retries), Burst: 1,
	})
	if err != nil && run.yes {
		return usageErrorf("%v", err)
	}
	if err := checkJournalBinding(c, run, client, opts); err != nil {
		return err
	}
	aopts := apply.Options{Client: client, Snapshot: run.snap, DryRun: !run.yes, KeepOld: run.keepOld, Workers: c.Int("workers")}
	if run.yes {
		if err := openJournal(c, run, client); err != nil {
			return err
		}
		aopts.Journal = run.journal
		fmt.Fprintf(s.Err, "sunset: journal %s\n", textsafe.Sanitize(run.journal.Path()))
	}
	if run.loaded != nil && !run.rollback {
		aopts.Done = run.loaded.Done()
	}
	prog := newApplyProgress(s, run, client)
	aopts.OnStep, aopts.OnScope = prog.step, prog.scope
	var res *apply.Result
	if run.rollback {
		res, err = apply.Rollback(c.Context, run.loaded, aopts)
	} else {
		res, err = apply.Apply(c.Context, run.plan, aopts)
	}
	prog.done()
	if res != nil {
		sum := summarizeApply(run, res, opts.asOf, opts.catalog)
		if werr := writeApplyResult(s.Out, run, res, sum, client, manualListAt(c.String("plan-in"))); werr != nil {
			return werr
		}
	}
	var refused *apply.RefusedError
	switch {
	case errors.As(err, &refused):
		return usageErrorf("%v", refused)
	case err != nil && cfapi.IsAuth(err):
		return fatalError(fmt.Errorf("the API refused %s: %w", opts.creds.Describe(), err))
	case err != nil && c.Err() != nil:
		fmt.Fprintf(s.Err, "sunset: apply %s; resume with --resume\n", stopReason(err))
		return &exitError{code: ExitIncomplete}
	case err != nil:
		return fatalError(err)
	case len(res.Stopped()) > 0:
		return &exitError{code: ExitIncomplete}
	}
	return nil
}

// resolveApply reads the flags and the plan's source.
func resolveApply(c *ucli.Context, s *Streams) (*applyRun, *scanOptions, error) {
	run := &applyRun{yes: c.Bool("yes"), format: c.String(flagFormat)}
	if run.format != "text" && run.format != "json" {
		return nil, nil, usageErrorf("--format %q: want text or json", run.format)
	}
	opts, err := resolveScanOptions(withoutReport(c), s)
	if err != nil {
		return nil, nil, err
	}
	resume, rollback, planIn := c.String("resume"), c.String("rollback"), c.String("plan-in")
	if resume != "" && rollback != "" {
		return nil, nil, usageErrorf("--resume and --rollback are alternatives: give one")
	}
	if journal := resume + rollback; journal != "" {
		if planIn != "" || opts.snapshotIn != "" {
			return nil, nil, usageErrorf("the journal holds the plan and its snapshot: no --plan-in or --snapshot with --resume or --rollback")
		}
		if run.loaded, run.journal, err = loadApplyJournal(journal, run.yes); err != nil {
			return nil, nil, err
		}
		run.plan, run.snap, run.rollback = run.loaded.Plan, run.loaded.Snapshot, rollback != ""
	} else if err := planOfApply(c, s, opts, run, planIn); err != nil {
		return nil, nil, err
	}
	if err := narrowApply(s, opts, run); err != nil {
		_ = run.journal.Close() // nothing was written to it
		return nil, nil, err
	}
	if run.loaded != nil || planIn != "" {
		if err := vetPlan(run.plan, run.snap, opts.catalog); err != nil {
			return nil, nil, err
		}
	}
	if run.yes || opts.snapshotIn == "" && run.loaded == nil {
		if opts.creds, err = credentials(c, s); err != nil {
			_ = run.journal.Close() // nothing was written to it
			return nil, nil, err
		}
	}
	return run, opts, nil
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

// planOfApply builds the plan from a scan (live or --snapshot) or reads --plan-in.
func planOfApply(c *ucli.Context, s *Streams, opts *scanOptions, run *applyRun, planIn string) error {
	if planIn != "" && opts.snapshotIn == "" {
		return usageErrorf("--plan-in needs --snapshot, the snapshot the plan was built from (the stale checks compare with it)")
	}
	var err error
	if opts.snapshotIn == "" {
		if opts.creds, err = credentials(c, s); err != nil {
			return err
		}
	}
	snap, _, collectErr := acquireSnapshot(c.Context, s, opts)
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
		run.plan, err = readPlanFile(planIn)
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
// than the journal's (no request sent) or, with --yes, with credentials that do not reach
// the journal's accounts.
func checkJournalBinding(c *ucli.Context, run *applyRun, client *cfapi.Client, opts *scanOptions) error {
	if run.loaded == nil {
		return nil
	}
	var err error
	if run.yes {
		err = run.loaded.CheckBinding(c.Context, client)
	} else {
		base := opts.baseURL
		switch {
		case client != nil:
			base = client.BaseURL()
		case base == "":
			base = cfapi.DefaultBaseURL
		}
		err = run.loaded.CheckAPIURL(base)
	}
	var bindErr *apply.BindingError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &bindErr):
		return usageErrorf("journal %s: %v", textsafe.Sanitize(c.String("resume")+c.String("rollback")), err)
	case cfapi.IsAuth(err):
		return fatalError(fmt.Errorf("the API refused %s: %w", opts.creds.Describe(), err))
	}
	return fatalError(err)
}

// openJournal creates the journal of a new apply (taking its lock); a resumed or rolled
// back one is open already (loadApplyJournal).
func openJournal(c *ucli.Context, run *applyRun, client *cfapi.Client) error {
	if run.journal != nil {
		return nil
	}
	j, err := apply.CreateJournal(c.String("journal"), run.plan, run.snap, client.BaseURL())
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
