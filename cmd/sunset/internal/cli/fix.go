package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/migrate/fix"
	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// fixOptions are the inputs of `sunset fix`, resolved once.
type fixOptions struct {
	fix          fix.Options
	write, check bool
	format, path string
	// again is the command line that gives the same rewrite, without --write or --check
	// (what the ending's next command repeats).
	again []string
}

func fixCommand(s *Streams) *ucli.Command {
	return &ucli.Command{
		Name:      "fix",
		Usage:     "rewrite a Terraform repository off the deprecated resources, in its own terms",
		ArgsUsage: "[PATH...]",
		Description: strings.TrimSpace(`
Reads the Terraform under PATH (default: the current directory) and rewrites the deprecated
resources: each zone's cloudflare_filter + cloudflare_firewall_rule pairs into one
cloudflare_ruleset of custom rules (in the order the old rules ran), and the other usages
'sunset help fix' lists. Rules driven by for_each, count or variables stay driven by them.

Prints a unified diff on stdout and a summary on stderr; changes nothing unless --write.
--check exits 1 when there is something to rewrite, or when sunset check reports a usage
fix handles in the Terraform with no '# sunset fix:' comment saying why it stays, or while
a block refers to an old resource fix replaced (for CI).
A second run changes nothing.
The old resources leave the state without being destroyed: removed blocks for --target v4,
a state clean-up script to run before the upgrade for --target v5.`),
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "write", Usage: "change the files (default: only show the diff)"},
			&ucli.BoolFlag{Name: "check", Usage: "exit 1 when there is something to rewrite, a usage sunset check reports that no # sunset fix: comment explains, or a reference to a replaced resource"},
			&ucli.StringFlag{Name: "target", Value: "v5", Usage: "provider `VERSION` the result is for: v5 (the full move) or v4 (stay on v4 for now)"},
			&ucli.StringSliceFlag{Name: flagZonePlan, Usage: "a zone's subscription: `NAME=LEVEL` (NAME a zone name, id, or zone_id as written, e.g. var.zone_id; LEVEL free, pro, business or enterprise); repeatable"},
			&ucli.StringFlag{Name: "snapshot", Usage: "a scan's snapshot `FILE` (or a plan directory's snapshot.json): zones' plans and existing entry points"},
			&ucli.StringFlag{Name: flagFormat, Value: "diff", Usage: "output `FORMAT[:PATH]`: diff, or json (the changes, what was left and why, the state steps)"},
		},
		Action: func(c *ucli.Context) error {
			o, err := resolveFix(c)
			if err != nil {
				return err
			}
			return runFix(s, o)
		},
	}
}

// resolveFix validates the command line.
func resolveFix(c *ucli.Context) (fixOptions, error) {
	o := fixOptions{write: c.Bool("write"), check: c.Bool("check")}
	switch t := terraform.Provider(c.String("target")); t {
	case terraform.ProviderV4, terraform.ProviderV5:
		o.fix.Target = t
	default:
		return o, usageErrorf("--target %q: want v5 or v4", c.String("target"))
	}
	spec, err := reports.ParseOutputFlags([]string{c.String(flagFormat)}, []string{"diff", "json"})
	if err != nil {
		return o, usageErrorf("--format: %v", err)
	}
	o.format, o.path = spec[0].Format, spec[0].Path
	if o.fix.ZonePlans, err = zonePlans(c.StringSlice(flagZonePlan)); err != nil {
		return o, err
	}
	if p := c.String("snapshot"); p != "" {
		if o.fix.Snapshot, err = readSnapshotFile(p); err != nil {
			return o, usageErrorf("--snapshot %s: %v", p, err)
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return o, fatalError(err)
	}
	o.fix.Root, o.fix.Paths = wd, c.Args().Slice()
	for _, p := range o.fix.Paths {
		if _, err := os.Stat(p); err != nil {
			return o, usageErrorf("%s: no such file or directory", p)
		}
	}
	o.again = fixAgain(c)
	return o, nil
}

// fixAgain is the command line of this rewrite without --write, --check and --format: the
// flags that change what is rewritten, then the paths.
func fixAgain(c *ucli.Context) []string {
	out := []string{"sunset", "fix"}
	if t := c.String("target"); t != string(terraform.ProviderV5) {
		out = append(out, "--target", shellWord(t))
	}
	for _, v := range c.StringSlice(flagZonePlan) {
		out = append(out, "--"+flagZonePlan, shellWord(v))
	}
	if p := c.String("snapshot"); p != "" {
		out = append(out, "--snapshot", shellWord(p))
	}
	for _, p := range c.Args().Slice() {
		out = append(out, shellWord(p))
	}
	return out
}

// zonePlans reads NAME=LEVEL values.
func zonePlans(values []string) (map[string]string, error) {
	out := map[string]string{}
	for _, v := range values {
		name, level, ok := strings.Cut(v, "=")
		if !ok || name == "" {
			return nil, usageErrorf("--%s %q: want NAME=LEVEL, e.g. example.com=pro", flagZonePlan, v)
		}
		if err := oneOf(flagZonePlan, level, inventory.PlanFree, inventory.PlanPro, inventory.PlanBusiness, inventory.PlanEnterprise); err != nil {
			return nil, err
		}
		out[name] = level
	}
	return out, nil
}

func readSnapshotFile(path string) (*inventory.Snapshot, error) {
	f, err := openInput(path, maxSavedFile)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read-only
	return inventory.ReadSnapshot(f)
}

// runFix is the command's body: the diff (or JSON), the summary, the writes, the exit code.
func runFix(s *Streams, o fixOptions) error {
	res, err := fix.Run(o.fix)
	if err != nil {
		return usageErrorf("%v", err)
	}
	w, closeFn, err := s.writeTo(o.path)
	if err != nil {
		return err
	}
	err = writeFixOutput(w, o.format, res)
	if cerr := closeFn(); cerr != nil && err == nil {
		err = fatalError(fmt.Errorf("cannot write %s: %w", o.path, cerr))
	}
	if err != nil {
		return err
	}
	var werr error
	if o.write && len(res.Files) > 0 {
		werr = res.Write()
	}
	var unexplained []scanner.Finding
	if o.check && werr == nil {
		if unexplained, err = fixGate(s, o, res); err != nil {
			return err
		}
	}
	writeFixSummary(s, o, res, werr == nil, unexplained)
	if werr != nil {
		return fatalError(werr)
	}
	switch {
	case len(res.Problems) > 0:
		return &exitError{code: ExitIncomplete}
	case o.check && (len(res.Files) > 0 || len(unexplained) > 0 || len(res.Dangling) > 0):
		return &exitError{code: ExitFindings}
	}
	return nil
}

// fixGate is what --check fails on besides a change to make: the usages `sunset check`
// reports in the Terraform of the paths, as fix leaves it, of a rule fix handles, that no
// `# sunset fix:` comment explains (fix.Result.Unexplained).
func fixGate(s *Streams, o fixOptions, res *fix.Result) ([]scanner.Finding, error) {
	paths := o.fix.Paths
	if len(paths) == 0 {
		paths = []string{o.fix.Root}
	}
	out, err := res.Unexplained(context.Background(), o.fix.Root, paths, s.Now().UTC())
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	return out, nil
}

func writeFixOutput(w interface{ Write([]byte) (int, error) }, format string, res *fix.Result) error {
	diff, err := res.Diff()
	if err != nil {
		return fatalError(err)
	}
	if format == "json" {
		return writeJSON(w, struct {
			*fix.Result
			Diff string `json:"diff"`
		}{res, diff})
	}
	_, err = fmt.Fprint(w, diff)
	return err
}

// writeFixSummary says on stderr what was rewritten (and whether proven), what was left and
// why, the files not read, the state steps and, with --check, the usages no comment explains.
func writeFixSummary(s *Streams, o fixOptions, res *fix.Result, written bool, unexplained []scanner.Finding) {
	e := s.Err
	for _, rw := range res.Rewrites {
		zone := ""
		if rw.Zone != "" {
			zone = " (zone " + textsafe.Sanitize(rw.Zone) + ")"
		}
		fmt.Fprintf(e, "%s:%d: %s -> %s%s\n", textsafe.Sanitize(rw.File), rw.Line, textsafe.Sanitize(strings.Join(rw.Old, ", ")), rw.New, zone)
		for _, n := range append([]string{rw.Proven}, rw.Notes...) {
			if n != "" {
				fmt.Fprintf(e, "    %s\n", textsafe.Sanitize(n))
			}
		}
	}
	if len(res.Left) > 0 {
		fmt.Fprintf(e, "\nLeft as they are (%d): decide, then run sunset fix again\n", len(res.Left))
		for _, p := range res.Left {
			fmt.Fprintf(e, "  %s\n", textsafe.Sanitize(p.String()))
		}
	}
	if d := danglingNotLeft(res); len(d) > 0 {
		fmt.Fprintf(e, "\nReferences to resources no block declares (%d): Terraform refuses the configuration until each is resolved\n", len(d))
		for _, p := range d {
			fmt.Fprintf(e, "  %s\n", textsafe.Sanitize(p.String()))
		}
	}
	if len(res.Problems) > 0 {
		fmt.Fprintf(e, "\nNot read (%d): left as they are\n", len(res.Problems))
		for _, p := range res.Problems {
			fmt.Fprintf(e, "  %s\n", textsafe.Sanitize(p.String()))
		}
	}
	if len(res.StateSteps) > 0 {
		fmt.Fprintln(e, "\nState (nothing is destroyed):")
		for i, st := range res.StateSteps {
			fmt.Fprintf(e, "  %d. %s\n", i+1, textsafe.Sanitize(st))
		}
	}
	if len(unexplained) > 0 {
		fmt.Fprintf(e, "\nReported by sunset check, with no # sunset fix: comment saying why it stays (%d):\n", len(unexplained))
		for _, f := range unexplained {
			fmt.Fprintf(e, "  %s:%d: %s: %s\n", textsafe.Sanitize(f.Location.Path), f.Location.StartLine, f.RuleID, textsafe.Sanitize(f.Message))
		}
	}
	fixEnding(e, o, res, written)
}

// fixEnding closes the summary: what is left to change or was written, then, as every
// command ends, the files written and the command to run next.
func fixEnding(e io.Writer, o fixOptions, res *fix.Result, written bool) {
	var wrote []string
	if o.path != "" && o.path != "-" {
		wrote = append(wrote, fmt.Sprintf("%s (%s)", o.path, o.format))
	}
	next := ""
	switch {
	case len(res.Files) == 0:
		fmt.Fprintln(e, "\nNothing to rewrite.")
	case o.write && written:
		fmt.Fprintln(e)
		paths := make([]string, len(res.Files))
		for i, f := range res.Files {
			paths[i] = f.Path
		}
		wrote = append([]string{reports.Plural(len(paths), "file", "files") + ": " + strings.Join(paths, ", ")}, wrote...)
		next = fixNextAfterWrite(res)
	case o.write:
		fmt.Fprintln(e, "\nNot every root module was written (below): nothing of those, and no state step for them; the others whole.")
	default:
		fmt.Fprintf(e, "\n%s to change: review the diff, then run again with --write.\n", reports.Plural(len(res.Files), "file", "files"))
		next = strings.Join(slices.Insert(slices.Clone(o.again), 2, "--write"), " ") + "   # write them"
	}
	printEnding(e, wrote, next)
}

// fixNextAfterWrite is what to run once fix wrote the files: the state clean-up script
// where it wrote one (provider v5), else terraform plan, which the state steps describe.
func fixNextAfterWrite(res *fix.Result) string {
	for _, f := range res.Files {
		if filepath.Base(f.Path) != fix.StateCleanupScript {
			continue
		}
		dir := filepath.Dir(f.Path)
		return fmt.Sprintf("cd %s && sh %s   # Terraform forgets the old resources; then the upgrade to provider v5 and terraform plan (the state steps above)",
			shellWord(dir), fix.StateCleanupScript)
	}
	if len(res.StateSteps) > 0 {
		return "terraform plan   # in each root module: the new rules to create, the old resources to forget, none to destroy (the state steps above)"
	}
	return "terraform plan   # the changes written, before terraform apply"
}

// danglingNotLeft are the dangling references the summary has not listed among what fix
// left (those an earlier run left, found again).
func danglingNotLeft(res *fix.Result) []fix.Problem {
	var out []fix.Problem
	for _, d := range res.Dangling {
		if !slices.Contains(res.Left, d) {
			out = append(out, d)
		}
	}
	return out
}
