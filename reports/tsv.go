package reports

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// TSVHeader is the one header line of the TSV format.
const TSVHeader = "severity\trule_id\tzone\tresource_kind\tresource_id\tmessage"

// TSV writes one tab-separated line per finding that is not suppressed, after TSVHeader:
// severity, rule_id, zone, resource_kind, resource_id, message. It is what scripts parse when
// output is piped: no colour, no decoration, no summary, one finding per line. Every field is
// sanitised (see textsafe.Sanitize), so no field holds a tab or a newline.
//
// The zone column holds the zone name (else its id) of a live finding, "account:ID" for an
// account-level one, and "PATH:LINE" (or PATH) for a file finding. resource_id is the
// resource's id, else its name.
type TSV struct{}

// Write implements Reporter.
func (TSV) Write(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(TSVHeader)
	bw.WriteByte('\n')
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Suppressed {
			continue
		}
		fields := [...]string{
			f.Severity.String(),
			string(f.RuleID),
			where(f),
			string(f.Resource.Kind),
			orElse(f.Resource.ID, f.Resource.Name),
			f.Message,
		}
		for j, v := range fields {
			if j > 0 {
				bw.WriteByte('\t')
			}
			bw.WriteString(tsvField(v))
		}
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing TSV: %w", err)
	}
	return nil
}

// tsvField sanitises a field; an empty one is written as "-" so every line keeps six
// non-empty columns for tools that split on runs of whitespace.
func tsvField(s string) string {
	if s = textsafe.Sanitize(s); s == "" {
		return "-"
	}
	return s
}

// where names the place of a finding in one string: the zone, the account or the file.
func where(f *scanner.Finding) string {
	if f.Location != nil && f.Location.Path != "" {
		if f.Location.StartLine > 0 {
			return f.Location.Path + ":" + strconv.Itoa(f.Location.StartLine)
		}
		return f.Location.Path
	}
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
