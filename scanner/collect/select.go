package collect

import (
	"path"
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
func looksLikeID(s string) bool {
	if len(s) != 32 {
		return false
	}
	for _, r := range s {
		if !isHexDigit(r) {
			return false
		}
	}
	return true
}

// isHexDigit reports whether r is a hexadecimal digit of either case.
func isHexDigit(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F'
}

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
