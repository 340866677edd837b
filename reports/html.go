package reports

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/sunsetscan/sunset/migrate"
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
	// Plan, when set, adds the migration plan: per account and zone, its ordered steps with
	// their API calls, the old -> new expressions, quota and behaviour warnings, and the
	// manual steps. Steps link to the findings they resolve.
	Plan *migrate.Plan
}

// WithPlan implements PlanAware.
func (h HTML) WithPlan(p *migrate.Plan) Reporter {
	h.Plan = p
	return h
}

// PlanAware is a Reporter whose format can include a migration plan (the plan.json of
// `sunset plan`) after the findings.
type PlanAware interface {
	Reporter
	WithPlan(p *migrate.Plan) Reporter
}

// WithPlan returns r set to render plan p too when its format has plan sections, and r
// unchanged otherwise (or when p is nil).
func WithPlan(r Reporter, p *migrate.Plan) Reporter {
	if pa, ok := r.(PlanAware); ok && p != nil {
		return pa.WithPlan(p)
	}
	return r
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
	page.Plan = buildHTMLPlan(h.Plan, r)
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
	Plan                          *htmlPlan
}

type htmlGate struct{ Class, Text string }

type htmlCard struct {
	Key, Label, Value, Class, Note string
}

type htmlFinding struct {
	Severity, SevClass, SevRank string
	Anchor                      string
	RuleID, RuleAnchor          string
	Group, Resource             string
	Message, EOL, SuppressedBy  string
	Suppressed                  bool
}

type htmlError struct{ Where, What, Message string }

type htmlRule struct {
	ID, Anchor, Title, Description, Class string
	DeprecatedOn, EndOfLife, Replacement  string
	DocURL                                string
	Count                                 int
	Advisory                              bool
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
			Anchor:       findingAnchor(f),
			RuleID:       Sanitize(string(f.RuleID)),
			RuleAnchor:   "rule-" + anchorID(string(f.RuleID)),
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
			ID: Sanitize(info.ID), Anchor: "rule-" + anchorID(info.ID), Title: Sanitize(orElse(info.Title, info.ID)), Description: Sanitize(info.Description),
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
		st := out[string(f.RuleID)]
		if !f.Suppressed {
			st.count++
			if f.Severity > st.worst {
				st.worst = f.Severity
			}
		}
		out[string(f.RuleID)] = st
	}
	return out
}

// ---- timeline ----

// Timeline geometry, in SVG user units (the picture scales to the page width).
const (
	tlWidth     = 1000
	tlLabelX    = 250 // right edge of the rule labels
	tlMaxLabel  = 38  // runes of a rule id that fit left of tlLabelX
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
	ID, Label, Class, Tooltip string
	Hit, HasSpan, HasEOL      bool
	BandY, MidY, TextY        string
	DepX, EOLX, EOLPath       string
	DateX, DateAnchor         string
	DateText                  string
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
		entries[string(e.ID)] = &timelineEntry{id: string(e.ID), title: e.Title, deprecated: e.DeprecatedOn.Time, eol: e.EndOfLife.Time, advisory: e.Advisory}
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
			Label:   shorten(Sanitize(e.id), tlMaxLabel),
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
		add(byRule, Sanitize(string(f.RuleID)), f.Severity)
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

// findingAnchor is the id of a finding's table row, which plan steps link to ("" without a
// fingerprint).
func findingAnchor(f *scanner.Finding) string {
	if f.Fingerprint == "" {
		return ""
	}
	return "f-" + anchorID(f.Fingerprint)
}

// anchorID makes text safe and unique as an element id and URL fragment: letters, digits
// and '-' stay, every other byte becomes '_' and two hex digits. (A ':' in a fragment would
// make html/template read the link as an unknown URL scheme and drop it.)
func anchorID(s string) string {
	const hex = "0123456789abcdef"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-':
			b.WriteByte(c)
		default:
			b.WriteByte('_')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// ---- migration plan ----

type htmlPlan struct {
	Summary   string
	Notes     []string
	Sections  []htmlPlanSection
	Unplanned []htmlRef
}

// htmlPlanSection is the plan of one account or zone.
type htmlPlanSection struct {
	Anchor, Title, Summary string
	Warnings               []string
	Steps                  []htmlStep
	Diffs                  []htmlDiff
	Manual                 []htmlStep
}

type htmlStep struct {
	N                        int
	Anchor, ID, Kind, Change string
	Title, Reason, Note      string
	Method, Path, Body       string
	Risk                     string
	Manual, Derived          bool
	Checks                   []string
	Resolves, DependsOn      []htmlRef
}

type htmlDiff struct {
	Title, Step, StepHref string
	Old, New              []diffSpan
	Changes               []string
}

// diffSpan is a run of text of one side of a diff; Changed marks text the other side lacks.
type diffSpan struct {
	Text    string
	Changed bool
}

// htmlRef is a link inside the page (Href "" for plain text).
type htmlRef struct{ Href, Text string }

// buildHTMLPlan lays out a plan for the page: accounts, then zones, in the plan's order.
// Steps link to the findings of the report they resolve; a fingerprint the report does not
// hold (a plan from another run) is shown as it is.
func buildHTMLPlan(p *migrate.Plan, r *Report) *htmlPlan {
	if p == nil {
		return nil
	}
	findings := map[string]*scanner.Finding{}
	for i := range r.Findings {
		if fp := r.Findings[i].Fingerprint; fp != "" {
			findings[fp] = &r.Findings[i]
		}
	}
	ref := func(fp string) htmlRef {
		if f, ok := findings[fp]; ok {
			return htmlRef{Href: "#" + findingAnchor(f), Text: Sanitize(string(f.RuleID)) + ": " + resourceLabel(f)}
		}
		return htmlRef{Text: "finding " + Sanitize(fp)}
	}
	out := &htmlPlan{Summary: planSummaryLine(p.Summary)}
	if p.AsOf != "" && r.AsOf != "" && p.AsOf != r.AsOf {
		out.Notes = append(out.Notes, fmt.Sprintf("The plan was made as of %s and the findings as of %s: steps may not match the findings above.", Sanitize(p.AsOf), Sanitize(r.AsOf)))
	}
	for _, fp := range p.Unplanned {
		out.Unplanned = append(out.Unplanned, ref(fp))
	}
	for _, a := range p.Accounts {
		key := "account-" + anchorID(a.AccountID)
		title := "Account " + Sanitize(orElse(a.AccountName, a.AccountID))
		if a.AccountName != "" {
			title += " (" + Sanitize(a.AccountID) + ")"
		}
		out.Sections = append(out.Sections, planSection(key, title, "", a.Summary, a.Notes, a.Steps, ref))
	}
	for _, z := range p.Zones {
		key := "zone-" + anchorID(orElse(z.ZoneID, z.ZoneName))
		title := "Zone " + Sanitize(orElse(z.ZoneName, z.ZoneID))
		var sub []string
		if z.ZoneName != "" && z.ZoneID != "" {
			sub = append(sub, Sanitize(z.ZoneID))
		}
		if z.PlanLevel != "" {
			sub = append(sub, Sanitize(z.PlanLevel)+" plan")
		}
		out.Sections = append(out.Sections, planSection(key, title, strings.Join(sub, ", "), z.Summary, z.Notes, z.Steps, ref))
	}
	return out
}

func planSection(key, title, sub string, sum migrate.Summary, notes []string, steps []migrate.Step, ref func(string) htmlRef) htmlPlanSection {
	sec := htmlPlanSection{Anchor: "plan-" + key, Title: title, Summary: planSummaryLine(sum)}
	if sub != "" {
		sec.Summary = sub + " · " + sec.Summary
	}
	for _, n := range notes {
		sec.Warnings = append(sec.Warnings, Sanitize(n))
	}
	stepAnchor := func(id string) string { return "step-" + key + "-" + anchorID(id) }
	for i, st := range steps {
		hs := htmlStep{
			N: i + 1, Anchor: stepAnchor(st.ID), ID: Sanitize(st.ID), Kind: Sanitize(st.Kind), Change: Sanitize(string(st.Change)),
			Title: Sanitize(st.Title), Reason: Sanitize(st.Reason), Note: Sanitize(st.Note),
			Method: Sanitize(st.Method), Path: Sanitize(st.Path), Body: prettyBody(st.Body),
			Risk: Sanitize(string(st.Risk)), Manual: st.Manual, Derived: st.Derived,
		}
		for _, c := range st.Checks {
			hs.Checks = append(hs.Checks, Sanitize(c))
		}
		for _, fp := range st.Resolves {
			hs.Resolves = append(hs.Resolves, ref(fp))
		}
		for _, d := range st.DependsOn {
			hs.DependsOn = append(hs.DependsOn, htmlRef{Href: "#" + stepAnchor(d), Text: Sanitize(d)})
		}
		sec.Steps = append(sec.Steps, hs)
		if st.Manual {
			sec.Manual = append(sec.Manual, hs)
		}
		for _, d := range st.Diffs {
			hd := htmlDiff{Title: Sanitize(d.Label), Step: hs.ID, StepHref: "#" + hs.Anchor}
			hd.Old, hd.New = diffTokens(cleanBlock(d.Old), cleanBlock(d.New))
			for _, c := range d.Changes {
				hd.Changes = append(hd.Changes, Sanitize(c))
			}
			sec.Diffs = append(sec.Diffs, hd)
		}
	}
	return sec
}

// planSummaryLine is the plan's summary line, with the checks it also makes.
func planSummaryLine(s migrate.Summary) string {
	line := s.Line()
	if s.Verify > 0 {
		line += ", " + plural(s.Verify, "check", "checks")
	}
	return line
}

// prettyBody indents a request body for reading; a body that is not JSON is shown as it is.
func prettyBody(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return cleanBlock(string(raw))
	}
	return cleanBlock(b.String())
}

// cleanBlock prepares multi-line user text (expressions, request bodies) for a <pre>: lines
// and indentation stay, control characters other than tab and newline and the bidirectional
// controls that reorder what is shown are dropped, invalid UTF-8 becomes U+FFFD. Markup is
// left to html/template to escape.
func cleanBlock(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r == '\r':
			return '\n'
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || isBidiControl(r):
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// diffMaxCells bounds the token diff's table (old tokens x new tokens); past it both sides
// are shown whole, marked changed, rather than spend quadratic time on a huge expression.
const diffMaxCells = 400_000

// diffTokens marks what differs between two texts, token by token (names, numbers and
// dotted fields are one token; so is a run of spaces; any other character is one), by the
// longest common subsequence.
func diffTokens(old, new string) (o, n []diffSpan) {
	a, b := tokenize(old), tokenize(new)
	if len(a)*len(b) > diffMaxCells {
		return spansOf(old, true), spansOf(new, true)
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int32, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			o, n = appendSpan(o, a[i], false), appendSpan(n, b[j], false)
			i, j = i+1, j+1
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			n = appendSpan(n, b[j], true)
			j++
		default:
			o = appendSpan(o, a[i], true)
			i++
		}
	}
	return o, n
}

func spansOf(s string, changed bool) []diffSpan {
	if s == "" {
		return nil
	}
	return []diffSpan{{Text: s, Changed: changed}}
}

// appendSpan adds a token, merging it into the last span when both are alike. Spaces
// between two changed tokens join the change, so a replaced phrase reads as one.
func appendSpan(spans []diffSpan, tok string, changed bool) []diffSpan {
	if k := len(spans) - 1; k >= 0 {
		last := &spans[k]
		if last.Changed == changed {
			last.Text += tok
			return spans
		}
		if changed && k >= 1 && spans[k-1].Changed && strings.TrimSpace(last.Text) == "" {
			spans[k-1].Text += last.Text + tok
			return spans[:k]
		}
	}
	return append(spans, diffSpan{Text: tok, Changed: changed})
}

// tokenize splits text into words (letters, digits, '_', '.', '$'), runs of white space,
// and single other characters.
func tokenize(s string) []string {
	var out []string
	isWord := func(r rune) bool {
		return r == '_' || r == '.' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	start := 0
	kind := func(r rune) int {
		switch {
		case isWord(r):
			return 1
		case unicode.IsSpace(r):
			return 2
		}
		return 3
	}
	prev := 0
	for i, r := range s {
		k := kind(r)
		if i > start && (k != prev || k == 3) {
			out = append(out, s[start:i])
			start = i
		}
		prev = k
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
