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
	// minStackWidth is the narrowest the stacked column of "Rules hit" gets, however narrow
	// the terminal.
	minStackWidth = 20
	// minTitleWidth is the narrowest the title column of "Rules hit" gets before it stacks.
	minTitleWidth = 30
	// cellGap is the space between columns.
	cellGap = 2
	// findingIndent and findingHang indent a finding under its rule's line, and the lines it
	// wraps to under its first.
	findingIndent, findingHang = "    ", "      "
)

// A table on a terminal of more than TableDetailGroups zones, accounts and files is summed
// up: what a terminal shows of 200 zones' findings one by one (13,000 lines) is their end.
// It lists the rules hit, the TableTopGroups with the most to do and how to fix each rule,
// and says how to get every finding: the table in a file lists them all.
const (
	TableDetailGroups = 20
	TableTopGroups    = 10
)

// Table writes findings that are not suppressed grouped by account, zone or file: accounts
// by name, zones by name, files by path, and a file's findings by line and column. Within a
// group, a line per rule (and severity) hit, with its end of life, heads its findings, one
// each: what the finding says of its own object, wrapped under a hanging indent. What every
// finding of a rule says alike (its how-to-fix text, usually) is said once, under "How to
// fix" at the end with the rule's documentation link, not once per finding (see
// ruleAdvices). Then come any read errors, the rules hit with their findings per severity,
// how to fix them, and a summary line such as "3 zones scanned, 1 error, 2 warnings, 0
// notices, 0 zones failed".
//
// The styling is bound to the writer, never to the process's stdout: with Color off the output
// contains no escape sequence. Every piece of user-provided text is sanitised (see textsafe.Sanitize).
// Nothing is cut: with Width set, lines wrap under a hanging indent (a documentation link
// stays whole, so that it can be followed); without Width nothing wraps.
//
// With Width set (a terminal) and more than TableDetailGroups groups, the groups' findings are
// left to a file: the table says the rules hit first, then the TableTopGroups groups with the
// most to do (most errors, then warnings, then notices), how to fix each rule, and how to
// write every finding to a file (--format table:FILE), where the table lists them all.
type Table struct {
	Options Options
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
	name     string               // the heading without its kind and the zone's id, sanitised
	findings *scanner.FindingList // the report's
	idx      []int
}

// tableRow is one finding, sanitised, as the Markdown report lays it out.
type tableRow struct {
	sev      scanner.Severity
	rule     string
	resource string
	message  string
	eol      string
}

// rows returns the rows of the group's findings, in the group's order.
func (g tableGroup) rows() []tableRow {
	rows := make([]tableRow, len(g.idx))
	for i, fi := range g.idx {
		f := new(g.findings.At(fi))
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
	advice := ruleAdvices(r)
	rules := rulesHit(r)
	brief := width > 0 && len(groups) > TableDetailGroups
	switch {
	case len(groups) == 0:
		fmt.Fprintln(bw, "No findings.")
	case brief: // the summary first; no finding says how to fix its rule, the advice says it all
		advice = withReplacements(advice, r.Catalog)
		writeRulesHit(bw, st, rules, width)
		bw.WriteByte('\n')
		writeTopGroups(bw, st, groups, width)
	default:
		for i, g := range groups {
			if i > 0 {
				bw.WriteByte('\n')
			}
			writeLines(bw, st.heading, hang(g.heading, width, "", "  "))
			writeGroup(bw, st, g, advice, width)
		}
	}
	if lines := notReadLines(r); len(lines) > 0 {
		bw.WriteByte('\n')
		bw.WriteString(st.heading.Render("Could not read (" + Plural(len(r.Errors), "error", "errors") + "):"))
		bw.WriteByte('\n')
		for _, line := range lines {
			writeText(bw, hang(line, width, "  ", "    "))
		}
	}
	for _, line := range SkippedLines(r, 0) {
		bw.WriteByte('\n')
		writeText(bw, hang(line, width, "", "  "))
	}
	if len(rules) > 0 && !brief {
		bw.WriteByte('\n')
		writeRulesHit(bw, st, rules, width)
	}
	writeAdvice(bw, st, rules, advice, width)
	if brief {
		bw.WriteByte('\n')
		writeText(bw, hang(fmt.Sprintf("Every finding of the %s one by one: write the table to a file (--format table:FILE), "+
			"or render a saved JSON report again (sunset report REPORT.json --format table:FILE).", groupsNoun(groups)), width, "", "  "))
	}
	bw.WriteByte('\n')
	bw.WriteString(summaryLine(r, st, width))
	bw.WriteByte('\n')
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing table: %w", err)
	}
	return nil
}

// writeRulesHit writes "Rules hit:" and its table.
func writeRulesHit(bw *bufio.Writer, st tableStyles, rules []ruleRow, width int) {
	bw.WriteString(st.heading.Render("Rules hit:"))
	bw.WriteByte('\n')
	bw.WriteString(rulesBlock(rules, st, width))
	bw.WriteByte('\n')
}

// writeLines writes lines, each styled on its own: a style given several lines at once pads
// them to one width.
func writeLines(bw *bufio.Writer, style lipgloss.Style, lines []string) {
	for _, line := range lines {
		bw.WriteString(style.Render(line))
		bw.WriteByte('\n')
	}
}

// writeText writes lines as they are (they are sanitised, or styled already): rendering
// them through a plain style would cost far more and change nothing.
func writeText(bw *bufio.Writer, lines []string) {
	for _, line := range lines {
		bw.WriteString(line)
		bw.WriteByte('\n')
	}
}

// groupFindings groups findings that are not suppressed by account, zone or file, keeping the
// report's order of first appearance; headings show account ids.
func groupFindings(findings *scanner.FindingList) []tableGroup {
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
				a, b := g.findings.At(g.idx[i]).Location, g.findings.At(g.idx[j]).Location
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
func groupBy(findings *scanner.FindingList, names map[string]string) []tableGroup {
	var groups []tableGroup
	index := map[string]int{}
	for i, fv := range findings.All() {
		f := &fv
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
			heading: "File " + textsafe.Sanitize(f.Location.Path), name: textsafe.Sanitize(f.Location.Path)}
	case f.ZoneID != "" || f.ZoneName != "":
		name := orElse(f.ZoneName, f.ZoneID)
		h := "Zone " + textsafe.Sanitize(name)
		if f.ZoneName != "" && f.ZoneID != "" {
			h += " (" + textsafe.Sanitize(f.ZoneID) + ")"
		}
		return tableGroup{kind: tableZoneGroup, sortName: strings.ToLower(name), key: "zone\x00" + f.ZoneID + "\x00" + f.ZoneName + "\x00" + f.AccountID,
			heading: h, name: textsafe.Sanitize(name)}
	case f.AccountID != "":
		return tableGroup{kind: tableAccountGroup, sortName: strings.ToLower(orElse(names[f.AccountID], f.AccountID)),
			key: "account\x00" + f.AccountID, heading: "Account " + accountLabel(f.AccountID, names), name: "account " + accountLabel(f.AccountID, names)}
	}
	return tableGroup{kind: tableOtherGroup, key: "other", heading: "Other findings", name: "other findings"}
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
		lines = append(lines, Plural(n, "zone", "zones")+" never started (the run was interrupted)")
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
	for _, f := range r.Findings.All() {
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
		parts = append(parts, Plural(s.ZonesScanned, "zone", "zones")+" scanned")
	}
	if files {
		parts = append(parts, Plural(s.FilesScanned, "file", "files")+" scanned")
	}
	counted := func(n int, one, many string, sev scanner.Severity) string {
		text := Plural(n, one, many)
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
		parts = append(parts, Plural(s.ZonesFailed, "zone", "zones")+" failed")
		if s.ZonesNotScanned > 0 {
			parts = append(parts, Plural(s.ZonesNotScanned, "zone", "zones")+" not scanned")
		}
	}
	if files {
		parts = append(parts, Plural(s.FilesFailed, "file", "files")+" failed")
		if s.FilesSkipped > 0 {
			parts = append(parts, strconv.Itoa(s.FilesSkipped)+" skipped")
		}
	}
	if s.Suppressed > 0 {
		parts = append(parts, strconv.Itoa(s.Suppressed)+" suppressed")
	}
	return joinWrapped(parts, ", ", width)
}

// ruleAdvice is what the findings of one rule in a report say alike: the pieces of their
// messages (see messagePieces) that every one of them holds, but its first (which names the
// finding's object), and the rule's documentation link. The table says them once, under "How
// to fix", and leaves the shared pieces out of each finding.
type ruleAdvice struct {
	shared   map[string]bool
	text     string // the shared pieces as a text, in the order of the rule's first finding
	doc      string
	findings int
}

// ruleAdvices returns the advice of each rule (by its sanitised id) with findings that are
// not suppressed. A rule with one finding shares nothing: its finding says it all.
func ruleAdvices(r *Report) map[string]*ruleAdvice {
	out := map[string]*ruleAdvice{}
	first := map[string][]string{} // the pieces of each rule's first finding
	for _, f := range r.Findings.All() {
		if f.Suppressed {
			continue
		}
		id := textsafe.Sanitize(string(f.RuleID))
		pieces := messagePieces(textsafe.Sanitize(f.Message))
		a, seen := out[id]
		if !seen {
			a = &ruleAdvice{shared: map[string]bool{}, doc: textsafe.Sanitize(f.DocURL), findings: 1}
			out[id], first[id] = a, pieces
			for _, p := range pieces[min(1, len(pieces)):] {
				a.shared[p] = len(p) >= minSharedPiece
			}
			continue
		}
		a.doc = orElse(a.doc, textsafe.Sanitize(f.DocURL))
		has := make(map[string]bool, len(pieces))
		for _, p := range pieces[min(1, len(pieces)):] {
			has[p] = true
		}
		for p := range a.shared {
			a.shared[p] = a.shared[p] && has[p]
		}
		a.findings++
	}
	for id, a := range out {
		pieces := first[id]
		if a.findings == 1 {
			a.shared = nil
			continue
		}
		a.text = joinPieces(pieces, func(i int) bool { return i > 0 && a.shared[pieces[i]] })
	}
	return out
}

// ownText is what a finding's message says of its own: the message without the pieces its
// rule's findings all say (advice.shared).
func (a *ruleAdvice) ownText(message string) string {
	if a == nil || len(a.shared) == 0 {
		return message
	}
	pieces := messagePieces(message)
	return joinPieces(pieces, func(i int) bool { return i == 0 || !a.shared[pieces[i]] })
}

// subgroup is the findings of one rule and severity within a table group.
type subgroup struct {
	sev  scanner.Severity
	rule string
	idx  []int
}

// subgroups splits a group's findings by rule and severity, in the order each first appears
// (a file's findings stay in line order within each).
func (g tableGroup) subgroups() []subgroup {
	var subs []subgroup
	at := map[string]int{}
	for _, fi := range g.idx {
		f := new(g.findings.At(fi))
		key := string(f.RuleID) + "\x00" + f.Severity.String()
		i, ok := at[key]
		if !ok {
			i = len(subs)
			at[key] = i
			subs = append(subs, subgroup{sev: f.Severity, rule: string(f.RuleID)})
		}
		subs[i].idx = append(subs[i].idx, fi)
	}
	return subs
}

// writeGroup writes a group's findings: per rule and severity a line ("error  firewall-rules
// (3), end of life 2025-01-15"), then each finding under it.
func writeGroup(bw *bufio.Writer, st tableStyles, g tableGroup, advice map[string]*ruleAdvice, width int) {
	for _, sub := range g.subgroups() {
		eol := textsafe.Sanitize(g.findings.At(sub.idx[0]).EndOfLife)
		for _, fi := range sub.idx[1:] {
			if textsafe.Sanitize(g.findings.At(fi).EndOfLife) != eol {
				eol = "" // they differ: each finding says its own
			}
		}
		sev := sub.sev.String()
		head := textsafe.Sanitize(sub.rule)
		if n := len(sub.idx); n > 1 {
			head += " (" + strconv.Itoa(n) + ")"
		}
		if eol != "" {
			head += ", end of life " + eol
		}
		// The severity leads the first line, in its colour; wrapped lines align under the rule.
		pad := strings.Repeat(" ", max(len("warning")-len(sev), 0)+2)
		lines := hang(head, width, "  "+st.severityStyle(sub.sev).Render(sev)+pad, strings.Repeat(" ", len(sev)+len(pad)+2))
		writeText(bw, lines)
		for _, fi := range sub.idx {
			f := new(g.findings.At(fi))
			text := findingText(f, advice[textsafe.Sanitize(string(f.RuleID))])
			if eol == "" && f.EndOfLife != "" {
				text += " (end of life " + textsafe.Sanitize(f.EndOfLife) + ")"
			}
			writeText(bw, hang(text, width, findingIndent, findingHang))
		}
	}
}

// findingText is one finding as the table lists it under its rule: its line in the file
// ("line 12: "), its object when the message does not name it, and what the message says of
// its own (see ruleAdvice.ownText).
func findingText(f *scanner.Finding, a *ruleAdvice) string {
	msg := a.ownText(textsafe.Sanitize(f.Message))
	var prefix string
	if f.Location != nil && f.Location.StartLine > 0 {
		prefix = "line " + strconv.Itoa(f.Location.StartLine) + ": "
	}
	g := *f
	g.Location = nil // the line is said above; the label names the object only
	object := resourceLabel(&g)
	name := textsafe.Sanitize(orElse(f.Resource.Name, f.Resource.ID))
	switch {
	case msg == "":
		return prefix + object
	case object == "-" || name != "" && strings.Contains(msg, name):
		return prefix + msg
	}
	return prefix + object + ": " + msg
}

// writeAdvice writes "How to fix": for each rule hit (in the order of "Rules hit") whose
// findings share advice or that has a documentation link, the advice once, then the link. A
// link (text without a space) stays whole however narrow the terminal, so that it can be
// followed: it is the one line that may be wider than Width.
func writeAdvice(bw *bufio.Writer, st tableStyles, rules []ruleRow, advice map[string]*ruleAdvice, width int) {
	wrote := false
	for _, rr := range rules {
		a := advice[rr.id]
		if a == nil || a.text == "" && a.doc == "" {
			continue
		}
		if !wrote {
			bw.WriteByte('\n')
			writeLines(bw, st.heading, hang("How to fix (said once per rule, not under each finding):", width, "", "  "))
			wrote = true
		}
		switch {
		case a.text == "" && !strings.Contains(a.doc, " "): // the link alone, on the rule's line if it fits
			line := "  " + rr.id + ": " + a.doc
			if width > 0 && ansi.StringWidth(line) > width {
				writeText(bw, append(hang(rr.id+":", width, "  ", "    "), "    "+a.doc))
				continue
			}
			writeText(bw, []string{line})
		case a.text == "":
			writeText(bw, hang(rr.id+": "+a.doc, width, "  ", "    "))
		default:
			writeText(bw, hang(rr.id+": "+a.text, width, "  ", "    "))
			if a.doc != "" && !strings.Contains(a.doc, " ") {
				writeText(bw, []string{"    " + a.doc})
			} else if a.doc != "" { // not a link (a hand-edited report): it wraps like text
				writeText(bw, hang(a.doc, width, "    ", "    "))
			}
		}
	}
}
