package reports

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// Bar chart geometry.
const (
	barWidth     = 1000
	barLabelX    = 320
	barLeft      = 330
	barRight     = 940
	barRow       = 22
	barThickness = 14
	// barMaxRows caps a chart: the rest are summed in one last row, so an account of a
	// thousand zones keeps a readable picture (the table lists everything).
	barMaxRows  = 25
	barMaxLabel = 40
)

type svgBars struct {
	ID, Heading, Title, Caption      string
	Width, Height, BarHeight, LabelX int
	BarX                             int
	Rows                             []svgBarRow
}

type svgBarRow struct {
	Label, Short, Tooltip string
	Total                 int
	TextY, CountX         string
	Segs                  []svgSeg
}

type svgSeg struct{ X, Y, W, Class string }

// barCount is the findings of one bar, per severity.
type barCount struct {
	label string
	kind  string // what the bar counts the findings of: rule, zone, account, file
	by    [4]int // indexed by severity
	total int
}

// findingCharts draws findings that are not suppressed by rule and by zone, account or file,
// the latter from the groups' counts; captions count each kind apart (200 zones and 2
// accounts, not 202 zones).
func findingCharts(findings *scanner.FindingList, groups []*htmlGroup) []*svgBars {
	byRule, byGroup := map[string]*barCount{}, map[string]*barCount{}
	bar := func(m map[string]*barCount, key, kind string) *barCount {
		c := m[key]
		if c == nil {
			c = &barCount{label: key, kind: kind}
			m[key] = c
		}
		return c
	}
	for _, fv := range findings.All() {
		f := &fv
		if f.Suppressed {
			continue
		}
		c := bar(byRule, textsafe.Sanitize(string(f.RuleID)), "rule")
		if f.Severity >= 0 && int(f.Severity) < len(c.by) {
			c.by[f.Severity]++
		}
		c.total++
	}
	for _, g := range groups {
		if g.Total == 0 {
			continue
		}
		c := bar(byGroup, g.Label, orElse(map[string]string{groupOther: "other"}[g.Kind], g.Kind))
		c.by[scanner.SeverityError] += g.Counts.Error
		c.by[scanner.SeverityWarning] += g.Counts.Warning
		c.by[scanner.SeverityNotice] += g.Counts.Notice
		c.total += g.Total
	}
	if len(byRule) == 0 {
		return nil
	}
	groupRows := sortedBars(byGroup)
	return []*svgBars{
		barChart("chart-rules", "By rule", byRule),
		barChart("chart-groups", "By "+kindsOf(groupRows, saySingular), byGroup),
	}
}

// kindsOf says what bars count, each kind apart, the most first, each as say writes it:
// "200 zones and 2 accounts" (counted), "zones and accounts" (plural), "zone and account".
func kindsOf(bars []*barCount, say func(n int, kind string) string) string {
	kinds, n := countByKind(bars, func(c *barCount) string { return c.kind })
	return sayKinds(kinds, n, say)
}

// countByKind counts items by kind, the kinds in the order each first appears.
func countByKind[T any](items []T, kindOf func(T) string) (kinds []string, n map[string]int) {
	n = map[string]int{}
	for _, it := range items {
		k := kindOf(it)
		if n[k] == 0 {
			kinds = append(kinds, k)
		}
		n[k]++
	}
	return kinds, n
}

// sayKinds says counted kinds, the most first, joined by "and", each as say writes it.
func sayKinds(kinds []string, n map[string]int, say func(n int, kind string) string) string {
	kinds = slices.Clone(kinds)
	slices.SortStableFunc(kinds, func(a, b string) int { return n[b] - n[a] })
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = say(n[k], k)
	}
	return strings.Join(parts, " and ")
}

// Ways kindsOf says a kind.
var (
	sayCounted  = func(n int, kind string) string { return Plural(n, kind, kind+"s") }
	sayPlural   = func(_ int, kind string) string { return kind + "s" }
	saySingular = func(_ int, kind string) string { return kind }
)

// barChart draws one chart of counts, most findings first, with at most barMaxRows bars.
func barChart(id, title string, counts map[string]*barCount) *svgBars {
	rows := sortedBars(counts)
	all, names := kindsOf(rows, sayCounted), kindsOf(rows, saySingular)
	caption := fmt.Sprintf("%s, most findings first, stacked by severity.", capitalise(all))
	if len(rows) > barMaxRows {
		tail := rows[barMaxRows-1:]
		rows = append(rows[:barMaxRows-1], sumBars(tail, fmt.Sprintf("%d more %s", len(tail), kindsOf(tail, sayPlural))))
		caption += fmt.Sprintf(" The last bar sums the %s with the fewest findings; the table lists them all.", kindsOf(tail, sayCounted))
	}
	ch := &svgBars{
		ID: id, Heading: title, Caption: caption,
		Title: fmt.Sprintf("Findings by %s: %s", names, all),
		Width: barWidth, BarHeight: barThickness, LabelX: barLabelX, BarX: barLeft,
		Height: len(rows)*barRow + 6,
	}
	scale := float64(barRight-barLeft) / float64(mostFindings(rows))
	for i, c := range rows {
		ch.Rows = append(ch.Rows, barChartRow(c, 3+i*barRow, scale))
	}
	return ch
}

// sortedBars orders the counts by total, most first, then by label.
func sortedBars(counts map[string]*barCount) []*barCount {
	rows := make([]*barCount, 0, len(counts))
	for _, c := range counts {
		rows = append(rows, c)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].total != rows[j].total {
			return rows[i].total > rows[j].total
		}
		return rows[i].label < rows[j].label
	})
	return rows
}

// sumBars adds bars up into one with the given label.
func sumBars(bars []*barCount, label string) *barCount {
	sum := &barCount{label: label}
	for _, c := range bars {
		for s := range c.by {
			sum.by[s] += c.by[s]
		}
		sum.total += c.total
	}
	return sum
}

// mostFindings is the longest bar's total, which spans the plot's width.
func mostFindings(bars []*barCount) int {
	most := 0
	for _, c := range bars {
		most = max(most, c.total)
	}
	return most
}

// barChartRow draws one bar in the band that starts at y = top: a segment per severity,
// most severe first, scale units wide per finding, and its count after it.
func barChartRow(c *barCount, top int, scale float64) svgBarRow {
	y := top + (barRow-barThickness)/2
	row := svgBarRow{
		Label: c.label, Short: shorten(c.label, barMaxLabel), Total: c.total,
		TextY: strconv.Itoa(y + barThickness - 3),
	}
	var parts []string
	x := float64(barLeft)
	for _, sev := range []scanner.Severity{scanner.SeverityError, scanner.SeverityWarning, scanner.SeverityNotice} {
		n := c.by[sev]
		if n == 0 {
			continue
		}
		w := float64(n) * scale
		row.Segs = append(row.Segs, svgSeg{X: num(x), Y: strconv.Itoa(y), W: num(w), Class: "sev-" + sev.String()})
		parts = append(parts, fmt.Sprintf("%d %s", n, sev))
		x += w
	}
	row.CountX = num(x + 6)
	row.Tooltip = c.label + ": " + strings.Join(parts, ", ")
	return row
}

// shorten cuts a label to n runes with an ellipsis in the middle, so both the start of a zone
// name and its suffix stay visible.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := (n - 1) / 2
	tail := n - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}
