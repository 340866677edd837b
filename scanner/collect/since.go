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

// RequestsPerAccount is what an account's own objects cost (dns_settings, load balancer
// pools, tunnels, Access bookmarks), besides its zone listing.
const RequestsPerAccount = 4

// Estimate is what collecting a listed account will cost, before it starts.
type Estimate struct {
	// Zones and Accounts are the listed ones; Reused the zones a previous snapshot covers.
	Zones, Accounts, Reused int
	// Requests is the requests still to send: per account read RequestsPerAccount, per zone
	// to read its request count in the previous snapshot when it has one, else
	// RequestsPerZone (a zone with WAF packages, entry points or long lists costs more).
	Requests int
}

// EstimateRequests prices a collection of listed (an Options.ListOnly snapshot) with the
// run's opts.Reuse and opts.ReuseAccount (nil: none); previous finds a zone's last request
// count (nil, or 0: unknown).
func EstimateRequests(listed *inventory.Snapshot, opts Options, previous func(zoneID string) int) Estimate {
	e := Estimate{Zones: len(listed.Zones), Accounts: len(listed.Accounts)}
	for _, a := range listed.Accounts {
		if opts.ReuseAccount != nil {
			if _, ok := opts.ReuseAccount(a.Account.ID); ok {
				continue
			}
		}
		e.Requests += RequestsPerAccount
	}
	for _, z := range listed.Zones {
		if opts.Reuse != nil {
			if _, ok := opts.Reuse(z.Zone); ok {
				e.Reused++
				continue
			}
		}
		n := 0
		if previous != nil {
			n = previous(z.Zone.ID)
		}
		if n <= 0 {
			n = RequestsPerZone
		}
		e.Requests += n
	}
	return e
}
