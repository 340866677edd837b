package collect

import (
	"fmt"
	"path"
	"slices"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// SelectSnapshot keeps of a saved snapshot what Options.Accounts, Options.Zones and
// Options.ZoneFilter select, as a collection with them would have collected it: the zones
// selected (of the named accounts, when accounts are named), and the named accounts, or
// without names the accounts holding a selected zone (every account when nothing is
// selected). An account named that the snapshot does not hold, a zone entry that matches no
// zone (*UnmatchedZonesError, with the closest names) and a filter that matches none are
// errors, as they are live. The snapshot given is not changed.
func SelectSnapshot(snap *inventory.Snapshot, o Options) (*inventory.Snapshot, error) {
	sel := newSelection(o)
	if !sel.active() && len(o.Accounts) == 0 {
		return snap, nil
	}
	if o.ZoneFilter != "" {
		if _, err := path.Match(o.ZoneFilter, ""); err != nil {
			return nil, fmt.Errorf("zone filter %q: %w", o.ZoneFilter, err)
		}
	}
	named := map[string]bool{}
	for _, id := range o.Accounts {
		if id == "" {
			continue
		}
		if !slices.ContainsFunc(snap.Accounts, func(a inventory.AccountInventory) bool { return a.Account.ID == id }) {
			return nil, fmt.Errorf("--account %s: the snapshot holds no such account", id)
		}
		named[id] = true
	}
	out := *snap
	out.Zones, out.Accounts = nil, nil
	var listed []inventory.Zone
	for _, z := range snap.Zones {
		if len(named) == 0 || named[z.Zone.Account.ID] {
			listed = append(listed, z.Zone)
		}
	}
	kept, matched := sel.apply(listed)
	if missing := sel.unmatchedIn(matched); len(missing) > 0 {
		return nil, closestIn(listed, missing)
	}
	if sel.active() && len(kept) == 0 {
		return nil, fmt.Errorf("--zone-filter %q matches no zone of the snapshot", o.ZoneFilter)
	}
	keep := map[string]bool{}
	holding := map[string]bool{}
	for _, z := range kept {
		keep[z.ID], holding[z.Account.ID] = true, true
	}
	for _, z := range snap.Zones {
		if keep[z.Zone.ID] {
			out.Zones = append(out.Zones, z)
		}
	}
	for _, a := range snap.Accounts {
		if named[a.Account.ID] || len(named) == 0 && (!sel.active() || holding[a.Account.ID]) {
			out.Accounts = append(out.Accounts, a)
		}
	}
	return &out, nil
}

// unmatchedIn returns the entries not in matched, in the order given.
func (s selection) unmatchedIn(matched map[string]bool) []string {
	var out []string
	for _, e := range s.entries {
		if !matched[e] {
			out = append(out, e)
		}
	}
	return out
}

// closestIn is the error for entries that matched none of zones, with the closest names.
func closestIn(zones []inventory.Zone, missing []string) error {
	var names []string
	for _, z := range zones {
		if n := normName(z.Name); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	e := &UnmatchedZonesError{Zones: missing, Closest: make([][]string, len(missing))}
	for i, entry := range missing {
		if !looksLikeID(entry) {
			e.Closest[i] = closestNames(normName(entry), names)
		}
	}
	return e
}
