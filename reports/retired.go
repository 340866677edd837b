package reports

import (
	"sort"
	"strconv"
	"strings"

	"github.com/sunsetscan/sunset/scanner"
)

// RetiredWhy is what every retired endpoint means for the reader: said once, here.
const RetiredWhy = "what it serves was not read, and those objects may still exist: check them another way (the dashboard, or the replacement's API)"

// RetiredError is the read error that stands for an endpoint that answered retired, so that
// every format lists it with what else could not be read: What is the request, Message the
// status, the catalog entries the endpoint belongs to, and RetiredWhy.
//
// Being an error, it makes the run incomplete (exit 4) rather than a notice: a retired
// endpoint says the API stopped listing those objects, not that none are left applying, so
// a gate that passed on what could still be read (7 findings where 107 exist) would pass
// wrongly. Exit 1 still wins when the findings read fail the gate.
func RetiredError(n scanner.RetiredNote) scanner.RunError {
	return scanner.RunError{
		AccountID: n.AccountID, ZoneID: n.ZoneID, ZoneName: n.ZoneName,
		What:    n.Method + " " + n.Path,
		Message: retiredStatus(n) + ": " + RetiredWhy,
	}
}

// retiredStatus is "answered 404 as retired (firewall-rules)".
func retiredStatus(n scanner.RetiredNote) string {
	s := "answered as retired"
	if n.Status != 0 {
		s = "answered " + strconv.Itoa(n.Status) + " as retired"
	}
	if len(n.RuleIDs) > 0 {
		ids := make([]string, len(n.RuleIDs))
		for i, id := range n.RuleIDs {
			ids[i] = string(id)
		}
		s += " (" + strings.Join(ids, ", ") + ")"
	}
	return s
}

// sortRetired orders retired endpoints as SortErrors orders errors: account, zone name, zone
// id, then the request and its status.
func sortRetired(rs []scanner.RetiredNote) {
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		for _, p := range [][2]string{
			{a.AccountID, b.AccountID}, {a.ZoneName, b.ZoneName}, {a.ZoneID, b.ZoneID},
			{a.Path, b.Path}, {a.Method, b.Method},
		} {
			if p[0] != p[1] {
				return p[0] < p[1]
			}
		}
		return a.Status < b.Status
	})
}

// retiredPattern is a retired endpoint's path with its zone and account ids replaced by
// :zone_id and :account_id, so that one endpoint retired in many zones reads as one.
func retiredPattern(n scanner.RetiredNote) string {
	segs := strings.Split(n.Path, "/")
	for i := 1; i < len(segs); i++ {
		switch {
		case segs[i-1] == "zones" && segs[i] == n.ZoneID && n.ZoneID != "":
			segs[i] = ":zone_id"
		case segs[i-1] == "accounts" && segs[i] == n.AccountID && n.AccountID != "":
			segs[i] = ":account_id"
		}
	}
	return n.Method + " " + strings.Join(segs, "/")
}
