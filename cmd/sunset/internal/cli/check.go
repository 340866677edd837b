package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/cmd/sunset/schema"
	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/repo"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// checkOptions is everything `sunset check` needs, resolved from flags and .sunset.yaml.
type checkOptions struct {
	cfg            repo.Config // effective configuration (file merged with flags)
	formats        []reports.FormatSpec
	failOn         scanner.Severity
	asOf           time.Time
	color          bool
	catalog        *catalog.Catalog
	maxFileSize    int64
	workers        int
	noGitignore    bool
	writeBaseline  string
	showSuppressed bool
	printConfig    bool
	stdinKind      repo.Kind
	stdinName      string
}

func checkFlags() []ucli.Flag {
	return slices.Concat(
		inCategory("Files",
			&ucli.StringFlag{Name: "config", Usage: "read settings from `FILE` (default: " + repo.ConfigFileName + " in the first path, or in the current directory when the paths are files, if present; keys: " + strings.Join(repo.ConfigKeys(), ", ") + ")"},
			&ucli.BoolFlag{Name: "print-config", Usage: "print the effective configuration (file and flags merged) and exit"},
			&ucli.BoolFlag{Name: "print-schema", Usage: "print the JSON schema of " + repo.ConfigFileName + " (editors read it from the repository: sunset help check) and exit"},
			&ucli.StringSliceFlag{Name: "include", Usage: "check only files matching `GLOB` (gitignore syntax, repeatable; replaces the config's)"},
			&ucli.StringSliceFlag{Name: "exclude", Usage: "skip files and directories matching `GLOB` (gitignore syntax, repeatable; replaces the config's)"},
			&ucli.StringFlag{Name: "max-file-size", Usage: "report and skip files larger than `SIZE` (e.g. 5MiB, 500KB; default 5MiB)"},
			&ucli.IntFlag{Name: "workers", DefaultText: "the number of CPUs, plus one", Usage: "files checked at once (`N`)"},
			&ucli.BoolFlag{Name: "no-gitignore", Usage: "check files that .gitignore ignores too"},
		),
		inCategory("Baseline and suppressions",
			&ucli.StringFlag{Name: "baseline", Usage: "report only findings not recorded in `FILE` (recorded ones are suppressed, suppressed_by \"baseline\")"},
			&ucli.StringFlag{Name: "write-baseline", Usage: "record the current findings in `FILE`, then check against it"},
			&ucli.BoolFlag{Name: "show-suppressed", Usage: "include suppressed findings in the outputs, marked, with the reason"},
		),
		inCategory("Standard input (the path -)",
			&ucli.StringFlag{Name: "stdin-type", Value: "text", Usage: "with path -: read standard input as `TYPE` (" + strings.Join(repo.KindNames(), ", ") + ")"},
			&ucli.StringFlag{Name: "stdin-name", Value: "<stdin>", Usage: "with path -: the `NAME` findings carry"},
		),
		reportFlags(), judgingFlags())
}

func checkCommand(s *Streams) *ucli.Command {
	return &ucli.Command{
		Name:      "check",
		Usage:     "check configuration repositories (Terraform, JSON/YAML, scripts) for deprecated API usage",
		ArgsUsage: "[PATH...|-]",
		Description: "Walks the paths (default: the config's paths, else .) concurrently, skipping .git, .terraform,\n" +
			"node_modules, vendor and what .gitignore ignores, and reports deprecated resources and attributes\n" +
			"(Terraform), API objects (JSON/YAML) and endpoint calls (any text) at their file and line.\n" +
			"Files sunset wrote (baselines, reports, snapshots, plans), known by their content, are not\n" +
			"checked; stderr names them.\n\n" +
			"Suppress one finding with a comment on the line before it (or at the end of its line):\n" +
			"  # sunset:ignore RULE_ID [until=YYYY-MM-DD] reason\n" +
			"A suppression without a reason is reported (" + repo.RuleSuppression + ", notice); an expired one stops\n" +
			"suppressing. Exit codes: 0 clean, 1 findings at or above --fail-on, 2 usage or configuration\n" +
			"error, 3 fatal, 4 some files could not be read (4 wins over 1).",
		Flags: checkFlags(),
		Action: func(c *ucli.Context) error {
			if c.Bool("print-schema") {
				_, err := s.Out.Write(schema.Config())
				return err
			}
			o, err := resolveCheckOptions(c, s)
			if err != nil {
				return err
			}
			if o.printConfig {
				return printCheckConfig(s, o)
			}
			return runCheck(c.Context, s, o)
		},
	}
}

// resolveCheckOptions reads .sunset.yaml (given or discovered) and merges the flags over it.
// Problems are reported in a fixed order: misplaced flags, the configuration file, the rules
// and limits it sets, the outputs, then the walk.
func resolveCheckOptions(c *ucli.Context, s *Streams) (*checkOptions, error) {
	// Flags anywhere were moved ahead of the paths before parsing; what is left is paths
	// (after --, a path may start with a dash).
	args := c.Args().Slice()
	cfg, err := loadCheckConfig(c, args)
	if err != nil {
		return nil, err
	}
	mergeCheckFlags(c, &cfg, args)
	o := &checkOptions{cfg: cfg}
	if err := o.resolvePolicy(c); err != nil {
		return nil, err
	}
	o.printConfig = c.Bool("print-config")
	if err := o.resolveOutput(c, s); err != nil {
		return nil, err
	}
	o.writeBaseline = c.String("write-baseline")
	o.showSuppressed = c.Bool("show-suppressed")
	if err := o.resolveWalk(c); err != nil {
		return nil, err
	}
	return o, nil
}

// loadCheckConfig loads the --config file or, without one, the .sunset.yaml at the top of the
// first path when it is a directory, or of the current directory when it is a file (a
// pre-commit hook or an editor checks the files it names from the repository's top); with
// neither the configuration is empty.
func loadCheckConfig(c *ucli.Context, args []string) (repo.Config, error) {
	cfgPath, inTree := c.String("config"), false
	if cfgPath == "" {
		first := "."
		if len(args) > 0 {
			first = args[0]
		}
		dir := ""
		if info, err := os.Stat(first); err == nil && info.IsDir() {
			dir = first
		} else if err == nil && info.Mode().IsRegular() {
			dir = "."
		}
		if p := filepath.Join(dir, repo.ConfigFileName); dir != "" && fileExists(p) {
			cfgPath, inTree = p, true
		}
	}
	if cfgPath == "" {
		return repo.Config{}, nil
	}
	load := repo.LoadConfig
	if inTree {
		load = repo.LoadConfigInTree // the checked tree's own file: never through a link
	}
	cfg, err := load(cfgPath)
	if err != nil {
		return repo.Config{}, usageErrorf("%v", err)
	}
	return *cfg, nil
}

// mergeCheckFlags lays the flags that were given over the configuration file's settings, so
// --print-config shows what the check will use. --fail-on's default applies only when the
// file sets none; paths default to the file's, then ".".
func mergeCheckFlags(c *ucli.Context, cfg *repo.Config, args []string) {
	if len(args) > 0 {
		cfg.Paths = args
	} else if len(cfg.Paths) == 0 {
		cfg.Paths = []string{"."}
	}
	if c.IsSet("include") {
		cfg.Include = c.StringSlice("include")
	}
	if c.IsSet("exclude") {
		cfg.Exclude = c.StringSlice("exclude")
	}
	if c.IsSet(flagFailOn) || cfg.FailOn == "" {
		cfg.FailOn = c.String(flagFailOn)
	}
	if c.IsSet("max-file-size") {
		cfg.MaxFileSize = c.String("max-file-size")
	}
	if c.IsSet("baseline") {
		cfg.Baseline = c.String("baseline")
	}
}

// resolvePolicy loads the catalog and checks the merged configuration against it (rule ids
// must be ones the checker knows), then parses the gate severity and the file size limit.
func (o *checkOptions) resolvePolicy(c *ucli.Context) error {
	var err error
	if o.catalog, err = loadCatalog(c); err != nil {
		return err
	}
	// A value given as a flag is blamed on the flag, not on the configuration it overrides.
	if c.IsSet("fail-on") {
		if _, err := scanner.ParseSeverity(c.String("fail-on")); err != nil {
			return usageErrorf("--fail-on: %v", err)
		}
	}
	if c.IsSet("max-file-size") {
		if _, err := repo.ParseSize(c.String("max-file-size")); err != nil {
			return usageErrorf("--max-file-size: %v", err)
		}
	}
	known := func(id string) bool { return repo.KnownRule(o.catalog, id) }
	if err := o.cfg.Validate(known); err != nil {
		return usageErrorf("configuration%s: %v", sourceSuffix(o.cfg.Source), err)
	}
	if o.failOn, err = scanner.ParseSeverity(o.cfg.FailOn); err != nil {
		return usageErrorf("--fail-on: %v", err)
	}
	o.maxFileSize = repo.DefaultMaxFileSize
	if o.cfg.MaxFileSize != "" {
		if o.maxFileSize, err = repo.ParseSize(o.cfg.MaxFileSize); err != nil {
			return usageErrorf("--max-file-size: %v", err)
		}
	}
	return nil
}

// resolveOutput reads the report flags: formats and their files, the as-of date and colour.
func (o *checkOptions) resolveOutput(c *ucli.Context, s *Streams) error {
	var err error
	if o.formats, err = formatSpecs(c); err != nil {
		return err
	}
	if o.asOf, err = s.asOf(c); err != nil {
		return err
	}
	o.color, err = s.color(c, s.OutTTY)
	return err
}

// resolveWalk reads how the paths are walked: workers, .gitignore, and standard input, which
// must then be the only path.
func (o *checkOptions) resolveWalk(c *ucli.Context) error {
	if o.workers = c.Int("workers"); o.workers < 0 {
		return usageErrorf("--workers %d: want 1 or more (0 = the number of CPUs, plus one)", o.workers)
	}
	o.noGitignore = c.Bool("no-gitignore")
	var err error
	if o.stdinKind, err = repo.ParseKind(c.String("stdin-type")); err != nil {
		return usageErrorf("--stdin-type: %v", err)
	}
	o.stdinName = c.String("stdin-name")
	for _, p := range o.cfg.Paths {
		if p == "-" && len(o.cfg.Paths) > 1 {
			return usageErrorf("- (standard input) must be the only path")
		}
	}
	return nil
}

func sourceSuffix(src string) string {
	if src == "" {
		return ""
	}
	return " (" + src + ")"
}

// fileExists reports whether something other than a directory is at p; a symbolic link
// counts (even a dangling one), so that loading it can refuse it by name.
func fileExists(p string) bool {
	info, err := os.Lstat(p)
	return err == nil && !info.IsDir()
}

// printCheckConfig writes the effective configuration as YAML.
func printCheckConfig(s *Streams, o *checkOptions) error {
	src := "no configuration file; defaults and flags"
	if o.cfg.Source != "" {
		src = "from " + textsafe.Sanitize(filepath.ToSlash(o.cfg.Source)) + " and flags"
	}
	cfg := o.cfg
	if cfg.MaxFileSize == "" {
		cfg.MaxFileSize = fmt.Sprint(o.maxFileSize)
	}
	fmt.Fprintf(s.Out, "# effective sunset check configuration (%s)\n", src)
	_, err := s.Out.Write(cfg.YAML())
	return err
}

// baseline is the baseline the check reads: the one it writes first (--write-baseline), else
// the configured one.
func (o *checkOptions) baseline() string {
	if o.writeBaseline != "" {
		return o.writeBaseline
	}
	return o.cfg.Baseline
}

// runCheck checks the paths, applies the policy (severity overrides, disabled rules,
// baseline), writes every report and returns the exit status.
func runCheck(ctx context.Context, s *Streams, o *checkOptions) error {
	if err := checkOutputs(o.outputs()); err != nil {
		return err // before the first file is read
	}
	defer tuneGC(s.Getenv, checkGCPercent)()
	defer tuneMemoryLimit(s.Getenv, checkMemoryLimit)()
	checker := repo.NewChecker(o.catalog, o.asOf)
	var res *repo.Result
	var err error
	if len(o.cfg.Paths) == 1 && o.cfg.Paths[0] == "-" {
		res, err = checker.CheckReader(s.In, o.stdinName, o.stdinKind, o.maxFileSize)
	} else {
		res, err = checker.Check(ctx, repo.Options{
			Paths: o.cfg.Paths, Include: o.cfg.Include, Exclude: o.cfg.Exclude,
			MaxFileSize: o.maxFileSize, Workers: o.workers, NoGitignore: o.noGitignore,
		})
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			// Interrupted is incomplete (4), as for a scan: CI tells it from findings (1).
			return &exitError{code: ExitIncomplete, err: fmt.Errorf("check interrupted: %w", err)}
		}
		return usageErrorf("%v", err)
	}
	noteUnchecked(res, o.cfg.Paths)
	policy := repo.Policy{Disabled: o.cfg.Rules.Disable, Severity: map[string]scanner.Severity{}}
	for id, v := range o.cfg.Rules.Severity {
		policy.Severity[id], _ = scanner.ParseSeverity(v) // validated when resolving options
	}
	findings, _ := policy.Apply(res.Findings)
	if o.writeBaseline != "" {
		if err := writeBaselineFile(o.writeBaseline, repo.NewBaseline(findings)); err != nil {
			return err
		}
		fmt.Fprintf(s.Err, "sunset: wrote %s\n", textsafe.Sanitize(o.writeBaseline))
	}
	if baseline := o.baseline(); baseline != "" {
		b, err := readBaselineFile(baseline)
		if err != nil {
			return err
		}
		policy.Baseline = b
		var stale []repo.BaselineEntry
		findings, stale = policy.Apply(res.Findings)
		for _, e := range stale {
			fmt.Fprintf(s.Err, "sunset: baseline %s: stale entry %s %s %s (no longer found; refresh with --write-baseline)\n",
				textsafe.Sanitize(baseline), textsafe.Sanitize(string(e.RuleID)), textsafe.Sanitize(e.Path), textsafe.Sanitize(e.Resource))
		}
	}
	shown := findings
	if !o.showSuppressed {
		shown = make([]scanner.Finding, 0, len(findings))
		for _, f := range findings {
			if !f.Suppressed {
				shown = append(shown, f)
			}
		}
		if n := len(findings) - len(shown); n > 0 {
			fmt.Fprintf(s.Err, "sunset: %d suppressed finding(s) not shown (--show-suppressed lists them)\n", n)
		}
	}
	rep := reports.NewReport(reports.Input{
		Version:  Version,
		AsOf:     o.asOf,
		Source:   reports.Source{Kind: reports.SourceFiles, Paths: o.cfg.Paths},
		Findings: shown,
		Errors:   res.Errors,
		Skipped:  res.Skipped,
		Counts:   reports.Counts{FilesScanned: res.FilesScanned, FilesFailed: res.FilesFailed},
		FailOn:   o.failOn,
		Rules:    o.catalog,
	})
	if err := writeReports(s, o.formats, rep, o.color, nil, ""); err != nil {
		return err
	}
	printOutcome(s, rep, o.formats, false)
	if code := outcomeCode(scanner.GateFails(findings, o.failOn), res.Incomplete()); code != ExitOK {
		return &exitError{code: code}
	}
	return nil
}

func writeBaselineFile(path string, b *repo.Baseline) error {
	return writeOutputFile("baseline", path, b.Write)
}

func readBaselineFile(path string) (*repo.Baseline, error) {
	f, err := openInput(path, maxBaseline)
	if err != nil {
		return nil, usageErrorf("--baseline: %v", err)
	}
	defer func() { _ = f.Close() }() // read only: the baseline is read whole or its error returned
	b, err := repo.ReadBaseline(f)
	if err != nil {
		return nil, usageErrorf("--baseline %s: %v", path, strings.TrimSpace(err.Error()))
	}
	return b, nil
}

// noteUnchecked makes a run that read no file at all a run error: a gate pointed at the
// wrong path must not pass, as nothing read is not "clean" (a run given only sunset's own
// outputs says so, and passes). The files skipped are named by the report's summary in
// every format (reports.SkippedLines).
func noteUnchecked(res *repo.Result, paths []string) {
	if res.FilesScanned == 0 && res.FilesFailed == 0 && len(res.Outputs) == 0 {
		res.Errors = append(res.Errors, scanner.RunError{Path: strings.Join(paths, " "), What: "empty",
			Message: fmt.Sprintf("no file to check here (%d skipped): point the check at the repository's files", res.FilesSkipped)})
	}
}
