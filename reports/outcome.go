package reports

import (
	"strconv"
	"strings"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// DefaultMaxUnread is how many zones, accounts or files OutcomeLines names one by one
// before it counts the rest.
const DefaultMaxUnread = 10

// OutcomeOptions tune OutcomeLines.
type OutcomeOptions struct {
	// Brief leaves out what a table on a terminal has just shown: the finding counts and the
	// lists of what was not read. The last line still says the gate and completeness.
	Brief bool
	// Interrupted says the run was stopped before its end (a signal).
	Interrupted bool
	// MaxUnread caps the unread places named one by one; 0 means DefaultMaxUnread.
	MaxUnread int
}

// OutcomeLines is how a run ends, for a log that shows nothing else (CI, a pipe): one line
// per zone, account or file not fully read (its first reason; capped, then counted), one
// line per retired endpoint (all the zones it answered retired in), and last one summary
// line: findings by severity, the gate's result and why, and what was not read, e.g.
//
//	107 findings (12 errors, 80 warnings, 15 notices); gate failed: 12 at or above --fail-on error; incomplete: 6 zones scanned (3 failed)
//
// The lines depend on the report alone and are sanitised; callers prefix them ("sunset: ").
func OutcomeLines(r *Report, o OutcomeOptions) []string {
	var lines []string
	if !o.Brief {
		lines = append(lines, UnreadLines(r, o.MaxUnread)...)
		lines = append(lines, SkippedLines(r, o.MaxUnread)...)
		lines = append(lines, RetiredLines(r)...)
	}
	return append(lines, summaryOutcome(r, o))
}

// summaryOutcome is the last line: counts, gate, completeness, joined by "; ".
func summaryOutcome(r *Report, o OutcomeOptions) string {
	s := r.Summary
	var parts []string
	if !o.Brief {
		counts := Plural(s.FindingsTotal, "finding", "findings") + " (" + Plural(s.BySeverity.Error, "error", "errors") + ", " +
			Plural(s.BySeverity.Warning, "warning", "warnings") + ", " + Plural(s.BySeverity.Notice, "notice", "notices") + ")"
		if s.Suppressed > 0 {
			counts += ", " + strconv.Itoa(s.Suppressed) + " suppressed"
		}
		parts = append(parts, counts)
	}
	parts = append(parts, gateOutcome(s), completeness(r, o.Interrupted))
	return strings.Join(parts, "; ")
}

// gateOutcome says whether the gate failed and why, from the summary's counts.
func gateOutcome(s Summary) string {
	if s.FailOn == scanner.SeverityNone {
		return "no gate (--fail-on none)"
	}
	at := s.failing()
	if s.GateFailed {
		return "gate failed: " + strconv.Itoa(at) + " at or above --fail-on " + s.FailOn.String()
	}
	return "gate passed: none at or above --fail-on " + s.FailOn.String()
}

// completeness says what was read and, when something was not, what: zones not started
// (an interrupted run says so once, here), zones with a part not read, endpoints that
// answered retired, files, and other parts (an account's, a zone listing).
func completeness(r *Report, interrupted bool) string {
	s := r.Summary
	var parts []string
	interrupted = interrupted || s.ZonesNotScanned > 0
	switch {
	case s.ZonesNotScanned > 0:
		parts = append(parts, "interrupted: "+Plural(s.ZonesNotScanned, "zone", "zones")+" not scanned")
	case interrupted:
		parts = append(parts, "interrupted")
	}
	files := r.Source.Kind == SourceFiles || s.FilesScanned > 0 || s.FilesFailed > 0
	if !files || s.ZonesScanned > 0 {
		zones := Plural(s.ZonesScanned, "zone", "zones") + " scanned"
		if s.ZonesFailed > 0 {
			zones += " (" + strconv.Itoa(s.ZonesFailed) + " failed)"
		}
		parts = append(parts, zones)
	}
	if files {
		// Not "(N failed)" as for zones: a file too large to read was never checked.
		parts = append(parts, Plural(s.FilesScanned, "file", "files")+" checked")
		if s.FilesFailed > 0 {
			parts = append(parts, Plural(s.FilesFailed, "file", "files")+" not fully read")
		}
		if s.FilesSkipped > 0 {
			parts = append(parts, strconv.Itoa(s.FilesSkipped)+" skipped")
		}
	}
	if s.RetiredEndpoints > 0 {
		parts = append(parts, Plural(s.RetiredEndpoints, "endpoint", "endpoints")+" answered retired")
	}
	if n := otherErrors(r); n > 0 {
		parts = append(parts, Plural(n, "other part", "other parts")+" not read")
	}
	if !s.Incomplete && !interrupted {
		return "complete: " + strings.Join(parts, ", ")
	}
	return "incomplete: " + strings.Join(parts, ", ")
}

// otherErrors counts the errors no zone, file or retired endpoint accounts for: an
// account's parts, a zone listing, an interruption before anything was listed.
func otherErrors(r *Report) int {
	retired := retiredKeys(r)
	n := 0
	for _, e := range r.Errors {
		if e.ZoneID == "" && e.ZoneName == "" && e.Path == "" && !retired[errorKey(e)] {
			n++
		}
	}
	return n
}

// unreadPlace is one zone, account or file with parts not read.
type unreadPlace struct {
	kind, label, first string
	more               int
}

// UnreadLines names each place (zone, account, file) not fully read once, with its first
// reason, up to maxPlaces (0: DefaultMaxUnread), then counts the rest: the one grouping of
// read errors for people, whatever prints it. Retired endpoints have their own lines
// (RetiredLines); a zone never started (What "zone") is counted in the summary line, not
// named. Lines are sanitised and start with "not read: ".
func UnreadLines(r *Report, maxPlaces int) []string {
	if maxPlaces <= 0 {
		maxPlaces = DefaultMaxUnread
	}
	retired := retiredKeys(r)
	var places []unreadPlace
	index := map[string]int{}
	for _, e := range r.Errors {
		if retired[errorKey(e)] || (e.What == "zone" && e.Path == "") {
			continue
		}
		kind, label := placeOf(e, r.AccountNames)
		key := kind + "\x00" + e.AccountID + "\x00" + e.ZoneID + "\x00" + e.ZoneName + "\x00" + e.Path
		if i, ok := index[key]; ok {
			places[i].more++
			continue
		}
		index[key] = len(places)
		places = append(places, unreadPlace{kind: kind, label: label, first: reasonOf(e)})
	}
	var lines []string
	for i, p := range places {
		if i == maxPlaces {
			lines = append(lines, "not read: and "+moreOf(places[i:])+" (the report's errors list every part)")
			break
		}
		line := "not read: " + p.label + ": " + p.first
		if p.more > 0 {
			line += " (and " + Plural(p.more, "more part", "more parts") + ")"
		}
		lines = append(lines, line)
	}
	return lines
}

// SkippedLines names the files a files scan did not read (Summary.Skipped) on one line,
// each with why, up to maxFiles (0: DefaultMaxUnread), then counts the rest:
//
//	2 files not read: assets/logo.png (binary), current (symbolic link)
//
// Nothing when every file met was read. The line is sanitised.
func SkippedLines(r *Report, maxFiles int) []string {
	skipped := r.Summary.Skipped
	if len(skipped) == 0 {
		return nil
	}
	if maxFiles <= 0 {
		maxFiles = DefaultMaxUnread
	}
	names := make([]string, 0, min(len(skipped), maxFiles))
	for _, f := range skipped[:min(len(skipped), maxFiles)] {
		names = append(names, textsafe.Sanitize(f.Path)+" ("+textsafe.Sanitize(f.Why)+")")
	}
	line := Plural(len(skipped), "file", "files") + " not read: " + strings.Join(names, ", ")
	if more := len(skipped) - len(names); more > 0 {
		line += " and " + strconv.Itoa(more) + " more (the JSON report's summary lists every one)"
	}
	return []string{line}
}

// placeOf returns the kind ("zone", "file", "account", "run") and sanitised label of an error's place.
func placeOf(e scanner.RunError, accountNames map[string]string) (kind, label string) {
	switch {
	case e.Path != "":
		return "file", "file " + textsafe.Sanitize(e.Path)
	case e.ZoneName != "":
		return "zone", "zone " + textsafe.Sanitize(e.ZoneName)
	case e.ZoneID != "":
		return "zone", "zone " + textsafe.Sanitize(e.ZoneID)
	case e.AccountID != "":
		return "account", "account " + accountLabel(e.AccountID, accountNames)
	}
	return "run", "the run"
}

// reasonOf is "what: message", sanitised.
func reasonOf(e scanner.RunError) string {
	what, msg := textsafe.Sanitize(e.What), textsafe.Sanitize(e.Message)
	switch {
	case what == "":
		return msg
	case msg == "":
		return what
	}
	return what + ": " + msg
}

// moreOf counts places by kind: "37 more zones, 2 more accounts".
func moreOf(places []unreadPlace) string {
	order, count := countByKind(places, func(p unreadPlace) string { return p.kind })
	names := map[string][2]string{
		"zone": {"more zone", "more zones"}, "file": {"more file", "more files"},
		"account": {"more account", "more accounts"}, "run": {"more part of the run", "more parts of the run"},
	}
	out := make([]string, len(order))
	for i, k := range order {
		out[i] = Plural(count[k], names[k][0], names[k][1])
	}
	return strings.Join(out, ", ")
}

// RetiredLines is one line per retired endpoint (method, path pattern, status, catalog
// ids) with the zones or accounts it answered retired in (the first three named, the rest
// counted, in report order), then one line saying what that means; none without any.
// Lines are sanitised and start with "retired: ".
func RetiredLines(r *Report) []string {
	type group struct {
		head   string
		places []string
	}
	var groups []*group
	index := map[string]*group{}
	for _, n := range r.Retired {
		head := textsafe.Sanitize(retiredPattern(n)) + " " + textsafe.Sanitize(retiredStatus(n))
		g, ok := index[head]
		if !ok {
			g = &group{head: head}
			index[head] = g
			groups = append(groups, g)
		}
		_, label := placeOf(scanner.RunError{AccountID: n.AccountID, ZoneID: n.ZoneID, ZoneName: n.ZoneName}, r.AccountNames)
		g.places = append(g.places, label)
	}
	if len(groups) == 0 {
		return nil
	}
	lines := make([]string, 0, len(groups)+1)
	for _, g := range groups {
		in := strings.Join(g.places[:min(3, len(g.places))], ", ")
		if len(g.places) > 3 {
			in += " and " + strconv.Itoa(len(g.places)-3) + " more"
		}
		lines = append(lines, "retired: "+g.head+" in "+in)
	}
	return append(lines, "retired: for each, "+RetiredWhy)
}

// retiredKeys are the errorKeys of the report's retired endpoints' errors.
func retiredKeys(r *Report) map[string]bool {
	keys := make(map[string]bool, len(r.Retired))
	for _, n := range r.Retired {
		keys[errorKey(RetiredError(n))] = true
	}
	return keys
}

// errorKey identifies an error by every field.
func errorKey(e scanner.RunError) string {
	return strings.Join([]string{e.AccountID, e.ZoneID, e.ZoneName, e.Path, e.What, e.Message}, "\x00")
}

// failing counts the findings that fail the gate (see failsGate), from the summary's counts.
func (s Summary) failing() int {
	at := 0
	for _, c := range []struct {
		sev scanner.Severity
		n   int
	}{{scanner.SeverityError, s.BySeverity.Error}, {scanner.SeverityWarning, s.BySeverity.Warning}, {scanner.SeverityNotice, s.BySeverity.Notice}} {
		if failsGate(c.sev, s.FailOn) {
			at += c.n
		}
	}
	return at
}
