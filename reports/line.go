package reports

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// Line writes one line per finding that is not suppressed, as compilers and golangci-lint
// print them, so editors jump to the place and grep keeps whole findings:
//
//	infra/waf.tf:12:3: error firewall-rules: Terraform resource ... uses the retired ...
//	shop.example: error firewall-rules firewall_rule Block bots: Firewall rule "Block bots" ...
//	account:47da6e62...: notice access-bookmarks-api access_bookmark Grafana: Access bookmark ...
//
// A file finding starts with its path, then its line and column when known; a live one with
// its zone (its name, else its id) or "account:ID" for an account-level one, then the object
// after the rule id. Findings come in the table's order (accounts, zones, files by name; a
// file's findings by line and column). Every piece of text is sanitised (textsafe.Sanitize),
// so a finding never spans two lines. Nothing else is written: the summary goes to standard
// error as for every format. With Options.Color the severity is coloured as in the table.
type Line struct {
	Options Options
}

// Write implements Reporter.
func (l Line) Write(w io.Writer, r *Report) error {
	st := newTableStyles(w, l.Options.Color)
	bw := bufio.NewWriter(w)
	for _, g := range tableGroups(r) {
		for _, fi := range g.idx {
			writeFindingLine(bw, st, new(g.findings.At(fi)))
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing lines: %w", err)
	}
	return nil
}

// writeFindingLine writes one finding: "PLACE: SEVERITY RULE[ OBJECT]: MESSAGE".
func writeFindingLine(bw *bufio.Writer, st tableStyles, f *scanner.Finding) {
	place, object := linePlace(f)
	bw.WriteString(place)
	bw.WriteString(": ")
	bw.WriteString(st.severityStyle(f.Severity).Render(f.Severity.String()))
	bw.WriteByte(' ')
	bw.WriteString(orElse(textsafe.Sanitize(string(f.RuleID)), "-"))
	if object != "" {
		bw.WriteByte(' ')
		bw.WriteString(object)
	}
	bw.WriteString(": ")
	bw.WriteString(textsafe.Sanitize(f.Message))
	bw.WriteByte('\n')
}

// linePlace returns where a finding is ("path:line:col", the zone, "account:ID", or "-") and,
// for a live finding, the object it is about (resourceLabel, "" when there is none); a file
// finding's place already says where, and its message names the object.
func linePlace(f *scanner.Finding) (place, object string) {
	if loc := f.Location; loc != nil && loc.Path != "" {
		place = textsafe.Sanitize(loc.Path)
		if loc.StartLine > 0 {
			place += ":" + strconv.Itoa(loc.StartLine)
			if loc.StartColumn > 0 {
				place += ":" + strconv.Itoa(loc.StartColumn)
			}
		}
		return place, ""
	}
	if object = resourceLabel(f); object == "-" {
		object = ""
	}
	return orElse(textsafe.Sanitize(zoneOf(f)), "-"), object
}
