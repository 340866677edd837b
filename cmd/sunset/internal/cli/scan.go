package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/collect"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// scanOptions is everything `sunset scan` (and `sunset demo`) needs, resolved from flags
// once (resolveScan) and not changed after.
type scanOptions struct {
	sourceOptions
	judgeOptions
	reportOutput
	// planDir, when set, receives the migration plan of the scan (plan.json, plan.md,
	// terraform/, snapshot.json), as `sunset plan --plan-dir` writes it.
	planDir string
	// verify checks the plan, when one is built, by evaluating old and new rules (not
	// --no-verify).
	verify bool
	// inc is what --resume, --since and --dry-run set up (scan_resume.go); nil outside scan.
	inc *incremental
	// afterReports, when set, runs once every report is written, before the closing summary
	// (the demo names its report files there).
	afterReports func()
	// resumeCmd continues the run when it is interrupted (resumeCommand); "" without
	// --snapshot-out. Under --dry-run it is the scan the dry run priced (pricedCommand).
	resumeCmd string
}

func scanCommand(s *Streams) *ucli.Command {
	return &ucli.Command{
		Name:  "scan",
		Usage: "scan live accounts for deprecated API usage",
		Description: "Lists accounts and zones, reads every deprecated object in each zone with a bounded pool of\n" +
			"workers (read-only: only GET requests), and reports findings. Credentials come from\n" +
			"CLOUDFLARE_API_TOKEN, or CLOUDFLARE_EMAIL + CLOUDFLARE_API_KEY.",
		Flags: slices.Concat(sourceFlags(), reportFlags(), judgingFlags(), planDirFlags(), incrementalFlags()),
		Action: func(c *ucli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			opts, err := resolveScan(c, s)
			if err != nil {
				return err
			}
			return runScan(c.Context, s, opts)
		},
	}
}

// resolveScan resolves every flag of `sunset scan`, credentials included when it goes to
// the API.
func resolveScan(c *ucli.Context, s *Streams) (*scanOptions, error) {
	src, err := resolveSource(c)
	if err != nil {
		return nil, err
	}
	o := &scanOptions{sourceOptions: src, verify: !c.Bool(flagNoVerify)}
	if o.reportOutput, err = resolveReport(c, s); err != nil {
		return nil, err
	}
	if o.judgeOptions, err = resolveJudging(c, s); err != nil {
		return nil, err
	}
	if o.planDir, err = planDirOf(c, s); err != nil {
		return nil, err
	}
	if err := resolveIncremental(c, o); err != nil {
		return nil, err
	}
	switch {
	case o.live() && o.inc.dryRun:
		o.resumeCmd = pricedCommand(c, s.Getenv, o.inc, o.snapshotOut, o.planDir)
	case o.live():
		o.resumeCmd = resumeCommand(c, o.snapshotOut, o.planDir, o.asOf)
	}
	if o.live() {
		if o.sourceOptions, err = o.withCredentials(c, s); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// runScan collects (or loads) a snapshot, scans it, writes every report and returns the
// exit status: 1 when the gate fails, else 4 when anything could not be read or the
// temporary files found no room (endTempFull).
func runScan(ctx context.Context, s *Streams, o *scanOptions) (err error) {
	defer func() { err = endTempFull(s, o, err) }()
	if err := checkOutputs(o.outputs()); err != nil {
		return err // before the first request: a bad path must not cost a scan
	}
	defer tuneGCForScan(s.Getenv)()
	// The plan is built when something shows it: --plan-dir, or a format with plan sections.
	// Each zone is planned as it is scanned (planStream), and only a --snapshot-out written
	// at the end needs the account whole; otherwise each zone is scanned as it is collected
	// and its objects dropped, so memory holds findings, not the account.
	ps, err := newPlanStream(o)
	if err != nil {
		return err
	}
	if ps != nil {
		defer ps.close()
	}
	keepSnapshot := o.snapshotOut != "" && !o.streamsSnapshot()
	snap, res, findings, target, collectErr := scanSource(ctx, s, o, keepSnapshot, ps)
	if snap == nil {
		return collectErr
	}
	defer func() { _ = findings.Close() }() // a temporary file, removed on every return
	if ps != nil {
		defer tuneGC(s.Getenv, planWriteGCPercent)()
	}
	if o.sourceKind == reports.SourceDemo {
		target = "" // the demo's loopback port changes every run; the kind says it all
	}
	if o.snapshotOut != "" && !o.streamsSnapshot() {
		if err := writeSnapshot(o.snapshotOut, snap); err != nil {
			return err
		}
	}
	errs := reportErrors(res)
	if collectErr != nil && len(errs) == 0 {
		// Interrupted while the accounts were listed: no part was read, so none records the
		// interruption; say it, or the report would claim a complete run that found nothing.
		errs = append(errs, scanner.RunError{What: "accounts", Message: collect.NotScannedInterrupted})
	}
	rep := reports.NewReport(reports.Input{
		Version: Version,
		AsOf:    o.asOf,
		Source:  reports.Source{Kind: o.sourceKind, Target: target},
		List:    findings,
		Errors:  errs,
		Retired: res.Retired,
		Counts:  liveCounts(res),
		FailOn:  o.failOn,
		Rules:   o.catalog,
		// The table and HTML show accounts by name.
		AccountNames: reports.AccountNames(snap.Accounts),
		Incremental:  o.incrementalReport(),
	})
	head, plan, err := finishPlan(s, ps, snap, findings)
	if err != nil {
		return err
	}
	if err := writeReports(s, o.formats, rep, o.color, plan, o.planDir); err != nil {
		return err
	}
	if err := findings.Err(); err != nil {
		return fatalError(fmt.Errorf("cannot read the findings back: %w", err))
	}
	if o.planDir != "" {
		// Summaries go to stderr: stdout may be carrying a machine format.
		if err := writePlanFiles(s.Err, o.planDir, ps.files(head, snap)); err != nil {
			return err
		}
	}
	if o.afterReports != nil {
		o.afterReports()
	}
	o.finish(s, rep, head, collectErr != nil)
	code := outcomeCode(rep.Summary.GateFailed, rep.Summary.Incomplete || res.Incomplete || collectErr != nil)
	if code != ExitOK {
		return &exitError{code: code}
	}
	return nil
}

// finishPlan plans the accounts of a scan that plans (ps not nil) and returns the plan's
// head, for the plan directory, and its view, for the reports: never read back whole, the
// reports read its zones from the spill as they render them. The verification's line goes
// to stderr: stdout may carry a machine format.
func finishPlan(s *Streams, ps *planStream, snap *inventory.Snapshot, findings *scanner.FindingList) (*migrate.Plan, migrate.PlanView, error) {
	if ps == nil {
		return nil, nil, nil
	}
	head, err := ps.finishAndReport(s.Err, snap, findings)
	if err != nil {
		return nil, nil, err
	}
	return head, ps.view(head), nil
}

// findingSpillAfter is how many findings a scan holds before it writes each zone's to a
// temporary file (scanner.Options.SpillAfter): some 15 MB of findings; past it memory keeps
// 8 bytes a finding.
var findingSpillAfter = 20_000

// SpillFindingsAfter sets findingSpillAfter for the process: what tests that run the binary
// set to see a small scan spill its findings as a large one does.
func SpillFindingsAfter(n int) { findingSpillAfter = n }

// scanSource loads --snapshot or collects from the API, and scans it. Unless keep is set,
// a collected zone is scanned as soon as it is read and stays in the snapshot without its
// objects. A non-nil snapshot with a non-nil error means the collection was interrupted:
// report what was read. The findings are Result's, in a temporary file past
// findingSpillAfter: the caller closes them. When a temporary file cannot be written the
// collection stops (what it reads after would be lost), and when that is for want of space
// the error is a *tempFullError.
func scanSource(ctx context.Context, s *Streams, o *scanOptions, keep bool, ps *planStream) (*inventory.Snapshot, scanner.Result, *scanner.FindingList, string, error) {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	live := scanner.NewLive(o.catalog, scanner.Options{AsOf: o.asOf, SpillAfter: findingSpillAfter})
	defer func() { _ = live.Close() }() // the spilled findings of a scan that ends without them
	// The zones scanned, and how many when a temporary file failed (0: none did).
	var read, failedAt atomic.Int64
	scan := func(z *inventory.ZoneInventory, handedOver bool) {
		n := read.Add(1)
		if err := scanZone(live, ps, z, handedOver); err != nil && failedAt.CompareAndSwap(0, n) {
			stop(err)
		}
	}
	var onZone func(*inventory.ZoneInventory)
	if !keep && o.snapshotIn == "" {
		onZone = func(z *inventory.ZoneInventory) { scan(z, true) }
	}
	var admit func(context.Context) error
	if onZone != nil && ps != nil {
		admit = ps.admit
	}
	snap, target, err := readOrCollect(ctx, s, o, onZone, admit)
	if snap == nil {
		return nil, scanner.Result{}, nil, "", err
	}
	for i := 0; onZone == nil && i < len(snap.Zones) && failedAt.Load() == 0; i++ {
		scan(&snap.Zones[i], false)
	}
	res, findings, lerr := live.ResultList(snap)
	if full := tempFullOf(lerr, ps, int(failedAt.Load()), len(snap.Zones)); full != nil {
		_ = findings.Close() // nothing is written from them
		return nil, scanner.Result{}, nil, "", full
	}
	if lerr != nil {
		return nil, scanner.Result{}, nil, "", fatalError(fmt.Errorf("cannot keep the findings: %w", lerr))
	}
	return snap, res, findings, target, err
}

// scanZone scans one zone and, when the scan plans, plans it from the zone's findings
// (handedOver as planStream.zone says). The error is the first failure to write the scan's
// temporary files, this zone's or an earlier one's.
func scanZone(live *scanner.Live, ps *planStream, z *inventory.ZoneInventory, handedOver bool) error {
	if ps == nil {
		live.Zone(z)
		return live.SpillErr()
	}
	ps.zone(z, live.ZoneFindings(z), handedOver)
	if err := live.SpillErr(); err != nil {
		return err
	}
	return ps.failure()
}

// acquireSnapshot loads --snapshot or collects the whole account from the API. A non-nil
// snapshot with a non-nil error means the collection was interrupted: report what was read.
func acquireSnapshot(ctx context.Context, s *Streams, o *scanOptions) (*inventory.Snapshot, string, error) {
	return readOrCollect(ctx, s, o, nil, nil)
}

// readOrCollect is acquireSnapshot handing each collected zone to onZone when it is set
// (see collect.Options.OnZone), each zone started when admit lets it (Options.Admit).
func readOrCollect(ctx context.Context, s *Streams, o *scanOptions, onZone func(*inventory.ZoneInventory), admit func(context.Context) error) (*inventory.Snapshot, string, error) {
	if o.snapshotIn != "" {
		f, err := openInput(o.snapshotIn, maxSavedFile)
		if err != nil {
			return nil, "", usageErrorf("--snapshot: %v", err)
		}
		defer func() { _ = f.Close() }() // read only: read whole or its error returned
		snap, err := inventory.ReadSnapshot(f)
		if err != nil {
			return nil, "", usageErrorf("--snapshot %s: %v", o.snapshotIn, err)
		}
		if snap, err = selectSnapshot(snap, o); err != nil {
			return nil, "", err
		}
		return snap, o.snapshotIn, nil
	}
	client, err := o.newClient()
	if err != nil {
		return nil, "", usageErrorf("%v", err)
	}
	target := reports.RedactURL(client.BaseURL())
	copts := o.collect
	copts.Source = target
	if o.sourceKind == reports.SourceDemo {
		copts.Source = "sunset demo (built-in emulator)" // not its random loopback port
	}
	prog := newProgress(s, o.rps, copts.Workers)
	copts.Progress = prog.update
	copts.OnZone, copts.Admit = onZone, admit
	finish, err := o.beginCollection(ctx, s, client, &copts)
	if err != nil {
		prog.done()
		return nil, "", err
	}
	snap, err := collect.Collect(ctx, zoneLister{client}, copts)
	prog.done()
	if ferr := finish(snap); ferr != nil {
		return nil, "", ferr
	}
	switch {
	case err == nil:
		return snap, target, nil
	case snap != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		return snap, target, err
	case cfapi.IsAuth(err):
		return nil, "", fatalError(fmt.Errorf("the API refused %s: %w", o.creds.Describe(), err))
	}
	var unmatched *collect.UnmatchedZonesError
	if errors.As(err, &unmatched) {
		return nil, "", usageErrorf("%v", err)
	}
	return nil, "", fatalError(err)
}

// maxRetries maps --retries (0 = never) to the client's convention (0 = default, <0 = never).
func maxRetries(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// zoneLister adapts the client's filtered zone listing to what collect asks for.
type zoneLister struct{ *cfapi.Client }

// ListZones lists an account's zones, optionally only the one with an exact name.
func (z zoneLister) ListZones(ctx context.Context, accountID, name string) ([]inventory.Zone, error) {
	return z.Client.ListZones(ctx, cfapi.ZoneFilter{AccountID: accountID, Name: name})
}

func writeSnapshot(path string, snap *inventory.Snapshot) error {
	return writeOutputFile("snapshot", path, snap.Write)
}

// reportErrors is a copy of the scan's errors in report order.
func reportErrors(res scanner.Result) []scanner.RunError {
	out := append([]scanner.RunError(nil), res.Errors...)
	reports.SortErrors(out)
	return out
}

// showsPlan reports whether one of the formats renders plan sections (HTML, Markdown).
func showsPlan(specs []reports.FormatSpec) bool {
	for _, spec := range specs {
		if r, err := reports.New(spec.Format, reports.Options{}); err == nil {
			if _, ok := r.(reports.PlanAware); ok {
				return true
			}
		}
	}
	return false
}

// verificationShownIn names what a scan writes that shows the plan's verification: plan.md
// in the plan directory, else the reports that show it; "" when nothing does, and then the
// plan is not verified (thousands of evaluated requests nobody would read).
func verificationShownIn(dir string, specs []reports.FormatSpec, plan *migrate.Plan) string {
	if dir != "" {
		return filepath.Join(dir, "plan.md")
	}
	var shown []string
	for _, spec := range specs {
		r, err := reports.New(spec.Format, reports.Options{})
		if err != nil {
			continue
		}
		if v, ok := reports.WithPlan(r, plan).(reports.VerificationShower); ok && v.ShowsVerification() {
			at := " at " + spec.Path
			if spec.Stdout() {
				at = " on stdout"
			}
			shown = append(shown, "the "+spec.Format+" report"+at)
		}
	}
	return strings.Join(shown, " and ")
}

// writeReports renders the report once per --format destination. A destination that
// cannot be written is fatal (exit 3), after the others were tried.
// plan is nil when no plan is shown.
func writeReports(s *Streams, specs []reports.FormatSpec, rep *reports.Report, color bool, plan migrate.PlanView, planDir string) error {
	var firstErr error
	for _, spec := range specs {
		opts := reports.Options{}
		if spec.Stdout() {
			width := s.Width
			if s.OutTTY && width <= 0 {
				width = 80 // a terminal that does not say its size: assume the classic width
			}
			opts = reports.Options{Color: color, Width: width, Plain: !s.OutTTY && !color}
		}
		// The github format appends its Markdown summary to the job summary when there is one.
		opts.StepSummary = s.Getenv("GITHUB_STEP_SUMMARY")
		opts.PlanDir = planDir
		r, err := reports.New(spec.Format, opts)
		if err != nil {
			return usageErrorf("--format: %v", err)
		}
		r = reports.WithPlanView(r, plan)
		w, closeFn, err := s.writeTo(spec.Path)
		if err == nil {
			err = r.Write(w, rep)
			if cerr := closeFn(); err == nil && cerr != nil {
				err = fatalError(fmt.Errorf("cannot write %s: %w", spec.Path, cerr))
			}
		}
		if err != nil && firstErr == nil {
			if exitCode(err) == ExitFatal {
				firstErr = err
			} else {
				firstErr = fatalError(fmt.Errorf("writing %s: %w", spec, err))
			}
		}
	}
	return firstErr
}

// finish ends a scan on stderr: the files it wrote and the command to run next, then the
// summary line, which a CI log reads last (the demo names its files itself, as it does
// here); an interrupted scan ends with the command that continues it.
func (o *scanOptions) finish(s *Streams, rep *reports.Report, plan *migrate.Plan, interrupted bool) {
	if !interrupted && o.sourceKind != reports.SourceDemo {
		printEnding(s.Err, o.wrote(), o.next(plan, rep.Summary.FindingsTotal))
	}
	printOutcome(s, rep, o.formats, interrupted)
	if interrupted {
		printResumeHint(s, o)
	}
}

// wrote names the files a scan wrote: its snapshot, its plan directory, its reports.
func (o *scanOptions) wrote() []string {
	var out []string
	if o.snapshotOut != "" {
		out = append(out, o.snapshotOut+" (snapshot)")
	}
	if o.planDir != "" {
		out = append(out, fmt.Sprintf("%s (plan.json, plan.md, terraform/, %s)", o.planDir, planSnapshotFile))
	}
	return append(out, filesOf(o.formats)...)
}

// next is what to run after a scan: verify its plan, or write one; nothing when there is
// nothing to migrate.
func (o *scanOptions) next(plan *migrate.Plan, findings int) string {
	switch {
	case o.planDir != "" && plan != nil:
		return nextAfterPlan(o.planDir, plan.Summary)
	case findings == 0:
		return ""
	case o.snapshotOut != "":
		return "sunset plan --snapshot " + o.snapshotOut + " --plan-dir plan/   # the migration plan, offline"
	case o.snapshotIn != "":
		return "sunset plan --snapshot " + o.snapshotIn + " --plan-dir plan/   # the migration plan"
	}
	return "sunset scan --plan-dir plan/   # the migration plan too"
}

// nextAfterPlan is what to run once a plan is written to dir: verify it when it has steps
// to send, else the manual steps are what is left.
func nextAfterPlan(dir string, sum migrate.Summary) string {
	switch {
	case sum.Create+sum.Change+sum.Pause+sum.Delete > 0:
		return "sunset verify " + dir + "   # then sunset apply " + dir
	case sum.Manual > 0:
		return "read " + filepath.Join(dir, "plan.md") + ": " + plural(sum.Manual, "manual step", "manual steps") + " left, which sunset never runs"
	}
	return ""
}
