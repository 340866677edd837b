package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/safefile"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// planOutDirDefault is where `sunset plan` writes when --plan-dir is not given.
const planOutDirDefault = "sunset-plan"

// The files of a plan directory that verify and apply read.
const (
	planFile         = "plan.json"
	planSnapshotFile = "snapshot.json"
)

// planFlags are the source and judging groups and where the plan goes. A plan writes no
// report and is no gate: --format, --fail-on and --color are no flags of it (given, they are
// an unknown flag, not silently ignored).
func planFlags() []ucli.Flag {
	return slices.Concat(sourceFlags(), judgingFlags(), inCategory(catPlan,
		&ucli.StringFlag{Name: flagPlanDir, Value: planOutDirDefault, Usage: "write plan.json, plan.md, terraform/ and snapshot.json to `DIR` (created)"},
		oldSpelling(&ucli.StringFlag{Name: "out-dir"}),
		noVerifyFlag(),
	))
}

// resolvePlanSource resolves the source and judging groups, with the credentials when creds
// says the command will send requests. snapshot, when set, is the snapshot of a saved plan
// (its directory's snapshot.json): the source then.
func resolvePlanSource(c *ucli.Context, s *Streams, creds bool, snapshot string) (*scanOptions, error) {
	src, err := resolveSource(c)
	if err != nil {
		return nil, err
	}
	if snapshot != "" {
		src.snapshotIn, src.sourceKind = snapshot, reports.SourceSnapshot
	}
	judge, err := resolveJudging(c, s)
	if err != nil {
		return nil, err
	}
	if creds {
		if src, err = src.withCredentials(c, s); err != nil {
			return nil, err
		}
	}
	return &scanOptions{sourceOptions: src, judgeOptions: judge}, nil
}

func planCommand(s *Streams) *ucli.Command {
	return &ucli.Command{
		Name:  "plan",
		Usage: "turn a scan (live, or a saved snapshot) into a per-zone migration plan",
		Description: "Scans (the API, or --snapshot FILE offline) and writes the migration plan to --plan-dir:\n" +
			"plan.json (machine form), plan.md (human form), terraform/ (HCL for provider v5) and\n" +
			"snapshot.json (what the plan was built from: `sunset verify DIR` and `sunset apply DIR`\n" +
			"need nothing else). Every deprecated object gets a step: replacements first, then checks,\n" +
			"then the old objects are paused and deleted. Nothing is changed in the account. Exit 0\n" +
			"(plans are not gates), 2 on a usage error, 3 when the output cannot be written.",
		Flags: planFlags(),
		Action: func(c *ucli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			dir, err := s.renamed(c, flagPlanDir, "out-dir")
			if err != nil {
				return err
			}
			if dir == "" {
				return usageErrorf("--plan-dir: want a directory")
			}
			opts, err := resolvePlanSource(c, s, c.String("snapshot") == "", "")
			if err != nil {
				return err
			}
			if opts.live() {
				// A plan is no gate: nor is the scan that continues it.
				opts.resumeCmd = resumeCommand(c, opts.snapshotOut, dir, opts.asOf, "--"+flagFailOn, "none")
			}
			return runPlan(c.Context, s, opts, dir, !c.Bool(flagNoVerify))
		},
	}
}

// runPlan scans, builds the plan and writes it to dir. Each zone is planned as it is
// collected (planStream), and a live scan's --snapshot-out is written as it goes, as
// scan's is (so an interrupted plan continues with `sunset scan --resume`): memory never
// holds the account whole.
func runPlan(ctx context.Context, s *Streams, opts *scanOptions, dir string, verifyIt bool) (err error) {
	defer func() { err = endTempFull(s, opts, err) }()
	if err := checkOutputs(append(opts.outputs(), dirOutput("--plan-dir", dir)...)); err != nil {
		return err
	}
	o := *opts
	o.planDir, o.verify, o.formats = dir, verifyIt, nil
	if o.live() && o.snapshotOut != "" {
		o.inc = &incremental{} // streams --snapshot-out, nothing else
	}
	ps, err := newPlanStream(&o)
	if err != nil {
		return err
	}
	defer ps.close()
	snap, res, findings, _, collectErr := scanSource(ctx, s, &o, o.snapshotOut != "" && !o.streamsSnapshot(), ps)
	if snap == nil {
		return collectErr
	}
	defer func() { _ = findings.Close() }() // a temporary file, removed on every return
	if o.snapshotOut != "" && !o.streamsSnapshot() {
		if err := writeSnapshot(o.snapshotOut, snap); err != nil {
			return err
		}
	}
	head, err := ps.finishAndReport(s.Out, snap, findings)
	if err != nil {
		return err
	}
	if err := writePlanFiles(s.Out, dir, ps.files(head, snap)); err != nil {
		return err
	}
	if collectErr != nil {
		fmt.Fprintf(s.Err, "sunset: scan %s; the plan covers what was read, marked incomplete\n", stopReason(collectErr))
		printResumeHint(s, &o)
		return nil
	}
	if res.Incomplete {
		fmt.Fprintf(s.Err, "sunset: some zones or parts could not be read (%d errors); the plan covers what was read\n", len(res.Errors))
	}
	printEnding(s.Err, o.wrote(), nextAfterPlan(dir, head.Summary))
	return nil
}

// planSource is the whole snapshot `sunset plan`, verify and apply work on: every output is
// checked first (extra are the command's own), and --snapshot-out is saved. A nil snapshot
// comes with the error to return; a snapshot with a non-nil collectErr was interrupted, and
// the plan covers what was read.
func planSource(ctx context.Context, s *Streams, opts *scanOptions, extra ...output) (snap *inventory.Snapshot, collectErr, err error) {
	if err := checkOutputs(append(opts.outputs(), extra...)); err != nil {
		return nil, nil, err
	}
	snap, _, collectErr = acquireSnapshot(ctx, s, opts)
	if snap == nil {
		return nil, nil, collectErr
	}
	if opts.snapshotOut != "" {
		if err := writeSnapshot(opts.snapshotOut, snap); err != nil {
			return nil, nil, err
		}
	}
	return snap, collectErr, nil
}

// buildPlan is the migration plan of a scanned snapshot, judged as of the scan's date.
func buildPlan(snap *inventory.Snapshot, res scanner.Result, o *scanOptions) *migrate.Plan {
	return migrate.Build(snap, res, migrate.Options{AsOf: o.asOf, Catalog: o.catalog})
}

// writePlanDir writes a plan to dir: plan.json, plan.md, terraform/ and the snapshot it was
// built from (snapshot.json), and prints one summary line per account and zone with steps,
// and a total, to w. It is what `sunset plan` and `sunset scan --plan-dir DIR` call; an
// unwritable dir is a fatal error (exit 3).
func writePlanDir(w io.Writer, dir string, p *migrate.Plan, snap *inventory.Snapshot) error {
	return writePlanFiles(w, dir, planFiles{
		head: p, json: p.WriteJSON, markdown: p.WriteMarkdown, snapshot: snap.Write,
		zones: terraform.WholePlan(p),
		zoneSummaries: func(fn func(string, migrate.Summary)) {
			for _, z := range p.Zones {
				fn(z.ZoneName, z.Summary)
			}
		},
	})
}

// planFiles is what a plan directory is written from: a plan and snapshot held whole, or a
// scan's temporary files (planStream), whose zones come one at a time.
type planFiles struct {
	// head holds the accounts and the plan's summary (and the zones of a whole plan).
	head                     *migrate.Plan
	json, markdown, snapshot func(io.Writer) error
	zones                    terraform.Zones
	// zoneSummaries calls fn with each zone's name and summary, in plan order.
	zoneSummaries func(fn func(name string, sum migrate.Summary))
}

// writePlanFiles is writePlanDir from files.
func writePlanFiles(w io.Writer, dir string, files planFiles) error {
	unwritable := func(err error) error {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = fmt.Errorf("%s: %w", pe.Path, pe.Err)
		}
		return fatalError(fmt.Errorf("cannot write the plan: %w", err))
	}
	// The plan directory may be in a checked-out tree: never a link (nor is terraform/).
	if err := safefile.MkdirNoFollow(dir); err != nil {
		return unwritable(err)
	}
	for _, out := range []struct {
		name  string
		write func(io.Writer) error
	}{{"plan.json", files.json}, {"plan.md", files.markdown}, {planSnapshotFile, files.snapshot}} {
		f, err := safefile.Create(filepath.Join(dir, out.name))
		if err != nil {
			return unwritable(err)
		}
		werr := out.write(f)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return unwritable(werr)
		}
	}
	if err := terraform.WriteZones(filepath.Join(dir, "terraform"), files.head, files.zones); err != nil {
		return unwritable(err)
	}
	p := files.head
	var lines []scopeSummary
	for _, a := range p.Accounts {
		name := a.AccountName
		if name == "" {
			name = a.AccountID
		}
		lines = append(lines, scopeSummary{"account", name, a.Summary})
	}
	files.zoneSummaries(func(name string, sum migrate.Summary) {
		lines = append(lines, scopeSummary{"zone", name, sum})
	})
	writeScopeSummaries(w, lines, filepath.Join(dir, "plan.md"))
	if len(lines) == 0 {
		fmt.Fprintf(w, "No changes: nothing deprecated needs migrating.\n")
	}
	fmt.Fprintf(w, "Plan: %s. Written to %s (plan.json, plan.md, terraform/, %s).\n", p.Summary.Line(), dir, planSnapshotFile)
	return nil
}

// scopeSummary is one account's or zone's line of a plan's summary.
type scopeSummary struct {
	scope, name string
	sum         migrate.Summary
}

// toDo is how much a scope's plan holds: its steps but the checks.
func (l scopeSummary) toDo() int {
	return l.sum.Create + l.sum.Change + l.sum.Pause + l.sum.Delete + l.sum.Manual
}

// writeScopeSummaries prints a line per account and zone, in plan order; above briefAbove
// of them, the briefTop with the most to do and where every one is listed (at).
func writeScopeSummaries(w io.Writer, lines []scopeSummary, at string) {
	shown, indent := lines, ""
	if len(lines) > briefAbove {
		indent = "  "
		shown = slices.Clone(lines)
		slices.SortStableFunc(shown, func(a, b scopeSummary) int { return b.toDo() - a.toDo() })
		shown = shown[:briefTop]
		fmt.Fprintf(w, "The %d zones and accounts with the most to do (of %s; every one in %s):\n", briefTop, thousands(len(lines)), textsafe.Sanitize(at))
	}
	for _, l := range shown {
		fmt.Fprintf(w, "%s%s %s: %s\n", indent, l.scope, textsafe.Sanitize(l.name), l.sum.Line())
	}
	if rest := len(lines) - len(shown); rest > 0 {
		fmt.Fprintf(w, "%sand %s more\n", indent, thousands(rest))
	}
}

// savedPlan is where a saved plan is read from: plan.json and the snapshot it was built from.
type savedPlan struct {
	plan, snapshot string
}

// savedPlanOf reads where verify and apply take a saved plan from: the plan directory given
// as the argument (or --plan-dir), or the old spelling, --plan-in FILE with --snapshot FILE.
// The zero value means none: the command builds the plan as `sunset plan` does.
func savedPlanOf(c *ucli.Context, s *Streams) (savedPlan, error) {
	dir := c.String(flagPlanDir)
	switch {
	case c.NArg() > 1:
		return savedPlan{}, usageErrorf("%s takes one plan directory (got %d arguments)", c.Command.Name, c.NArg())
	case c.NArg() == 1 && dir != "":
		return savedPlan{}, usageErrorf("the plan directory is the argument or --plan-dir: give one")
	case c.NArg() == 1:
		dir = c.Args().First()
	}
	planIn := c.String("plan-in")
	switch {
	case dir != "" && planIn != "":
		return savedPlan{}, usageErrorf("--plan-in is the old spelling of the plan directory: give one")
	case dir != "" && c.String("snapshot") != "":
		return savedPlan{}, usageErrorf("the plan directory %s holds the snapshot the plan was built from: no --snapshot with it", dir)
	case dir != "":
		if info, err := os.Stat(dir); err != nil {
			return savedPlan{}, usageErrorf("%s: no such plan directory (want the directory `sunset plan --plan-dir` wrote: plan.json and snapshot.json)", dir)
		} else if !info.IsDir() {
			return savedPlan{}, usageErrorf("%s is a file: give the plan directory `sunset plan --plan-dir` wrote (plan.json and snapshot.json)", dir)
		}
		return savedPlan{plan: filepath.Join(dir, planFile), snapshot: filepath.Join(dir, planSnapshotFile)}, nil
	case planIn != "":
		s.deprecated("--plan-in FILE with --snapshot FILE", "the plan directory: sunset "+c.Command.Name+" DIR")
		if c.String("snapshot") == "" {
			return savedPlan{}, usageErrorf("--plan-in needs --snapshot, the snapshot the plan was built from (the stale checks compare with it)")
		}
		return savedPlan{plan: planIn, snapshot: c.String("snapshot")}, nil
	}
	return savedPlan{}, nil
}

// savedPlanFlags are verify's and apply's: the plan directory as a flag (it is also their
// argument), the old spelling, --plan-in, and whether to take a plan from an incomplete scan.
func savedPlanFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: flagPlanDir, Usage: "the plan `DIR` that `sunset plan --plan-dir` wrote (also the argument)"},
		oldSpelling(&ucli.StringFlag{Name: "plan-in"}),
		partialFlag(),
	}
}
