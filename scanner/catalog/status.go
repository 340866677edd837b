package catalog

import (
	"strings"
	"time"
)

// Statuses returned by Entry.StatusAt.
const (
	StatusRetired    = "retired"    // as of the date, the end of life has passed
	StatusDeprecated = "deprecated" // deprecated, end of life ahead (or not known)
	StatusUpcoming   = "upcoming"   // the deprecation is announced for a later day
	StatusAdvisory   = "advisory"   // a behaviour change to know about
)

// SeverityAt is the severity of a use of e as of the calendar day of asOf (in asOf's own
// location): advisory entries are notices; from the end of life on it is an error; while
// deprecated a warning; before DeprecatedOn nothing. A zero DeprecatedOn means "deprecated
// since before any date that matters". It reads no clock: the day is the caller's.
func (e Entry) SeverityAt(asOf time.Time) Severity {
	switch e.StatusAt(asOf) {
	case StatusAdvisory:
		return SeverityNotice
	case StatusRetired:
		return SeverityError
	case StatusDeprecated:
		return SeverityWarning
	}
	return SeverityNone
}

// StatusAt is the state of e as of the calendar day of asOf: "retired", "deprecated",
// "upcoming" or "advisory" (see the Status constants). An advisory entry is "upcoming" before
// its DeprecatedOn, if it has one, and "advisory" from then on.
func (e Entry) StatusAt(asOf time.Time) string {
	day := DateOf(asOf)
	if !e.DeprecatedOn.IsZero() && day.Before(e.DeprecatedOn.Time) {
		return StatusUpcoming
	}
	if e.Advisory {
		return StatusAdvisory
	}
	if !e.EndOfLife.IsZero() && !day.Before(e.EndOfLife.Time) {
		return StatusRetired
	}
	return StatusDeprecated
}

// LifeAt says in words where the entry stands on a date, for finding messages: "past its end
// of life (2025-01-15)", "deprecated, end of life 2025-01-15", "deprecated", or for an
// advisory its AdvisoryText, else "a behaviour change".
func (e Entry) LifeAt(asOf time.Time) string {
	eol := e.EndOfLife.String()
	switch e.StatusAt(asOf) {
	case StatusRetired:
		return "past its end of life (" + eol + ")"
	case StatusAdvisory:
		if t := strings.TrimSpace(e.AdvisoryText); t != "" {
			return t
		}
		return "a behaviour change"
	}
	if eol != "" {
		return "deprecated, end of life " + eol
	}
	return "deprecated"
}
