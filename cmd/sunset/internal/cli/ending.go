package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// At scale a command prints totals and the few scopes with the most to do, and says where
// every one is listed, instead of a line per zone (2,000 zones, 2,000 lines).
const (
	// briefAbove is how many zones (or scopes) a command still lists one line each.
	briefAbove = 20
	// briefTop is how many of the zones with the most to do a brief list names.
	briefTop = 10
)

// printEnding ends a command as the demo does, on w (stderr: stdout may carry a machine
// format), "sunset: " first: where its files went, then the command to run next.
func printEnding(w io.Writer, wrote []string, next string) {
	if len(wrote) > 0 {
		fmt.Fprintf(w, "sunset: wrote %s\n", textsafe.Sanitize(strings.Join(wrote, ", ")))
	}
	if next != "" {
		fmt.Fprintf(w, "sunset: next: %s\n", textsafe.Sanitize(next))
	}
}

// filesOf names the outputs of specs written to files, each with its format.
func filesOf(specs []reports.FormatSpec) []string {
	var out []string
	for _, spec := range specs {
		if !spec.Stdout() {
			out = append(out, fmt.Sprintf("%s (%s)", spec.Path, spec.Format))
		}
	}
	return out
}
