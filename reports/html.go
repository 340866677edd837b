package reports

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
)

// The page's template, style sheet and script are files so they read as what they are; they
// are embedded so the binary (and the page it writes) needs nothing else.
//
//go:embed html/report.html.tmpl html/report.css html/report.js
var htmlFiles embed.FS

// htmlAssets are parsed once: the template, the style and script inlined in every page, and
// the Content-Security-Policy that admits exactly those two by hash.
var htmlAssets = func() struct {
	tmpl *template.Template
	css  template.CSS
	js   template.JS
	csp  string
} {
	read := func(name string) string {
		b, err := htmlFiles.ReadFile(name)
		if err != nil {
			panic(err) // embedded at build time: cannot fail
		}
		return string(b)
	}
	css, js := read("html/report.css"), read("html/report.js")
	tmpl := template.Must(template.New("report.html.tmpl").ParseFS(htmlFiles, "html/report.html.tmpl"))
	return struct {
		tmpl *template.Template
		css  template.CSS
		js   template.JS
		csp  string
	}{tmpl, template.CSS(css), template.JS(js), contentSecurityPolicy(css, js)}
}()

// contentSecurityPolicy allows the page nothing but its own inline style and script,
// identified by their SHA-256 hashes: no network fetch of any kind, no other inline script
// (a script smuggled into the page through user text would not run even if it were not
// escaped), no forms, no base URL, no plugins. Inline SVG needs no source of its own.
func contentSecurityPolicy(css, js string) string {
	hash := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	return "default-src 'none'; style-src " + hash(css) + "; script-src " + hash(js) +
		"; img-src 'none'; font-src 'none'; connect-src 'none'; object-src 'none'; frame-src 'none'" +
		"; base-uri 'none'; form-action 'none'"
}

// HTML writes one self-contained HTML page: summary cards, a timeline of the catalog's
// deprecation and end-of-life dates, charts of findings by rule and by zone, the findings
// table (sortable and filterable by a small inline script; every row is rendered without it),
// read errors, the migration plan when one is given, and the rules hit. The page loads
// nothing: its style and script are inline and admitted by hash in a Content-Security-Policy
// that forbids every fetch, and its pictures are inline SVG. It prints on A4.
//
// Every piece of text from the account, a repository or a user catalog (names, messages,
// expressions, descriptions) goes through html/template's contextual escaping and is never
// marked as trusted markup.
type HTML struct {
	// Catalog supplies the deprecations the timeline shows for context, next to the rules
	// the report hits; nil means the embedded catalog. Dates of the rules the report hits
	// come from the report itself (they are the dates its severities were computed with).
	Catalog *catalog.Catalog
}

func init() {
	registry["html"] = formatDef{
		doc: "one self-contained HTML page (summary, timeline, charts, findings table, plan), offline and printable",
		new: func(Options) Reporter { return HTML{} },
	}
}

// Write implements Reporter.
func (h HTML) Write(w io.Writer, r *Report) error {
	cat := h.Catalog
	if cat == nil {
		cat = catalog.Default()
	}
	page := buildHTMLPage(r, cat)
	var buf bytes.Buffer
	if err := htmlAssets.tmpl.Execute(&buf, page); err != nil {
		return fmt.Errorf("rendering HTML report: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("writing HTML report: %w", err)
	}
	return nil
}

// htmlPage is everything the template reads. Strings are plain text: the template escapes them
// for the context they land in.
type htmlPage struct {
	Title, Tool, AsOf, SourceLine string
	Schema                        int
	CSP                           string
	CSS                           template.CSS // the embedded style sheet, never user data
	JS                            template.JS  // the embedded script, never user data
	Incomplete                    bool
	IncompleteText                string
	Gate                          *htmlGate
	Cards                         []htmlCard
	ScopeNoun, GroupNoun          string
	GroupTitle                    string
	Timeline                      *svgTimeline
	Charts                        []*svgBars
	Findings                      []htmlFinding
	Groups                        []string
	HasSuppressed                 bool
	Errors                        []htmlError
	Rules                         []htmlRule
}

type htmlGate struct{ Class, Text string }

type htmlCard struct {
	Key, Label, Value, Class, Note string
}

type htmlFinding struct {
	Severity, SevClass, SevRank string
	RuleID, Group, Resource     string
	Message, EOL, SuppressedBy  string
	Suppressed                  bool
}

type htmlError struct{ Where, What, Message string }

type htmlRule struct {
	ID, Title, Description, Class        string
	DeprecatedOn, EndOfLife, Replacement string
	DocURL                               string
	Count                                int
	Advisory                             bool
}

func buildHTMLPage(r *Report, cat *catalog.Catalog) *htmlPage {
	files := r.Source.Kind == SourceFiles
	p := &htmlPage{
		Tool:       strings.TrimSpace(Sanitize(r.Tool.Name + " " + r.Tool.Version)),
		AsOf:       Sanitize(r.AsOf),
		Schema:     r.SchemaVersion,
		CSP:        htmlAssets.csp,
		CSS:        htmlAssets.css,
		JS:         htmlAssets.js,
		SourceLine: sourceLine(r.Source),
		Incomplete: r.Summary.Incomplete,
		ScopeNoun:  "account",
		GroupNoun:  "zone",
		GroupTitle: "Zone",
	}
	if p.Tool == "" {
		p.Tool = ToolName
	}
	if files {
		p.ScopeNoun, p.GroupNoun, p.GroupTitle = "repository", "file", "File"
	}
	p.Title = "sunset report: " + p.SourceLine
	if p.AsOf != "" {
		p.Title += ", as of " + p.AsOf
	}
	p.IncompleteText = incompleteText(r)
	if s := r.Summary; s.FailOn != scanner.SeverityNone {
		if s.GateFailed {
			p.Gate = &htmlGate{Class: "gate", Text: fmt.Sprintf("Gate failed: findings at or above %s.", s.FailOn)}
		} else {
			p.Gate = &htmlGate{Class: "pass", Text: fmt.Sprintf("Gate passed: no finding at or above %s.", s.FailOn)}
		}
	}
	p.Cards = summaryCards(r)

	stats := ruleStats(r.Findings)
	p.Timeline = buildTimeline(r, cat, stats)
	p.Charts = findingCharts(r.Findings, p.GroupNoun)

	groups := map[string]bool{}
	for i := range r.Findings {
		f := &r.Findings[i]
		row := htmlFinding{
			Severity:     f.Severity.String(),
			SevClass:     "sev-" + f.Severity.String(),
			SevRank:      strconv.Itoa(int(f.Severity)),
			RuleID:       Sanitize(f.RuleID),
			Group:        groupLabel(f),
			Resource:     resourceLabel(f),
			Message:      Sanitize(f.Message),
			EOL:          Sanitize(f.EndOfLife),
			Suppressed:   f.Suppressed,
			SuppressedBy: Sanitize(f.SuppressedBy),
		}
		groups[row.Group] = true
		p.HasSuppressed = p.HasSuppressed || f.Suppressed
		p.Findings = append(p.Findings, row)
	}
	for g := range groups {
		p.Groups = append(p.Groups, g)
	}
	sort.Strings(p.Groups)

	for _, e := range r.Errors {
		p.Errors = append(p.Errors, htmlError{Where: errorWhere(e), What: Sanitize(e.What), Message: Sanitize(e.Message)})
	}
	for _, info := range r.Catalog {
		st := stats[info.ID]
		p.Rules = append(p.Rules, htmlRule{
			ID: Sanitize(info.ID), Title: Sanitize(orElse(info.Title, info.ID)), Description: Sanitize(info.Description),
			Class:        "sev-" + st.worst.String(),
			DeprecatedOn: Sanitize(info.DeprecatedOn), EndOfLife: Sanitize(info.EndOfLife),
			Replacement: Sanitize(info.Replacement), DocURL: info.DocURL,
			Count: st.count, Advisory: info.Advisory,
		})
	}
	return p
}

// sourceLine says what was scanned, in words.
func sourceLine(s Source) string {
	switch s.Kind {
	case SourceDemo:
		return "Demo account (built-in emulator)"
	case SourceLive:
		if s.Target != "" {
			return "Live account at " + Sanitize(s.Target)
		}
		return "Live account"
	case SourceSnapshot:
		if s.Target != "" {
			return "Saved snapshot " + Sanitize(s.Target)
		}
		return "Saved snapshot"
	case SourceFiles:
		if len(s.Paths) > 0 {
			paths := make([]string, len(s.Paths))
			for i, p := range s.Paths {
				paths[i] = Sanitize(p)
			}
			return "Configuration files in " + strings.Join(paths, ", ")
		}
		return "Configuration files"
	}
	return orElse(Sanitize(s.Kind), "Unknown source")
}

func incompleteText(r *Report) string {
	s := r.Summary
	var parts []string
	if s.ZonesFailed > 0 {
		parts = append(parts, plural(s.ZonesFailed, "zone", "zones")+" could not be read completely")
	}
	if s.FilesFailed > 0 {
		parts = append(parts, plural(s.FilesFailed, "file", "files")+" could not be read")
	}
	if len(parts) == 0 && len(r.Errors) > 0 {
		parts = append(parts, plural(len(r.Errors), "read error", "read errors"))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + "."
}

// summaryCards are the numbers at the top of the page.
func summaryCards(r *Report) []htmlCard {
	s := r.Summary
	var cards []htmlCard
	if r.Source.Kind == SourceFiles {
		cards = append(cards, htmlCard{Key: "files", Label: "files scanned", Value: strconv.Itoa(s.FilesScanned)})
	} else {
		note := ""
		if s.Accounts > 0 {
			note = "in " + plural(s.Accounts, "account", "accounts")
		}
		cards = append(cards, htmlCard{Key: "zones", Label: "zones scanned", Value: strconv.Itoa(s.ZonesScanned), Note: note})
	}
	cards = append(cards,
		htmlCard{Key: "findings", Label: "findings", Value: strconv.Itoa(s.FindingsTotal), Note: suppressedNote(s.Suppressed)},
		htmlCard{Key: "error", Label: "errors (past end of life)", Value: strconv.Itoa(s.BySeverity.Error), Class: "sev-error"},
		htmlCard{Key: "warning", Label: "warnings (end of life ahead)", Value: strconv.Itoa(s.BySeverity.Warning), Class: "sev-warning"},
		htmlCard{Key: "notice", Label: "notices (advice)", Value: strconv.Itoa(s.BySeverity.Notice), Class: "sev-notice"},
	)
	incomplete := htmlCard{Key: "incomplete", Label: "zones incomplete", Value: strconv.Itoa(s.ZonesFailed)}
	if r.Source.Kind == SourceFiles {
		incomplete = htmlCard{Key: "incomplete", Label: "files unreadable", Value: strconv.Itoa(s.FilesFailed)}
	}
	if s.Incomplete {
		incomplete.Class = "bad"
		incomplete.Note = plural(len(r.Errors), "read error", "read errors")
	}
	cards = append(cards, incomplete,
		htmlCard{Key: "as-of", Label: "as of", Class: "date", Value: orElse(Sanitize(r.AsOf), "–"), Note: "date severities are judged on"})
	return cards
}

func suppressedNote(n int) string {
	if n == 0 {
		return ""
	}
	return "plus " + strconv.Itoa(n) + " suppressed"
}

// groupLabel names the zone, file or account a finding belongs to, as one short string (the
// value the table's group filter matches).
func groupLabel(f *scanner.Finding) string {
	switch {
	case f.Location != nil && f.Location.Path != "":
		return Sanitize(f.Location.Path)
	case f.ZoneName != "":
		return Sanitize(f.ZoneName)
	case f.ZoneID != "":
		return "zone " + Sanitize(f.ZoneID)
	case f.AccountID != "":
		return "account " + Sanitize(f.AccountID)
	}
	return "other"
}

func errorWhere(e ReportError) string {
	switch {
	case e.Path != "":
		return Sanitize(e.Path)
	case e.ZoneName != "" || e.ZoneID != "":
		return Sanitize(orElse(e.ZoneName, e.ZoneID))
	case e.AccountID != "":
		return "account " + Sanitize(e.AccountID)
	}
	return "–"
}

// ruleStat is what the findings say about one rule: how many (not suppressed) and the most
// severe; a rule whose only findings are suppressed is hit with count 0.
type ruleStat struct {
	count int
	worst scanner.Severity
}

func ruleStats(findings []scanner.Finding) map[string]ruleStat {
	out := map[string]ruleStat{}
	for _, f := range findings {
		st := out[f.RuleID]
		if !f.Suppressed {
			st.count++
			if f.Severity > st.worst {
				st.worst = f.Severity
			}
		}
		out[f.RuleID] = st
	}
	return out
}

// ---- timeline ----

// Timeline geometry, in SVG user units (the picture scales to the page width).
const (
	tlWidth     = 1000
	tlLabelX    = 250 // right edge of the rule labels
	tlPlotLeft  = 270
	tlPlotRight = 930
	tlTop       = 46 // first row; the as-of label and the year labels sit above
	tlRow       = 20
	// tlDateWidth is room for "end of life 2025-01-15" at the timeline's font size.
	tlDateWidth = 130
)

type svgTimeline struct {
	Width, Height, RowHeight      int
	LabelX                        int
	AxisTop, AxisBottom, TickY    int
	AsOf                          string
	AsOfX, AsOfLabelX, AsOfLabelY string
	AsOfAnchor                    string
	Years                         []svgTick
	Rows                          []svgTimelineRow
	Undated                       []svgUndated
}

type svgTick struct{ X, Label string }

type svgTimelineRow struct {
	ID, Class, Tooltip   string
	Hit, HasSpan, HasEOL bool
	BandY, MidY, TextY   string
	DepX, EOLX, EOLPath  string
	DateX, DateAnchor    string
	DateText             string
}

type svgUndated struct {
	ID  string
	Hit bool
}

// timelineEntry is one catalog deprecation with the dates the timeline draws.
type timelineEntry struct {
	id, title       string
	deprecated, eol time.Time
	advisory        bool
}

// buildTimeline places every catalog entry (and any rule the report names that the catalog
// lacks) on one date axis, sorted by end of life. The report's own dates win for the rules it
// hits: they are the ones its severities were computed with.
func buildTimeline(r *Report, cat *catalog.Catalog, stats map[string]ruleStat) *svgTimeline {
	entries := map[string]*timelineEntry{}
	for _, e := range cat.Entries() {
		entries[e.ID] = &timelineEntry{id: e.ID, title: e.Title, deprecated: e.DeprecatedOn.Time, eol: e.EndOfLife.Time, advisory: e.Advisory}
	}
	for _, info := range r.Catalog {
		e := entries[info.ID]
		if e == nil {
			e = &timelineEntry{id: info.ID}
			entries[info.ID] = e
		}
		e.title = orElse(info.Title, e.title)
		e.advisory = e.advisory || info.Advisory
		if d, ok := parseDay(info.DeprecatedOn); ok {
			e.deprecated = d
		}
		if d, ok := parseDay(info.EndOfLife); ok {
			e.eol = d
		}
	}
	asOf, hasAsOf := parseDay(r.AsOf)

	var dated []*timelineEntry
	t := &svgTimeline{Width: tlWidth, RowHeight: tlRow, LabelX: tlLabelX, AsOf: Sanitize(r.AsOf)}
	ids := make([]string, 0, len(entries))
	for id := range entries {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		e := entries[id]
		_, hit := stats[id]
		if e.eol.IsZero() && e.deprecated.IsZero() {
			t.Undated = append(t.Undated, svgUndated{ID: Sanitize(id), Hit: hit})
			continue
		}
		dated = append(dated, e)
	}
	sort.SliceStable(dated, func(i, j int) bool {
		a, b := dated[i].sortDate(), dated[j].sortDate()
		if !a.Equal(b) {
			return a.Before(b)
		}
		return dated[i].id < dated[j].id
	})

	// The axis runs over whole years, from the earliest date to the end of the latest one.
	lo, hi := asOf, asOf
	if !hasAsOf && len(dated) > 0 {
		lo, hi = dated[0].sortDate(), dated[0].sortDate()
	}
	for _, e := range dated {
		for _, d := range []time.Time{e.deprecated, e.eol} {
			if d.IsZero() {
				continue
			}
			if lo.IsZero() || d.Before(lo) {
				lo = d
			}
			if hi.IsZero() || d.After(hi) {
				hi = d
			}
		}
	}
	start := time.Date(lo.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	end := time.Date(hi.Year()+1, 1, 1, 0, 0, 0, 0, time.UTC)
	span := end.Sub(start).Hours()
	x := func(d time.Time) float64 {
		return tlPlotLeft + (d.Sub(start).Hours()/span)*(tlPlotRight-tlPlotLeft)
	}

	t.TickY = tlTop - 10
	t.AxisTop = tlTop - 6
	t.AxisBottom = tlTop + len(dated)*tlRow + 4
	t.Height = t.AxisBottom + 8
	for y := start.Year(); y <= end.Year(); y++ {
		t.Years = append(t.Years, svgTick{X: num(x(time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC))), Label: strconv.Itoa(y)})
	}
	for i, e := range dated {
		top := tlTop + i*tlRow
		st, hit := stats[e.id]
		row := svgTimelineRow{
			ID:      Sanitize(e.id),
			Hit:     hit,
			BandY:   strconv.Itoa(top),
			MidY:    strconv.Itoa(top + tlRow/2),
			TextY:   strconv.Itoa(top + tlRow/2 + 4),
			Tooltip: timelineTooltip(e, st, hit),
		}
		if hit {
			row.Class = "sev-" + st.worst.String()
		}
		if !e.deprecated.IsZero() && !e.eol.IsZero() {
			row.HasSpan = true
			row.DepX, row.EOLX = num(x(e.deprecated)), num(x(e.eol))
		}
		at, label := e.eol, "end of life "+e.eol.Format(time.DateOnly)
		if at.IsZero() {
			at, label = e.deprecated, "deprecated "+e.deprecated.Format(time.DateOnly)
		}
		row.HasEOL = true
		cx, cy := x(at), float64(top+tlRow/2)
		row.EOLPath = fmt.Sprintf("M %s %s L %s %s L %s %s L %s %s Z",
			num(cx), num(cy-6), num(cx+6), num(cy), num(cx), num(cy+6), num(cx-6), num(cy))
		row.DateText = label
		// The date goes right of its marker when it fits, else left of the whole span.
		switch {
		case cx+10+tlDateWidth <= tlWidth:
			row.DateX, row.DateAnchor = num(cx+10), "start"
		case row.HasSpan:
			row.DateX, row.DateAnchor = num(x(e.deprecated)-10), "end"
		default:
			row.DateX, row.DateAnchor = num(cx-10), "end"
		}
		t.Rows = append(t.Rows, row)
	}
	if hasAsOf {
		ax := x(asOf)
		t.AsOfX = num(ax)
		t.AsOfLabelY = strconv.Itoa(tlTop - 30)
		// The label sits beside the line, on the side with room, clear of the year labels.
		if ax > tlPlotRight-110 {
			t.AsOfLabelX, t.AsOfAnchor = num(ax-6), "end"
		} else {
			t.AsOfLabelX, t.AsOfAnchor = num(ax+6), "start"
		}
	} else {
		t.AsOfX, t.AsOfLabelX, t.AsOfLabelY, t.AsOfAnchor = "-10", "-10", "-10", "start"
	}
	return t
}

// sortDate is when an entry ends (or, without an end, when it was announced).
func (e *timelineEntry) sortDate() time.Time {
	if !e.eol.IsZero() {
		return e.eol
	}
	return e.deprecated
}

func timelineTooltip(e *timelineEntry, st ruleStat, hit bool) string {
	var b strings.Builder
	b.WriteString(Sanitize(orElse(e.title, e.id)))
	if !e.deprecated.IsZero() {
		b.WriteString("; deprecated " + e.deprecated.Format(time.DateOnly))
	}
	if !e.eol.IsZero() {
		b.WriteString("; end of life " + e.eol.Format(time.DateOnly))
	}
	if e.advisory {
		b.WriteString("; advisory")
	}
	if hit {
		fmt.Fprintf(&b, "; %s here (most severe: %s)", plural(st.count, "finding", "findings"), st.worst)
	}
	return b.String()
}

func parseDay(s string) (time.Time, bool) {
	d, err := time.Parse(time.DateOnly, s)
	return d, err == nil
}

// num prints a coordinate with one decimal, trimmed: stable across platforms and short.
func num(v float64) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0")
}

// ---- bar charts ----

// Bar chart geometry.
const (
	barWidth     = 1000
	barLabelX    = 290
	barLeft      = 300
	barRight     = 940
	barRow       = 22
	barThickness = 14
	// barMaxRows caps a chart: the rest are summed in one last row, so an account of a
	// thousand zones keeps a readable picture (the table lists everything).
	barMaxRows  = 25
	barMaxLabel = 42
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
	by    [4]int // indexed by severity
	total int
}

// findingCharts draws findings that are not suppressed by rule and by zone (or file).
func findingCharts(findings []scanner.Finding, groupNoun string) []*svgBars {
	byRule, byGroup := map[string]*barCount{}, map[string]*barCount{}
	add := func(m map[string]*barCount, key string, sev scanner.Severity) {
		c := m[key]
		if c == nil {
			c = &barCount{label: key}
			m[key] = c
		}
		if sev >= 0 && int(sev) < len(c.by) {
			c.by[sev]++
		}
		c.total++
	}
	for i := range findings {
		f := &findings[i]
		if f.Suppressed {
			continue
		}
		add(byRule, Sanitize(f.RuleID), f.Severity)
		add(byGroup, groupLabel(f), f.Severity)
	}
	if len(byRule) == 0 {
		return nil
	}
	return []*svgBars{
		barChart("chart-rules", "By rule", "rule", byRule),
		barChart("chart-groups", "By "+groupNoun, groupNoun, byGroup),
	}
}

func barChart(id, title, noun string, counts map[string]*barCount) *svgBars {
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
	caption := fmt.Sprintf("%s, most findings first, stacked by severity.", plural(len(rows), noun, noun+"s"))
	if len(rows) > barMaxRows {
		rest := &barCount{}
		for _, c := range rows[barMaxRows-1:] {
			for s := range c.by {
				rest.by[s] += c.by[s]
			}
			rest.total += c.total
		}
		n := len(rows) - (barMaxRows - 1)
		rest.label = fmt.Sprintf("%d more %ss", n, noun)
		rows = append(rows[:barMaxRows-1], rest)
		caption += fmt.Sprintf(" The last bar sums the %d %ss with the fewest findings; the table lists them all.", n, noun)
	}
	max := 0
	for _, c := range rows {
		if c.total > max {
			max = c.total
		}
	}
	ch := &svgBars{
		ID: id, Heading: title, Caption: caption,
		Title: fmt.Sprintf("Findings by %s: %s", noun, plural(len(counts), noun, noun+"s")),
		Width: barWidth, BarHeight: barThickness, LabelX: barLabelX, BarX: barLeft,
		Height: len(rows)*barRow + 6,
	}
	scale := float64(barRight-barLeft) / float64(max)
	for i, c := range rows {
		top := 3 + i*barRow
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
		ch.Rows = append(ch.Rows, row)
	}
	return ch
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
