package reports

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

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
	// Left leads the page: what is left to do, by when, where to start, and the gate.
	Left                 *htmlLeft
	Cards                []htmlCard
	ScopeNoun, GroupNoun string
	GroupTitle           string
	Timeline             *svgTimeline
	Charts               []*svgBars
	// First is the "what to do first" section; nil for a files scan or no findings.
	First *htmlFirst
	// Groups hold the findings by zone, account or file; each makes its findings' headlines
	// as the page is written, so a page of a million findings never holds them all.
	Groups        []*htmlGroup
	FindingCount  int
	HasSuppressed bool
	Errors        []htmlError
	Rules         []htmlRule
	Plan          *htmlPlan
	// Compact is set for a page past htmlDetailLimit: findings by rule, steps by kind.
	Compact bool
}

type htmlGate struct{ Class, Text string }

type htmlCard struct {
	Key, Label, Value, Class, Note string
}

type htmlError struct{ Where, What, Message string }

type htmlRule struct {
	ID, Anchor, Title, Description, Class string
	DeprecatedOn, EndOfLife, Replacement  string
	DocURL                                string
	Count                                 int
	Advisory                              bool
}

// buildHTMLPage is the page's view model of report r and plan p (nil for none); cat adds the
// deprecations the report does not hit to the timeline. A failure to read the plan is the
// error.
func buildHTMLPage(r *Report, cat *catalog.Catalog, plan migrate.PlanView) (*htmlPage, error) {
	p := &htmlPage{
		Tool:           orElse(strings.TrimSpace(textsafe.Sanitize(r.Tool.Name+" "+r.Tool.Version)), ToolName),
		AsOf:           textsafe.Sanitize(r.AsOf),
		Schema:         r.SchemaVersion,
		CSP:            htmlAssets().csp,
		CSS:            htmlAssets().css,
		JS:             htmlAssets().js,
		SourceLine:     sourceLine(r.Source),
		Incomplete:     r.Summary.Incomplete,
		IncompleteText: incompleteText(r),
		Cards:          summaryCards(r),
		ScopeNoun:      "account",
		GroupNoun:      "zone",
		GroupTitle:     "Zone",
	}
	if r.Source.Kind == SourceFiles {
		p.ScopeNoun, p.GroupNoun, p.GroupTitle = "repository", "file", "File"
	}
	p.Title = "sunset report: " + p.SourceLine
	if p.AsOf != "" {
		p.Title += ", as of " + p.AsOf
	}
	names := newAccountNames(r, plan)
	stats := ruleStats(r.Findings)
	p.Timeline = buildTimeline(r, cat, stats)
	p.Groups = groupFindingsHTML(r.Findings, names)
	p.Charts = findingCharts(r.Findings, p.Groups)
	first := newFirst(p.Groups, plan, r.Source.Kind, retiredByGroup(r.Retired))
	p.FindingCount = r.Findings.Len()
	for _, g := range p.Groups {
		p.HasSuppressed = p.HasSuppressed || g.Suppressed > 0
	}
	p.Errors = errorRows(r.Errors, names)
	p.Rules = ruleRows(r.Catalog, stats)
	p.Compact = compactPage(r.Findings.Len(), plan)
	if p.Compact {
		linked := linkedFindings(plan)
		for _, g := range p.Groups {
			g.linked = linked
		}
	}
	hp, left := newHTMLPlan(plan, r, names, p.Compact), newLeft(plan)
	if plan != nil {
		// One pass over the zones for what is left, "what to do first" and the plan's
		// summaries: each read of a spilled zone decodes it.
		i := 0
		err := plan.EachZone(func(z *migrate.ZonePlan) error {
			first.zone(i, z)
			hp.zone(z)
			left.zone(z)
			i++
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	p.First, p.Plan = first.finish(), hp.finish()
	p.Left = left.finish(r, p.Groups, p.First)
	return p, nil
}

// retiredByGroup counts the endpoints that answered as retired by the zone or account they
// were read for.
func retiredByGroup(notes []scanner.RetiredNote) map[groupKey]int {
	out := map[groupKey]int{}
	for _, n := range notes {
		k := groupKey{kind: groupAccount, accountID: n.AccountID}
		if n.ZoneID != "" || n.ZoneName != "" {
			k = groupKey{kind: groupZone, accountID: n.AccountID, zoneID: n.ZoneID, zoneName: n.ZoneName}
		}
		out[k]++
	}
	return out
}

// gateBanner says whether the --fail-on gate passed, with how many findings failed it and
// what that means for CI; nil when there was no gate.
func gateBanner(s Summary) *htmlGate {
	switch {
	case s.FailOn == scanner.SeverityNone:
		return nil
	case s.GateFailed:
		return &htmlGate{Class: "gate", Text: fmt.Sprintf("Gate failed: %s at or above %s (--fail-on %s), so a CI job running this scan fails.",
			Plural(s.failing(), "finding", "findings"), s.FailOn, s.FailOn)}
	}
	return &htmlGate{Class: "pass", Text: fmt.Sprintf("Gate passed: no finding at or above %s (--fail-on %s), so a CI job running this scan passes.", s.FailOn, s.FailOn)}
}

// errorRows are the read errors' table rows.
func errorRows(errs []scanner.RunError, names accountNames) []htmlError {
	var rows []htmlError
	for _, e := range errs {
		rows = append(rows, htmlError{Where: errorWhere(e, names), What: textsafe.Sanitize(e.What), Message: textsafe.Sanitize(e.Message)})
	}
	return rows
}

// ruleRows describe the rules the report hits, with what the findings say about each.
func ruleRows(infos []RuleInfo, stats map[string]ruleStat) []htmlRule {
	var rows []htmlRule
	for _, info := range infos {
		st := stats[info.ID]
		rows = append(rows, htmlRule{
			ID: textsafe.Sanitize(info.ID), Anchor: "rule-" + anchorID(info.ID), Title: textsafe.Sanitize(orElse(info.Title, info.ID)), Description: textsafe.Sanitize(info.Description),
			Class:        "sev-" + st.worst.String(),
			DeprecatedOn: textsafe.Sanitize(info.DeprecatedOn), EndOfLife: textsafe.Sanitize(info.EndOfLife),
			Replacement: textsafe.Sanitize(info.Replacement), DocURL: info.DocURL,
			Count: st.count, Advisory: info.Advisory,
		})
	}
	return rows
}

// sourceLine says what was scanned, in words.
func sourceLine(s Source) string {
	switch s.Kind {
	case SourceDemo:
		return "Demo account (built-in emulator)"
	case SourceLive:
		if s.Target != "" {
			return "Live account at " + textsafe.Sanitize(s.Target)
		}
		return "Live account"
	case SourceSnapshot:
		if s.Target != "" {
			return "Saved snapshot " + textsafe.Sanitize(s.Target)
		}
		return "Saved snapshot"
	case SourceFiles:
		if len(s.Paths) > 0 {
			paths := make([]string, len(s.Paths))
			for i, p := range s.Paths {
				paths[i] = textsafe.Sanitize(p)
			}
			return "Configuration files in " + strings.Join(paths, ", ")
		}
		return "Configuration files"
	}
	return orElse(textsafe.Sanitize(s.Kind), "Unknown source")
}

func incompleteText(r *Report) string {
	s := r.Summary
	var parts []string
	if s.ZonesFailed > 0 {
		parts = append(parts, Plural(s.ZonesFailed, "zone", "zones")+" could not be read completely")
	}
	if s.FilesFailed > 0 {
		parts = append(parts, Plural(s.FilesFailed, "file", "files")+" could not be read")
	}
	if len(parts) == 0 && len(r.Errors) > 0 {
		parts = append(parts, Plural(len(r.Errors), "read error", "read errors"))
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
		// The files not read are named under the count (SkippedLines), as every format does.
		cards = append(cards, htmlCard{Key: "files", Label: "files scanned", Value: strconv.Itoa(s.FilesScanned), Note: strings.Join(SkippedLines(r, 0), "")})
	} else {
		note := ""
		if s.Accounts > 0 {
			note = "in " + Plural(s.Accounts, "account", "accounts")
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
		incomplete.Note = Plural(len(r.Errors), "read error", "read errors")
	}
	cards = append(cards, incomplete,
		htmlCard{Key: "as-of", Label: "as of", Class: "date", Value: orElse(textsafe.Sanitize(r.AsOf), "–"), Note: "date severities are judged on"})
	return cards
}

func suppressedNote(n int) string {
	if n == 0 {
		return ""
	}
	return "plus " + strconv.Itoa(n) + " suppressed"
}

func errorWhere(e scanner.RunError, names accountNames) string {
	switch {
	case e.Path != "":
		return textsafe.Sanitize(e.Path)
	case e.ZoneName != "" || e.ZoneID != "":
		return textsafe.Sanitize(orElse(e.ZoneName, e.ZoneID))
	case e.AccountID != "":
		return names.label(e.AccountID)
	}
	return "–"
}

// ruleStat is what the findings say about one rule: how many (not suppressed) and the most
// severe; a rule whose only findings are suppressed is hit with count 0.
type ruleStat struct {
	count int
	worst scanner.Severity
}

func ruleStats(findings *scanner.FindingList) map[string]ruleStat {
	out := map[string]ruleStat{}
	for _, f := range findings.All() {
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
