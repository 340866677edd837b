package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// firstMaxEntries caps the "what to do first" list: it names the most urgent zones and
// accounts, and the plan section below holds every one.
const firstMaxEntries = 25

// htmlFirst is the "what to do first" section: the zones and accounts with findings, most
// urgent first, each with what its plan does by API calls and what holds it back.
type htmlFirst struct {
	Entries []htmlFirstEntry
	// More counts the zones and accounts past firstMaxEntries.
	More    int
	HasPlan bool
}

// htmlFirstEntry is one zone or account of the "what to do first" section.
type htmlFirstEntry struct {
	Title, Sub, Kind      string
	GroupHref, PlanHref   string
	WorstClass, Worst     string
	Counts                []htmlSevCount
	EOL                   string
	Auto                  []htmlKindCount
	AutoSteps             int
	Blocked, ByHand       []htmlBlocker
	Warnings              []string
	Planned, NothingToRun bool
	// Check sums up the plan's verification of the zone ("" when not verified); CheckBad is
	// set when it found a difference the plan does not declare, or could not compare.
	Check    string
	CheckBad bool
}

// htmlKindCount is how many steps of one kind a plan runs by API calls.
type htmlKindCount struct {
	Kind  string
	Count int
}

// htmlBlocker is a manual step: Tag says what blocks the migration (quota, plan features)
// for a step that keeps an old object; "" for one that only needs a person.
type htmlBlocker struct {
	Href, Title, Tag, Why string
}

// buildFirst orders the zones and accounts with findings that are not suppressed by
// urgency: the most severe finding first (errors: past end of life), then the nearest end
// of life, then the most findings. A files scan has no zones to migrate: nil.
func buildFirst(groups []*htmlGroup, p *migrate.Plan, source string) *htmlFirst {
	if source == SourceFiles {
		return nil
	}
	var cands []*htmlGroup
	for _, g := range groups {
		if g.Total > 0 && (g.Kind == groupZone || g.Kind == groupAccount) {
			cands = append(cands, g)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	slices.SortStableFunc(cands, urgency)
	out := &htmlFirst{HasPlan: p != nil}
	if len(cands) > firstMaxEntries {
		out.More = len(cands) - firstMaxEntries
		cands = cands[:firstMaxEntries]
	}
	plans := indexPlan(p)
	for _, g := range cands {
		out.Entries = append(out.Entries, firstEntry(g, plans))
	}
	return out
}

// urgency orders groups most urgent first; ties fall to the title, then the anchor, so the
// order is the same every run.
func urgency(a, b *htmlGroup) int {
	switch {
	case a.Worst != b.Worst:
		return int(b.Worst) - int(a.Worst)
	case a.EOL != b.EOL:
		if a.EOL == "" || b.EOL == "" {
			return len(b.EOL) - len(a.EOL) // a date before none
		}
		return strings.Compare(a.EOL, b.EOL)
	case a.Total != b.Total:
		return b.Total - a.Total
	case a.Title != b.Title:
		return strings.Compare(a.Title, b.Title)
	}
	return strings.Compare(a.Anchor, b.Anchor)
}

// planIndex finds the plan of a zone (by id, else name) or an account.
type planIndex struct {
	zones    map[string]*migrate.ZonePlan
	accounts map[string]*migrate.AccountPlan
}

func indexPlan(p *migrate.Plan) planIndex {
	ix := planIndex{zones: map[string]*migrate.ZonePlan{}, accounts: map[string]*migrate.AccountPlan{}}
	if p == nil {
		return ix
	}
	for i := range p.Zones {
		z := &p.Zones[i]
		ix.zones["id\x00"+z.ZoneID] = z
		if _, ok := ix.zones["name\x00"+z.ZoneName]; !ok {
			ix.zones["name\x00"+z.ZoneName] = z
		}
	}
	for i := range p.Accounts {
		ix.accounts[p.Accounts[i].AccountID] = &p.Accounts[i]
	}
	return ix
}

// firstPlanOf is what "what to do first" reads of the plan of one zone or account.
type firstPlanOf struct {
	key          string
	steps        []migrate.Step
	notes        []string
	verification *migrate.Verification
}

// sectionOf returns the plan of a group's zone or account.
func (ix planIndex) sectionOf(k groupKey) (firstPlanOf, bool) {
	switch k.kind {
	case groupZone:
		z := ix.zones["id\x00"+k.zoneID]
		if z == nil || k.zoneID == "" {
			z = ix.zones["name\x00"+k.zoneName]
		}
		if z != nil {
			return firstPlanOf{zonePlanKey(*z), z.Steps, z.Notes, z.Verification}, true
		}
	case groupAccount:
		if a := ix.accounts[k.accountID]; a != nil {
			return firstPlanOf{accountPlanKey(*a), a.Steps, a.Notes, nil}, true
		}
	}
	return firstPlanOf{}, false
}

// firstEntry is one group's entry: its findings in numbers, and from its plan the steps by
// kind that run by API calls, the manual steps (those that keep an old object block the
// migration) and the plan's warnings.
func firstEntry(g *htmlGroup, ix planIndex) htmlFirstEntry {
	e := htmlFirstEntry{
		Title: g.Title, Sub: g.Sub, Kind: g.Kind, GroupHref: "#" + g.Anchor,
		WorstClass: g.WorstClass, Worst: g.Worst.String(), Counts: g.SevCounts(), EOL: g.EOL,
	}
	sec, ok := ix.sectionOf(g.key)
	if !ok {
		return e
	}
	key := sec.key
	e.Planned, e.PlanHref = true, "#plan-"+key
	e.Check, e.CheckBad = verificationLine(sec.verification)
	byKind := map[string]int{}
	for _, st := range sec.steps {
		if !st.Manual {
			e.AutoSteps++
			if _, seen := byKind[string(st.Kind)]; !seen {
				byKind[string(st.Kind)] = len(e.Auto)
				e.Auto = append(e.Auto, htmlKindCount{Kind: textsafe.Sanitize(string(st.Kind))})
			}
			e.Auto[byKind[string(st.Kind)]].Count++
			continue
		}
		b := htmlBlocker{Href: "#" + stepAnchor(key, st.ID), Title: textsafe.Sanitize(st.Title), Tag: blockerTag(st)}
		if b.Tag != "" {
			b.Why = textsafe.Sanitize(st.Reason)
			e.Blocked = append(e.Blocked, b)
		} else {
			e.ByHand = append(e.ByHand, b)
		}
	}
	e.Warnings = sanitizeAll(sec.notes)
	e.NothingToRun = e.AutoSteps == 0
	return e
}

// blockerTag says what holds back a manual step that keeps an old object (kind "*.keep"):
// the quota of the zone's plan, features the plan lacks, or an expression that cannot be
// translated. The plan says which only in the step's reason, so the reason is read. "" for
// a manual step that keeps nothing (a review, callers to change).
func blockerTag(st migrate.Step) string {
	if !strings.HasSuffix(string(st.Kind), ".keep") {
		return ""
	}
	switch {
	case strings.Contains(st.Reason, "quota"):
		return "quota"
	case strings.Contains(st.Reason, "plan"):
		return "plan features"
	}
	return "cannot translate"
}

// verificationLine sums up the plan's verification of a zone (old rules and new evaluated
// on the same generated requests): "" when the plan was not verified; bad when a difference
// is not declared by the plan, a rate limit counts otherwise, or the zone was not compared.
func verificationLine(v *migrate.Verification) (line string, bad bool) {
	switch {
	case v == nil:
		return "", false
	case v.Missing:
		return "not verified: the snapshot lacks the zone.", true
	case v.Same():
		return fmt.Sprintf("the new rules decide all %s as the old ones.", plural(v.Requests, "generated request", "generated requests")), false
	}
	undeclared := 0
	for _, d := range v.Differences {
		if d.Declared == "" {
			undeclared += d.Requests
		}
	}
	rateLimits := 0
	for _, rl := range v.RateLimits {
		if rl.Differing > 0 {
			rateLimits++
		}
	}
	line = fmt.Sprintf("%d of %s decided otherwise (%d not declared by the plan)", v.Differing, plural(v.Requests, "generated request", "generated requests"), undeclared)
	if rateLimits > 0 {
		line += "; " + plural(rateLimits, "rate limit counts", "rate limits count") + " otherwise"
	}
	return line + ".", undeclared > 0 || rateLimits > 0
}
