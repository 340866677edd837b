package reports

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// tsvColumns is the TSV layout, from the columns CSV has too (see column): where a finding is
// (zone for a live one; path, line and column for a file one) and what, one column each.
var tsvColumns = []column{
	colSeverity, colRuleID, colZone, colResourceKind, colResourceRef, colPath, colLine, colColumn, colMessage,
}

// TSVHeader is the one header line of the TSV format.
var TSVHeader = strings.Join(columnNames(tsvColumns), "\t")

// TSV writes one tab-separated line per finding that is not suppressed, after TSVHeader:
// severity, rule_id, zone, resource_kind, resource_id, path, line, column, message. It is
// what scripts parse when output is piped: no colour, no decoration, no summary, one finding
// per line. Every field is sanitised (see textsafe.Sanitize), so no field holds a tab or a
// newline.
//
// zone holds the zone name (else its id) of a live finding and "account:ID" for an
// account-level one; path, line and column the place of a file finding, as in CSV.
// resource_id is the resource's id, else its name. A field that does not apply is "-".
type TSV struct{}

// Write implements Reporter.
func (TSV) Write(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(TSVHeader)
	bw.WriteByte('\n')
	for _, f := range r.Findings.All() {
		if f.Suppressed {
			continue
		}
		for j, c := range tsvColumns {
			if j > 0 {
				bw.WriteByte('\t')
			}
			bw.WriteString(tsvField(c.value(&f)))
		}
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing TSV: %w", err)
	}
	return nil
}

// tsvField sanitises a field; an empty one is written as "-" so every line keeps all its
// columns non-empty for tools that split on runs of whitespace.
func tsvField(s string) string {
	if s = textsafe.Sanitize(s); s == "" {
		return "-"
	}
	return s
}

// where names the place of a finding in one string (JUnit and SARIF use it): "PATH:LINE" (or
// PATH) for a file finding, else the zone or account (see zoneOf).
func where(f *scanner.Finding) string {
	if f.Location != nil && f.Location.Path != "" {
		if f.Location.StartLine > 0 {
			return f.Location.Path + ":" + strconv.Itoa(f.Location.StartLine)
		}
		return f.Location.Path
	}
	return zoneOf(f)
}
