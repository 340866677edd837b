package cli

import (
	"path/filepath"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/reports"
)

// reportOptions is everything `sunset report` needs, resolved from flags.
type reportOptions struct {
	in      string // the saved JSON report; "-" is standard input
	plan    string // the saved plan.json, "" for none
	planDir string // the directory it is in
	formats []reports.FormatSpec
	color   bool
}

func reportCommand(s *Streams) *ucli.Command {
	return &ucli.Command{
		Name:      "report",
		Usage:     "re-render a saved JSON report (html, markdown, sarif, ...) without touching the API",
		UsageText: "sunset report REPORT.json [--plan-dir DIR] [--format FORMAT[:PATH]]...",
		ArgsUsage: "REPORT.json",
		Description: "Reads a JSON report written by 'sunset scan', 'check' or 'demo' (--format json:FILE),\n" +
			"the argument (- for standard input), and writes it again in any format, as many as asked\n" +
			"for in one run, e.g.\n" +
			"  sunset report report.json --plan-dir plan --format html:report.html --format markdown:report.md\n" +
			"--plan-dir adds the migration plan written by 'sunset plan --plan-dir' (its plan.json) to the formats\n" +
			"that show one (" + strings.Join(planFormats(), ", ") + "); the others ignore it.\n" +
			"Reports of an earlier schema version are read; a newer one is refused (upgrade sunset).\n" +
			"The exit code says whether rendering worked (0, 2 bad input, 3 unwritable output), not\n" +
			"what the report found: the gate was decided when the report was made.",
		Flags: []ucli.Flag{
			oldSpelling(&ucli.StringFlag{Name: "in"}), // the report is the argument, as every command takes its input
			&ucli.StringFlag{Name: flagPlanDir, Usage: "add the migration plan in `DIR` (written by 'sunset plan --plan-dir') to " + strings.Join(planFormats(), " and ")},
			oldSpelling(&ucli.StringFlag{Name: "plan"}),
			&ucli.StringSliceFlag{Name: flagFormat, Usage: "output `FORMAT[:PATH]`, repeatable: " + joinFormats() + " (default table to stdout)"},
			colorFlag(),
		},
		Action: func(c *ucli.Context) error {
			o, err := resolveReportOptions(c, s)
			if err != nil {
				return err
			}
			return runReport(s, o)
		},
	}
}

func resolveReportOptions(c *ucli.Context, s *Streams) (*reportOptions, error) {
	in, err := reportArgument(c, s)
	if err != nil {
		return nil, err
	}
	o := &reportOptions{in: in}
	if dir := c.String(flagPlanDir); dir != "" {
		if c.IsSet("plan") {
			return nil, usageErrorf("--plan is the old spelling of --plan-dir: give one")
		}
		o.plan, o.planDir = filepath.Join(dir, planFile), dir
	} else if c.IsSet("plan") {
		s.deprecated("--plan FILE", "--plan-dir DIR, the plan directory")
		o.plan, o.planDir = c.String("plan"), filepath.Dir(c.String("plan"))
	}
	if o.plan == "-" && o.in == "-" {
		return nil, usageErrorf("the report (-) and --plan - cannot both read standard input")
	}
	if o.formats, err = formatSpecs(c); err != nil {
		return nil, err
	}
	if o.color, err = s.color(c, s.OutTTY); err != nil {
		return nil, err
	}
	return o, nil
}

// reportArgument is the report to render: the argument, or --in, its old spelling (said on
// stderr to go).
func reportArgument(c *ucli.Context, s *Streams) (string, error) {
	switch {
	case c.NArg() > 1:
		return "", usageErrorf("report takes one JSON report (got %d arguments: %s)", c.NArg(), strings.Join(c.Args().Slice(), " "))
	case c.NArg() == 1 && c.IsSet("in"):
		return "", usageErrorf("the report is the argument or --in, its old spelling: give one")
	case c.NArg() == 1:
		return c.Args().First(), nil
	case c.IsSet("in"):
		s.deprecated("--in FILE", "the report as the argument: sunset report FILE")
		if c.String("in") == "" {
			return "", usageErrorf("--in: give the JSON report to render")
		}
		return c.String("in"), nil
	}
	return "", usageErrorf("report: give the JSON report to render (sunset report REPORT.json; - for standard input)")
}

// runReport reads the saved report (and plan) and writes every --format destination.
func runReport(s *Streams, o *reportOptions) error {
	rep, err := readReportInput(s, o.in)
	if err != nil {
		return err
	}
	var plan *migrate.Plan
	if o.plan != "" {
		if plan, err = readPlanInput(s, o.plan); err != nil {
			return err
		}
	}
	var view migrate.PlanView // nil, not a nil *migrate.Plan, when there is none
	if plan != nil {
		view = plan
	}
	if err := writeReports(s, o.formats, rep, o.color, view, o.planDir); err != nil {
		return err
	}
	printOutcome(s, rep, o.formats, false) // the saved run's outcome; the exit code is rendering's
	return nil
}

// readPlanInput reads a saved plan.json ("-" is standard input); anything wrong with it is the
// caller's input (exit 2).
func readPlanInput(s *Streams, path string) (*migrate.Plan, error) {
	r := s.In
	if path != "-" {
		f, err := openInput(path, maxSavedFile)
		if err != nil {
			return nil, usageErrorf("the plan: %v", err)
		}
		defer func() { _ = f.Close() }() // read only: read whole or its error returned
		r = f
	}
	p, err := migrate.ReadPlan(r)
	if err != nil {
		return nil, usageErrorf("the plan %s: %v", path, err)
	}
	return p, nil
}

// readReportInput reads a JSON report from a file or standard input. Anything wrong with it
// (missing, not a report, a newer schema) is the caller's input: exit 2.
func readReportInput(s *Streams, path string) (*reports.Report, error) {
	r := s.In
	if path != "-" {
		f, err := openInput(path, maxSavedFile)
		if err != nil {
			return nil, usageErrorf("the report: %v", err)
		}
		defer func() { _ = f.Close() }() // read only: read whole or its error returned
		r = f
	}
	rep, err := reports.ReadReport(r)
	if err != nil {
		return nil, usageErrorf("the report %s: %v", path, err)
	}
	return rep, nil
}

// joinFormats lists the known formats for help text.
func joinFormats() string {
	return strings.Join(reports.Formats(), ", ")
}

// planFormats lists the formats that show a plan given with --plan.
func planFormats() []string {
	var out []string
	for _, name := range reports.Formats() {
		if r, err := reports.New(name, reports.Options{}); err == nil {
			if _, ok := r.(reports.PlanAware); ok {
				out = append(out, name)
			}
		}
	}
	return out
}
