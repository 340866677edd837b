// Package scanner turns what exists (a live inventory or a config repository) into findings
// against the deprecation catalog. The types here are the ones every source, reporter and the
// exit-code logic share.
package scanner

import (
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// Severity ranks a finding; it is the catalog's type, so severities computed from catalog
// entries need no conversion.
type Severity = catalog.Severity

// Severities, re-exported for readers of findings.
const (
	SeverityNone    = catalog.SeverityNone
	SeverityNotice  = catalog.SeverityNotice
	SeverityWarning = catalog.SeverityWarning
	SeverityError   = catalog.SeverityError
)

// ParseSeverity reads a wire name (case-insensitive); it is the parser of --fail-on too.
func ParseSeverity(s string) (Severity, error) { return catalog.ParseSeverity(s) }

// Resource names the object a finding is about.
type Resource struct {
	Kind vocab.Kind `json:"kind"`
	ID   string     `json:"id,omitempty"`
	Name string     `json:"name,omitempty"`
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
	RuleID       vocab.RuleID `json:"rule_id"`
	Severity     Severity     `json:"severity"`
	Title        string       `json:"title"`
	Message      string       `json:"message"`
	Source       string       `json:"source"` // "live" or "file"
	AccountID    string       `json:"account_id,omitempty"`
	ZoneID       string       `json:"zone_id,omitempty"`
	ZoneName     string       `json:"zone_name,omitempty"`
	Resource     Resource     `json:"resource"`
	Location     *Location    `json:"location,omitempty"`
	DeprecatedOn string       `json:"deprecated_on,omitempty"`
	EndOfLife    string       `json:"end_of_life,omitempty"`
	Replacement  string       `json:"replacement,omitempty"`
	DocURL       string       `json:"doc_url,omitempty"`
	Fingerprint  string       `json:"fingerprint"`
	Suppressed   bool         `json:"suppressed"`
	// SuppressedBy says why a suppressed finding is suppressed (inline comment, baseline, config).
	SuppressedBy string `json:"suppressed_by,omitempty"`
}

// Finding sources.
const (
	SourceLive = "live"
	SourceFile = "file"
)
