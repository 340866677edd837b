package reports

import (
	"cmp"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// Group kinds: what a group of findings belongs to.
const (
	groupZone    = "zone"
	groupAccount = "account"
	groupFile    = "file"
	groupOther   = "other"
)

// htmlGroup is the findings of one zone, account or file: a collapsible block whose summary
// line counts them by severity. Its findings are made into headlines as the page is written,
// from the group's indexes into the report: a page of a million findings never holds them
// all as view models, and the report's findings are not copied.
type htmlGroup struct {
	Anchor, Kind, Title, Sub string
	// Label is the group's one-line name (the charts' bar label, the search's extra text).
	Label string
	// Counts are the findings that are not suppressed; Suppressed the others.
	Counts     SeverityCounts
	Total      int
	Suppressed int
	Worst      scanner.Severity
	WorstClass string
	// EOL is the nearest end of life among the findings at the group's worst severity that
	// are not suppressed: a zone of errors is dated by its errors, not by a notice's older
	// date.
	EOL string
	// eols is the nearest end of life of each severity, EOL's candidates.
	eols [scanner.SeverityError + 1]string
	// key identifies the group (and its plan section) in the report; groups of a kind sort
	// by sortName.
	key      groupKey
	sortName string
	findings *scanner.FindingList // the report's
	idx      []int32
	// linked are the fingerprints of the findings RuleRows gives an anchor.
	linked map[string]bool
}

// groupKey identifies the zone, account or file a finding belongs to.
type groupKey struct {
	kind, accountID, zoneID, zoneName, path string
}

// groupKeyOf is the group of a finding: its file, else its zone, else its account.
func groupKeyOf(f *scanner.Finding) groupKey {
	switch {
	case f.Location != nil && f.Location.Path != "":
		return groupKey{kind: groupFile, path: f.Location.Path}
	case f.ZoneID != "" || f.ZoneName != "":
		return groupKey{kind: groupZone, accountID: f.AccountID, zoneID: f.ZoneID, zoneName: f.ZoneName}
	case f.AccountID != "":
		return groupKey{kind: groupAccount, accountID: f.AccountID}
	}
	return groupKey{kind: groupOther}
}

// accountNames maps account ids to names: the report's, else the plan's.
type accountNames map[string]string

func newAccountNames(r *Report, v migrate.PlanView) accountNames {
	names := accountNames{}
	if v != nil {
		for _, a := range v.Head().Accounts {
			if a.AccountName != "" {
				names[a.AccountID] = a.AccountName
			}
		}
	}
	for id, name := range r.AccountNames {
		if name != "" {
			names[id] = name
		}
	}
	return names
}

// label names an account for people: its name where known, else "account <id>".
func (n accountNames) label(id string) string {
	if name := n[id]; name != "" {
		return textsafe.Sanitize(name)
	}
	return "account " + textsafe.Sanitize(id)
}

// groupFindingsHTML groups findings by zone, account or file, keeping indexes, not copies,
// in the terminal table's order: accounts by name, then zones by name, then files by path
// with a file's findings by line; within an account or a zone, the report's order.
func groupFindingsHTML(findings *scanner.FindingList, names accountNames) []*htmlGroup {
	var groups []*htmlGroup
	index := map[groupKey]*htmlGroup{}
	for i, fv := range findings.All() {
		f := &fv
		k := groupKeyOf(f)
		g := index[k]
		if g == nil {
			g = newHTMLGroup(k, findings, names)
			index[k] = g
			groups = append(groups, g)
		}
		g.idx = append(g.idx, int32(i)) //nolint:gosec // a report holds far fewer than 2^31 findings
		g.count(f)
	}
	for _, g := range groups {
		g.WorstClass = "sev-" + g.Worst.String()
		if g.Kind == groupFile {
			slices.SortStableFunc(g.idx, func(a, b int32) int {
				la, lb := findings.At(int(a)).Location, findings.At(int(b)).Location
				return cmp.Or(cmp.Compare(la.StartLine, lb.StartLine), cmp.Compare(la.StartColumn, lb.StartColumn))
			})
		}
	}
	slices.SortStableFunc(groups, func(a, b *htmlGroup) int {
		return cmp.Or(cmp.Compare(groupRank[a.Kind], groupRank[b.Kind]), strings.Compare(a.sortName, b.sortName), strings.Compare(a.Anchor, b.Anchor))
	})
	return groups
}

// groupRank orders the kinds of groups.
var groupRank = map[string]int{groupAccount: 0, groupZone: 1, groupFile: 2, groupOther: 3}

func newHTMLGroup(k groupKey, findings *scanner.FindingList, names accountNames) *htmlGroup {
	g := &htmlGroup{key: k, Kind: k.kind, findings: findings}
	switch k.kind {
	case groupFile:
		g.sortName = strings.ToLower(k.path)
		g.Title = textsafe.Sanitize(k.path)
		g.Anchor = "g-file-" + anchorID(k.path)
		g.Label = g.Title
	case groupZone:
		g.sortName = strings.ToLower(orElse(k.zoneName, k.zoneID))
		g.Title = textsafe.Sanitize(orElse(k.zoneName, k.zoneID))
		if k.zoneName == "" {
			g.Title = "zone " + g.Title
		}
		if k.accountID != "" {
			g.Sub = names.label(k.accountID)
		}
		g.Anchor = "g-zone-" + anchorID(k.accountID+"/"+orElse(k.zoneID, k.zoneName))
		g.Label = g.Title
	case groupAccount:
		g.sortName = strings.ToLower(orElse(names[k.accountID], k.accountID))
		g.Title = names.label(k.accountID)
		if names[k.accountID] != "" {
			g.Sub = textsafe.Sanitize(k.accountID)
		}
		g.Anchor = "g-account-" + anchorID(k.accountID)
		g.Label = g.Title
	default:
		g.Title, g.Anchor, g.Label = "Other findings", "g-other", "other"
	}
	return g
}

// count adds a finding to the group's numbers.
func (g *htmlGroup) count(f *scanner.Finding) {
	if f.Suppressed {
		g.Suppressed++
		return
	}
	g.Total++
	switch f.Severity {
	case scanner.SeverityError:
		g.Counts.Error++
	case scanner.SeverityWarning:
		g.Counts.Warning++
	case scanner.SeverityNotice:
		g.Counts.Notice++
	}
	if f.Severity > g.Worst {
		g.Worst = f.Severity
	}
	if sev := f.Severity; sev >= 0 && int(sev) < len(g.eols) && f.EndOfLife != "" && (g.eols[sev] == "" || f.EndOfLife < g.eols[sev]) {
		g.eols[sev] = textsafe.Sanitize(f.EndOfLife)
	}
	g.EOL = g.eols[g.Worst]
}

// CountText is the summary line's count: "3 findings" (and how many are suppressed).
func (g *htmlGroup) CountText() string {
	s := Plural(g.Total, "finding", "findings")
	if g.Suppressed > 0 {
		s += ", " + strconv.Itoa(g.Suppressed) + " suppressed"
	}
	return s
}

// SevCounts are the group's non-zero counts per severity, most severe first.
func (g *htmlGroup) SevCounts() []htmlSevCount {
	return sevCounts(g.Counts)
}

// htmlSevCount is one severity badge of a summary line: "2 errors".
type htmlSevCount struct{ Class, Text string }

func sevCounts(c SeverityCounts) []htmlSevCount {
	var out []htmlSevCount
	for _, s := range []struct {
		n           int
		sev         scanner.Severity
		one, plural string
	}{
		{c.Error, scanner.SeverityError, "error", "errors"},
		{c.Warning, scanner.SeverityWarning, "warning", "warnings"},
		{c.Notice, scanner.SeverityNotice, "notice", "notices"},
	} {
		if s.n > 0 {
			out = append(out, htmlSevCount{Class: "sev-" + s.sev.String(), Text: Plural(s.n, s.one, s.plural)})
		}
	}
	return out
}

// Findings are the group's findings as headlines, made as the template ranges over them.
func (g *htmlGroup) Findings() iter.Seq[htmlFinding] {
	return func(yield func(htmlFinding) bool) {
		for _, i := range g.idx {
			if !yield(htmlFindingOf(new(g.findings.At(int(i))))) {
				return
			}
		}
	}
}

// htmlFinding is one finding: a one-line headline (severity, rule title, resource) with the
// message, dates, replacement and documentation behind it.
type htmlFinding struct {
	Severity, SevClass            string
	Anchor                        string
	RuleID, RuleAnchor, RuleTitle string
	Resource                      string
	Message, DeprecatedOn, EOL    string
	Replacement, DocURL           string
	Suppressed                    bool
	SuppressedBy                  string
}

// htmlFindingOf is the headline and details of one finding.
func htmlFindingOf(f *scanner.Finding) htmlFinding {
	id := textsafe.Sanitize(string(f.RuleID))
	return htmlFinding{
		Severity:     f.Severity.String(),
		SevClass:     "sev-" + f.Severity.String(),
		Anchor:       findingAnchor(f),
		RuleID:       id,
		RuleAnchor:   "rule-" + anchorID(string(f.RuleID)),
		RuleTitle:    orElse(textsafe.Sanitize(f.Title), id),
		Resource:     resourceLabel(f),
		Message:      textsafe.Sanitize(f.Message),
		DeprecatedOn: textsafe.Sanitize(f.DeprecatedOn),
		EOL:          textsafe.Sanitize(f.EndOfLife),
		Replacement:  textsafe.Sanitize(f.Replacement),
		DocURL:       f.DocURL,
		Suppressed:   f.Suppressed,
		SuppressedBy: textsafe.Sanitize(f.SuppressedBy),
	}
}
