package reports

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
)

// Reporter writes a report in one format. Write does not modify the report, and writes the
// same bytes for the same report and options.
type Reporter interface {
	Write(w io.Writer, r *Report) error
}

// PlanAware is a Reporter whose format can include a migration plan (the plan.json of
// `sunset plan`) after the findings.
// The plan is a view (a whole plan, or a scan's spilled one whose zones are read as they are
// rendered).
type PlanAware interface {
	Reporter
	WithPlan(v migrate.PlanView) Reporter
}

// WithPlan returns r set to render plan p too when its format has plan sections, and r
// unchanged otherwise (or when p is nil).
func WithPlan(r Reporter, p *migrate.Plan) Reporter {
	if p == nil {
		return r
	}
	return WithPlanView(r, p)
}

// WithPlanView is WithPlan for a plan view (migrate.Spill.View): a failure to read a zone
// of it is an error of the report's Write.
func WithPlanView(r Reporter, v migrate.PlanView) Reporter {
	if pa, ok := r.(PlanAware); ok && v != nil {
		return pa.WithPlan(v)
	}
	return r
}

// Options are the presentation choices of the human formats; machine formats ignore them.
type Options struct {
	// Color turns styling on (severity colours, bold headings). Off, the output has no escape
	// sequence at all. The caller resolves --color auto|always|never and NO_COLOR.
	Color bool
	// Width is the terminal width in columns; 0 means unknown (nothing is truncated).
	// Below 100 the table stacks its columns.
	Width int
	// Plain makes the table format write tab-separated rows instead of a table: what a caller
	// asks for when stdout is not a terminal, so scripts get rows to parse.
	Plain bool
	// StepSummary is the path of GitHub's job summary file ($GITHUB_STEP_SUMMARY, passed in by
	// the caller): the github format appends the Markdown report to it. "" writes none.
	StepSummary string
	// PlanDir is where the whole plan was written (plan.md, plan.json), "" when it was not:
	// the Markdown report's plan section then says how to write it, not that a file has it.
	PlanDir string
}

// formatDef is one registered format.
type formatDef struct {
	doc string
	new func(Options) Reporter
}

// registry maps each format name to its reporter; adding a format is one entry here.
var registry = map[string]formatDef{
	"json": {
		doc: "the JSON report (schema_version " + fmt.Sprint(SchemaVersion) + "), for tools and `sunset report`",
		new: func(Options) Reporter { return JSON{} },
	},
	"table": {
		doc: "a table grouped by zone or file, then a summary line; tab-separated rows when Plain",
		new: func(o Options) Reporter {
			if o.Plain {
				return TSV{}
			}
			return Table{Options: o}
		},
	},
	"tsv": {
		doc: "tab-separated rows: " + strings.Join(columnNames(tsvColumns), ", "),
		new: func(Options) Reporter { return TSV{} },
	},
	"line": {
		doc: "one line per finding, as compilers print: PATH:LINE:COL: SEVERITY RULE: MESSAGE (ZONE: SEVERITY RULE OBJECT: MESSAGE for a live finding)",
		new: func(o Options) Reporter { return Line{Options: o} },
	},
	"sarif":    {doc: "SARIF " + SARIFVersion + " for GitHub code scanning and other SARIF readers", new: func(Options) Reporter { return SARIF{} }},
	"junit":    {doc: "JUnit XML: a test suite per rule, a failing test case per finding", new: func(Options) Reporter { return JUnit{} }},
	"github":   {doc: "GitHub Actions annotations (::error file=...), plus the job summary when $GITHUB_STEP_SUMMARY is set", new: func(o Options) Reporter { return GitHub{StepSummary: o.StepSummary} }},
	"gitlab":   {doc: "GitLab Code Quality JSON (artifacts:reports:codequality)", new: func(Options) Reporter { return GitLab{} }},
	"csv":      {doc: "comma-separated values (RFC 4180) with a header row, for spreadsheets", new: func(Options) Reporter { return CSV{} }},
	"markdown": {doc: "GitHub-flavoured Markdown for a pull-request comment or the job summary", new: func(o Options) Reporter { return Markdown{PlanDir: o.PlanDir} }},
}

// New returns the reporter of a format (case-insensitive). An unknown format is an error
// that lists the known ones.
func New(format string, opts Options) (Reporter, error) {
	def, ok := registry[strings.ToLower(strings.TrimSpace(format))]
	if !ok {
		return nil, unknownFormat(format)
	}
	return def.new(opts), nil
}

// Formats returns the known format names, sorted.
func Formats() []string {
	names := make([]string, 0, len(registry))
	for name := range registry {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// FormatDoc returns a one-line description of a format, for help text ("" if unknown).
func FormatDoc(format string) string {
	return registry[strings.ToLower(format)].doc
}

func unknownFormat(format string) error {
	return unknownFormatOf(format, Formats())
}

// unknownFormatOf is the error of a format not among known.
func unknownFormatOf(format string, known []string) error {
	return fmt.Errorf("unknown format %q (known formats: %s)", format, strings.Join(known, ", "))
}

// FormatSpec is one --format value: a format and where to write it.
type FormatSpec struct {
	Format string // a registered name, lower case
	Path   string // "" or "-" for standard output, else a file path
}

// Stdout reports whether the spec writes to standard output.
func (s FormatSpec) Stdout() bool { return s.Path == "" || s.Path == "-" }

// String renders the spec back as a flag value.
func (s FormatSpec) String() string {
	if s.Path == "" {
		return s.Format
	}
	return s.Format + ":" + s.Path
}

// ParseFormatFlag reads one FORMAT[:PATH] value: "json", "json:out.json", "table:-".
// It splits on the first ':' only, so a path may itself contain colons
// ("json:C:\reports\out.json" writes to C:\reports\out.json). The format must be known; a
// ':' with nothing after it is an error rather than a silent stdout.
func ParseFormatFlag(s string) (FormatSpec, error) {
	return parseFormat(s, Formats())
}

// parseFormat is ParseFormatFlag with the formats a command writes.
func parseFormat(s string, known []string) (FormatSpec, error) {
	name, path, hasPath := strings.Cut(s, ":")
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" {
		return FormatSpec{}, fmt.Errorf("invalid --format %q: want FORMAT[:PATH] with FORMAT one of %s", s, strings.Join(known, ", "))
	}
	if !slices.Contains(known, name) {
		return FormatSpec{}, unknownFormatOf(name, known)
	}
	if hasPath && path == "" {
		return FormatSpec{}, fmt.Errorf("invalid --format %q: empty path after ':' (use %s or %s:- for standard output)", s, name, name)
	}
	return FormatSpec{Format: name, Path: path}, nil
}

// ParseFormatFlags reads every --format value of a run, in order. At most one may write to
// standard output (two would interleave), and no two may write to the same file. No values
// give no specs: the caller picks its default.
func ParseFormatFlags(values []string) ([]FormatSpec, error) {
	return ParseOutputFlags(values, Formats())
}

// ParseOutputFlags is ParseFormatFlags for a command that writes its own formats (known),
// in the same FORMAT[:PATH] grammar: verify's table and json, apply's text and json.
func ParseOutputFlags(values, known []string) ([]FormatSpec, error) {
	specs := make([]FormatSpec, 0, len(values))
	var stdout string
	files := map[string]string{}
	for _, v := range values {
		spec, err := parseFormat(v, known)
		if err != nil {
			return nil, err
		}
		if spec.Stdout() {
			if stdout != "" {
				return nil, fmt.Errorf("--format %s and --format %s both write to standard output; give one of them a file (FORMAT:PATH)", stdout, v)
			}
			stdout = v
		} else {
			key := filepath.Clean(spec.Path)
			if prev, ok := files[key]; ok {
				return nil, fmt.Errorf("--format %s and --format %s write to the same file", prev, v)
			}
			files[key] = v
		}
		specs = append(specs, spec)
	}
	return specs, nil
}
