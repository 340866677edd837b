// Package catalog is the deprecation catalog as data: one entry per deprecation, embedded in
// the binary (deprecations.yaml), overridable by a user file, plus the field catalogue of the
// Rules language (fields.yaml). Everything here is pure: severity is a function of an entry and
// an as-of date.
package catalog

import (
	"fmt"
	"strings"
	"time"

	"github.com/sunsetscan/sunset/scanner/vocab"
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

// Date is a calendar day (UTC midnight); the zero Date means "not known". It is written as
// "YYYY-MM-DD" in YAML and JSON (see date.go).
type Date struct{ time.Time }

// Endpoint is one deprecated (or affected) API route: methods and a path pattern in the spec's
// notation, relative to the v4 base, e.g. "/zones/:zone_id/firewall/rules/:rule_id".
type Endpoint struct {
	Methods []string `yaml:"methods" json:"methods"`
	Path    string   `yaml:"path" json:"path"`
	// Affected marks routes that stay but carry a deprecated part in their payload (e.g. the
	// bulk settings endpoint carrying cname_flattening); they are not retired at end of life.
	Affected bool `yaml:"affected,omitempty" json:"affected,omitempty"`
}

// FieldRef is a deprecated field of an API object kind, e.g. {Kind: "dns_record", Field:
// "data.service", When: "type=SRV"}.
type FieldRef struct {
	Kind  string `yaml:"kind" json:"kind"`
	Field string `yaml:"field" json:"field"`
	When  string `yaml:"when,omitempty" json:"when,omitempty"`
}

// Terraform is what an entry matches in Terraform configuration (provider resource types and
// attributes), used by repository checks.
type Terraform struct {
	Resources  []string   `yaml:"resources,omitempty" json:"resources,omitempty"`
	Attributes []FieldRef `yaml:"attributes,omitempty" json:"attributes,omitempty"`
}

// Match is everything an entry can be recognised by.
type Match struct {
	Endpoints        []Endpoint `yaml:"endpoints,omitempty" json:"endpoints,omitempty"`
	Objects          []string   `yaml:"objects,omitempty" json:"objects,omitempty"`
	Fields           []FieldRef `yaml:"fields,omitempty" json:"fields,omitempty"`
	Settings         []string   `yaml:"settings,omitempty" json:"settings,omitempty"`
	ExpressionFields []string   `yaml:"expression_fields,omitempty" json:"expression_fields,omitempty"`
	Terraform        Terraform  `yaml:"terraform,omitempty" json:"terraform,omitzero"`
	// Text holds regular expressions for behaviours only visible in scripts (e.g. a request
	// setting both Transfer-Encoding and Content-Length).
	Text []string `yaml:"text,omitempty" json:"text,omitempty"`
}

// Entry is one deprecation.
type Entry struct {
	ID    vocab.RuleID `yaml:"id" json:"id"`
	Title string       `yaml:"title" json:"title"`
	// Description says what exactly is deprecated, in a sentence or two.
	Description string `yaml:"description" json:"description"`
	// DeprecatedOn is when the deprecation was announced (zero when unknown: deprecated
	// since before any as-of date that matters).
	DeprecatedOn Date `yaml:"deprecated_on,omitempty" json:"deprecated_on,omitzero"`
	// EndOfLife is when the interface stops being available (the spec's date).
	EndOfLife Date `yaml:"end_of_life,omitempty" json:"end_of_life,omitzero"`
	// DateSource is "spec" or "notice": where the effective dates come from.
	DateSource string `yaml:"date_source" json:"date_source"`
	// Notice holds the dates of the latest public notice when they differ from the spec's;
	// WithDates("notice") makes them effective.
	Notice *NoticeDates `yaml:"notice,omitempty" json:"notice,omitempty"`
	// Advisory entries describe a behaviour change, or a rename, to know about; they are
	// always SeverityNotice.
	Advisory bool `yaml:"advisory,omitempty" json:"advisory,omitempty"`
	// AdvisoryText is what findings call an advisory entry where they say where it stands
	// (LifeAt): "a rename: the old names still work and mean the same". "" is "a behaviour
	// change", which a rename is not.
	AdvisoryText string   `yaml:"advisory_text,omitempty" json:"advisory_text,omitempty"`
	Replacement  string   `yaml:"replacement" json:"replacement"`
	DocURL       string   `yaml:"doc_url" json:"doc_url"`
	Notes        []string `yaml:"notes,omitempty" json:"notes,omitempty"`
	Match        Match    `yaml:"match" json:"match"`
	// Override must be true in a user file to replace an embedded entry of the same id.
	Override bool `yaml:"override,omitempty" json:"-"`
	// Origin is where the entry was read from ("deprecations.yaml:12", "team.yaml:3"), so
	// errors about duplicates can name both places. It is never read from a file.
	Origin string `yaml:"-" json:"-"`
}

// NoticeDates are the dates of a later public notice.
type NoticeDates struct {
	DeprecatedOn Date   `yaml:"deprecated_on,omitempty" json:"deprecated_on,omitzero"`
	EndOfLife    Date   `yaml:"end_of_life,omitempty" json:"end_of_life,omitzero"`
	Text         string `yaml:"text,omitempty" json:"text,omitempty"`
}
