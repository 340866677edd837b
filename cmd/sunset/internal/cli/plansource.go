package cli

import (
	"fmt"
	"io"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// A saved plan says where it was read from (migrate.Plan.Source) and whether the scan read
// everything (Plan.Incomplete, Plan.Unread); vetPlan holds both to the plan's snapshot.
// Here verify and apply act on them before any request: the API an apply sends to, and
// what becomes of the zones and accounts the scan did not read whole.

// Flags of verify and apply about a saved plan's scan.
const (
	flagToOtherAPI = "to-other-api"
	flagPartial    = "partial"
)

func toOtherAPIFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: flagToOtherAPI, Usage: "apply the plan directory to the --api-url given although its plan was read from another API (without it, that is refused)"}
}

func partialFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: flagPartial, Usage: "take a plan from an incomplete scan: act only on the zones and accounts it read whole, name the others as skipped, exit 4 (without it, such a plan is refused)"}
}

// planAPIURL is the API base URL an apply sends to, decided before any request. For a plan
// directory it is where the plan was read from (its source) when neither --api-url nor
// SUNSET_API_URL is given, said on stderr; the URL given when it is the plan's, or when
// --to-other-api says to go elsewhere. Another API than the plan's is refused (exit 2), and
// so is, with --yes, a plan whose source is no URL (the demo's label, a plan that does not
// record one) when none is given. A live apply and a journal (checkJournalBinding) send to
// the source group's URL.
func planAPIURL(s *Streams, o *applyOptions, source string) (string, error) {
	src := o.source
	if o.saved.plan == "" {
		return src.baseURL, nil
	}
	plan := textsafe.Sanitize(o.saved.plan)
	planURL, given := reports.RedactURL(source), shownURL(src.baseURL)
	switch {
	case src.baseURLGiven && planURL != "" && !cfapi.SameBaseURL(src.baseURL, planURL) && !o.toOtherAPI:
		return "", usageErrorf("the plan %s was read from %s, not from %s: give --api-url %s (or SUNSET_API_URL) to apply it where it was read, or add --%s to apply it to %s",
			plan, planURL, given, planURL, flagToOtherAPI, given)
	case src.baseURLGiven:
		return src.baseURL, nil
	case planURL != "":
		fmt.Fprintf(s.Err, "sunset: applying to %s, the API the plan %s was read from (no --api-url or SUNSET_API_URL given)\n", planURL, plan)
		return planURL, nil
	case o.yes:
		return "", usageErrorf("the plan %s was read from %s, not from an API URL: give --api-url URL (or SUNSET_API_URL) to say which API to apply it to",
			plan, sourceLabel(source))
	}
	fmt.Fprintf(s.Err, "sunset: the plan %s was read from %s, not from an API URL: this dry run sends nothing; --yes needs --api-url URL (or SUNSET_API_URL)\n",
		plan, sourceLabel(source))
	return src.baseURL, nil
}

// shownURL is a base URL as messages show it: without user info or query (RedactURL), or a
// placeholder when it is no URL at all (it may hold anything, a secret included).
func shownURL(raw string) string {
	if u := reports.RedactURL(raw); u != "" {
		return u
	}
	return "the --api-url given (not a URL)"
}

// sourceLabel names a plan's source that is no URL.
func sourceLabel(source string) string {
	if source == "" {
		return "a source it does not record"
	}
	return fmt.Sprintf("%q", textsafe.Sanitize(source))
}

// incompleteRefusal is the refusal (exit 2) of a plan from an incomplete scan without
// --partial: it names the zones and accounts not read whole and the two ways out. verb is
// what the command does with a plan ("apply", "verify").
func incompleteRefusal(p *migrate.Plan, verb string) error {
	what := "what this plan holds was read whole, not all the scan was to read"
	if names := unreadLabels(p.Unread); len(names) > 0 {
		what = "not read whole: " + namedList(names)
	}
	return usageErrorf("the plan comes from an incomplete scan (%s), and its steps for what was not read may be missing or wrong: "+
		"continue the scan (sunset scan --resume SNAPSHOT --plan-dir DIR, SNAPSHOT being its --snapshot-out) and plan again, "+
		"or give --%s to %s only the zones and accounts read whole", what, flagPartial, verb)
}

// unreadLabels are "zone NAME" and "account NAME" for each mark.
func unreadLabels(marks []migrate.Unread) []string {
	out := make([]string, len(marks))
	for i, u := range marks {
		out[i] = u.Label()
	}
	return out
}

// writeSkipped says, one line each (prefix first: "sunset: " on stderr), which zones and
// accounts a --partial run skipped and why, then what to do about them.
func writeSkipped(w io.Writer, prefix string, skipped []migrate.Unread) {
	for _, u := range skipped {
		fmt.Fprintf(w, "%s%s: skipped: the scan did not read %s\n", prefix, textsafe.Sanitize(u.Label()), unreadParts(u))
	}
	if len(skipped) > 0 {
		fmt.Fprintf(w, "%sskipped %d zones and accounts the scan did not read whole (--%s): continue the scan (sunset scan --resume SNAPSHOT --plan-dir DIR) and run again on the new plan\n",
			prefix, len(skipped), flagPartial)
	}
}

// unreadParts says what the scan did not read of a zone or account.
func unreadParts(u migrate.Unread) string {
	if len(u.Parts) == 1 && u.Parts[0] == "zone" {
		return "it at all"
	}
	return textsafe.Sanitize(strings.Join(u.Parts, ", "))
}
