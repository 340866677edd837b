package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/safefile"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// planOutDirDefault is where `sunset plan` writes when --out-dir is not given.
const planOutDirDefault = "sunset-plan"

// planFlags are scan's source flags (live or --snapshot), the flags that judge findings
// (--as-of, --catalog, --dates) and --out-dir. A plan writes no report and is no gate, so
// scan's report flags (--format, --fail-on, --color) are not among them: given, they are an
// unknown flag, not silently ignored.
func planFlags() []ucli.Flag {
	var out []ucli.Flag
	for _, f := range scanFlags() {
		switch f.Names()[0] {
		case flagFormat, flagFailOn, flagColor:
			continue
		}
		out = append(out, f)
	}
	return append(out, &ucli.StringFlag{Name: "out-dir", Value: planOutDirDefault, Usage: "write plan.json, plan.md and terraform/ to `DIR` (created)"}, noVerifyFlag())
}

// withoutReport is c with the report flags that scan's option resolver reads, and a plan
// does not have, set to what a plan means: no gate, no colour (the resolver then refuses
// nothing a plan does not take). Other flags are c's: a context looks a flag up in its
// parents when its own set lacks it.
func withoutReport(c *ucli.Context) *ucli.Context {
	set := flag.NewFlagSet("plan", flag.ContinueOnError)
	set.String(flagFailOn, "none", "")
	set.String(flagColor, "never", "")
	return ucli.NewContext(c.App, set, c)
}

func planCommand(s *Streams) *ucli.Command {
	return &ucli.Command{
		Name:  "plan",
		Usage: "turn a scan (live, or a saved snapshot) into a per-zone migration plan",
		Description: "Scans (the API, or --snapshot FILE offline) and writes the migration plan to --out-dir:\n" +
			"plan.json (machine form), plan.md (human form) and terraform/ (HCL for provider v5). Every\n" +
			"deprecated object gets a step: replacements first, then checks, then the old objects are\n" +
			"paused and deleted. Nothing is changed in the account. Exit 0 (plans are not gates), 2 on\n" +
			"a usage error, 3 when the output cannot be written.",
		Flags: planFlags(),
		Action: func(c *ucli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			opts, err := resolveScanOptions(withoutReport(c), s)
			if err != nil {
				return err
			}
			dir := c.String("out-dir")
			if dir == "" {
				return usageErrorf("--out-dir: want a directory")
			}
			snap, collectErr, err := planSource(c, s, opts, dirOutput("--out-dir", dir)...)
			if snap == nil {
				return err
			}
			res := scanner.ScanSnapshot(snap, opts.catalog, scanner.Options{AsOf: opts.asOf})
			p := buildPlan(snap, res, opts)
			if !c.Bool(flagNoVerify) {
				verifyPlan(s.Out, p, snap, filepath.Join(dir, "plan.md"))
			}
			if err := writePlanDir(s.Out, dir, p); err != nil {
				return err
			}
			if collectErr != nil {
				fmt.Fprintf(s.Err, "sunset: scan %s; the plan covers what was read\n", stopReason(collectErr))
			} else if res.Incomplete {
				fmt.Fprintf(s.Err, "sunset: some zones or parts could not be read (%d errors); the plan covers what was read\n", len(res.Errors))
			}
			return nil
		},
	}
}

// planSource is the whole snapshot `sunset plan` and `sunset verify` work on: every output
// is checked first (extra are the command's own), credentials are read for a live scan, and
// --snapshot-out is saved. A nil snapshot comes with the error to return; a snapshot with a
// non-nil collectErr was interrupted, and the plan covers what was read.
func planSource(c *ucli.Context, s *Streams, opts *scanOptions, extra ...output) (snap *inventory.Snapshot, collectErr, err error) {
	if err := checkOutputs(append(opts.outputs(), extra...)); err != nil {
		return nil, nil, err
	}
	if opts.snapshotIn == "" {
		if opts.creds, err = credentials(c, s); err != nil {
			return nil, nil, err
		}
	}
	snap, _, collectErr = acquireSnapshot(c.Context, s, opts)
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

// writePlanDir writes a plan to dir: plan.json, plan.md and terraform/, and prints one
// summary line per account and zone with steps, and a total, to w. It is what `sunset plan`
// and `sunset scan --plan DIR` call; an unwritable dir is a fatal error (exit 3).
func writePlanDir(w io.Writer, dir string, p *migrate.Plan) error {
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
		write func(f *os.File) error
	}{
		{"plan.json", func(f *os.File) error { return p.WriteJSON(f) }},
		{"plan.md", func(f *os.File) error { return p.WriteMarkdown(f) }},
	} {
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
	if err := terraform.Write(filepath.Join(dir, "terraform"), p); err != nil {
		return unwritable(err)
	}
	for _, a := range p.Accounts {
		name := a.AccountName
		if name == "" {
			name = a.AccountID
		}
		fmt.Fprintf(w, "account %s: %s\n", textsafe.Sanitize(name), a.Summary.Line())
	}
	for _, z := range p.Zones {
		fmt.Fprintf(w, "zone %s: %s\n", textsafe.Sanitize(z.ZoneName), z.Summary.Line())
	}
	if len(p.Accounts)+len(p.Zones) == 0 {
		fmt.Fprintf(w, "No changes: nothing deprecated needs migrating.\n")
	}
	fmt.Fprintf(w, "Plan: %s. Written to %s (plan.json, plan.md, terraform/).\n", p.Summary.Line(), dir)
	return nil
}
