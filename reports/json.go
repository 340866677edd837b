package reports

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/sunsetscan/sunset/scanner"
)

// JSON writes the JSON report: indented by two spaces, fields in the documented order, lists
// as [] when empty (never null), and a trailing newline. HTML characters are not escaped, so
// expressions such as `a && b` read as written. The findings are written one at a time, so
// a report of a million findings never exists as one encoded document in memory.
type JSON struct{}

// jsonReport is Report as written, the findings replaced by the streamed-array marker.
type jsonReport struct {
	SchemaVersion int                   `json:"schema_version"`
	Tool          Tool                  `json:"tool"`
	AsOf          string                `json:"as_of"`
	Source        Source                `json:"source"`
	Summary       Summary               `json:"summary"`
	Findings      json.RawMessage       `json:"findings"`
	Errors        []scanner.RunError    `json:"errors"`
	Retired       []scanner.RetiredNote `json:"retired"`
	Catalog       []RuleInfo            `json:"catalog"`
	AccountNames  map[string]string     `json:"account_names,omitempty"`
	Incremental   *Incremental          `json:"incremental,omitempty"`
}

// Write implements Reporter.
func (JSON) Write(w io.Writer, r *Report) error {
	out := *r // a shallow copy: normalising lists must not touch the caller's report
	out.normalize()
	if out.SchemaVersion == 0 {
		out.SchemaVersion = SchemaVersion
	}
	doc := jsonReport{
		SchemaVersion: out.SchemaVersion, Tool: out.Tool, AsOf: out.AsOf, Source: out.Source,
		Summary: out.Summary, Findings: streamMarker, Errors: out.Errors, Retired: out.Retired,
		Catalog: out.Catalog, AccountNames: out.AccountNames, Incremental: out.Incremental,
	}
	// Encode ends with the trailing newline.
	err := writeJSONStream(w, doc, "findings", out.Findings.Len(), func(i int) any {
		f := out.Findings.At(i)
		return &f
	})
	if err != nil {
		return fmt.Errorf("writing JSON report: %w", err)
	}
	return nil
}
