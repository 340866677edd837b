// Package scanner turns what exists (a live inventory or a config repository) into findings
// against the deprecation catalog. The types here are the ones every source, reporter and the
// exit-code logic share.
package scanner

import (
	"fmt"
	"strings"
)

// Severity ranks a finding. The zero value is SeverityNone (nothing to report).
type Severity int

// Severities, lowest first, so they compare with < and >.
const (
	SeverityNone Severity = iota
	SeverityNotice
	SeverityWarning
	SeverityError
)

// String returns the wire name: none, notice, warning, error.
func (s Severity) String() string {
	switch s {
	case SeverityNotice:
		return "notice"
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	}
	return "none"
}

// ParseSeverity reads a wire name (case-insensitive); it is the parser of --fail-on too.
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "none":
		return SeverityNone, nil
	case "notice":
		return SeverityNotice, nil
	case "warning":
		return SeverityWarning, nil
	case "error":
		return SeverityError, nil
	}
	return SeverityNone, fmt.Errorf("unknown severity %q (want error, warning, notice or none)", s)
}

// MarshalText encodes a severity as its wire name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText decodes a wire name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	*s = v
	return err
}

// Resource names the object a finding is about.
type Resource struct {
	Kind string `json:"kind"`
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
}

// Location is a position in a file (1-based lines and columns); empty for live findings.
type Location struct {
	Path        string `json:"path"`
	StartLine   int    `json:"start_line,omitempty"`
	StartColumn int    `json:"start_column,omitempty"`
	EndLine     int    `json:"end_line,omitempty"`
	EndColumn   int    `json:"end_column,omitempty"`
}

// Finding is one use of a deprecated thing, in a live account or in a file.
type Finding struct {
	RuleID       string    `json:"rule_id"`
	Severity     Severity  `json:"severity"`
	Title        string    `json:"title"`
	Message      string    `json:"message"`
	Source       string    `json:"source"` // "live" or "file"
	AccountID    string    `json:"account_id,omitempty"`
	ZoneID       string    `json:"zone_id,omitempty"`
	ZoneName     string    `json:"zone_name,omitempty"`
	Resource     Resource  `json:"resource"`
	Location     *Location `json:"location,omitempty"`
	DeprecatedOn string    `json:"deprecated_on,omitempty"`
	EndOfLife    string    `json:"end_of_life,omitempty"`
	Replacement  string    `json:"replacement,omitempty"`
	DocURL       string    `json:"doc_url,omitempty"`
	Fingerprint  string    `json:"fingerprint"`
	Suppressed   bool      `json:"suppressed"`
	// SuppressedBy says why a suppressed finding is suppressed (inline comment, baseline, config).
	SuppressedBy string `json:"suppressed_by,omitempty"`
}

// Finding sources.
const (
	SourceLive = "live"
	SourceFile = "file"
)
