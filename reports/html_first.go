package reports

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// firstMaxEntries caps the "what to do first" list: it names the most urgent zones and
// accounts, and the plan section below holds every one.
const firstMaxEntries = 25

// htmlFirst is the "what to do first" section: the zones and accounts with findings, most
// at stake first, each with why it ranks there, what its plan does by API calls and what
// holds it back.
type htmlFirst struct {
	Entries []htmlFirstEntry
	// More counts the zones and accounts past firstMaxEntries.
	More    int
	HasPlan bool
}

// htmlFirstEntry is one zone or account of the "what to do first" section.
type htmlFirstEntry struct {
	Rank                  int
	Title, Sub, Kind      string
	GroupHref, PlanHref   string
	WorstClass, Worst     string
	Counts                []htmlSevCount
	EOL                   string
	Auto                  []htmlKindCount
	AutoSteps             int
	Blocked, ByHand       []htmlFold
	BlockedN, ByHandN     int
	Warnings              []htmlFold
	Planned, NothingToRun bool
	// Check sums up the plan's verification of the zone ("" when not verified); CheckBad is
	// set when it found a difference the plan does not declare, or could not compare.
	Check    string
	CheckBad bool
	// Why says why the entry ranks where it does.
	Why string

	stake firstStake
}

// htmlKindCount is how many steps of one kind a plan runs by API calls, the kind in words.
type htmlKindCount struct {
	Kind  string
	Count int
}

// firstStake is what ranks an entry: what is already broken, how much is past its end of
// life, how much the plan cannot carry out, how soon the rest ends.
type firstStake struct {
	retired  int // endpoints of the zone that already answer as retired
	objects  int // findings at the worst severity
	rules    int // rules among them
	blocked  int // manual steps that keep an old object
	badCheck bool
}

// firstBuilder ranks the zones and accounts with findings that are not suppressed by what
// is at stake and how soon (firstOrder). The entries of zones are made as the page's one pass
// over the plan's zones reaches them (zone); the others at once. It keeps only the entries
// that may still be among the first firstMaxEntries (top), not one per zone: a page of
// 50,000 zones would otherwise hold 50,000 entries with their manual steps to show 25.
type firstBuilder struct {
	top []htmlFirstEntry
	// made counts the entries made, those top no longer holds included.
	made int
	// at holds the groups of the plan's zones, by the zone's place in the plan, until the
	// pass reaches them.
	at      map[int][]firstPending
	hasPlan bool
}

// firstPending is a zone group whose entry is made when the pass reaches its zone's plan.
type firstPending struct {
	group   *htmlGroup
	retired int // the endpoints of the group that answer as retired
}

// newFirst starts "what to do first" of groups and plan v (nil for none); nil for a files
// scan, which has no zones to migrate.
func newFirst(groups []*htmlGroup, v migrate.PlanView, source string, retired map[groupKey]int) *firstBuilder {
	if source == SourceFiles {
		return nil
	}
	plans := indexPlan(v)
	fb := &firstBuilder{at: map[int][]firstPending{}, hasPlan: v != nil}
	for _, g := range groups {
		if g.Total == 0 || (g.Kind != groupZone && g.Kind != groupAccount) {
			continue
		}
		if i, ok := plans.zoneOf(g.key); ok {
			fb.at[i] = append(fb.at[i], firstPending{g, retired[g.key]}) // made when the pass reaches zone i
			continue
		}
		sec, ok := plans.accountOf(g.key)
		fb.add(firstEntry(g, sec, ok, retired[g.key]))
	}
	return fb
}

// zone makes the entries of the groups whose plan is z, the i-th zone of the plan.
func (fb *firstBuilder) zone(i int, z *migrate.ZonePlan) {
	if fb == nil {
		return
	}
	for _, p := range fb.at[i] {
		sec := firstPlanOf{zonePlanKey(*z), z.Steps, z.Notes, z.Verification}
		fb.add(firstEntry(p.group, sec, true, p.retired))
	}
	delete(fb.at, i)
}

// add keeps entry e while it may be among the first firstMaxEntries. firstOrder is a total
// order (ties fall to the anchor, unique to a group), so the first ones kept this way are
// those a sort of every entry would put first.
func (fb *firstBuilder) add(e htmlFirstEntry) {
	fb.made++
	fb.top = append(fb.top, e)
	if len(fb.top) >= 2*firstMaxEntries {
		slices.SortFunc(fb.top, firstOrder)
		clear(fb.top[firstMaxEntries:]) // what is dropped is not kept alive by the array
		fb.top = fb.top[:firstMaxEntries]
	}
}

// finish ranks the entries, once every zone was seen; nil when there are none.
func (fb *firstBuilder) finish() *htmlFirst {
	if fb == nil || fb.made == 0 {
		return nil
	}
	entries := fb.top
	slices.SortFunc(entries, firstOrder)
	out := &htmlFirst{HasPlan: fb.hasPlan}
	if fb.made > firstMaxEntries {
		out.More = fb.made - firstMaxEntries
		entries = entries[:firstMaxEntries]
	}
	for i := range entries {
		entries[i].Rank = i + 1
		entries[i].Why = firstWhy(&entries[i])
	}
	out.Entries = entries
	return out
}

// firstOrder puts first what is already broken (endpoints that answer as retired), then
// what is past its end of life (errors), then what ends soon (warnings, the nearest end of
// life first), then advice. All end-of-life dates of errors are past, so among them the
// date says little: the number of objects affected ranks them, then the steps the plan
// cannot carry out (those objects stay on the old API), then the number of rules. Ties fall
// to the date, the title and the anchor, so the order is the same every run.
func firstOrder(a, b htmlFirstEntry) int {
	x, y := a.stake, b.stake
	if (x.retired > 0) != (y.retired > 0) {
		return y.retired - x.retired
	}
	if a.Worst != b.Worst {
		return int(severityOf(b.Worst)) - int(severityOf(a.Worst))
	}
	if a.Worst == scanner.SeverityWarning.String() && a.EOL != b.EOL {
		return compareDates(a.EOL, b.EOL)
	}
	return cmp.Or(
		cmp.Compare(y.retired, x.retired), cmp.Compare(y.objects, x.objects),
		cmp.Compare(y.blocked, x.blocked), cmp.Compare(y.rules, x.rules),
		compareDates(a.EOL, b.EOL), strings.Compare(a.Title, b.Title), strings.Compare(a.GroupHref, b.GroupHref))
}

// compareDates orders YYYY-MM-DD dates, a date before none.
func compareDates(a, b string) int {
	if a == "" || b == "" {
		return len(b) - len(a)
	}
	return strings.Compare(a, b)
}

func severityOf(s string) scanner.Severity {
	for _, sev := range []scanner.Severity{scanner.SeverityError, scanner.SeverityWarning, scanner.SeverityNotice} {
		if sev.String() == s {
			return sev
		}
	}
	return scanner.SeverityNone
}

// firstWhy says in words why an entry ranks where it does, from the same facts firstOrder
// reads.
func firstWhy(e *htmlFirstEntry) string {
	st := e.stake
	var parts []string
	if st.retired > 0 {
		parts = append(parts, "already broken: "+Plural(st.retired, "endpoint answers", "endpoints answer")+" as retired")
	}
	objects := Plural(st.objects, "object", "objects") + " in " + Plural(st.rules, "rule", "rules")
	switch severityOf(e.Worst) {
	case scanner.SeverityError:
		parts = append(parts, objects+" past end of life")
	case scanner.SeverityWarning:
		parts = append(parts, objects+" reach end of life on "+e.EOL)
	default:
		parts = append(parts, "advice only ("+objects+")")
	}
	if st.blocked > 0 {
		parts = append(parts, Plural(st.blocked, "object stays", "objects stay")+" on the old API until unblocked")
	}
	if st.badCheck {
		parts = append(parts, "the plan's check found differences it does not declare")
	}
	return strings.Join(parts, "; ") + "."
}

// planIndex finds the plan of a zone (by id, else name) or an account. It holds the zones'
// places in the plan, not their plans.
type planIndex struct {
	zones    map[string]int // "id\x00"+id or "name\x00"+name -> place in the plan
	accounts map[string]*migrate.AccountPlan
}

func indexPlan(v migrate.PlanView) planIndex {
	ix := planIndex{zones: map[string]int{}, accounts: map[string]*migrate.AccountPlan{}}
	if v == nil {
		return ix
	}
	i := 0
	v.ZoneKeys(func(id, name string) {
		ix.zones["id\x00"+id] = i // the last zone of an id, the first of a name
		if _, ok := ix.zones["name\x00"+name]; !ok {
			ix.zones["name\x00"+name] = i
		}
		i++
	})
	head := v.Head()
	for i := range head.Accounts {
		ix.accounts[head.Accounts[i].AccountID] = &head.Accounts[i]
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

// zoneOf returns the place in the plan of a zone group's zone.
func (ix planIndex) zoneOf(k groupKey) (int, bool) {
	if k.kind != groupZone {
		return 0, false
	}
	i, ok := ix.zones["id\x00"+k.zoneID]
	if !ok || k.zoneID == "" {
		i, ok = ix.zones["name\x00"+k.zoneName]
	}
	return i, ok
}

// accountOf returns the plan of an account group's account.
func (ix planIndex) accountOf(k groupKey) (firstPlanOf, bool) {
	if a := ix.accounts[k.accountID]; k.kind == groupAccount && a != nil {
		return firstPlanOf{accountPlanKey(*a), a.Steps, a.Notes, nil}, true
	}
	return firstPlanOf{}, false
}

// firstEntry is one group's entry: its findings in numbers, and from its plan the steps by
// kind that run by API calls, the manual steps (those that keep an old object block the
// migration), each folded with the steps that read alike, and the plan's warnings.
// sec is the plan of the group's zone or account, planned false when it has none.
func firstEntry(g *htmlGroup, sec firstPlanOf, planned bool, retired int) htmlFirstEntry {
	e := htmlFirstEntry{
		Title: g.Title, Sub: g.Sub, Kind: g.Kind, GroupHref: "#" + g.Anchor,
		WorstClass: g.WorstClass, Worst: g.Worst.String(), Counts: g.SevCounts(), EOL: g.EOL,
	}
	e.stake = firstStake{retired: retired, objects: g.worstCount(), rules: g.worstRules()}
	if !planned {
		return e
	}
	key := sec.key
	e.Planned, e.PlanHref = true, "#plan-"+key
	e.Check, e.CheckBad = verificationLine(sec.verification)
	e.stake.badCheck = e.CheckBad
	e.Auto, e.AutoSteps = kindCounts(sec.steps)
	var blocked, byHand []foldItem
	for _, st := range sec.steps {
		if !st.Manual {
			continue
		}
		it := foldItem{ref: htmlRef{Href: "#" + stepAnchor(key, st.ID), Text: textsafe.Sanitize(st.Title)}, tag: blockerTag(st)}
		if it.tag != "" {
			it.note = textsafe.Sanitize(st.Reason)
			blocked = append(blocked, it)
		} else {
			byHand = append(byHand, it)
		}
	}
	e.Blocked, e.ByHand = foldAlike(blocked), foldAlike(byHand)
	e.BlockedN, e.ByHandN = len(blocked), len(byHand)
	e.stake.blocked = len(blocked)
	e.Warnings = foldTexts(sec.notes)
	e.NothingToRun = e.AutoSteps == 0
	return e
}

// kindCounts counts the steps that run by API calls by kind, in words, in the order the
// kinds first appear, and how many they are in all.
func kindCounts(steps []migrate.Step) (counts []htmlKindCount, total int) {
	byKind := map[migrate.StepKind]int{}
	for _, st := range steps {
		if st.Manual {
			continue
		}
		total++
		i, seen := byKind[st.Kind]
		if !seen {
			i = len(counts)
			byKind[st.Kind] = i
			counts = append(counts, htmlKindCount{Kind: kindWords(st.Kind)})
		}
		counts[i].Count++
	}
	return counts, total
}

// kindWords says what a step of kind k does, in words (the registry's); a kind the registry
// does not know is shown as it is.
func kindWords(k migrate.StepKind) string {
	if spec := migrate.KindSpecs[k]; spec != nil && spec.Words != "" {
		return spec.Words
	}
	return textsafe.Sanitize(string(k))
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
		return fmt.Sprintf("the new rules decide all %s as the old ones.", Plural(v.Requests, "generated request", "generated requests")), false
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
	line = fmt.Sprintf("%d of %s decided otherwise (%d not declared by the plan)", v.Differing, Plural(v.Requests, "generated request", "generated requests"), undeclared)
	if rateLimits > 0 {
		line += "; " + Plural(rateLimits, "rate limit counts", "rate limits count") + " otherwise"
	}
	return line + ".", undeclared > 0 || rateLimits > 0
}
