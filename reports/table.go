package reports

import (
	"bufio"
	"fmt"
	"io"
	"sort"
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
	// minMessageWidth is the narrowest the message column gets in the wide layout: messages
	// run to several hundred characters, and wrapped narrower they read worse than stacked.
	minMessageWidth = 60
	// minResourceWidth is how far the resource column shrinks.
	minResourceWidth = 16
	// minStackWidth is the narrowest the stacked column gets, however narrow the terminal.
	minStackWidth = 20
	// minTitleWidth is the narrowest the title column of "Rules hit" gets before it stacks.
	minTitleWidth = 30
	// cellGap is the space between columns.
	cellGap = 2
)

// Table writes findings that are not suppressed as tables grouped by account, zone or file:
// accounts by name, zones by name, files by path, and a file's findings by line and column.
// Then come any read errors, the rules hit with their findings per severity, and a summary
// line such as "3 zones scanned, 1 error, 2 warnings, 0 notices, 0 zones failed".
//
// The styling is bound to the writer, never to the process's stdout: with Color off the output
// contains no escape sequence. Every piece of user-provided text is sanitised (see textsafe.Sanitize).
// Nothing is cut: with Width set, messages and resources wrap inside their columns (and
// headings and error lines under their first word); below NarrowWidth (or when the rule ids
// leave the message too little room) the columns are stacked into severity and one
// multi-line finding column. Without Width nothing wraps.
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

// Kinds of table groups, in the order they are written.
const (
	tableAccountGroup = iota
	tableZoneGroup
	tableFileGroup
	tableOtherGroup
)

// tableGroup is the findings of one account, zone or file: their indexes in the report,
// made into rows one group at a time, so a million findings are never all rows at once.
type tableGroup struct {
	kind int
	// sortName is what groups of a kind sort by: the name shown, or the path, in lower case
	// (account names are typed by people).
	sortName string
	key      string // unique; breaks ties between groups of the same name
	heading  string
	findings []scanner.Finding // the report's
	idx      []int
}

// rows returns the rows of the group's findings, in the group's order.
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
	width := t.Options.Width
	bw := bufio.NewWriter(w)
	groups := tableGroups(r)
	if len(groups) == 0 {
		fmt.Fprintln(bw, "No findings.")
	} else {
		render, fits := wideLayout(groups, width, st)
		if !fits {
			render = narrowLayout(groups, width, st)
		}
		for i, g := range groups {
			if i > 0 {
				bw.WriteByte('\n')
			}
			writeLines(bw, st.heading, hang(g.heading, width, "", "  "))
			bw.WriteString(render(g))
			bw.WriteByte('\n')
		}
	}
	if lines := notReadLines(r); len(lines) > 0 {
		bw.WriteByte('\n')
		bw.WriteString(st.heading.Render("Could not read (" + plural(len(r.Errors), "error", "errors") + "):"))
		bw.WriteByte('\n')
		for _, line := range lines {
			writeLines(bw, st.r.NewStyle(), hang(line, width, "  ", "    "))
		}
	}
	if rules := rulesHit(r); len(rules) > 0 {
		bw.WriteByte('\n')
		bw.WriteString(st.heading.Render("Rules hit:"))
		bw.WriteByte('\n')
		bw.WriteString(rulesBlock(rules, st, width))
		bw.WriteByte('\n')
	}
	bw.WriteByte('\n')
	bw.WriteString(summaryLine(r, st, width))
	bw.WriteByte('\n')
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing table: %w", err)
	}
	return nil
}

// writeLines writes lines, each styled on its own: a style given several lines at once pads
// them to one width.
func writeLines(bw *bufio.Writer, style lipgloss.Style, lines []string) {
	for _, line := range lines {
		bw.WriteString(style.Render(line))
		bw.WriteByte('\n')
	}
}

// groupFindings groups findings that are not suppressed by account, zone or file, keeping the
// report's order of first appearance; headings show account ids.
func groupFindings(findings []scanner.Finding) []tableGroup {
	return groupBy(findings, nil)
}

// tableGroups groups the report's findings as the table shows them: accounts (by name, from
// the report's account names), then zones, then files, each by name (or path), a file's
// findings by line and column. Within an account or a zone findings keep the report's order.
func tableGroups(r *Report) []tableGroup {
	groups := groupBy(r.Findings, r.AccountNames)
	sort.Slice(groups, func(i, j int) bool {
		a, b := &groups[i], &groups[j]
		if a.kind != b.kind {
			return a.kind < b.kind
		}
		if a.sortName != b.sortName {
			return a.sortName < b.sortName
		}
		return a.key < b.key
	})
	for _, g := range groups {
		if g.kind == tableFileGroup {
			sort.SliceStable(g.idx, func(i, j int) bool {
				a, b := g.findings[g.idx[i]].Location, g.findings[g.idx[j]].Location
				if a.StartLine != b.StartLine {
					return a.StartLine < b.StartLine
				}
				return a.StartColumn < b.StartColumn
			})
		}
	}
	return groups
}

// groupBy groups findings that are not suppressed in the order their groups first appear.
func groupBy(findings []scanner.Finding, names map[string]string) []tableGroup {
	var groups []tableGroup
	index := map[string]int{}
	for i := range findings {
		f := &findings[i]
		if f.Suppressed {
			continue
		}
		g := groupOf(f, names)
		gi, ok := index[g.key]
		if !ok {
			gi = len(groups)
			index[g.key] = gi
			g.findings = findings
			groups = append(groups, g)
		}
		groups[gi].idx = append(groups[gi].idx, i)
	}
	return groups
}

// groupOf returns the group of a finding, without its findings.
func groupOf(f *scanner.Finding, names map[string]string) tableGroup {
	switch {
	case f.Location != nil && f.Location.Path != "":
		return tableGroup{kind: tableFileGroup, sortName: strings.ToLower(f.Location.Path), key: "file\x00" + f.Location.Path,
			heading: "File " + textsafe.Sanitize(f.Location.Path)}
	case f.ZoneID != "" || f.ZoneName != "":
		name := orElse(f.ZoneName, f.ZoneID)
		h := "Zone " + textsafe.Sanitize(name)
		if f.ZoneName != "" && f.ZoneID != "" {
			h += " (" + textsafe.Sanitize(f.ZoneID) + ")"
		}
		return tableGroup{kind: tableZoneGroup, sortName: strings.ToLower(name), key: "zone\x00" + f.ZoneID + "\x00" + f.ZoneName + "\x00" + f.AccountID, heading: h}
	case f.AccountID != "":
		return tableGroup{kind: tableAccountGroup, sortName: strings.ToLower(orElse(names[f.AccountID], f.AccountID)),
			key: "account\x00" + f.AccountID, heading: "Account " + accountLabel(f.AccountID, names)}
	}
	return tableGroup{kind: tableOtherGroup, key: "other", heading: "Other findings"}
}

// accountLabel is an account's name with its id in parentheses, or the id alone when the
// report does not know the name; sanitised.
func accountLabel(id string, names map[string]string) string {
	if name := textsafe.Sanitize(names[id]); name != "" {
		return name + " (" + textsafe.Sanitize(id) + ")"
	}
	return textsafe.Sanitize(id)
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
// given up what it can, and both wrap. It reports false when the width is under NarrowWidth
// or too narrow for the rule ids and dates plus the narrowest resource and message columns.
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
			// The resource wraps to a third of the room (at least minResourceWidth), or takes
			// what the message does not need, but leaves the message minMessageWidth.
			res := min(widths[2], max(minResourceWidth, budget/3, budget-widths[3]))
			widths[2] = min(res, budget-min(widths[3], minMessageWidth))
			widths[3] = budget - widths[2]
		}
	}
	return func(g tableGroup) string {
		src := g.rows()
		rows := make([][]string, len(src))
		for i, row := range src {
			cells := row.cells()
			if width > 0 {
				cells[2] = wrapAt(cells[2], widths[2], resourceBreaks)
				cells[3] = wrap(cells[3], widths[3])
			}
			rows[i] = cells
		}
		return renderTable(st, headers, rows, widths, severityColumn(st, src))
	}, true
}

// severityColumn colours the severity cell of each row.
func severityColumn(st tableStyles, src []tableRow) func(row, col int) lipgloss.Style {
	return func(row, col int) lipgloss.Style {
		if col == 0 && row >= 0 {
			return st.severityStyle(src[row].sev)
		}
		return st.r.NewStyle()
	}
}

// cells returns the wide layout's cells of a row.
func (row tableRow) cells() []string {
	return []string{row.sev.String(), row.rule, row.resource, row.message, row.eol}
}

// narrowLayout stacks everything but the severity into one column: rule and resource (on one
// line when they fit), the whole message wrapped, and the end of life.
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
			} else { // a rule id breaks only where it does not fit, after a hyphen
				lines = append(lines, wrap(row.rule, stack), wrapAt(row.resource, stack, resourceBreaks))
			}
			if row.message != "" {
				lines = append(lines, wrap(row.message, stack))
			}
			if row.eol != "-" {
				lines = append(lines, "end of life "+row.eol)
			}
			if i < len(src)-1 {
				lines = append(lines, "") // a blank line keeps stacked rows apart
			}
			rows[i] = []string{row.sev.String(), strings.Join(lines, "\n")}
		}
		return renderTable(st, headers, rows, []int{sevWidth, stack}, severityColumn(st, src))
	}
}

// renderTable renders one table with fixed column widths: no outer border, a rule under the
// header, cells styled by style (a row index counts from the first row under the header).
func renderTable(st tableStyles, headers []string, rows [][]string, widths []int, style func(row, col int) lipgloss.Style) string {
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
				return s.Inherit(st.header).Inherit(style(row, col))
			case row >= 0 && row < len(rows):
				return s.Inherit(style(row, col))
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

// notReadLines are the read errors as people read them: each zone, account or file once with
// its first reason (an interrupted run's 200 zones are not 200 lines), the retired
// endpoints grouped, and the zones never started counted; the JSON report lists every part.
func notReadLines(r *Report) []string {
	var lines []string
	for _, line := range UnreadLines(r, 0) {
		lines = append(lines, strings.TrimPrefix(line, "not read: ")) // the heading says it
	}
	if n := r.Summary.ZonesNotScanned; n > 0 {
		lines = append(lines, plural(n, "zone", "zones")+" never started (the run was interrupted)")
	}
	return append(lines, RetiredLines(r)...)
}

// errorLine describes one read error in one sanitised line, for the formats that list
// every error (the table groups them with UnreadLines).
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

// ruleRow is one line of "Rules hit": a rule's findings that are not suppressed, per severity.
type ruleRow struct {
	id, title string
	counts    SeverityCounts
}

// rulesHit counts the findings that are not suppressed per rule and severity, in the order
// of the summary's rules (most severe first). It counts from the findings, as the summary's
// severity counts do, so the two agree.
func rulesHit(r *Report) []ruleRow {
	at := map[string]int{}
	rows := make([]ruleRow, 0, len(r.Summary.ByRule))
	row := func(id, title string) *ruleRow {
		i, ok := at[id]
		if !ok {
			i = len(rows)
			at[id] = i
			rows = append(rows, ruleRow{id: textsafe.Sanitize(id), title: textsafe.Sanitize(title)})
		}
		return &rows[i]
	}
	for _, rc := range r.Summary.ByRule {
		row(rc.RuleID, rc.Title)
	}
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Suppressed {
			continue
		}
		// A rule the summary lacks (a hand-edited report) gets its row, so the counts add up.
		row(string(f.RuleID), f.Title).counts.add(f.Severity)
	}
	return rows
}

// add counts one finding of severity sev.
func (c *SeverityCounts) add(sev scanner.Severity) {
	switch sev {
	case scanner.SeverityError:
		c.Error++
	case scanner.SeverityWarning:
		c.Warning++
	case scanner.SeverityNotice:
		c.Notice++
	}
}

// ruleSeverities are the severities "Rules hit" counts, in its column order.
var ruleSeverities = []scanner.Severity{scanner.SeverityError, scanner.SeverityWarning, scanner.SeverityNotice}

// of returns the count of one severity.
func (c SeverityCounts) of(sev scanner.Severity) int {
	switch sev {
	case scanner.SeverityError:
		return c.Error
	case scanner.SeverityWarning:
		return c.Warning
	case scanner.SeverityNotice:
		return c.Notice
	}
	return 0
}

// rulesBlock lays out the rules hit as a table: a column of counts per severity ("-" for
// none, a count in its severity's colour), the rule id (what a suppression names) and the
// title, wrapped. When the width leaves the title less than minTitleWidth, the counts stack
// into one column ("2 error", "1 notice") and the title goes under the rule id.
func rulesBlock(rules []ruleRow, st tableStyles, width int) string {
	headers := []string{"ERROR", "WARNING", "NOTICE", "RULE", "TITLE"}
	widths := make([]int, len(headers))
	for i, h := range headers {
		widths[i] = len(h)
	}
	for _, rr := range rules {
		for i, sev := range ruleSeverities {
			widths[i] = max(widths[i], len(strconv.Itoa(rr.counts.of(sev))))
		}
		widths[3] = max(widths[3], ansi.StringWidth(rr.id))
		widths[4] = max(widths[4], ansi.StringWidth(rr.title))
	}
	if width > 0 {
		room := width - cellGap*(len(headers)-1) - widths[0] - widths[1] - widths[2] - widths[3]
		if room < min(minTitleWidth, widths[4]) {
			return stackedRules(rules, st, width)
		}
		widths[4] = min(widths[4], room)
	}
	rows := make([][]string, len(rules))
	for i, rr := range rules {
		rows[i] = make([]string, 0, len(headers))
		for _, sev := range ruleSeverities {
			rows[i] = append(rows[i], countCell(rr.counts.of(sev)))
		}
		rows[i] = append(rows[i], rr.id, wrap(rr.title, widths[4]))
	}
	return renderTable(st, headers, rows, widths, func(row, col int) lipgloss.Style {
		s := st.r.NewStyle()
		if col >= len(ruleSeverities) {
			return s
		}
		s = s.Align(lipgloss.Right)
		if row >= 0 && rules[row].counts.of(ruleSeverities[col]) > 0 {
			return s.Inherit(st.severityStyle(ruleSeverities[col]))
		}
		return s
	})
}

// countCell is a count, or "-" for none, which keeps the counts that are there in view.
func countCell(n int) string {
	if n == 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

// stackedRules is "Rules hit" on a narrow terminal: the counts per severity in one column
// ("2 error" in its colour, a line each), the rule id and its title in the other.
func stackedRules(rules []ruleRow, st tableStyles, width int) string {
	headers := []string{"FINDINGS", "RULE"}
	digits := 0
	for _, rr := range rules {
		for _, sev := range ruleSeverities {
			digits = max(digits, len(strconv.Itoa(rr.counts.of(sev))))
		}
	}
	countWidth := max(len(headers[0]), digits+1+len("warning"))
	stack := max(width-countWidth-cellGap, minStackWidth)
	rows := make([][]string, len(rules))
	for i, rr := range rules {
		var counts []string
		for _, sev := range ruleSeverities {
			if n := rr.counts.of(sev); n > 0 {
				counts = append(counts, st.severityStyle(sev).Render(fmt.Sprintf("%*d %s", digits, n, sev)))
			}
		}
		rows[i] = []string{strings.Join(counts, "\n"), wrap(rr.id, stack) + "\n" + wrap(rr.title, stack)}
	}
	return renderTable(st, headers, rows, []int{countWidth, stack}, func(int, int) lipgloss.Style { return st.r.NewStyle() })
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
		if s.ZonesNotScanned > 0 {
			parts = append(parts, plural(s.ZonesNotScanned, "zone", "zones")+" not scanned")
		}
	}
	if files {
		parts = append(parts, plural(s.FilesFailed, "file", "files")+" failed")
	}
	if s.Suppressed > 0 {
		parts = append(parts, strconv.Itoa(s.Suppressed)+" suppressed")
	}
	return joinWrapped(parts, ", ", width)
}
