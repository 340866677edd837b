// Package reports renders scan results. A Report is the one document every format reads: the
// JSON report is its serialisation, and each other format (table, tab-separated rows, and the
// CI formats) is one small Reporter that writes it to an io.Writer. Reporters never read the
// clock or the environment and never mutate the report; the same report gives the same bytes.
package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"time"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// SchemaVersion is the version of the JSON report this package writes. It changes only when
// a field is removed or its meaning changes; added fields keep the version.
const SchemaVersion = 1

// ToolName is the name written in Tool.Name.
const ToolName = "sunset"

// Source kinds: where the findings of a report come from.
const (
	SourceLive     = "live"     // a live account through the API
	SourceDemo     = "demo"     // the built-in emulator with demo data
	SourceSnapshot = "snapshot" // a saved inventory snapshot
	SourceFiles    = "files"    // configuration repositories
)

// Report is the JSON report:
// {schema_version, tool, as_of, source, summary, findings[], errors[], retired[], catalog[],
// account_names}.
type Report struct {
	SchemaVersion int     `json:"schema_version"`
	Tool          Tool    `json:"tool"`
	AsOf          string  `json:"as_of"` // YYYY-MM-DD, the date severities were computed for
	Source        Source  `json:"source"`
	Summary       Summary `json:"summary"`
	// Findings are in the order the scanner gave them (it sorts); suppressed ones included,
	// marked "suppressed": true. A large live scan's are in a temporary file.
	Findings *scanner.FindingList `json:"findings"`
	Errors   []scanner.RunError   `json:"errors"`
	// Retired lists the endpoints that answered as past their end of life, per account and
	// zone: what they list was not read. Each is also one of Errors (see RetiredError), so
	// every format shows it; this list keeps the status and catalog ids for tools.
	Retired []scanner.RetiredNote `json:"retired"`
	// Catalog holds the catalog entries the findings reference, sorted by id, for formats that
	// describe rules separately (SARIF rules, the HTML timeline).
	Catalog []RuleInfo `json:"catalog"`
	// AccountNames maps the ids of accounts to their names where the source knows them, so
	// formats for people can show names; omitted when empty.
	AccountNames map[string]string `json:"account_names,omitempty"`
	// Incremental is set by an incremental rescan (incremental.go); omitted otherwise.
	Incremental *Incremental `json:"incremental,omitempty"`
}

// Tool names the program that wrote a report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Source says what was scanned. Target never carries credentials (see RedactURL).
type Source struct {
	Kind string `json:"kind"` // SourceLive, SourceDemo, SourceSnapshot or SourceFiles
	// Target is the API base URL (live, demo) or the snapshot file (snapshot).
	Target string `json:"target,omitempty"`
	// Paths are the scanned roots of a files scan, in the order given.
	Paths []string `json:"paths,omitempty"`
}

// Summary is what a report amounts to; BuildSummary computes it.
type Summary struct {
	// FindingsTotal counts findings that are not suppressed.
	FindingsTotal int `json:"findings_total"`
	// BySeverity counts findings that are not suppressed, per severity.
	BySeverity SeverityCounts `json:"by_severity"`
	// Suppressed counts suppressed findings (listed in Findings, counted nowhere else).
	Suppressed int `json:"suppressed"`
	// ZonesScanned counts the zones whose scan began, failed ones included; ZonesFailed
	// those of them with at least one part not read (their findings may be partial);
	// ZonesNotScanned the zones selected but never started, as the run was interrupted.
	ZonesScanned    int `json:"zones_scanned"`
	ZonesFailed     int `json:"zones_failed"`
	ZonesNotScanned int `json:"zones_not_scanned"`
	Accounts        int `json:"accounts"`
	// FilesScanned counts the files read by a files scan, FilesFailed those that could not be
	// read or parsed.
	FilesScanned int `json:"files_scanned"`
	FilesFailed  int `json:"files_failed"`
	// FilesSkipped counts Skipped: the files a files scan met and did not read, each with
	// why (binary, symbolic link, FIFO, written by sunset), sorted by path. They do not make
	// the report incomplete, but every format names them.
	FilesSkipped int                   `json:"files_skipped,omitempty"`
	Skipped      []scanner.SkippedFile `json:"skipped,omitempty"`
	// RetiredEndpoints counts the entries of Report.Retired.
	RetiredEndpoints int `json:"retired_endpoints"`
	// Incomplete is true when anything could not be read (an endpoint that answered retired
	// included): the findings may be missing some.
	Incomplete bool `json:"incomplete"`
	// FailOn is the gate threshold (none disables the gate); GateFailed is true when a finding
	// that is not suppressed is at or above it.
	FailOn     scanner.Severity `json:"fail_on"`
	GateFailed bool             `json:"gate_failed"`
	// ByRule counts findings that are not suppressed per rule: most severe first, then by id.
	ByRule []RuleCount `json:"by_rule"`
}

// SeverityCounts counts findings per severity.
type SeverityCounts struct {
	Error   int `json:"error"`
	Warning int `json:"warning"`
	Notice  int `json:"notice"`
}

// RuleCount is one line of Summary.ByRule.
type RuleCount struct {
	RuleID   string           `json:"rule_id"`
	Title    string           `json:"title"`
	Severity scanner.Severity `json:"severity"` // the most severe of the rule's findings
	Count    int              `json:"count"`
}

// RuleInfo describes one catalog entry referenced by the findings of a report.
type RuleInfo struct {
	ID           string `json:"id"`
	Title        string `json:"title"`
	Description  string `json:"description,omitempty"`
	DeprecatedOn string `json:"deprecated_on,omitempty"` // YYYY-MM-DD
	EndOfLife    string `json:"end_of_life,omitempty"`   // YYYY-MM-DD
	Replacement  string `json:"replacement,omitempty"`
	DocURL       string `json:"doc_url,omitempty"`
	Advisory     bool   `json:"advisory,omitempty"`
}

// Counts are the scan sizes a Summary reports; the sources know them, findings do not.
// Zones count as in Summary: scanned (begun), failed (begun, a part not read), not scanned.
type Counts struct {
	ZonesScanned    int
	ZonesFailed     int
	ZonesNotScanned int
	Accounts        int
	FilesScanned    int
	FilesFailed     int
}

// RuleLookup finds catalog entries by id; *catalog.Catalog satisfies it.
type RuleLookup interface {
	Lookup(id vocab.RuleID) (catalog.Entry, bool)
}

// Input is everything NewReport assembles a report from.
type Input struct {
	Version  string    // the tool's version
	AsOf     time.Time // the date severities were computed for (only the day is kept)
	Source   Source
	Findings []scanner.Finding // in the scanner's order
	// List, when set, is the findings instead of Findings: a scan's list, perhaps in a
	// temporary file (scanner.Live.ResultList); the report shares it and does not close it.
	List   *scanner.FindingList
	Errors []scanner.RunError
	// Skipped are the files a files scan did not read (Summary.Skipped).
	Skipped []scanner.SkippedFile
	// Retired are the endpoints that answered retired (scanner.Result.Retired); NewReport
	// adds one error for each.
	Retired []scanner.RetiredNote
	Counts  Counts
	FailOn  scanner.Severity
	// Rules, when set, adds descriptions (and anything the findings lack) to Catalog.
	Rules RuleLookup
	// AccountNames maps account ids to names (from the scanned snapshot); nil shows ids.
	AccountNames map[string]string
	// Incremental, when set, says what an incremental rescan read again and reused.
	Incremental *Incremental
}

// AccountNames maps the id of each named account of a snapshot to its name, for
// Input.AccountNames.
func AccountNames(accounts []inventory.AccountInventory) map[string]string {
	names := map[string]string{}
	for _, a := range accounts {
		if a.Account.ID != "" && a.Account.Name != "" {
			names[a.Account.ID] = a.Account.Name
		}
	}
	return names
}

// NewReport assembles a report: the summary, the catalog entries the findings reference,
// errors sorted, and the source target stripped of credentials. Findings keep their order.
// The report shares in.Findings or in.List (a large scan has a million findings; a copy
// would double them in memory): the caller must not modify them afterwards.
func NewReport(in Input) *Report {
	findings := in.List
	if findings == nil {
		findings = scanner.NewFindingList(in.Findings)
	}
	retired := append([]scanner.RetiredNote{}, in.Retired...)
	sortRetired(retired)
	errs := append([]scanner.RunError{}, in.Errors...)
	for _, n := range retired {
		errs = append(errs, RetiredError(n))
	}
	SortErrors(errs)
	src := in.Source
	if src.Kind != SourceFiles && src.Kind != SourceSnapshot {
		src.Target = RedactURL(src.Target)
	}
	src.Paths = append([]string(nil), src.Paths...)
	summary := buildSummary(findings, errs, in.Counts, in.FailOn)
	summary.RetiredEndpoints = len(retired)
	if len(in.Skipped) > 0 {
		summary.Skipped = append([]scanner.SkippedFile(nil), in.Skipped...)
		sort.SliceStable(summary.Skipped, func(i, j int) bool { return summary.Skipped[i].Path < summary.Skipped[j].Path })
		summary.FilesSkipped = len(summary.Skipped)
	}
	return &Report{
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: ToolName, Version: in.Version},
		AsOf:          formatDay(in.AsOf),
		Source:        src,
		Summary:       summary,
		Findings:      findings,
		Errors:        errs,
		Retired:       retired,
		Catalog:       buildCatalog(findings, in.Rules),
		AccountNames:  in.AccountNames,
		Incremental:   in.Incremental,
	}
}

// BuildSummary computes a summary from findings, errors and scan sizes. Suppressed findings
// count only in Suppressed. The report is incomplete when there is any error or any failed
// zone or file.
func BuildSummary(findings []scanner.Finding, errs []scanner.RunError, counts Counts, failOn scanner.Severity) Summary {
	return buildSummary(scanner.NewFindingList(findings), errs, counts, failOn)
}

func buildSummary(findings *scanner.FindingList, errs []scanner.RunError, counts Counts, failOn scanner.Severity) Summary {
	s := Summary{
		ZonesScanned:    counts.ZonesScanned,
		ZonesFailed:     counts.ZonesFailed,
		ZonesNotScanned: counts.ZonesNotScanned,
		Accounts:        counts.Accounts,
		FilesScanned:    counts.FilesScanned,
		FilesFailed:     counts.FilesFailed,
		FailOn:          failOn,
		ByRule:          []RuleCount{},
	}
	byRule := map[string]int{} // rule id -> index in s.ByRule
	for _, f := range findings.All() {
		if f.Suppressed {
			s.Suppressed++
			continue
		}
		s.FindingsTotal++
		switch f.Severity {
		case scanner.SeverityError:
			s.BySeverity.Error++
		case scanner.SeverityWarning:
			s.BySeverity.Warning++
		case scanner.SeverityNotice:
			s.BySeverity.Notice++
		}
		if failsGate(f.Severity, failOn) {
			s.GateFailed = true
		}
		i, ok := byRule[string(f.RuleID)]
		if !ok {
			i = len(s.ByRule)
			byRule[string(f.RuleID)] = i
			s.ByRule = append(s.ByRule, RuleCount{RuleID: string(f.RuleID), Title: f.Title, Severity: f.Severity})
		}
		rc := &s.ByRule[i]
		rc.Count++
		if f.Severity > rc.Severity {
			rc.Severity = f.Severity
		}
		if rc.Title == "" {
			rc.Title = f.Title
		}
	}
	sort.Slice(s.ByRule, func(i, j int) bool {
		a, b := s.ByRule[i], s.ByRule[j]
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		return a.RuleID < b.RuleID
	})
	s.Incomplete = len(errs) > 0 || counts.ZonesFailed > 0 || counts.ZonesNotScanned > 0 || counts.FilesFailed > 0
	return s
}

// BuildCatalog returns one RuleInfo per rule the findings reference (suppressed ones too:
// their rules are still described), sorted by id. Values come from the findings, which carry
// the effective dates; rules fills in the description and anything the findings lack.
func BuildCatalog(findings []scanner.Finding, rules RuleLookup) []RuleInfo {
	return buildCatalog(scanner.NewFindingList(findings), rules)
}

func buildCatalog(findings *scanner.FindingList, rules RuleLookup) []RuleInfo {
	seen := map[string]int{}
	out := []RuleInfo{}
	for _, f := range findings.All() {
		if _, ok := seen[string(f.RuleID)]; ok {
			continue
		}
		seen[string(f.RuleID)] = len(out)
		info := RuleInfo{
			ID:           string(f.RuleID),
			Title:        f.Title,
			DeprecatedOn: f.DeprecatedOn,
			EndOfLife:    f.EndOfLife,
			Replacement:  f.Replacement,
			DocURL:       f.DocURL,
		}
		if rules != nil {
			if e, ok := rules.Lookup(vocab.RuleID(string(f.RuleID))); ok {
				info.Description = e.Description
				info.Advisory = e.Advisory
				info.Title = orElse(info.Title, e.Title)
				info.DeprecatedOn = orElse(info.DeprecatedOn, formatDay(e.DeprecatedOn.Time))
				info.EndOfLife = orElse(info.EndOfLife, formatDay(e.EndOfLife.Time))
				info.Replacement = orElse(info.Replacement, e.Replacement)
				info.DocURL = orElse(info.DocURL, e.DocURL)
			}
		}
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// SortErrors sorts errors by account, zone name, zone id, path, what and message, so a
// report does not depend on the order concurrent workers finished in.
func SortErrors(errs []scanner.RunError) {
	sort.SliceStable(errs, func(i, j int) bool {
		a, b := errs[i], errs[j]
		for _, p := range [][2]string{
			{a.AccountID, b.AccountID}, {a.ZoneName, b.ZoneName}, {a.ZoneID, b.ZoneID},
			{a.Path, b.Path}, {a.What, b.What}, {a.Message, b.Message},
		} {
			if p[0] != p[1] {
				return p[0] < p[1]
			}
		}
		return false
	})
}

// RedactURL returns a URL without user information, query or fragment, the places
// credentials end up in; text that does not parse as an absolute URL is dropped entirely
// rather than risk echoing a secret.
func RedactURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	u.User = nil
	u.RawQuery = ""
	u.ForceQuery = false
	u.Fragment = ""
	u.RawFragment = ""
	return u.String()
}

// ReadReport reads a JSON report written by this or an earlier version. A report of a newer
// schema is refused with a message saying which versions this build reads; missing lists
// come back empty, never nil.
func ReadReport(r io.Reader) (*Report, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading report: %w", err)
	}
	var head struct {
		SchemaVersion *int `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("not a sunset JSON report: %w", err)
	}
	if head.SchemaVersion == nil {
		return nil, errors.New("not a sunset JSON report: no schema_version")
	}
	v := *head.SchemaVersion
	switch {
	case v > SchemaVersion:
		return nil, fmt.Errorf("report has schema_version %d, newer than this build of sunset reads (up to %d): upgrade sunset to read it", v, SchemaVersion)
	case v < 1:
		return nil, fmt.Errorf("not a sunset JSON report: schema_version %d", v)
	}
	// Version 1 is the first; readers of later versions convert older layouts here.
	var rep Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("reading report: %w", err)
	}
	rep.SchemaVersion = SchemaVersion
	rep.normalize()
	return &rep, nil
}

// normalize replaces nil lists by empty ones so every writer prints [] rather than null.
func (r *Report) normalize() {
	if r.Findings == nil {
		r.Findings = scanner.NewFindingList(nil)
	}
	if r.Errors == nil {
		r.Errors = []scanner.RunError{}
	}
	if r.Retired == nil {
		r.Retired = []scanner.RetiredNote{}
	}
	if r.Catalog == nil {
		r.Catalog = []RuleInfo{}
	}
	if r.Summary.ByRule == nil {
		r.Summary.ByRule = []RuleCount{}
	}
}

// formatDay renders a day as YYYY-MM-DD in t's own location (the caller's day; catalog dates
// are UTC midnights); the zero time is "".
func formatDay(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.DateOnly)
}

func orElse(s, alt string) string {
	if s != "" {
		return s
	}
	return alt
}

// failsGate reports whether a finding of severity sev fails the gate at failOn (none: no
// finding does), as the exit code decides; JUnit fails exactly those cases.
func failsGate(sev, failOn scanner.Severity) bool {
	return failOn != scanner.SeverityNone && sev >= failOn
}
