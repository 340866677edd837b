package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// GitLab writes a GitLab Code Quality report (the Code Climate issue subset GitLab reads): a
// JSON array with one issue per finding that is not suppressed, [] when there is none.
// GitLab has no notion of a suppressed issue, so suppressed findings are left out, and none
// of an unreadable zone, so report errors are too (the JSON report carries both).
//
// Each issue has type "issue", check_name (the rule id), description (the message, with the
// end of life), categories ["Compatibility"], severity, a fingerprint and a location:
//
//   - severity: error (past end of life: the interface is gone) is "critical"; warning
//     (deprecated, end of life ahead) is "major"; notice (advice, behaviour changes) is "info".
//     "blocker" is left for nothing sunset reports: a deprecation does not stop a merge by
//     itself; --fail-on does;
//   - location.path: the repository-relative path of a file finding, with lines.begin its
//     start line (1 when unknown). A live finding has no file; its path names the object:
//     "zone:NAME" (the zone id when the name is unknown) or "account:ID", with lines.begin 1.
//     GitLab shows the path as is (its link to the file goes nowhere);
//   - fingerprint: the finding's fingerprint, which GitLab uses to tell new issues from fixed
//     ones across pipelines; a repeated fingerprint gets "#2", "#3" so GitLab keeps both, and a
//     finding without one gets a SHA-256 of its rule, place and resource.
type GitLab struct{}

// The Code Quality issue; field order is output order.
type (
	gitlabIssue struct {
		Type        string         `json:"type"`
		CheckName   string         `json:"check_name"`
		Description string         `json:"description"`
		Categories  []string       `json:"categories"`
		Severity    string         `json:"severity"`
		Fingerprint string         `json:"fingerprint"`
		Location    gitlabLocation `json:"location"`
	}
	gitlabLocation struct {
		Path  string      `json:"path"`
		Lines gitlabLines `json:"lines"`
	}
	gitlabLines struct {
		Begin int `json:"begin"`
	}
)

// Write implements Reporter. Issues are made and written one at a time, in the order of
// the findings (a repeated fingerprint gets "#2", "#3", ... in that order).
func (GitLab) Write(w io.Writer, r *Report) error {
	shown := make([]int, 0, r.Findings.Len()) // the findings that are not suppressed
	for i, f := range r.Findings.All() {
		if !f.Suppressed {
			shown = append(shown, i)
		}
	}
	seen := map[string]int{}
	var issue gitlabIssue
	err := writeJSONStream(w, streamMarker, "", len(shown), func(i int) any {
		at := r.Findings.At(shown[i])
		f := &at
		fp := textsafe.Sanitize(f.Fingerprint)
		if fp == "" {
			fp = derivedFingerprint(f)
		}
		seen[fp]++
		if n := seen[fp]; n > 1 {
			fp += "#" + strconv.Itoa(n)
		}
		issue = gitlabIssue{
			Type:        "issue",
			CheckName:   textsafe.Sanitize(string(f.RuleID)),
			Description: gitlabDescription(f),
			Categories:  gitlabCategories,
			Severity:    gitlabSeverity(f.Severity),
			Fingerprint: fp,
			Location:    gitlabLocationOf(f),
		}
		return &issue
	})
	if err != nil {
		return fmt.Errorf("writing GitLab Code Quality report: %w", err)
	}
	return nil
}

// gitlabCategories are the categories of every issue.
var gitlabCategories = []string{"Compatibility"}

// gitlabSeverity maps a severity to a Code Quality severity.
func gitlabSeverity(s scanner.Severity) string {
	switch s {
	case scanner.SeverityError:
		return "critical"
	case scanner.SeverityWarning:
		return "major"
	}
	return "info"
}

// gitlabDescription is the message (the title, else the rule id), with the end of life.
func gitlabDescription(f *scanner.Finding) string {
	d := orElse(textsafe.Sanitize(f.Message), orElse(textsafe.Sanitize(f.Title), textsafe.Sanitize(string(f.RuleID))))
	if eol := textsafe.Sanitize(f.EndOfLife); eol != "" {
		d += " (end of life " + eol + ")"
	}
	return d
}

// gitlabLocationOf is the file and line of a file finding, else "zone:NAME" or "account:ID".
func gitlabLocationOf(f *scanner.Finding) gitlabLocation {
	if l := f.Location; l != nil && l.Path != "" {
		return gitlabLocation{Path: slashPath(textsafe.Sanitize(l.Path)), Lines: gitlabLines{Begin: max(l.StartLine, 1)}}
	}
	var path string
	switch {
	case f.ZoneName != "":
		path = "zone:" + textsafe.Sanitize(f.ZoneName)
	case f.ZoneID != "":
		path = "zone:" + textsafe.Sanitize(f.ZoneID)
	case f.AccountID != "":
		path = "account:" + textsafe.Sanitize(f.AccountID)
	default:
		path = ToolName
	}
	return gitlabLocation{Path: path, Lines: gitlabLines{Begin: 1}}
}

// derivedFingerprint stands in for a missing fingerprint: stable for the same rule, place and
// resource, like the scanner's own.
func derivedFingerprint(f *scanner.Finding) string {
	var path string
	if f.Location != nil {
		path = f.Location.Path // the line is left out: an edit above the finding must not change it
	}
	h := sha256.New()
	for _, p := range []string{string(f.RuleID), f.AccountID, f.ZoneID, f.ZoneName, path, string(f.Resource.Kind), f.Resource.ID, f.Resource.Name} {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}
