package reports

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// column is one column of the row formats (CSV and TSV): its name in the header and its
// value for a finding, raw (each format sanitises and escapes it its own way). The columns
// are defined once here and both layouts pick from them, so a column reads the same in both.
type column struct {
	name  string
	value func(f *scanner.Finding) string
}

// The columns of the row formats.
var (
	colSeverity     = column{"severity", func(f *scanner.Finding) string { return f.Severity.String() }}
	colRuleID       = column{"rule_id", func(f *scanner.Finding) string { return string(f.RuleID) }}
	colTitle        = column{"title", func(f *scanner.Finding) string { return f.Title }}
	colZone         = column{"zone", zoneOf}
	colZoneName     = column{"zone_name", func(f *scanner.Finding) string { return f.ZoneName }}
	colZoneID       = column{"zone_id", func(f *scanner.Finding) string { return f.ZoneID }}
	colAccountID    = column{"account_id", func(f *scanner.Finding) string { return f.AccountID }}
	colResourceKind = column{"resource_kind", func(f *scanner.Finding) string { return string(f.Resource.Kind) }}
	colResourceID   = column{"resource_id", func(f *scanner.Finding) string { return f.Resource.ID }}
	// colResourceRef is the resource's id, else its name: one column for formats without
	// resource_name.
	colResourceRef  = column{"resource_id", func(f *scanner.Finding) string { return orElse(f.Resource.ID, f.Resource.Name) }}
	colResourceName = column{"resource_name", func(f *scanner.Finding) string { return f.Resource.Name }}
	colPath         = column{"path", func(f *scanner.Finding) string { return locationPath(f) }}
	colLine         = column{"line", func(f *scanner.Finding) string {
		return locationNumber(f, func(l *scanner.Location) int { return l.StartLine })
	}}
	colColumn = column{"column", func(f *scanner.Finding) string {
		return locationNumber(f, func(l *scanner.Location) int { return l.StartColumn })
	}}
	colMessage     = column{"message", func(f *scanner.Finding) string { return f.Message }}
	colEndOfLife   = column{"end_of_life", func(f *scanner.Finding) string { return f.EndOfLife }}
	colReplacement = column{"replacement", func(f *scanner.Finding) string { return f.Replacement }}
	colFingerprint = column{"fingerprint", func(f *scanner.Finding) string { return f.Fingerprint }}
	colSuppressed  = column{"suppressed", func(f *scanner.Finding) string { return strconv.FormatBool(f.Suppressed) }}
)

// csvColumns is the CSV layout: every field of a finding.
var csvColumns = []column{
	colSeverity, colRuleID, colTitle, colZoneName, colZoneID, colAccountID,
	colResourceKind, colResourceID, colResourceName, colPath, colLine, colColumn,
	colMessage, colEndOfLife, colReplacement, colFingerprint, colSuppressed,
}

// columnNames is the header of a layout.
func columnNames(cols []column) []string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	return names
}

// locationPath is the slash-separated path of a file finding ("" for a live one).
func locationPath(f *scanner.Finding) string {
	if f.Location == nil {
		return ""
	}
	return slashPath(f.Location.Path)
}

// locationNumber is a line or column of a file finding, "" when unknown or for a live one.
func locationNumber(f *scanner.Finding, get func(*scanner.Location) int) string {
	if f.Location == nil || get(f.Location) <= 0 {
		return ""
	}
	return strconv.Itoa(get(f.Location))
}

// zoneOf names the zone of a live finding (its name, else its id) or "account:ID" for an
// account-level one; "" for a file finding, whose place is its path, line and column.
func zoneOf(f *scanner.Finding) string {
	switch {
	case f.ZoneName != "":
		return f.ZoneName
	case f.ZoneID != "":
		return f.ZoneID
	case f.AccountID != "":
		return "account:" + f.AccountID
	}
	return ""
}

// CSVHeader is the header row of the CSV format.
var CSVHeader = columnNames(csvColumns)

// CSV writes RFC 4180 comma-separated values (CRLF line ends, quotes doubled inside quoted
// fields): CSVHeader, then one row per finding, suppressed ones included with suppressed
// "true". Fields that do not apply are empty (a live finding has no path, line or column; a
// file finding has no zone). Report errors have no row: the JSON report carries them.
//
// Spreadsheets run a cell that starts with '=', '+', '-' or '@' as a formula, and zone names,
// descriptions and resource names come from the scanned account; such a cell is written with
// a leading apostrophe ("'=HYPERLINK(...)"), which spreadsheets show as text (OWASP's advice
// for CSV injection). Every field is sanitised first (see textsafe.Sanitize), so none holds a line break.
type CSV struct{}

// Write implements Reporter.
func (CSV) Write(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	cw := csv.NewWriter(bw)
	cw.UseCRLF = true
	if err := cw.Write(CSVHeader); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	row := make([]string, len(csvColumns))
	for _, f := range r.Findings.All() {
		csvRow(row, &f)
		if err := cw.Write(row); err != nil {
			return fmt.Errorf("writing CSV: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	return nil
}

// csvRow fills row with the fields of f, in CSVHeader's order.
func csvRow(row []string, f *scanner.Finding) {
	for i, c := range csvColumns {
		row[i] = csvCell(c.value(f))
	}
}

// csvCell sanitises a field and defuses it as a formula.
func csvCell(s string) string {
	s = textsafe.Sanitize(s)
	if s != "" && strings.IndexByte("=+-@", s[0]) >= 0 {
		return "'" + s
	}
	return s
}
