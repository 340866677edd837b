package scanner

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
)

// Fingerprint is a stable identifier for a finding: the SHA-256 of the parts joined with NUL
// bytes, first 16 bytes in lowercase hex (32 characters). The NUL separator keeps
// ("ab","c") and ("a","bc") apart.
func Fingerprint(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:16])
}

// SortFindings orders findings deterministically, in place, by: zone name, zone id, account id,
// rule id, resource kind, resource id, resource name, location (path, start line, start column,
// end line, end column; findings without a location first), fingerprint, and finally message.
// Findings without a zone (account-scoped and file findings) come before zone findings because
// their zone name is empty. Severity is deliberately not a key: a report that wants the worst
// first groups by severity itself, and a stable order by object keeps diffs between runs small.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool { return findingLess(&fs[i], &fs[j]) })
}

func findingLess(a, b *Finding) bool {
	if c := cmpStrings(
		a.ZoneName, b.ZoneName,
		a.ZoneID, b.ZoneID,
		a.AccountID, b.AccountID,
		string(a.RuleID), string(b.RuleID),
		string(a.Resource.Kind), string(b.Resource.Kind),
		a.Resource.ID, b.Resource.ID,
		a.Resource.Name, b.Resource.Name,
	); c != 0 {
		return c < 0
	}
	if c := cmpLocation(a.Location, b.Location); c != 0 {
		return c < 0
	}
	if c := cmpStrings(a.Fingerprint, b.Fingerprint, a.Message, b.Message); c != 0 {
		return c < 0
	}
	// Last resort so that findings differing only in these still order the same way every run.
	if a.Severity != b.Severity {
		return a.Severity > b.Severity
	}
	return !a.Suppressed && b.Suppressed
}

// cmpStrings compares pairs (a1, b1, a2, b2, ...) lexicographically.
func cmpStrings(pairs ...string) int {
	for i := 0; i+1 < len(pairs); i += 2 {
		if c := strings.Compare(pairs[i], pairs[i+1]); c != 0 {
			return c
		}
	}
	return 0
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpLocation(a, b *Location) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	if c := strings.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	for _, c := range []int{
		cmpInt(a.StartLine, b.StartLine),
		cmpInt(a.StartColumn, b.StartColumn),
		cmpInt(a.EndLine, b.EndLine),
		cmpInt(a.EndColumn, b.EndColumn),
	} {
		if c != 0 {
			return c
		}
	}
	return 0
}

// Summary counts findings. Total and Suppressed count everything; Active and the three maps
// count only unsuppressed findings, which are the ones the exit-code gate looks at.
type Summary struct {
	Total      int              `json:"total"`
	Suppressed int              `json:"suppressed"`
	Active     int              `json:"active"`
	BySeverity map[Severity]int `json:"by_severity"`
	ByRule     map[string]int   `json:"by_rule"`
	// ByZone is keyed by zone name; findings without a zone (account-scoped, files) are not in it.
	ByZone map[string]int `json:"by_zone"`
}

// Count returns the number of unsuppressed findings of one severity.
func (s Summary) Count(sev Severity) int { return s.BySeverity[sev] }

// Summarize counts findings by severity, rule and zone; suppressed findings are counted in
// Suppressed only.
func Summarize(fs []Finding) Summary {
	s := Summary{
		Total:      len(fs),
		BySeverity: map[Severity]int{},
		ByRule:     map[string]int{},
		ByZone:     map[string]int{},
	}
	for i := range fs {
		f := &fs[i]
		if f.Suppressed {
			s.Suppressed++
			continue
		}
		s.Active++
		s.BySeverity[f.Severity]++
		s.ByRule[string(f.RuleID)]++
		if f.ZoneName != "" {
			s.ByZone[f.ZoneName]++
		}
	}
	return s
}

// GateFails reports whether any unsuppressed finding is at or above failOn; failOn none never
// fails (and findings of severity none never count).
func GateFails(fs []Finding, failOn Severity) bool {
	if failOn <= SeverityNone {
		return false
	}
	for i := range fs {
		if !fs[i].Suppressed && fs[i].Severity >= failOn {
			return true
		}
	}
	return false
}
