package cli

import (
	"fmt"
	"math"
	"time"

	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/collect"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// printDryRun prices the scan of the listed accounts and zones on stdout and ends the
// command with exit 0. The requests already sent (account and zone listings, audit log
// pages) are counted, and sent again by the scan itself.
func (inc *incremental) printDryRun(s *Streams, o *scanOptions, client *cfapi.Client, copts collect.Options, listed *inventory.Snapshot) error {
	if listed == nil {
		return nil // the listing failed: readOrCollect reports why
	}
	var previous *inventory.Snapshot
	if inc.prev != nil {
		previous = inc.prev.Snapshot
	}
	est := collect.EstimateRequests(listed, copts, previous)
	sent := int(client.Stats().Requests)
	total := sent + est.Requests
	sentWhat := ""
	if inc.since != "" {
		sentWhat = " (audit log pages included)"
	}
	fmt.Fprintf(s.Out, "dry run: %s, %s listed with %s%s\n", plural(est.Accounts, "account", "accounts"), plural(est.Zones, "zone", "zones"), plural(sent, "request", "requests"), sentWhat)
	if inc.prev != nil {
		from := inc.resume
		if from == "" {
			from = inc.since
		}
		fmt.Fprintf(s.Out, "%s would be taken from %s without a request\n", plural(est.Reused, "zone", "zones"), textsafe.Sanitize(from))
	}
	fmt.Fprintf(s.Out, "the scan would send about %s requests: the listing again, %d per account read (1 more with Access bookmarks, 1 more with a pool's notification_email, as the earlier snapshot says), %d per zone read (a zone's count in the earlier snapshot when known; more for WAF packages, entry points and long lists)\n",
		thousands(total), collect.RequestsPerAccount, collect.RequestsPerZone)
	if est.Conditional > 0 {
		// The listing does not say which accounts have bookmarks or pools.
		fmt.Fprintf(s.Out, "and up to %d more for accounts no earlier snapshot describes: their Access applications when they have Access bookmarks, their notification policies when a load balancer pool has notification_email (read so that a plan does not create one that exists already)\n",
			est.Conditional)
	}
	fmt.Fprintf(s.Out, "%s\n", dryRunTime(total, o.rps))
	printEnding(s.Err, nil, o.resumeCmd)
	return &exitError{code: ExitOK}
}

// dryRunTime says how long requests take at rps (0: unpaced).
func dryRunTime(requests int, rps float64) string {
	if rps <= 0 {
		return "unpaced (--rps 0): the time depends on the API's latency and its 1,200 requests per 5 minutes"
	}
	d := time.Duration(math.Ceil(float64(requests)/rps)) * time.Second
	return fmt.Sprintf("at %.3g requests per second (--rps): about %s", rps, d)
}
