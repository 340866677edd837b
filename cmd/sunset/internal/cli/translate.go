package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/muesli/termenv"
	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/migrate/customrules"
	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner/safefile"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// translateOptions are the inputs of `sunset translate`.
type translateOptions struct {
	// Expr is the expression to translate ("-" reads it from stdin); "" with Rules.
	Expr string
	// Rules is a file of firewall rules ("-" for stdin); "" with Expr.
	Rules string
	// Existing is a custom rules entry point file to keep ahead of the translated rules.
	Existing string
	// Plan is the zone plan for plan checks; "" checks none.
	Plan string
	// Format is text (a table for --rules) or json; Path is where it goes, "" for stdout.
	Format, Path string
}

func translateCommand(s *Streams) *ucli.Command {
	return &ucli.Command{
		Name:      "translate",
		Usage:     "translate a filter expression, or a file of firewall rules, to custom rules",
		ArgsUsage: "[EXPR|-]",
		Description: strings.TrimSpace(`
With EXPR (or - to read it from stdin): renames deprecated fields, prints the expression in
canonical form on stdout, and the changes and diagnostics (with a caret under the position)
on stderr. Exit 0 when the translation is valid, 1 when it has errors.

With --rules FILE (firewall rules as the API returns them, an envelope or a bare list; - for
stdin): prints the custom rules entry point body {"rules": [...]} on stdout, ready for
PUT /zones/:id/rulesets/phases/http_request_firewall_custom/entrypoint, and a table of the
translations with their diagnostics on stderr. --existing adds the rules of the current entry
point first (they stay, and count in the quota). Exit 1 when any translation has errors.

--format json prints one JSON document on stdout instead: {input, valid, expression, changes,
diagnostics} for an expression, {rules, translations, diagnostics, quota} for --rules.
Flags go before or after EXPR; an expression that starts with - follows --.`),
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "rules", Usage: "translate the firewall rules in `FILE` (- for stdin)"},
			&ucli.StringFlag{Name: "existing", Usage: "custom rules entry point `FILE` to keep first (with --rules)"},
			&ucli.StringFlag{Name: flagZonePlan, Usage: "the zone's subscription `LEVEL` for its feature checks and quota: free, pro, business or enterprise"},
			oldSpelling(&ucli.StringFlag{Name: "plan"}),
			&ucli.StringFlag{Name: flagFormat, Value: "text", Usage: "output `FORMAT[:PATH]`: text (a table for --rules) or json, to stdout or PATH"},
		},
		Action: func(c *ucli.Context) error {
			opts, err := translateOptionsFrom(c, s)
			if err != nil {
				return err
			}
			w, closeFn, err := s.writeTo(opts.Path)
			if err != nil {
				return err
			}
			out := *s // what goes to stdout goes to PATH when --format names one
			out.Out, out.OutTTY = w, s.OutTTY && w == s.Out
			err = runTranslate(&out, opts)
			if cerr := closeFn(); cerr != nil && err == nil {
				err = fatalError(fmt.Errorf("cannot write %s: %w", opts.Path, cerr))
			}
			return err
		},
	}
}

// flagZonePlan names a zone's subscription level (free, pro, business, enterprise): never
// "plan", which in sunset is the migration plan.
const flagZonePlan = "zone-plan"

// translateOptionsFrom validates the command line.
func translateOptionsFrom(c *ucli.Context, s *Streams) (translateOptions, error) {
	opts := translateOptions{Rules: c.String("rules"), Existing: c.String("existing")}
	spec, err := reports.ParseOutputFlags([]string{c.String(flagFormat)}, []string{"text", "json", "table"})
	if err != nil {
		return opts, usageErrorf("--format: %v", err)
	}
	opts.Format, opts.Path = spec[0].Format, spec[0].Path
	if opts.Plan, err = s.renamed(c, flagZonePlan, "plan"); err != nil {
		return opts, err
	}
	if opts.Format == "table" {
		opts.Format = "text"
	}
	if opts.Plan != "" {
		if err := oneOf(flagZonePlan, opts.Plan, "free", "pro", "business", "enterprise"); err != nil {
			return opts, err
		}
	}
	args := c.Args().Slice()
	if len(args) > 1 {
		return opts, usageErrorf("translate takes one expression (got %d arguments); quote it", len(args))
	}
	switch {
	case opts.Rules != "" && len(args) == 1:
		return opts, usageErrorf("translate: give an expression or --rules FILE, not both")
	case opts.Rules == "" && len(args) == 0:
		return opts, usageErrorf("translate: give an expression (or - to read it from stdin) or --rules FILE")
	case opts.Rules == "" && opts.Existing != "":
		return opts, usageErrorf("translate: --existing goes with --rules")
	case opts.Rules == "-" && opts.Existing == "-":
		return opts, usageErrorf("translate: --rules and --existing cannot both read stdin")
	}
	if len(args) == 1 {
		opts.Expr = args[0]
	}
	return opts, nil
}

// runTranslate is the command's body.
func runTranslate(s *Streams, opts translateOptions) error {
	if opts.Rules != "" {
		return translateRules(s, opts)
	}
	src := opts.Expr
	if src == "-" {
		data, err := io.ReadAll(s.In)
		if err != nil {
			return usageErrorf("translate: reading stdin: %v", err)
		}
		src = strings.TrimRight(string(data), "\r\n")
	}
	res := customrules.TranslateExpression(src, customrules.Options{Plan: opts.Plan})
	if opts.Format == "json" {
		if err := writeJSON(s.Out, res); err != nil {
			return err
		}
	} else {
		if res.Expression != "" {
			fmt.Fprintln(s.Out, textsafe.Block(res.Expression))
		}
		for _, ch := range res.Changes {
			fmt.Fprintf(s.Err, "changed: %s\n", textsafe.Sanitize(ch))
		}
		for _, d := range res.Diagnostics {
			fmt.Fprintln(s.Err, renderDiagnostic(d, src))
		}
	}
	if !res.Valid {
		return &exitError{code: ExitFindings}
	}
	return nil
}

// translateRules translates a file of firewall rules.
func translateRules(s *Streams, opts translateOptions) error {
	data, err := s.readInput(opts.Rules)
	if err != nil {
		return usageErrorf("--rules: %v", err)
	}
	rules, err := customrules.DecodeFirewallRules(data)
	if err != nil {
		return usageErrorf("--rules %s: %v", opts.Rules, err)
	}
	copts := customrules.Options{Plan: opts.Plan}
	if opts.Existing != "" {
		data, err := s.readInput(opts.Existing)
		if err != nil {
			return usageErrorf("--existing: %v", err)
		}
		if copts.Existing, err = customrules.DecodeRuleset(data); err != nil {
			return usageErrorf("--existing %s: %v", opts.Existing, err)
		}
	}
	res := customrules.Translate(rules, copts)
	errs, warns := res.Counts()
	if opts.Format == "json" {
		if err := writeJSON(s.Out, res); err != nil {
			return err
		}
	} else {
		if err := writeJSON(s.Out, struct {
			Rules any `json:"rules"`
		}{res.Ruleset}); err != nil {
			return err
		}
		writeTranslationTable(s, res, len(copts.Existing))
		added := 0
		for _, t := range res.Rules {
			if t.Index >= len(copts.Existing) {
				added++
			}
		}
		fmt.Fprintf(s.Err, "%d firewall rules -> %d custom rules added (%d existing kept); %d errors, %d warnings\n",
			len(rules), added, len(copts.Existing), errs, warns)
	}
	if errs > 0 {
		return &exitError{code: ExitFindings}
	}
	return nil
}

// readInput reads a file, or stdin for "-".
func (s *Streams) readInput(path string) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(s.In)
	}
	data, err := safefile.ReadFile(path, maxRulesFile)
	if err != nil {
		// The path is the user's own; the error names it already.
		return nil, err
	}
	return data, nil
}

// writeJSON writes v as indented JSON, HTML characters as they are.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fatalError(fmt.Errorf("writing output: %w", err))
	}
	return nil
}

// translationStatus says in a word what became of a translation.
func translationStatus(t customrules.RuleTranslation, existing int) string {
	switch {
	case t.Rule == nil:
		return "not translated"
	case t.Index >= 0 && t.Index < existing:
		return "already migrated"
	case t.Index < 0:
		return "left out"
	case t.Rule.Enabled != nil && !*t.Rule.Enabled:
		return "added, disabled"
	}
	return "added"
}

// writeTranslationTable writes one row per translation on stderr (a table on a terminal,
// tab-separated otherwise), then each rule's diagnostics with carets, then the set-level ones.
func writeTranslationTable(s *Streams, res *customrules.Result, existing int) {
	type row struct{ pos, ids, from, to, status string }
	var rows []row
	for _, t := range res.Rules {
		to := "-"
		if t.Rule != nil {
			to = string(t.Rule.Action)
		}
		pos := "-"
		if t.Index >= 0 {
			pos = fmt.Sprint(t.Index)
		}
		rows = append(rows, row{pos, ruleIDs(t), textsafe.Sanitize(strings.Join(t.FirewallActions, "+")), textsafe.Sanitize(to), translationStatus(t, existing)})
	}
	w := s.Err
	if s.ErrTTY {
		re := lipgloss.NewRenderer(w)
		re.SetColorProfile(termenv.Ascii)
		tb := table.New().Border(lipgloss.NormalBorder()).
			Headers("#", "FIREWALL RULE", "ACTION", "CUSTOM RULE", "STATUS").
			StyleFunc(func(r, _ int) lipgloss.Style {
				st := re.NewStyle().Padding(0, 1)
				if r == table.HeaderRow {
					return st.Bold(true)
				}
				return st
			})
		for _, r := range rows {
			tb.Row(r.pos, r.ids, r.from, r.to, r.status)
		}
		fmt.Fprintln(w, tb.Render())
	} else {
		fmt.Fprintln(w, "index\tfirewall_rule\taction\tcustom_rule\tstatus")
		for _, r := range rows {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", r.pos, r.ids, r.from, r.to, r.status)
		}
	}
	for _, t := range res.Rules {
		for _, d := range t.Diagnostics {
			fmt.Fprintf(w, "%s: %s\n", ruleIDs(t), renderDiagnostic(d, t.OldExpression))
		}
	}
	for _, d := range res.Diagnostics {
		fmt.Fprintln(w, textsafe.Sanitize(d.String()))
	}
}

// ruleIDs names the firewall rules of a translation, sanitised: they come from the file.
func ruleIDs(t customrules.RuleTranslation) string {
	return textsafe.Sanitize(strings.Join(t.FirewallRuleIDs, "+"))
}

// renderDiagnostic is d.Render(src) made safe for a terminal or a CI log: the message line is
// sanitised, and the quoted source line shows each control character as one visible symbol
// (see showSource), so the caret under it still points at the right character. A source line
// that starts with "::" (after blanks) would read as a workflow command in a GitHub Actions
// log: it and its caret line are then shown after "| ".
func renderDiagnostic(d customrules.Diagnostic, src string) string {
	head := d.String()
	excerpt := strings.Split(strings.TrimPrefix(d.Render(showSource(src)), head), "\n")
	if len(excerpt) == 3 && strings.HasPrefix(strings.TrimSpace(excerpt[1]), "::") {
		excerpt[1], excerpt[2] = "| "+excerpt[1], "| "+excerpt[2]
	}
	return textsafe.Sanitize(head) + strings.Join(excerpt, "\n")
}

// showSource replaces each control character of an expression (textsafe.IsControl) but a
// newline, a tab and the CR of a CR LF with one visible symbol: a C0 control or DEL with its
// Control Pictures symbol (ESC shows as U+241B), anything else with U+FFFD. Columns count
// runes, so the caret of a diagnostic lines up as before.
func showSource(src string) string {
	var b strings.Builder
	b.Grow(len(src))
	for i, r := range src {
		switch {
		case r == '\n' || r == '\t' || (r == '\r' && strings.HasPrefix(src[i+1:], "\n")) || !textsafe.IsControl(r):
			b.WriteRune(r)
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune(0x2421)
		default:
			b.WriteRune(utf8.RuneError)
		}
	}
	return b.String()
}
