package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/verify"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// flagNoVerify turns off the verification `sunset plan` runs by default.
const flagNoVerify = "no-verify"

func noVerifyFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: flagNoVerify, Usage: "do not verify the plan (evaluating old and new rules on generated requests)"}
}

// verifyPlan verifies p against snap and prints one line that sums the verification up to
// w, naming the zones that decide otherwise and where (what the run writes) their
// differences are listed. A plan is no gate: differences are reported, not an exit code.
func verifyPlan(w io.Writer, p *migrate.Plan, snap *inventory.Snapshot, where string) {
	verify.Verify(p, snap)
	requests, differ, undeclared := verificationTotals(p)
	if differ == 0 {
		fmt.Fprintf(w, "Verified on %d generated requests: same decision in every zone.\n", requests)
		return
	}
	fmt.Fprintf(w, "Verified on %d generated requests: %d of %d zones decide otherwise (%d without a declared reason): %s; %s shows each zone's verification.\n",
		requests, differ, len(p.Zones), undeclared, namedList(differingZones(p)), where)
}

// differingZones are the names (ids when unnamed) of the zones whose verification found a
// difference, in plan order.
func differingZones(p *migrate.Plan) []string {
	var names []string
	for _, z := range p.Zones {
		if z.Verification != nil && !z.Verification.Same() {
			name := z.ZoneName
			if name == "" {
				name = z.ZoneID
			}
			names = append(names, name)
		}
	}
	return names
}

// verificationTotals are the requests tried in all zones, the zones whose new rules decide
// or count otherwise somewhere, and how many of those have a difference the plan does not
// declare.
func verificationTotals(p *migrate.Plan) (requests, differ, undeclared int) {
	for _, z := range p.Zones {
		v := z.Verification
		if v == nil {
			continue
		}
		requests += v.Requests
		for _, rl := range v.RateLimits {
			requests += rl.Requests
		}
		if !v.Same() {
			differ++
		}
		if undeclaredIn(v) {
			undeclared++
		}
	}
	return requests, differ, undeclared
}

// undeclaredIn reports whether a zone has a difference its plan does not declare: a decision
// no plan note or step accounts for, or a rate limit that counts other requests.
func undeclaredIn(v *migrate.Verification) bool {
	for _, d := range v.Differences {
		if d.Declared == "" {
			return true
		}
	}
	for _, rl := range v.RateLimits {
		if rl.Differing > 0 {
			return true
		}
	}
	return false
}

// verifyFlags are the plan's source flags (live or --snapshot, with --plan-in for a saved
// plan), the flags that judge findings, and a --format of its own: table or json. Scan's
// gate and colour flags are not among them (withoutReport gives the resolver their values).
func verifyFlags() []ucli.Flag {
	out := []ucli.Flag{}
	for _, f := range scanFlags() {
		switch f.Names()[0] {
		case flagFormat:
			out = append(out, &ucli.StringFlag{Name: flagFormat, Value: "table", Usage: "output `FORMAT`: table or json, to stdout"})
		case flagFailOn, flagColor:
		default:
			out = append(out, f)
		}
	}
	return append(out, &ucli.StringFlag{Name: "plan-in", Usage: "verify the saved plan `FILE` (plan.json) against --snapshot, the snapshot it was built from"})
}

func verifyCommand(s *Streams) *ucli.Command {
	return &ucli.Command{
		Name:  "verify",
		Usage: "check that a plan's new rules decide as the old ones did, on generated requests",
		Description: "For each zone, evaluates the old firewall rules (priority, action precedence, log and\n" +
			"bypass going on, allow ending) and the plan's custom rules (list order) on requests generated\n" +
			"from every condition of every rule, and each old rate limit against its rate limiting rule.\n" +
			"Reports per zone the requests tried, the decisions that differ with a witness request and\n" +
			"the rules involved, and what of each rate limit is not exact. The plan is --plan-in FILE with\n" +
			"the --snapshot it was built from, or built as `sunset plan` builds it (live or --snapshot).\n" +
			"It proves agreement on the generated requests only. Exit 0 no difference the plan does not\n" +
			"declare, 1 such a difference, 2 usage, 3 fatal, 4 incomplete scan or a zone missing from the\n" +
			"snapshot (4 wins over 1).",
		Flags:  verifyFlags(),
		Action: func(c *ucli.Context) error { return runVerify(c, s) },
	}
}

// runVerify reads or builds the plan, verifies it and writes the result.
func runVerify(c *ucli.Context, s *Streams) error {
	if err := noArgs(c); err != nil {
		return err
	}
	format := c.String(flagFormat)
	if format != "table" && format != "json" {
		return usageErrorf("--format %q: want table or json", format)
	}
	opts, err := resolveScanOptions(withoutReport(c), s)
	if err != nil {
		return err
	}
	planIn := c.String("plan-in")
	if planIn != "" && opts.snapshotIn == "" {
		return usageErrorf("--plan-in needs --snapshot, the snapshot the plan was built from")
	}
	snap, collectErr, err := planSource(c, s, opts)
	if snap == nil {
		return err
	}
	var p *migrate.Plan
	incomplete := collectErr != nil
	if planIn != "" {
		if p, err = readPlanFile(planIn); err != nil {
			return err
		}
		p, _ = selectPlan(p, snap, opts) // the zones --zone, --zone-filter and --account keep
	} else {
		res := scanner.ScanSnapshot(snap, opts.catalog, scanner.Options{AsOf: opts.asOf})
		p, incomplete = buildPlan(snap, res, opts), incomplete || res.Incomplete
	}
	verify.Verify(p, snap)
	if err := writeVerification(s.Out, format, p); err != nil {
		return fatalError(fmt.Errorf("cannot write the verification: %w", err))
	}
	_, _, undeclared := verificationTotals(p)
	incomplete = incomplete || missingZones(p) > 0
	if incomplete {
		fmt.Fprintf(s.Err, "sunset: the scan is incomplete or the snapshot lacks zones of the plan; the verification covers what was read\n")
	}
	if code := outcomeCode(undeclared > 0, incomplete); code != ExitOK {
		return &exitError{code: code}
	}
	return nil
}

// readPlanFile reads --plan-in; anything wrong with it is the caller's input (exit 2).
func readPlanFile(path string) (*migrate.Plan, error) {
	f, err := openInput(path, maxSavedFile)
	if err != nil {
		return nil, usageErrorf("--plan-in: %v", err)
	}
	defer func() { _ = f.Close() }() // read only: read whole or its error returned
	p, err := migrate.ReadPlan(f)
	if err != nil {
		return nil, usageErrorf("--plan-in %s: %v", path, err)
	}
	return p, nil
}

// missingZones counts the plan's zones the snapshot did not hold (verify notes them).
func missingZones(p *migrate.Plan) int {
	n := 0
	for _, z := range p.Zones {
		if v := z.Verification; v != nil && v.Missing {
			n++
		}
	}
	return n
}

// verifyOutput is the JSON form of `sunset verify`.
type verifyOutput struct {
	Requests   int          `json:"requests"`
	Differing  int          `json:"zones_differing"`
	Undeclared int          `json:"zones_undeclared"`
	Zones      []verifyZone `json:"zones"`
}

type verifyZone struct {
	ZoneID       string                `json:"zone_id"`
	ZoneName     string                `json:"zone_name"`
	Verification *migrate.Verification `json:"verification"`
}

// writeVerification writes the verification of every zone as a table or as JSON.
func writeVerification(w io.Writer, format string, p *migrate.Plan) error {
	out := verifyOutput{Zones: []verifyZone{}}
	out.Requests, out.Differing, out.Undeclared = verificationTotals(p)
	for _, z := range p.Zones {
		out.Zones = append(out.Zones, verifyZone{ZoneID: z.ZoneID, ZoneName: z.ZoneName, Verification: z.Verification})
	}
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "ZONE\tREQUESTS\tDIFFERING\tRESULT\n")
	for _, z := range out.Zones {
		v := z.Verification
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", textsafe.Sanitize(z.ZoneName), v.Requests, v.Differing, textsafe.Sanitize(v.VerificationLine()))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, z := range out.Zones {
		writeZoneDetails(w, z)
	}
	fmt.Fprintf(w, "Verified on %d generated requests: %d of %d zones decide otherwise, %d without a declared reason.\n",
		out.Requests, out.Differing, len(out.Zones), out.Undeclared)
	return nil
}

// writeZoneDetails lists a zone's differences and rate limits that are not exact, one
// sanitised line each, under the zone's name.
func writeZoneDetails(w io.Writer, z verifyZone) {
	v := z.Verification
	var lines []string
	for _, d := range v.Differences {
		witness, _ := json.Marshal(d.Witness) // decoded or generated values: always encodable
		line := fmt.Sprintf("%d requests: old %s by %s, new %s by %s; witness %s", d.Requests,
			orDash(d.Old.Action), orDash(d.Old.By), orDash(d.New.Action), orDash(d.New.By), witness)
		if d.Declared != "" {
			line += "; declared: " + d.Declared
		}
		lines = append(lines, line)
	}
	for _, rl := range v.RateLimits {
		if rl.Differing > 0 {
			witness, _ := json.Marshal(rl.Witness) // as above
			lines = append(lines, fmt.Sprintf("rate limit %s: %d of %d requests counted otherwise (old %t, new %t); witness %s",
				rl.RateLimitID, rl.Differing, rl.Requests, rl.OldCounts, rl.NewCounts, witness))
		}
		if len(rl.NotExact) > 0 {
			lines = append(lines, fmt.Sprintf("rate limit %s not exact: %s", rl.RateLimitID, strings.Join(rl.NotExact, "; ")))
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s:\n", textsafe.Sanitize(z.ZoneName))
	for _, l := range lines {
		fmt.Fprintf(w, "  %s\n", textsafe.Sanitize(l))
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
