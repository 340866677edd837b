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

// CSVHeader is the header row of the CSV format.
var CSVHeader = []string{
	"severity", "rule_id", "title", "zone_name", "zone_id", "account_id",
	"resource_kind", "resource_id", "resource_name", "path", "line", "column",
	"message", "end_of_life", "replacement", "fingerprint", "suppressed",
}

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
	row := make([]string, len(CSVHeader))
	for i := range r.Findings {
		csvRow(row, &r.Findings[i])
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
	var path, line, column string
	if l := f.Location; l != nil {
		path = slashPath(l.Path)
		if l.StartLine > 0 {
			line = strconv.Itoa(l.StartLine)
		}
		if l.StartColumn > 0 {
			column = strconv.Itoa(l.StartColumn)
		}
	}
	vals := [...]string{
		f.Severity.String(), string(f.RuleID), f.Title, f.ZoneName, f.ZoneID, f.AccountID,
		string(f.Resource.Kind), f.Resource.ID, f.Resource.Name, path, line, column,
		f.Message, f.EndOfLife, f.Replacement, f.Fingerprint, strconv.FormatBool(f.Suppressed),
	}
	for i, v := range vals {
		row[i] = csvCell(v)
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
