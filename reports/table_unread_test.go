package reports

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner"
)

// TestTableGroupsReadErrors: an interrupted run with 40 zones cut short (several parts each)
// and 160 never started prints each cut zone once, at most DefaultMaxUnread of them, and the
// never-started zones as one count, not one line per part.
func TestTableGroupsReadErrors(t *testing.T) {
	var errs []scanner.RunError
	for i := range 40 {
		for _, part := range []string{"dns_records", "firewall/rules", "rate_limits"} {
			errs = append(errs, scanner.RunError{ZoneID: fmt.Sprintf("z%02d", i), ZoneName: fmt.Sprintf("zone%02d.example", i), What: part, Message: "not scanned: interrupted"})
		}
	}
	r := NewReport(Input{Errors: errs, Counts: Counts{ZonesScanned: 40, ZonesFailed: 40, ZonesNotScanned: 160}})
	out := render(t, "table", Options{Width: 120}, r)
	_, block, ok := strings.Cut(out, "Could not read (120 errors):\n")
	if !ok {
		t.Fatalf("no read-error heading:\n%s", out)
	}
	block, _, _ = strings.Cut(block, "\n\n")
	lines := strings.Split(block, "\n")
	if len(lines) != DefaultMaxUnread+2 {
		t.Errorf("%d lines under the heading, want %d (named zones, the rest counted, the never started):\n%s", len(lines), DefaultMaxUnread+2, block)
	}
	if strings.Count(block, "zone00.example") != 1 || !strings.Contains(block, "(and 2 more parts)") {
		t.Errorf("a cut zone is not named once with its other parts counted:\n%s", block)
	}
	if !strings.Contains(block, "160 zones never started") || !strings.Contains(out, "160 zones not scanned") {
		t.Errorf("the never-started zones are not counted:\n%s", out)
	}
}
