package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/collect"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// auditClockSkew widens the audit log window: entries carry the API's clock, taken_at this
// machine's; a minute too early costs at most a few zones read again.
const auditClockSkew = time.Minute

// sinceReuse reads the audit log of every account of the --since snapshot from the time it
// was taken and sets copts to reuse the zones no entry names, and the accounts no entry
// outside a zone names; it reuses nothing (every zone scanned) when the log cannot say,
// with the reason on stderr and in the report.
func (inc *incremental) sinceReuse(ctx context.Context, s *Streams, client *cfapi.Client, now time.Time, copts *collect.Options) {
	inc.report = &reports.Incremental{}
	prev := inc.prev
	taken := prev.Header.TakenAt
	if taken.IsZero() {
		inc.fullScan(s, "it holds no time of collection (a single-document snapshot, written before snapshots were streamed)")
		return
	}
	inc.report.Since = taken.UTC().Format(time.RFC3339)
	if now.Sub(taken) > cfapi.AuditLogRetention {
		inc.fullScan(s, "it is older than the audit log reaches back (18 months)")
		return
	}
	accounts := snapshotAccounts(prev.Snapshot)
	if len(accounts) == 0 {
		inc.fullScan(s, "it names no account whose audit log could be read")
		return
	}
	var changes []collect.Change
	changedAccounts := map[string]bool{}
	for _, id := range accounts {
		logs, err := client.ListAuditLogs(ctx, id, taken.Add(-auditClockSkew))
		if err != nil {
			inc.fullScan(s, fmt.Sprintf("the audit log of account %s cannot be read (%v)", id, err))
			return
		}
		for i := range logs {
			c := collect.Change{ZoneID: logs[i].ZoneID(), ZoneName: logs[i].ZoneName()}
			if c == (collect.Change{}) {
				changedAccounts[id] = true // an account object changed (pools, tunnels, ...)
				continue
			}
			changes = append(changes, c)
		}
	}
	copts.Reuse = collect.ReuseUnchanged(prev, changes)
	copts.ReuseAccount = collect.ReuseCompleteAccounts(prev, changedAccounts)
}

// fullScan records why --since scans every zone, and says it.
func (inc *incremental) fullScan(s *Streams, why string) {
	inc.report.FullScan = "--since " + inc.since + ": " + why + "; every zone scanned"
	fmt.Fprintf(s.Err, "sunset: %s\n", textsafe.Sanitize(inc.report.FullScan))
}

// snapshotAccounts are the ids of the snapshot's accounts and of its zones' accounts (a
// killed scan's stream has zones but not yet its account lines), sorted.
func snapshotAccounts(snap *inventory.Snapshot) []string {
	set := map[string]bool{}
	for _, a := range snap.Accounts {
		set[a.Account.ID] = true
	}
	for _, z := range snap.Zones {
		set[z.Zone.Account.ID] = true
	}
	delete(set, "")
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// maxNamed bounds the zone names the stderr summary lists; the JSON report has them all.
const maxNamed = 10

// printIncremental is the stderr summary of an incremental rescan.
func printIncremental(s *Streams, r *reports.Incremental) {
	since := r.Since
	if since == "" {
		since = "(unknown)"
	}
	fmt.Fprintf(s.Err, "sunset: incremental rescan since %s: %d zones rescanned, %d reused (%d added, %d removed)\n",
		since, len(r.Rescanned), len(r.Reused), len(r.Added), len(r.Removed))
	if len(r.Rescanned) > 0 && len(r.Reused) > 0 {
		fmt.Fprintf(s.Err, "sunset: rescanned: %s\n", namedList(r.Rescanned))
	}
}

func namedList(names []string) string {
	shown := names[:min(len(names), maxNamed)]
	out := make([]string, len(shown))
	for i, n := range shown {
		out[i] = textsafe.Sanitize(n)
	}
	line := strings.Join(out, ", ")
	if more := len(names) - len(shown); more > 0 {
		line += fmt.Sprintf(" and %d more", more)
	}
	return line
}
