package collect

import (
	"context"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// zoneOrReused is Options.Reuse's zone when it has one, else the zone scanned. A reused
// zone takes its identity from the listing just made (the newest name, plan and status)
// and adds no requests to the progress, which counts this run's requests.
func (c *collector) zoneOrReused(ctx context.Context, z inventory.Zone) inventory.ZoneInventory {
	if c.opts.Reuse == nil {
		return c.scanZone(ctx, z)
	}
	old, ok := c.opts.Reuse(z)
	if !ok || old == nil {
		return c.scanZone(ctx, z)
	}
	inv := *old
	inv.Zone = z
	c.progressMu.Lock()
	defer c.progressMu.Unlock()
	c.progress.ZonesDone++
	c.progress.ZonesReused++
	if len(inv.Errors) > 0 {
		c.progress.ZonesFailed++
	}
	if c.opts.Progress != nil {
		c.opts.Progress(c.progress)
	}
	return inv
}

// ReuseComplete is an Options.Reuse that takes the zones a snapshot read back holds
// complete (read without any error), so a resumed scan fetches only the others: the zones
// the interrupted run had not reached, those it was reading when stopped, and those that
// failed (a failure may have been passing). Zones the listing no longer shows are dropped
// by Collect as in any scan.
func ReuseComplete(st *inventory.Stream) func(inventory.Zone) (*inventory.ZoneInventory, bool) {
	byID := make(map[string]*inventory.ZoneInventory, len(st.Complete))
	for i := range st.Snapshot.Zones {
		if z := &st.Snapshot.Zones[i]; st.Complete[z.Zone.ID] {
			byID[z.Zone.ID] = z
		}
	}
	return func(z inventory.Zone) (*inventory.ZoneInventory, bool) {
		inv, ok := byID[z.ID] // read only: safe from the workers
		return inv, ok
	}
}

// accountOrReused is Options.ReuseAccount's account when it has one, else the account
// read. A reused account keeps the listing's identity and errors (its zone listing is
// read anew) and the objects and retired endpoints of the earlier read.
func (c *collector) accountOrReused(ctx context.Context, a inventory.AccountInventory) inventory.AccountInventory {
	if c.opts.ReuseAccount != nil {
		if old, ok := c.opts.ReuseAccount(a.Account.ID); ok && old != nil {
			inv := *old
			inv.Account, inv.Errors = a.Account, a.Errors
			inv.Retired = append(append([]inventory.Retired(nil), a.Retired...), old.Retired...)
			return inv
		}
	}
	return c.scanAccount(ctx, a)
}

// ReuseCompleteAccounts is an Options.ReuseAccount that takes the accounts a snapshot read
// back holds without any error, unless changed names them.
func ReuseCompleteAccounts(st *inventory.Stream, changed map[string]bool) func(string) (*inventory.AccountInventory, bool) {
	byID := map[string]*inventory.AccountInventory{}
	for i := range st.Snapshot.Accounts {
		if a := &st.Snapshot.Accounts[i]; len(a.Errors) == 0 && !changed[a.Account.ID] {
			byID[a.Account.ID] = a
		}
	}
	return func(id string) (*inventory.AccountInventory, bool) {
		a, ok := byID[id]
		return a, ok
	}
}
