package cli

import (
	"cmp"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// briefVerification reports whether verify's table on stdout is summed up: on a terminal,
// for more zones than the report's table details (reports.TableDetailGroups).
func briefVerification(s *Streams, w io.Writer, p *migrate.Plan) bool {
	return s.OutTTY && w == s.Out && len(p.Zones) > reports.TableDetailGroups
}

// writeVerificationBrief is verify's table summed up: the zones that decide or count
// otherwise, each with its details; the rate limits that do not carry over exactly, counted
// by reason; where every zone's line is; the totals' line.
func writeVerificationBrief(w io.Writer, p *migrate.Plan, t verifyTotals) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	var differ []verifyZone
	for _, z := range p.Zones {
		if v := z.Verification; v != nil && !v.Same() {
			differ = append(differ, verifyZone{ZoneID: z.ZoneID, ZoneName: z.ZoneName, Verification: v})
		}
	}
	if len(differ) == 0 {
		fmt.Fprintf(w, "Every one of the %d zones decides and counts as before.\n", len(p.Zones))
	} else {
		verb := "zones that decide or count"
		if len(differ) == 1 {
			verb = "zone that decides or counts"
		}
		fmt.Fprintf(w, "The %s otherwise (%d of %d):\n", verb, len(differ), len(p.Zones))
		fmt.Fprintf(tw, "ZONE\tREQUESTS\tDIFFERING\tRATE LIMITS\tRESULT\n")
		for _, z := range differ {
			v := z.Verification
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\n", textsafe.Sanitize(z.ZoneName), v.Requests, v.Differing, v.ComparedRateLimits(), textsafe.Sanitize(v.VerificationLine()))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, z := range differ {
			writeZoneDetails(w, z)
		}
	}
	writeNotExact(w, p)
	fmt.Fprintf(w, "\nEvery zone one by one: --format table:FILE (or --format json:FILE).\n")
	fmt.Fprintf(w, "%s: %d of %d zones decide otherwise, %d without a declared reason.\n", t.verifiedOn(), t.differ, t.zones, t.undeclared)
	return nil
}

// numbers are the figures of a reason, put aside to count reasons alike together.
var numbers = regexp.MustCompile(`[0-9]+`)

// writeNotExact counts the rate limits that do not carry over exactly by reason (figures
// aside: "period N s -> N s"), the 10 most frequent first.
func writeNotExact(w io.Writer, p *migrate.Plan) {
	count, total := map[string]int{}, 0
	for _, z := range p.Zones {
		if z.Verification == nil {
			continue
		}
		for _, rl := range z.Verification.RateLimits {
			if len(rl.NotExact) > 0 {
				total++
			}
			for _, why := range rl.NotExact {
				count[numbers.ReplaceAllString(why, "N")]++
			}
		}
	}
	if total == 0 {
		return
	}
	reasons := make([]string, 0, len(count))
	for r := range count {
		reasons = append(reasons, r)
	}
	slices.SortFunc(reasons, func(a, b string) int { return cmp.Or(count[b]-count[a], strings.Compare(a, b)) })
	fmt.Fprintf(w, "\n%s not carried over exactly, by reason:\n", reports.Plural(total, "rate limit", "rate limits"))
	for i, r := range reasons {
		if i == 10 {
			fmt.Fprintf(w, "  and %d more reasons\n", len(reasons)-i)
			break
		}
		fmt.Fprintf(w, "  %5d  %s\n", count[r], textsafe.Sanitize(r))
	}
}
