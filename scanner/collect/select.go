package collect

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// selection is the zone selection of Options: names or ids, and a glob on names.
type selection struct {
	entries []string // Options.Zones, trimmed, without duplicates, in the order given
	glob    string   // lower-cased
	allName bool     // every entry is a zone name, so the server can filter by name
}

func newSelection(o Options) selection {
	s := selection{glob: strings.ToLower(o.ZoneFilter), allName: true}
	seen := map[string]bool{}
	for _, e := range o.Zones {
		e = strings.TrimSpace(e)
		if e == "" || seen[e] {
			continue
		}
		seen[e] = true
		s.entries = append(s.entries, e)
		if looksLikeID(e) {
			s.allName = false
		}
	}
	return s
}

// looksLikeID reports whether a --zone entry is a zone id (32 hex digits) rather than a
// name; a zone name always has a dot.
func looksLikeID(s string) bool { return inventory.LooksLikeID(s) }

// normName is the form zone names are compared in: lower case, no trailing dot.
func normName(s string) string { return strings.TrimSuffix(strings.ToLower(s), ".") }

// active reports whether zones are selected at all (otherwise every zone is).
func (s selection) active() bool { return len(s.entries) > 0 || s.glob != "" }

// queries returns the name filters of the zone listings of one account: one per name
// when only names are selected, else a single unfiltered listing ("").
func (s selection) queries() []string {
	if len(s.entries) == 0 || !s.allName {
		return []string{""}
	}
	out := make([]string, len(s.entries))
	for i, e := range s.entries {
		out[i] = normName(e)
	}
	return out
}

// matches reports whether entry names zone z, by id or by name.
func matches(entry string, z inventory.Zone) bool {
	return entry == z.ID || (z.Name != "" && normName(entry) == normName(z.Name))
}

// apply keeps the selected zones of a listing (without duplicates) and returns the
// entries that matched a zone of it, the glob aside.
func (s selection) apply(zones []inventory.Zone) ([]inventory.Zone, map[string]bool) {
	matched := map[string]bool{}
	seen := map[string]bool{}
	var out []inventory.Zone
	for _, z := range zones {
		if seen[z.ID] {
			continue
		}
		seen[z.ID] = true
		picked := len(s.entries) == 0
		for _, e := range s.entries {
			if matches(e, z) {
				matched[e] = true
				picked = true
			}
		}
		if !picked {
			continue
		}
		if s.glob != "" {
			if ok, _ := path.Match(s.glob, normName(z.Name)); !ok {
				continue
			}
		}
		out = append(out, z)
	}
	return out, matched
}

// unmatched returns the entries that matched no zone of any listing.
func (s selection) unmatched(ls []listing) []string {
	var out []string
	for _, e := range s.entries {
		found := false
		for _, l := range ls {
			if l.matched[e] {
				found = true
				break
			}
		}
		if !found {
			out = append(out, e)
		}
	}
	return out
}

// UnmatchedZonesError is returned when entries of Options.Zones match no zone of the
// selected accounts (and every zone listing succeeded, so the absence is certain).
type UnmatchedZonesError struct {
	// Zones are the entries that matched nothing, in the order given.
	Zones []string
	// Closest holds, for each entry of Zones (same index), the zone names of the selected
	// accounts nearest to it, nearest first (at most maxClosest); none for a zone id or when
	// no name is near.
	Closest [][]string
}

// Error names each entry that matched nothing, with the closest zone names.
func (e *UnmatchedZonesError) Error() string {
	lines := make([]string, len(e.Zones))
	for i, z := range e.Zones {
		what := "no zone is named %q"
		if looksLikeID(z) {
			what = "no zone has the id %q"
		}
		lines[i] = fmt.Sprintf(what, z)
		if i < len(e.Closest) && len(e.Closest[i]) > 0 {
			lines[i] += "; the closest names: " + strings.Join(e.Closest[i], ", ")
		}
	}
	return strings.Join(lines, "\n")
}

// maxClosest is how many close zone names an UnmatchedZonesError offers for an entry.
const maxClosest = 3

// unmatchedError is the error for entries that matched no zone, with the closest zone
// names. A selection of names only listed each account's zones by those names, so the names
// to offer come from one more listing of each account, unfiltered: only on this error path,
// before any zone is scanned, at the cost a scan without --zone pays anyway. A listing that
// fails leaves the error without its suggestions.
func (c *collector) unmatchedError(ctx context.Context, listed []listing, missing []string) error {
	var all []inventory.Zone
	for _, l := range listed {
		zones, err := c.src.ListZones(ctx, l.inv.Account.ID, "")
		if err != nil {
			break
		}
		all = append(all, zones...)
	}
	return closestIn(all, missing)
}

// closestNames returns the names nearest to entry, nearest first then by name: within two
// edits (more would make any two names under one domain close), or the entry with a suffix
// added ("example" for example.com).
func closestNames(entry string, names []string) []string {
	const limit = 3
	type near struct {
		name string
		d    int
	}
	var found []near
	for _, n := range names {
		d := editDistance(entry, n, limit)
		if strings.HasPrefix(n, entry+".") {
			d = min(d, 1)
		}
		if d < limit {
			found = append(found, near{n, d})
		}
	}
	sort.Slice(found, func(i, j int) bool {
		if found[i].d != found[j].d {
			return found[i].d < found[j].d
		}
		return found[i].name < found[j].name
	})
	var out []string
	for i := 0; i < len(found) && i < maxClosest; i++ {
		out = append(out, found[i].name)
	}
	return out
}

// editDistance is the optimal string alignment distance of a and b (insertions, deletions,
// substitutions and swaps of adjacent bytes: the usual typos), or limit when it is at least
// limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d >= limit || -d >= limit {
		return limit
	}
	// rows i-2, i-1 and i of the distance table
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(b)], limit)
}
