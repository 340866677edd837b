package collect

import (
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// Change is a zone an audit log entry names, by id, by name or both.
type Change struct {
	ZoneID, ZoneName string
}

// ReuseUnchanged is an Options.Reuse for an incremental rescan: a zone the snapshot holds
// complete is reused unless a change names it (by id or name). Zones the snapshot lacks
// (added since) and zones it holds with errors are scanned.
func ReuseUnchanged(st *inventory.Stream, changed []Change) func(inventory.Zone) (*inventory.ZoneInventory, bool) {
	ids, names := map[string]bool{}, map[string]bool{}
	for _, c := range changed {
		if c.ZoneID != "" {
			ids[c.ZoneID] = true
		}
		if c.ZoneName != "" {
			names[c.ZoneName] = true
		}
	}
	reuse := ReuseComplete(st)
	return func(z inventory.Zone) (*inventory.ZoneInventory, bool) {
		if ids[z.ID] || names[z.Name] {
			return nil, false
		}
		return reuse(z)
	}
}

// listedOnly ends an Options.ListOnly collection: the selected accounts and zones, unread.
func listedOnly(snap *inventory.Snapshot, zones []inventory.Zone) *inventory.Snapshot {
	snap.Zones = make([]inventory.ZoneInventory, len(zones))
	for i, z := range zones {
		snap.Zones[i] = inventory.ZoneInventory{Zone: z}
	}
	snap.Sort()
	return snap
}

// RequestsPerAccount is what an account's own objects cost at least (dns_settings, load
// balancer pools, tunnels, Access bookmarks), besides its zone listing.
const RequestsPerAccount = 4

// ConditionalAccountRequests is the most the reads for the plan add to RequestsPerAccount
// when their lists fit in one page: the Access applications of an account with a bookmark,
// the notification policies of one with a pool's notification_email (scanForPlan).
const ConditionalAccountRequests = 2

// AccountRequests is what reading an account again costs when its objects are still a's
// and every list fits in one page: RequestsPerAccount and the reads for the plan a's
// bookmarks and pools call for.
func AccountRequests(a *inventory.AccountInventory) int {
	n := RequestsPerAccount
	if a.NeedsAccessApps() {
		n++
	}
	if a.NeedsNotificationPolicies() {
		n++
	}
	return n
}

// Estimate is what collecting a listed account will cost, before it starts.
type Estimate struct {
	// Zones and Accounts are the listed ones; Reused the zones a previous snapshot covers.
	Zones, Accounts, Reused int
	// Requests is the requests still to send: per account read AccountRequests of its
	// earlier read when the previous snapshot holds it, else RequestsPerAccount; per zone to
	// read its request count in the previous snapshot when it has one, else RequestsPerZone
	// (a zone with WAF packages, entry points or long lists costs more).
	Requests int
	// Conditional is how many more requests the reads for the plan may add that no earlier
	// read tells (an account the previous snapshot lacks, or whose bookmarks or pools it
	// could not read): up to ConditionalAccountRequests per such account. The listing does
	// not say which accounts have bookmarks or pools.
	Conditional int
}

// EstimateRequests prices a collection of listed (an Options.ListOnly snapshot) with the
// run's opts.Reuse and opts.ReuseAccount (nil: none); previous is the snapshot of an
// earlier run (nil: none), which holds a zone's last request count and an account's objects.
func EstimateRequests(listed *inventory.Snapshot, opts Options, previous *inventory.Snapshot) Estimate {
	e := Estimate{Zones: len(listed.Zones), Accounts: len(listed.Accounts)}
	zoneCost := map[string]int{}
	accounts := map[string]*inventory.AccountInventory{}
	if previous != nil {
		for _, z := range previous.Zones {
			zoneCost[z.Zone.ID] = z.Requests
		}
		for i := range previous.Accounts {
			accounts[previous.Accounts[i].Account.ID] = &previous.Accounts[i]
		}
	}
	for _, a := range listed.Accounts {
		if opts.ReuseAccount != nil {
			if _, ok := opts.ReuseAccount(a.Account.ID); ok {
				continue
			}
		}
		known, unknown := accountCost(accounts[a.Account.ID])
		e.Requests += known
		e.Conditional += unknown
	}
	for _, z := range listed.Zones {
		if opts.Reuse != nil {
			if _, ok := opts.Reuse(z.Zone); ok {
				e.Reused++
				continue
			}
		}
		n := zoneCost[z.Zone.ID]
		if n <= 0 {
			n = RequestsPerZone
		}
		e.Requests += n
	}
	return e
}

// accountCost is what reading an account costs by its earlier read (nil: none): the
// requests that read tells, and the reads for the plan it cannot tell, because it did not
// read the bookmarks or the pools that decide them.
func accountCost(prev *inventory.AccountInventory) (known, unknown int) {
	if prev == nil {
		return RequestsPerAccount, ConditionalAccountRequests
	}
	known = AccountRequests(prev)
	for _, e := range prev.Errors {
		switch {
		case e.What == partBookmarks && !prev.NeedsAccessApps(),
			e.What == partPools && !prev.NeedsNotificationPolicies():
			unknown++
		}
	}
	return known, unknown
}
