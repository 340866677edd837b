package reports

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

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
	dated, undated := splitDated(timelineEntries(r, cat), stats)
	asOf, hasAsOf := parseDay(r.AsOf)
	axis := newTimeAxis(dated, asOf, hasAsOf)
	t := &svgTimeline{
		Width: tlWidth, RowHeight: tlRow, LabelX: tlLabelX, AsOf: textsafe.Sanitize(r.AsOf),
		TickY: tlTop - 10, AxisTop: tlTop - 6, AxisBottom: tlTop + len(dated)*tlRow + 4,
		Years: axis.years(), Undated: undated,
	}
	t.Height = t.AxisBottom + 8
	for i, e := range dated {
		t.Rows = append(t.Rows, timelineRow(e, tlTop+i*tlRow, stats, axis))
	}
	t.placeAsOf(asOf, hasAsOf, axis)
	return t
}

// timelineEntries are the catalog's deprecations by id, with the report's rules laid over
// them.
func timelineEntries(r *Report, cat *catalog.Catalog) map[string]*timelineEntry {
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
		e.overlay(info)
	}
	return entries
}

// overlay takes the report's title, advisory flag and dates for the entry, where it has them.
func (e *timelineEntry) overlay(info RuleInfo) {
	e.title = orElse(info.Title, e.title)
	e.advisory = e.advisory || info.Advisory
	if d, ok := parseDay(info.DeprecatedOn); ok {
		e.deprecated = d
	}
	if d, ok := parseDay(info.EndOfLife); ok {
		e.eol = d
	}
}

// splitDated separates the entries with a date, sorted by sortDate then id, from those
// without one, which are listed by id below the axis.
func splitDated(entries map[string]*timelineEntry, stats map[string]ruleStat) (dated []*timelineEntry, undated []svgUndated) {
	ids := make([]string, 0, len(entries))
	for id := range entries {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		e := entries[id]
		if e.eol.IsZero() && e.deprecated.IsZero() {
			_, hit := stats[id]
			undated = append(undated, svgUndated{ID: textsafe.Sanitize(id), Hit: hit})
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
	return dated, undated
}

// timeAxis maps dates to x coordinates of the plot.
type timeAxis struct {
	start, end time.Time
	hours      float64 // from start to end
}

// newTimeAxis runs over whole years, from the year of the earliest date (of the entries and
// the as-of day) to the end of the year of the latest one.
func newTimeAxis(dated []*timelineEntry, asOf time.Time, hasAsOf bool) timeAxis {
	lo, hi := asOf, asOf
	if !hasAsOf && len(dated) > 0 {
		lo, hi = dated[0].sortDate(), dated[0].sortDate()
	}
	for _, e := range dated {
		lo, hi = widen(lo, hi, e.deprecated)
		lo, hi = widen(lo, hi, e.eol)
	}
	start := time.Date(lo.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	end := time.Date(hi.Year()+1, 1, 1, 0, 0, 0, 0, time.UTC)
	return timeAxis{start: start, end: end, hours: end.Sub(start).Hours()}
}

// widen stretches the range lo..hi to take in d; a zero d is no date, a zero bound is none yet.
func widen(lo, hi, d time.Time) (time.Time, time.Time) {
	if d.IsZero() {
		return lo, hi
	}
	if lo.IsZero() || d.Before(lo) {
		lo = d
	}
	if hi.IsZero() || d.After(hi) {
		hi = d
	}
	return lo, hi
}

// x is where day d sits on the plot.
func (a timeAxis) x(d time.Time) float64 {
	return tlPlotLeft + (d.Sub(a.start).Hours()/a.hours)*(tlPlotRight-tlPlotLeft)
}

// years are the axis's labelled ticks, one on every first of January, the end included.
func (a timeAxis) years() []svgTick {
	var ticks []svgTick
	for y := a.start.Year(); y <= a.end.Year(); y++ {
		ticks = append(ticks, svgTick{X: num(a.x(time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC))), Label: strconv.Itoa(y)})
	}
	return ticks
}

// timelineRow draws one dated entry in the band that starts at y = top: its label, the span
// from deprecation to end of life when it has both, and a diamond with its date.
func timelineRow(e *timelineEntry, top int, stats map[string]ruleStat, axis timeAxis) svgTimelineRow {
	st, hit := stats[e.id]
	row := svgTimelineRow{
		ID:      textsafe.Sanitize(e.id),
		Label:   shorten(textsafe.Sanitize(e.id), tlMaxLabel),
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
		row.DepX, row.EOLX = num(axis.x(e.deprecated)), num(axis.x(e.eol))
	}
	row.placeMarker(e, axis, float64(top+tlRow/2))
	return row
}

// placeMarker puts the diamond on the end of life (or, without one, the deprecation) at
// height cy, with its date beside it.
func (row *svgTimelineRow) placeMarker(e *timelineEntry, axis timeAxis, cy float64) {
	at, label := e.eol, "end of life "+e.eol.Format(time.DateOnly)
	if at.IsZero() {
		at, label = e.deprecated, "deprecated "+e.deprecated.Format(time.DateOnly)
	}
	cx := axis.x(at)
	row.HasEOL = true
	row.EOLPath = diamondPath(cx, cy, 6)
	row.DateText = label
	// The date goes right of its marker when it fits, else left of the whole span.
	switch {
	case cx+10+tlDateWidth <= tlWidth:
		row.DateX, row.DateAnchor = num(cx+10), "start"
	case row.HasSpan:
		row.DateX, row.DateAnchor = num(axis.x(e.deprecated)-10), "end"
	default:
		row.DateX, row.DateAnchor = num(cx-10), "end"
	}
}

// diamondPath is an SVG path of a diamond centred on (cx, cy), r from centre to each corner.
func diamondPath(cx, cy, r float64) string {
	return fmt.Sprintf("M %s %s L %s %s L %s %s L %s %s Z",
		num(cx), num(cy-r), num(cx+r), num(cy), num(cx), num(cy+r), num(cx-r), num(cy))
}

// placeAsOf draws the as-of line, its label beside it on the side with room, clear of the
// year labels; without an as-of day both sit off the picture.
func (t *svgTimeline) placeAsOf(asOf time.Time, ok bool, axis timeAxis) {
	if !ok {
		t.AsOfX, t.AsOfLabelX, t.AsOfLabelY, t.AsOfAnchor = "-10", "-10", "-10", "start"
		return
	}
	ax := axis.x(asOf)
	t.AsOfX = num(ax)
	t.AsOfLabelY = strconv.Itoa(tlTop - 30)
	if ax > tlPlotRight-110 {
		t.AsOfLabelX, t.AsOfAnchor = num(ax-6), "end"
	} else {
		t.AsOfLabelX, t.AsOfAnchor = num(ax+6), "start"
	}
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
	b.WriteString(textsafe.Sanitize(orElse(e.title, e.id)))
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
		fmt.Fprintf(&b, "; %s here (most severe: %s)", Plural(st.count, "finding", "findings"), st.worst)
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
