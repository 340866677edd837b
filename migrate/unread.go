package migrate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// Unread is a zone or an account the scan did not read whole (its snapshot entry has
// errors): what it planned for it may lack steps, or hold steps that would be wrong with
// the parts it did not see (a filter deleted while a rule not read still uses it).
type Unread struct {
	// Scope is ScopeZone or ScopeAccount; ID and Name are the zone's or the account's.
	Scope string `json:"scope"`
	ID    string `json:"id"`
	Name  string `json:"name,omitempty"`
	// Parts are what was not read, as the snapshot's errors name them (sorted, each once):
	// "zone" for a zone never started, else the path of each part relative to the zone or
	// account ("firewall/rules", "rate_limits", "dns_settings", ...).
	Parts []string `json:"parts"`
}

// Label is "zone NAME" or "account NAME" (the id when it has no name).
func (u Unread) Label() string {
	name := u.Name
	if name == "" {
		name = u.ID
	}
	return u.Scope + " " + name
}

// UnreadOf lists the accounts (by id) and zones (by name, then id) of snap that have errors,
// in plan order: what Plan.Unread holds for a plan built from snap.
func UnreadOf(snap *inventory.Snapshot) []Unread {
	var out []Unread
	for _, a := range sortedAccounts(snap) {
		if len(a.Errors) > 0 {
			out = append(out, Unread{Scope: ScopeAccount, ID: a.Account.ID, Name: a.Account.Name, Parts: partsOf(a.Errors)})
		}
	}
	for _, z := range sortedZones(snap) {
		if len(z.Errors) > 0 {
			out = append(out, Unread{Scope: ScopeZone, ID: z.Zone.ID, Name: z.Zone.Name, Parts: partsOf(z.Errors)})
		}
	}
	return out
}

// partsOf names the parts errs say were not read, sorted, each once.
func partsOf(errs []inventory.CollectError) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.What)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// markIncomplete records in p what the scan of snap did not read (Plan.Incomplete, Unread).
func (p *Plan) markIncomplete(snap *inventory.Snapshot) {
	p.Unread = UnreadOf(snap)
	p.Incomplete = snap.Incomplete || len(p.Unread) > 0
}

// unreadKey is the key of a scope in a map of marks.
func unreadKey(scope, id string) string { return scope + "/" + id }

// unreadSet is the scopes of marks, by unreadKey.
func unreadSet(marks []Unread) map[string]*Unread {
	out := make(map[string]*Unread, len(marks))
	for i := range marks {
		out[unreadKey(marks[i].Scope, marks[i].ID)] = &marks[i]
	}
	return out
}

// ReadWhole is the plan of the zones and accounts the scan read whole: the scopes Unread
// names are left out, and the marks kept, so that the plan still says what it skips (what
// `sunset apply --partial` carries out, and what its journal holds).
func (p *Plan) ReadWhole() *Plan {
	unread := unreadSet(p.Unread)
	zones, accounts := map[string]bool{}, map[string]bool{}
	for _, z := range p.Zones {
		zones[z.ZoneID] = unread[unreadKey(ScopeZone, z.ZoneID)] == nil
	}
	for _, a := range p.Accounts {
		accounts[a.AccountID] = unread[unreadKey(ScopeAccount, a.AccountID)] == nil
	}
	out := p.Only(zones, accounts)
	out.Unread = p.Unread
	return out
}

// onlyUnread is marks narrowed to the zones and accounts given (Plan.Only).
func onlyUnread(marks []Unread, zones, accounts map[string]bool) []Unread {
	var out []Unread
	for _, u := range marks {
		if u.Scope == ScopeZone && zones[u.ID] || u.Scope == ScopeAccount && accounts[u.ID] {
			out = append(out, u)
		}
	}
	return out
}

// WithMarksOf is p marked also with what snap records of its scan: incomplete when either
// says so, and every zone and account snap holds errors for (p's own mark first when both
// have one), in plan order. It is how verify, which holds a plan to whatever snapshot it is
// given and builds nothing again, judges whether the plan covers a scan read whole: an
// edited or mismatched plan.json cannot hide what its snapshot says.
func (p *Plan) WithMarksOf(snap *inventory.Snapshot) *Plan {
	out := *p
	out.Unread = slices.Clone(p.Unread)
	have := unreadSet(p.Unread)
	for _, u := range UnreadOf(snap) {
		if have[unreadKey(u.Scope, u.ID)] == nil {
			out.Unread = append(out.Unread, u)
		}
	}
	zonesLast := func(u Unread) bool { return u.Scope == ScopeZone }
	slices.SortStableFunc(out.Unread, func(a, b Unread) int {
		switch {
		case a.Scope != b.Scope:
			return cmpBool(zonesLast(a), zonesLast(b))
		case a.Scope == ScopeZone && a.Name != b.Name:
			return strings.Compare(a.Name, b.Name)
		}
		return strings.Compare(a.ID, b.ID)
	})
	out.Incomplete = p.Incomplete || snap.Incomplete || len(out.Unread) > 0
	return &out
}

// sameMarks holds p's marks to built's (the plan sunset builds from the same snapshot): the
// same source, incomplete when built is, and each zone and account p plans marked as built
// marks it. p may mark more than built (a journal keeps only the part of the snapshot its
// plan touches, so what its plan skipped is no longer there to be marked), never less: a
// plan edited to drop a mark would carry out a zone read in part.
func sameMarks(p, built *Plan, add func(*StepError)) {
	plan := func(why string) { add(&StepError{Scope: "plan", Why: why + ": " + rebuiltHint}) }
	if p.Source != "" && p.Source != built.Source {
		plan(fmt.Sprintf("its source %q is not its snapshot's (%q)", p.Source, built.Source))
	}
	if built.Incomplete && !p.Incomplete {
		plan("it is not marked incomplete, and its snapshot is of an incomplete scan")
	}
	marked := unreadSet(p.Unread)
	for _, b := range built.Unread {
		m := marked[unreadKey(b.Scope, b.ID)]
		switch {
		case m == nil && !p.plans(b.Scope, b.ID):
			// Nothing of it is planned: no mark is needed to keep it from being carried out.
		case m == nil:
			add(&StepError{Scope: b.Scope, ScopeID: b.ID, Why: fmt.Sprintf("not marked unread, and its snapshot says %s were not read: %s", strings.Join(b.Parts, ", "), rebuiltHint)})
		case !slices.Equal(m.Parts, b.Parts):
			add(&StepError{Scope: b.Scope, ScopeID: b.ID, Why: fmt.Sprintf("marked unread in %s, and its snapshot says %s: %s", strings.Join(m.Parts, ", "), strings.Join(b.Parts, ", "), rebuiltHint)})
		}
	}
}

// plans reports whether p holds the plan of the zone or account.
func (p *Plan) plans(scope, id string) bool {
	if scope == ScopeZone {
		return slices.ContainsFunc(p.Zones, func(z ZonePlan) bool { return z.ZoneID == id })
	}
	return slices.ContainsFunc(p.Accounts, func(a AccountPlan) bool { return a.AccountID == id })
}
