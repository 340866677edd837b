package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/migrate/verify"
	"github.com/sunsetscan/sunset/reports"
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
	reportVerification(w, p, where)
}

// reportVerification prints verifyPlan's line for a verified plan.
func reportVerification(w io.Writer, p *migrate.Plan, where string) {
	_ = reportVerificationOf(w, terraform.WholePlan(p), where)
}

// reportVerificationOf is reportVerification for a plan whose zones come one at a time.
func reportVerificationOf(w io.Writer, zones terraform.Zones, where string) error {
	var t verifyTotals
	var names []string // of the zones that decide otherwise (ids when unnamed), in plan order
	err := zones(func(z *migrate.ZonePlan) error {
		if t.add(z.Verification) {
			name := z.ZoneName
			if name == "" {
				name = z.ZoneID
			}
			names = append(names, name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case t.differ > 0:
		fmt.Fprintf(w, "%s: %d of %d zones decide otherwise (%d without a declared reason): %s; %s shows each zone's verification.\n",
			t.verifiedOn(), t.differ, t.zones, t.undeclared, namedList(names), where)
	case t.nothing():
		fmt.Fprintf(w, "%s.\n", t.verifiedOn())
	default:
		fmt.Fprintf(w, "%s: same decision in every zone.\n", t.verifiedOn())
	}
	return nil
}

// verifyTotals add the verifications of a plan's zones up: the generated requests the old
// and new rules decided (the REQUESTS column of verify's table), the rate limits compared
// with their rules and the generated requests they counted (the RATE LIMITS column, and a
// number of their own: they are not the requests decided), the zones, and those whose new
// rules decide or count otherwise somewhere, and of those how many have a difference the
// plan does not declare.
type verifyTotals struct {
	requests, rateLimits, rateLimitRequests int
	zones, differ, undeclared               int
}

// add adds one zone's verification (nil: not verified) and reports whether the zone decides
// or counts otherwise.
func (t *verifyTotals) add(v *migrate.Verification) bool {
	t.zones++
	if v == nil {
		return false
	}
	t.requests += v.Requests
	t.rateLimits += v.ComparedRateLimits()
	for _, rl := range v.RateLimits {
		t.rateLimitRequests += rl.Requests
	}
	if undeclaredIn(v) {
		t.undeclared++
	}
	if v.Same() {
		return false
	}
	t.differ++
	return true
}

// nothing reports whether no request was compared: no zone had a rule or rate limit the
// plan replaces.
func (t verifyTotals) nothing() bool { return t.requests == 0 && t.rateLimits == 0 }

// verifiedOn says what was compared: "Verified on N generated requests", with "(and M rate
// limits, on K more)" when rate limits were, or that nothing was.
func (t verifyTotals) verifiedOn() string {
	if t.nothing() {
		return "Nothing verified: no zone has a firewall rule or rate limit the plan replaces, so no request was compared"
	}
	s := "Verified on " + plural(t.requests, "generated request", "generated requests")
	if t.rateLimits > 0 {
		s += fmt.Sprintf(" (and %s, on %s more)", plural(t.rateLimits, "rate limit", "rate limits"), thousands(t.rateLimitRequests))
	}
	return s
}

// verificationTotals are verifyTotals of every zone of p.
func verificationTotals(p *migrate.Plan) verifyTotals {
	var t verifyTotals
	for _, z := range p.Zones {
		t.add(z.Verification)
	}
	return t
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

// verifyFlags are the source and judging groups (to build the plan when given none), the
// saved plan's, and a --format of verify's own, grouped in its help by the form each
// serves: a plan directory reads no account and judges nothing again.
func verifyFlags() []ucli.Flag {
	return regroup(slices.Concat(sourceFlags(), judgingFlags(), savedPlanFlags(), []ucli.Flag{outputFlag("table", "json")}),
		flagGroup{"Output", []string{flagFormat}},
		flagGroup{"The plan directory (PLAN_DIR or --plan-dir)", []string{flagPlanDir, "plan-in", flagPartial}},
		flagGroup{"Accounts and zones: of the plan, or of the live scan", []string{"account", "zone", "zone-filter"}},
		flagGroup{"Without a plan directory: the plan built as sunset plan builds it, from --snapshot or the live account", []string{"snapshot", "snapshot-out", flagAsOf, flagCatalog, flagDates}},
		flagGroup{"API: the live account read without a plan directory or --snapshot", apiFlagNames},
	)
}

func verifyCommand(s *Streams) *ucli.Command {
	return &ucli.Command{
		Name:      "verify",
		Usage:     "check that a plan's new rules decide as the old ones did, on generated requests",
		ArgsUsage: "[PLAN_DIR]",
		Description: "For each zone, evaluates the old firewall rules (priority, action precedence, log and\n" +
			"bypass going on, allow ending) and the plan's custom rules (list order) on requests generated\n" +
			"from every condition of every rule, and each old rate limit against its rate limiting rule.\n" +
			"Reports per zone the requests tried, the decisions that differ with a witness request and\n" +
			"the rules involved, and what of each rate limit is not exact. The plan is the plan directory\n" +
			"`sunset plan --plan-dir` wrote (it holds the snapshot it was built from), or, given none,\n" +
			"built as `sunset plan` builds it (live or --snapshot).\n" +
			"A plan directory from an incomplete scan is refused unless --partial, which verifies only the\n" +
			"zones read whole and names the others.\n" +
			"It proves agreement on the generated requests only. Exit 0 no difference the plan does not\n" +
			"declare, 1 such a difference, 2 usage, 3 fatal, 4 incomplete scan or a zone missing from the\n" +
			"snapshot (4 wins over 1).",
		Flags: verifyFlags(),
		Action: func(c *ucli.Context) error {
			o, err := resolveVerify(c, s)
			if err != nil {
				return err
			}
			return runVerify(c.Context, s, o)
		},
	}
}

// verifyOptions is what `sunset verify` resolved.
type verifyOptions struct {
	source  *scanOptions
	saved   savedPlan
	formats []reports.FormatSpec
	// partial takes a saved plan from an incomplete scan, verifying the scopes read whole.
	partial bool
}

// resolveVerify resolves verify's flags and argument.
func resolveVerify(c *ucli.Context, s *Streams) (*verifyOptions, error) {
	formats, err := outputSpecs(c, "table", "json")
	if err != nil {
		return nil, err
	}
	saved, err := savedPlanOf(c, s)
	if err != nil {
		return nil, err
	}
	live := saved.snapshot == "" && c.String("snapshot") == ""
	src, err := resolvePlanSource(c, s, false, saved.snapshot)
	if err != nil {
		return nil, err
	}
	if live {
		// Given no plan, verify builds one from the live account: without credentials the
		// user most likely meant a plan directory, and is told so first.
		if src.sourceOptions, err = src.withCredentials(c, s); err != nil {
			return nil, usageErrorf("verify: give the plan directory to verify (sunset verify plan/, the --plan-dir of sunset scan or sunset plan); "+
				"without one it builds the plan from --snapshot FILE or from the live account, which needs credentials: %v", err)
		}
	}
	return &verifyOptions{source: src, saved: saved, formats: formats, partial: c.Bool(flagPartial)}, nil
}

// runVerify reads or builds the plan, verifies it and writes the result.
func runVerify(ctx context.Context, s *Streams, o *verifyOptions) error {
	snap, collectErr, err := planSource(ctx, s, o.source)
	if snap == nil {
		return err
	}
	var p *migrate.Plan
	incomplete := collectErr != nil
	if o.saved.plan != "" {
		if p, err = readSavedPlan(s, o, snap); err != nil {
			return err
		}
		incomplete = incomplete || p.Incomplete
	} else {
		res := scanner.ScanSnapshot(snap, o.source.catalog, scanner.Options{AsOf: o.source.asOf})
		p, incomplete = buildPlan(snap, res, o.source), incomplete || res.Incomplete
	}
	verify.Verify(p, snap)
	if err := s.writeOutputs(o.formats, func(w io.Writer, format string) error {
		if format == "table" && briefVerification(s, w, p) {
			return writeVerificationBrief(w, p, verificationTotals(p))
		}
		return writeVerification(w, format, p)
	}); err != nil {
		return err
	}
	undeclared := verificationTotals(p).undeclared
	incomplete = incomplete || missingZones(p) > 0
	if incomplete {
		fmt.Fprintf(s.Err, "sunset: the scan is incomplete or the snapshot lacks zones of the plan; the verification covers what was read\n")
	}
	printEnding(s.Err, filesOf(o.formats), o.next(undeclared))
	if code := outcomeCode(undeclared > 0, incomplete); code != ExitOK {
		return &exitError{code: code}
	}
	return nil
}

// next is what to run after a verification: the apply's dry run of the plan verified, once
// any difference the plan does not declare is understood.
func (o *verifyOptions) next(undeclared int) string {
	apply := "sunset apply"
	if o.saved.plan != "" && filepath.Base(o.saved.plan) == planFile {
		apply += " " + filepath.Dir(o.saved.plan)
	}
	if undeclared > 0 {
		return apply + "   # a dry run, once the differences above without a declared reason are understood"
	}
	return apply + "   # a dry run: the requests it would send, nothing sent"
}

// readSavedPlan reads the plan of a plan directory, narrowed to the zones --zone,
// --zone-filter and --account keep of snap, its snapshot. A plan from an incomplete scan (as
// the plan or snap says: verify does not build the plan again) is refused without
// --partial; with it, the zones and accounts not read whole are left out and named on
// stderr.
func readSavedPlan(s *Streams, o *verifyOptions, snap *inventory.Snapshot) (*migrate.Plan, error) {
	p, err := readPlanInput(s, o.saved.plan)
	if err != nil {
		return nil, err
	}
	p, _ = selectPlan(p, snap, o.source)
	if p = p.WithMarksOf(snap); !p.Incomplete {
		return p, nil
	}
	if !o.partial {
		return nil, incompleteRefusal(p, "verify")
	}
	writeSkipped(s.Err, "sunset: ", p.Unread)
	return p.ReadWhole(), nil
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

// verifyOutput is the JSON form of `sunset verify`: requests are the generated requests the
// rules decided, the sum of the zones' verification.requests; the rate limits' are apart.
type verifyOutput struct {
	Requests          int          `json:"requests"`
	RateLimits        int          `json:"rate_limits"`
	RateLimitRequests int          `json:"rate_limit_requests"`
	Differing         int          `json:"zones_differing"`
	Undeclared        int          `json:"zones_undeclared"`
	Zones             []verifyZone `json:"zones"`
}

type verifyZone struct {
	ZoneID       string                `json:"zone_id"`
	ZoneName     string                `json:"zone_name"`
	Verification *migrate.Verification `json:"verification"`
}

// writeVerification writes the verification of every zone as a table or as JSON.
func writeVerification(w io.Writer, format string, p *migrate.Plan) error {
	out := verifyOutput{Zones: []verifyZone{}}
	t := verificationTotals(p)
	out.Requests, out.RateLimits, out.RateLimitRequests, out.Differing, out.Undeclared = t.requests, t.rateLimits, t.rateLimitRequests, t.differ, t.undeclared
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
	fmt.Fprintf(tw, "ZONE\tREQUESTS\tDIFFERING\tRATE LIMITS\tRESULT\n")
	for _, z := range out.Zones {
		v := z.Verification
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\n", textsafe.Sanitize(z.ZoneName), v.Requests, v.Differing, v.ComparedRateLimits(), textsafe.Sanitize(v.VerificationLine()))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, z := range out.Zones {
		writeZoneDetails(w, z)
	}
	if t.nothing() {
		fmt.Fprintf(w, "%s.\n", t.verifiedOn())
		return nil
	}
	fmt.Fprintf(w, "%s: %d of %d zones decide otherwise, %d without a declared reason.\n",
		t.verifiedOn(), out.Differing, len(out.Zones), out.Undeclared)
	return nil
}

// writeZoneDetails lists a zone's differences and rate limits that are not exact, one
// sanitised line each, under the zone's name.
func writeZoneDetails(w io.Writer, z verifyZone) {
	v := z.Verification
	var lines []string
	for _, d := range v.Differences {
		witness, _ := json.Marshal(d.Witness) // decoded or generated values: always encodable
		line := fmt.Sprintf("%d requests: old %s, new %s; witness %s", d.Requests, decisionText(d.Old), decisionText(d.New), witness)
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

// decisionText says what rules decided for a request: the action and the rule that took
// it, or that no rule did (the request goes on to the origin), with what was skipped and
// logged on the way.
func decisionText(d migrate.Decision) string {
	out := "no rule acts (the request goes on)"
	if d.Action != "" {
		out = d.Action
		if d.By != "" {
			out += " by " + d.By
		}
	}
	if len(d.Skipped) > 0 {
		out += ", skipping " + strings.Join(d.Skipped, ", ")
	}
	if d.Logged {
		out += ", logged"
	}
	return out
}
