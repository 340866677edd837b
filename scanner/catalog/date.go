package catalog

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// dateLayout is the only accepted spelling of a Date.
const dateLayout = "2006-01-02"

// NewDate returns the calendar day y-m-d as a Date (UTC midnight).
func NewDate(y int, m time.Month, d int) Date {
	return Date{time.Date(y, m, d, 0, 0, 0, 0, time.UTC)}
}

// DateOf returns the calendar day of t in t's own location, so that an as-of time given in
// local time is not moved to a neighbouring day by a conversion to UTC.
func DateOf(t time.Time) Date {
	if t.IsZero() {
		return Date{}
	}
	y, m, d := t.Date()
	return NewDate(y, m, d)
}

// ParseDate reads "YYYY-MM-DD"; the empty string is the zero Date.
func ParseDate(s string) (Date, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Date{}, nil
	}
	t, err := time.Parse(dateLayout, s)
	if err != nil {
		return Date{}, fmt.Errorf("invalid date %q: write it as YYYY-MM-DD, e.g. 2025-01-15", s)
	}
	return Date{t}, nil
}

// String returns "YYYY-MM-DD", or "" for the zero Date.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return d.UTC().Format(dateLayout)
}

// MarshalText writes "YYYY-MM-DD" ("" for zero); it replaces time.Time's RFC 3339 form.
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads "YYYY-MM-DD".
func (d *Date) UnmarshalText(b []byte) error {
	v, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// MarshalJSON writes a JSON string "YYYY-MM-DD" ("" for zero).
func (d Date) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a JSON string "YYYY-MM-DD"; null and "" are the zero Date.
func (d *Date) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*d = Date{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("date must be a string \"YYYY-MM-DD\", got %s", b)
	}
	return d.UnmarshalText([]byte(s))
}

// MarshalYAML writes the plain scalar "YYYY-MM-DD".
func (d Date) MarshalYAML() (any, error) { return d.String(), nil }

// UnmarshalYAML reads a scalar "YYYY-MM-DD". YAML would resolve an unquoted 2025-01-15 to a
// timestamp; reading the node's text keeps both quoted and unquoted dates working and rejects
// timestamps with a time of day. The error carries the node's line.
func (d *Date) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: a date must be a plain value YYYY-MM-DD", n.Line)
	}
	if n.Tag == "!!null" {
		*d = Date{}
		return nil
	}
	v, err := ParseDate(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*d = v
	return nil
}
