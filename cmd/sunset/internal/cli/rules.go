package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/muesli/termenv"
	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// ruleRow is one catalog entry as `sunset rules` shows it.
type ruleRow struct {
	ID           string `json:"id"`
	Title        string `json:"title"`
	Status       string `json:"status"`
	Severity     string `json:"severity"`
	DeprecatedOn string `json:"deprecated_on,omitempty"`
	EndOfLife    string `json:"end_of_life,omitempty"`
	DateSource   string `json:"date_source"`
	Replacement  string `json:"replacement"`
	DocURL       string `json:"doc_url"`
}

func rulesCommand(s *Streams) *ucli.Command {
	return &ucli.Command{
		Name:      "rules",
		Usage:     "list the deprecation catalog with each entry's status as of a date",
		ArgsUsage: "[ID...]",
		Description: "Prints every catalog entry, or the entries named: id (use it to suppress findings), status as of --as-of\n" +
			"(retired, deprecated, upcoming or advisory), end of life and title; a table on a terminal,\n" +
			"tab-separated rows when piped. --format json adds each entry's severity as of --as-of, the\n" +
			"deprecation date, where the dates come from, the replacement and the documentation link.",
		Flags: append([]ucli.Flag{
			outputFlag("table", "json"),
			asOfFlag(), colorFlag(),
		}, catalogFlags()...),
		Action: func(c *ucli.Context) error {
			specs, err := outputSpecs(c, "table", "json")
			if err != nil {
				return err
			}
			asOf, err := s.asOf(c)
			if err != nil {
				return err
			}
			cat, err := loadCatalog(c)
			if err != nil {
				return err
			}
			color, err := s.color(c, s.OutTTY)
			if err != nil {
				return err
			}
			rows, err := selectRules(catalogRows(cat, asOf), c.Args().Slice())
			if err != nil {
				return err
			}
			return s.writeOutputs(specs, func(w io.Writer, format string) error {
				return writeRules(w, format, rows, asOf, color && w == s.Out, w == s.Out && s.OutTTY)
			})
		},
	}
}

// writeRules writes the catalog rows: JSON, or a table (coloured when color) on a terminal
// (tty), else tab-separated rows.
func writeRules(w io.Writer, format string, rows []ruleRow, asOf time.Time, color, tty bool) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			AsOf    string    `json:"as_of"`
			Entries []ruleRow `json:"entries"`
		}{asOf.Format(time.DateOnly), rows})
	}
	if !tty && !color {
		return writeRulesTSV(w, rows)
	}
	return writeRulesTable(w, rows, color, asOf)
}

func catalogRows(cat *catalog.Catalog, asOf time.Time) []ruleRow {
	var rows []ruleRow
	for _, e := range cat.Entries() {
		rows = append(rows, ruleRow{
			ID: string(e.ID), Title: e.Title, Status: e.StatusAt(asOf), Severity: e.SeverityAt(asOf).String(),
			DeprecatedOn: e.DeprecatedOn.String(), EndOfLife: e.EndOfLife.String(), DateSource: e.DateSource,
			Replacement: e.Replacement, DocURL: e.DocURL,
		})
	}
	return rows
}

// selectRules keeps the rows of the ids given, in the catalog's order (all of them when none
// is given); an id no entry has is a usage error naming the closest.
func selectRules(rows []ruleRow, ids []string) ([]ruleRow, error) {
	if len(ids) == 0 {
		return rows, nil
	}
	known := make([]*ucli.Command, len(rows))
	for i, r := range rows {
		known[i] = &ucli.Command{Name: r.ID}
	}
	for _, id := range ids {
		if !slices.ContainsFunc(rows, func(r ruleRow) bool { return r.ID == id }) {
			msg := fmt.Sprintf("rules: no catalog entry %q", id)
			if s := suggestCommand(known, id); s != "" {
				msg += "\n" + s
			}
			return nil, usageErrorf("%s", msg)
		}
	}
	return slices.DeleteFunc(rows, func(r ruleRow) bool { return !slices.Contains(ids, r.ID) }), nil
}

func writeRulesTSV(w io.Writer, rows []ruleRow) error {
	fmt.Fprintln(w, "id\tstatus\tend_of_life\ttitle")
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", textsafe.Sanitize(r.ID), r.Status, r.EndOfLife, textsafe.Sanitize(r.Title))
	}
	return nil
}

func writeRulesTable(w io.Writer, rows []ruleRow, color bool, asOf time.Time) error {
	re := lipgloss.NewRenderer(w)
	if color {
		re.SetColorProfile(termenv.ANSI256)
	} else {
		re.SetColorProfile(termenv.Ascii)
	}
	statusStyle := map[string]lipgloss.Style{
		"retired":    re.NewStyle().Foreground(lipgloss.Color("9")).Bold(true),
		"deprecated": re.NewStyle().Foreground(lipgloss.Color("11")),
		"upcoming":   re.NewStyle().Foreground(lipgloss.Color("14")),
		"advisory":   re.NewStyle().Foreground(lipgloss.Color("12")),
	}
	t := table.New().
		Border(lipgloss.NormalBorder()).
		BorderStyle(re.NewStyle().Foreground(lipgloss.Color("8"))).
		Headers("ID", "STATUS", "END OF LIFE", "TITLE").
		StyleFunc(func(row, col int) lipgloss.Style {
			st := re.NewStyle().Padding(0, 1)
			if row == table.HeaderRow {
				return st.Bold(true)
			}
			if col == 1 && row >= 0 && row < len(rows) {
				return statusStyle[rows[row].Status].Padding(0, 1)
			}
			return st
		})
	counts := map[string]int{}
	for _, r := range rows {
		t.Row(textsafe.Sanitize(r.ID), r.Status, r.EndOfLife, textsafe.Sanitize(r.Title))
		counts[r.Status]++
	}
	fmt.Fprintln(w, t.Render())
	var parts []string
	for _, st := range []string{"retired", "deprecated", "upcoming", "advisory"} {
		if counts[st] > 0 {
			parts = append(parts, statusStyle[st].Render(fmt.Sprintf("%d %s", counts[st], st)))
		}
	}
	fmt.Fprintf(w, "%d entries as of %s: %s\n", len(rows), asOf.Format(time.DateOnly), strings.Join(parts, ", "))
	return nil
}
