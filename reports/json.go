package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// JSON writes the JSON report: indented by two spaces, fields in the documented order, lists
// as [] when empty (never null), and a trailing newline. HTML characters are not escaped, so
// expressions such as `a && b` read as written.
type JSON struct{}

// Write implements Reporter.
func (JSON) Write(w io.Writer, r *Report) error {
	out := *r // a shallow copy: normalising lists must not touch the caller's report
	out.normalize()
	if out.SchemaVersion == 0 {
		out.SchemaVersion = SchemaVersion
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&out); err != nil { // Encode ends with the trailing newline
		return fmt.Errorf("encoding JSON report: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("writing JSON report: %w", err)
	}
	return nil
}
