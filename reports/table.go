package reports

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// Table layout constants.
const (
	// NarrowWidth is the terminal width below which the table stacks its columns.
	NarrowWidth = 100
	// minMessageWidth is the narrowest the message column gets in the wide layout.
	minMessageWidth = 24
	// minResourceWidth is how far the resource column shrinks.
	minResourceWidth = 16
	// minStackWidth is the narrowest the stacked column gets, however narrow the terminal.
	minStackWidth = 20
	// narrowMessageLines is how many lines a message wraps to in the stacked layout.
	narrowMessageLines = 3
	// cellGap is the space between columns.
	cellGap = 2
)

// Table writes findings that are not suppressed as tables grouped by zone (or by file, or by
// account for account-level findings), in the order the groups first appear in the report,
// then any read errors, then a summary line such as
// "3 zones scanned, 1 error, 2 warnings, 0 notices, 0 zones failed".
//
// The styling is bound to the writer, never to the process's stdout: with Color off the output
// contains no escape sequence. Every piece of user-provided text is sanitised (see textsafe.Sanitize).
// With Width set, messages are truncated to fit; below NarrowWidth (or when the rule ids leave
// too little room) the columns are stacked into severity and one multi-line finding column.
type Table struct {
	Options Options
}

// tableRow is one finding, sanitised and ready to lay out.
type tableRow struct {
	sev      scanner.Severity
	rule     string
	resource string
	message  string
	eol      string
}

// tableGroup is the findings of one zone, file or account: their indexes in the report,
// made into rows one group at a time, so a million findings are never all rows at once.
type tableGroup struct {
	heading  string
	findings []scanner.Finding // the report's
	idx      []int
}

// rows returns the rows of the group's findings, in the report's order.
func (g tableGroup) rows() []tableRow {
	rows := make([]tableRow, len(g.idx))
	for i, fi := range g.idx {
		f := &g.findings[fi]
		rows[i] = tableRow{
			sev:      f.Severity,
			rule:     textsafe.Sanitize(string(f.RuleID)),
			resource: resourceLabel(f),
			message:  textsafe.Sanitize(f.Message),
			eol:      orElse(textsafe.Sanitize(f.EndOfLife), "-"),
		}
	}
	return rows
}

// tableStyles are the styles of one Write, bound to its renderer.
type tableStyles struct {
	r       *lipgloss.Renderer
	heading lipgloss.Style
	header  lipgloss.Style
	faint   lipgloss.Style
	sev     map[scanner.Severity]lipgloss.Style
}

func newTableStyles(w io.Writer, color bool) tableStyles {
	// Only the 16 basic colours are used, so ANSI is enough and reads on any background.
	profile := termenv.Ascii
	if color {
		profile = termenv.ANSI
	}
	// The profile is forced both ways: nothing about the writer or the environment is probed.
	r := lipgloss.NewRenderer(w, termenv.WithProfile(profile))
	r.SetColorProfile(profile)
	return tableStyles{
		r:       r,
		heading: r.NewStyle().Bold(true),
		header:  r.NewStyle().Bold(true),
		faint:   r.NewStyle().Faint(true),
		sev: map[scanner.Severity]lipgloss.Style{
			scanner.SeverityError:   r.NewStyle().Foreground(lipgloss.Color("1")).Bold(true),
			scanner.SeverityWarning: r.NewStyle().Foreground(lipgloss.Color("3")),
			scanner.SeverityNotice:  r.NewStyle().Foreground(lipgloss.Color("6")),
		},
	}
}

// severityStyle returns the style of a severity (plain for none).
func (s tableStyles) severityStyle(sev scanner.Severity) lipgloss.Style {
	if st, ok := s.sev[sev]; ok {
		return st
	}
	return s.r.NewStyle()
}

// Write implements Reporter.
func (t Table) Write(w io.Writer, r *Report) error {
	st := newTableStyles(w, t.Options.Color)
	bw := bufio.NewWriter(w)
	groups := groupFindings(r.Findings)
	if len(groups) == 0 {
		fmt.Fprintln(bw, "No findings.")
	} else {
		render, fits := wideLayout(groups, t.Options.Width, st)
		if !fits {
			render = narrowLayout(groups, t.Options.Width, st)
		}
		for i, g := range groups {
			if i > 0 {
				bw.WriteByte('\n')
			}
			bw.WriteString(st.heading.Render(fit(g.heading, t.Options.Width)))
			bw.WriteByte('\n')
			bw.WriteString(render(g))
			bw.WriteByte('\n')
		}
	}
	if len(r.Errors) > 0 {
		bw.WriteByte('\n')
		bw.WriteString(st.heading.Render(fmt.Sprintf("Could not read (%d):", len(r.Errors))))
		bw.WriteByte('\n')
		for _, e := range r.Errors {
			bw.WriteString(fit("  "+errorLine(e), t.Options.Width))
			bw.WriteByte('\n')
		}
	}
	if len(r.Summary.ByRule) > 0 {
		bw.WriteByte('\n')
		bw.WriteString(st.heading.Render("Rules hit:"))
		bw.WriteByte('\n')
		bw.WriteString(rulesBlock(r.Summary.ByRule, st, t.Options.Width))
	}
	bw.WriteByte('\n')
	bw.WriteString(summaryLine(r, st, t.Options.Width))
	bw.WriteByte('\n')
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing table: %w", err)
	}
	return nil
}

// groupFindings groups findings that are not suppressed by zone, file or account, keeping the
// report's order of first appearance.
func groupFindings(findings []scanner.Finding) []tableGroup {
	var groups []tableGroup
	index := map[string]int{}
	for i := range findings {
		f := &findings[i]
		if f.Suppressed {
			continue
		}
		key, heading := groupOf(f)
		gi, ok := index[key]
		if !ok {
			gi = len(groups)
			index[key] = gi
			groups = append(groups, tableGroup{heading: heading, findings: findings})
		}
		groups[gi].idx = append(groups[gi].idx, i)
	}
	return groups
}

// groupOf returns the group key and heading of a finding.
func groupOf(f *scanner.Finding) (key, heading string) {
	switch {
	case f.Location != nil && f.Location.Path != "":
		return "file\x00" + f.Location.Path, "File " + textsafe.Sanitize(f.Location.Path)
	case f.ZoneID != "" || f.ZoneName != "":
		h := "Zone " + textsafe.Sanitize(orElse(f.ZoneName, f.ZoneID))
		if f.ZoneName != "" && f.ZoneID != "" {
			h += " (" + textsafe.Sanitize(f.ZoneID) + ")"
		}
		return "zone\x00" + f.AccountID + "\x00" + f.ZoneID + "\x00" + f.ZoneName, h
	case f.AccountID != "":
		return "account\x00" + f.AccountID, "Account " + textsafe.Sanitize(f.AccountID)
	}
	return "other", "Other findings"
}

// resourceLabel is "kind name" (the id when there is no name), with the line of a file finding.
// A Terraform address that already starts with its kind ("cloudflare_filter.x") stands alone.
func resourceLabel(f *scanner.Finding) string {
	label := textsafe.Sanitize(string(f.Resource.Kind))
	if id := textsafe.Sanitize(orElse(f.Resource.Name, f.Resource.ID)); id != "" {
		switch {
		case label == "" || strings.HasPrefix(id, label+"."):
			label = id
		default:
			label += " " + id
		}
	}
	if f.Location != nil && f.Location.StartLine > 0 {
		label += " (line " + strconv.Itoa(f.Location.StartLine) + ")"
	}
	return orElse(label, "-")
}

// wideLayout lays out five columns with widths shared by every group, so the tables line up.
// With a known width the message column takes what is left, after the resource column has
// given up what it can. It reports false when the width is under NarrowWidth or too narrow for
// the rule ids and dates plus the narrowest resource and message columns.
func wideLayout(groups []tableGroup, width int, st tableStyles) (func(tableGroup) string, bool) {
	headers := []string{"SEVERITY", "RULE", "RESOURCE", "MESSAGE", "END OF LIFE"}
	widths := make([]int, len(headers))
	for i, h := range headers {
		widths[i] = ansi.StringWidth(h)
	}
	for _, g := range groups {
		for _, row := range g.rows() {
			for i, cell := range row.cells() {
				widths[i] = max(widths[i], ansi.StringWidth(cell))
			}
		}
	}
	if width > 0 {
		budget := width - cellGap*(len(headers)-1) - widths[0] - widths[1] - widths[4]
		if width < NarrowWidth || budget < minResourceWidth+minMessageWidth {
			return nil, false
		}
		if widths[2]+widths[3] > budget {
			// The resource keeps what the message does not need, and at least 2/5 of the room,
			// but leaves the message minMessageWidth (or all it needs, when that is less).
			res := min(widths[2], max(minResourceWidth, budget*2/5, budget-widths[3]))
			widths[2] = min(res, budget-min(widths[3], minMessageWidth))
			widths[3] = budget - widths[2]
		}
	}
	return func(g tableGroup) string {
		src := g.rows()
		rows := make([][]string, len(src))
		for i, row := range src {
			cells := row.cells()
			for j := range cells {
				cells[j] = ansi.Truncate(cells[j], widths[j], "…")
			}
			rows[i] = cells
		}
		return renderTable(st, headers, rows, widths, src)
	}, true
}

// cells returns the wide layout's cells of a row.
func (row tableRow) cells() []string {
	return []string{row.sev.String(), row.rule, row.resource, row.message, row.eol}
}

// narrowLayout stacks everything but the severity into one column: rule and resource (on one
// line when they fit), the message wrapped to a few lines, and the end of life.
func narrowLayout(groups []tableGroup, width int, st tableStyles) func(tableGroup) string {
	headers := []string{"SEVERITY", "FINDING"}
	sevWidth := ansi.StringWidth(headers[0])
	stack := max(width-sevWidth-cellGap, minStackWidth)
	return func(g tableGroup) string {
		src := g.rows()
		rows := make([][]string, len(src))
		for i, row := range src {
			var lines []string
			if head := row.rule + "  " + row.resource; ansi.StringWidth(head) <= stack {
				lines = append(lines, head)
			} else { // rule ids stay whole where they fit: users suppress by them
				lines = append(lines, ansi.Truncate(row.rule, stack, "…"), ansi.Truncate(row.resource, stack, "…"))
			}
			lines = append(lines, wrapLines(row.message, stack, narrowMessageLines)...)
			if row.eol != "-" {
				lines = append(lines, "end of life "+row.eol)
			}
			if i < len(src)-1 {
				lines = append(lines, "") // a blank line keeps stacked rows apart
			}
			rows[i] = []string{row.sev.String(), strings.Join(lines, "\n")}
		}
		return renderTable(st, headers, rows, []int{sevWidth, stack}, src)
	}
}

// wrapLines word-wraps s to width and keeps at most n lines, marking a cut with "…".
func wrapLines(s string, width, n int) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(ansi.Wrap(s, width, ""), "\n")
	if len(lines) > n {
		lines = lines[:n]
		last := strings.TrimRight(lines[n-1], " ")
		if ansi.StringWidth(last) >= width {
			last = ansi.Truncate(last, width-1, "")
		}
		lines[n-1] = last + "…"
	}
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return lines
}

// renderTable renders one group's table with fixed column widths: no outer border, a rule
// under the header, the severity cell coloured.
func renderTable(st tableStyles, headers []string, rows [][]string, widths []int, src []tableRow) string {
	last := len(headers) - 1
	cellStyle := func(col int) lipgloss.Style {
		s := st.r.NewStyle()
		if col < last {
			return s.Width(widths[col] + cellGap).PaddingRight(cellGap)
		}
		return s.Width(widths[col])
	}
	tbl := table.New().
		Border(lipgloss.NormalBorder()).
		BorderStyle(st.faint).
		BorderTop(false).BorderBottom(false).BorderLeft(false).BorderRight(false).
		BorderColumn(false).BorderHeader(true).
		Headers(headers...).
		Rows(rows...).
		StyleFunc(func(row, col int) lipgloss.Style {
			s := cellStyle(col)
			switch {
			case row == table.HeaderRow:
				return s.Inherit(st.header)
			case col == 0 && row >= 0 && row < len(src):
				return s.Inherit(st.severityStyle(src[row].sev))
			}
			return s
		})
	// Trailing spaces pad the last column to its width; they are noise in a terminal and in
	// golden files alike.
	lines := strings.Split(tbl.Render(), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	return strings.Join(lines, "\n")
}

// fit truncates a line to width when the width is known.
func fit(s string, width int) string {
	if width <= 0 {
		return s
	}
	return ansi.Truncate(s, width, "…")
}

// errorLine describes one read error in one sanitised line.
func errorLine(e scanner.RunError) string {
	var where string
	switch {
	case e.Path != "":
		where = e.Path
	case e.ZoneName != "":
		where = e.ZoneName
	case e.ZoneID != "":
		where = "zone " + e.ZoneID
	case e.AccountID != "":
		where = "account " + e.AccountID
	}
	parts := make([]string, 0, 3)
	for _, p := range []string{where, e.What, e.Message} {
		if p = textsafe.Sanitize(p); p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ": ")
}

// rulesBlock lists the rules hit, most severe first, one line each: count, severity (in its
// colour), rule id (what a suppression names) and title; lines are cut to the width.
func rulesBlock(rules []RuleCount, st tableStyles, width int) string {
	idWidth, countWidth := 0, 0
	for _, rc := range rules {
		idWidth = max(idWidth, len(rc.RuleID))
		countWidth = max(countWidth, len(strconv.Itoa(rc.Count)))
	}
	var b strings.Builder
	for _, rc := range rules {
		sev := rc.Severity.String()
		plain := fmt.Sprintf("  %*d  %-7s  %-*s  %s", countWidth, rc.Count, sev, idWidth, rc.RuleID, textsafe.Sanitize(rc.Title))
		line := fit(plain, width)
		// Colour only the severity word, once the line is cut to the width.
		if i := strings.Index(line, sev); i >= 0 {
			line = line[:i] + st.severityStyle(rc.Severity).Render(sev) + line[i+len(sev):]
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// summaryLine is the closing line: what was scanned, findings per severity, what failed;
// wrapped after a comma on a terminal too narrow for it.
func summaryLine(r *Report, st tableStyles, width int) string {
	s := r.Summary
	files := s.FilesScanned > 0 || s.FilesFailed > 0 || r.Source.Kind == SourceFiles
	zones := !files || s.ZonesScanned > 0 || s.ZonesFailed > 0
	var parts []string
	if zones {
		parts = append(parts, plural(s.ZonesScanned, "zone", "zones")+" scanned")
	}
	if files {
		parts = append(parts, plural(s.FilesScanned, "file", "files")+" scanned")
	}
	counted := func(n int, one, many string, sev scanner.Severity) string {
		text := plural(n, one, many)
		if n == 0 {
			return text
		}
		return st.severityStyle(sev).Render(text)
	}
	parts = append(parts,
		counted(s.BySeverity.Error, "error", "errors", scanner.SeverityError),
		counted(s.BySeverity.Warning, "warning", "warnings", scanner.SeverityWarning),
		counted(s.BySeverity.Notice, "notice", "notices", scanner.SeverityNotice))
	if zones {
		parts = append(parts, plural(s.ZonesFailed, "zone", "zones")+" failed")
	}
	if files {
		parts = append(parts, plural(s.FilesFailed, "file", "files")+" failed")
	}
	if s.Suppressed > 0 {
		parts = append(parts, strconv.Itoa(s.Suppressed)+" suppressed")
	}
	return joinWrapped(parts, ", ", width)
}

// joinWrapped joins parts with sep, breaking the line after a separator rather than inside a
// part when the width is known and the line would not fit.
func joinWrapped(parts []string, sep string, width int) string {
	var b strings.Builder
	lineWidth := 0
	tail := len(strings.TrimRight(sep, " ")) // what ends a line broken after a part
	for i, p := range parts {
		pw := ansi.StringWidth(p)
		if i < len(parts)-1 {
			pw += tail // room for the separator that may end the line after this part
		}
		if i > 0 {
			if width > 0 && lineWidth+len(sep)+pw > width {
				b.WriteString(strings.TrimRight(sep, " ") + "\n")
				lineWidth = 0
			} else {
				b.WriteString(sep)
				lineWidth += len(sep)
			}
		}
		b.WriteString(p)
		lineWidth += ansi.StringWidth(p)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
