package cli

import (
	"io"
	"os"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/reports"
)

// reportOptions is everything `sunset report` needs, resolved from flags.
type reportOptions struct {
	in      string // the saved JSON report; "-" is standard input
	formats []reports.FormatSpec
	color   bool
}

func reportCommand(s *Streams) *ucli.Command {
	return &ucli.Command{
		Name:      "report",
		Usage:     "re-render a saved JSON report (html, markdown, sarif, ...) without touching the API",
		UsageText: "sunset report --in REPORT.json [--format FORMAT[:PATH]]...",
		Description: "Reads a JSON report written by 'sunset scan', 'check', 'plan' or 'demo' (--format json:FILE)\n" +
			"and writes it again in any format, as many as asked for in one run, e.g.\n" +
			"  sunset report --in report.json --format html:report.html --format markdown:report.md\n" +
			"Reports of an earlier schema version are read; a newer one is refused (upgrade sunset).\n" +
			"The exit code says whether rendering worked (0, 2 bad input, 3 unwritable output), not\n" +
			"what the report found: the gate was decided when the report was made.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "in", Usage: "the JSON report `FILE` to render (- for standard input)", Required: true},
			&ucli.StringSliceFlag{Name: flagFormat, Usage: "output `FORMAT[:PATH]`, repeatable: " + joinFormats() + " (default table to stdout)"},
			colorFlag(),
		},
		Action: func(c *ucli.Context) error {
			if err := noArgs(c); err != nil {
				return err
			}
			o, err := resolveReportOptions(c, s)
			if err != nil {
				return err
			}
			return runReport(s, o)
		},
	}
}

func resolveReportOptions(c *ucli.Context, s *Streams) (*reportOptions, error) {
	o := &reportOptions{in: c.String("in")}
	if o.in == "" {
		return nil, usageErrorf("--in: give the JSON report to render")
	}
	var err error
	if o.formats, err = formatSpecs(c); err != nil {
		return nil, err
	}
	if o.color, err = s.color(c, s.OutTTY); err != nil {
		return nil, err
	}
	return o, nil
}

// runReport reads the saved report and writes every --format destination.
func runReport(s *Streams, o *reportOptions) error {
	rep, err := readReportInput(s, o.in)
	if err != nil {
		return err
	}
	return writeReports(s, o.formats, rep, o.color)
}

// readReportInput reads a JSON report from a file or standard input. Anything wrong with it
// (missing, not a report, a newer schema) is the caller's input: exit 2.
func readReportInput(s *Streams, path string) (*reports.Report, error) {
	var r io.Reader = s.In
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, usageErrorf("--in: %v", err)
		}
		defer f.Close()
		r = f
	}
	rep, err := reports.ReadReport(r)
	if err != nil {
		return nil, usageErrorf("--in %s: %v", path, err)
	}
	return rep, nil
}

// joinFormats lists the known formats for help text.
func joinFormats() string {
	return strings.Join(reports.Formats(), ", ")
}
