package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

type htmlPlan struct {
	Summary   string
	Notes     []string
	Shared    []htmlShared
	Unplanned []htmlRef
	// HasSections says whether Sections yields any.
	HasSections bool
	// Overview sums the plan up: steps by kind, zones alike, manual steps alike.
	Overview htmlPlanOverview
	// Compact lays each section's steps out by kind (compactSteps) rather than in full.
	Compact bool

	plan   migrate.PlanView
	head   *migrate.Plan
	names  accountNames
	ref    func(string) htmlRef
	shared *sharedTexts
	// findings and want are what finish resolves the links to findings from: the report's
	// findings and the fingerprints the page links to (Unplanned, and steps' Resolves).
	findings *scanner.FindingList
	want     findingIndex
	// overview sums the plan up while the zones are counted (zone), until finish.
	overview *overviewBuilder
	// err is the first failure to read a zone of the plan while the template ranged over
	// the sections; Write returns it after the page (readErr).
	err error
}

// readErr is the failure to read the plan while the page was rendered, nil for none.
func (h *htmlPlan) readErr() error {
	if h == nil {
		return nil
	}
	return h.err
}

// Sections lays out the plan of each account, then each zone, as the template ranges over
// them: a plan of 50,000 zones is never held as HTML view models all at once.
func (h *htmlPlan) Sections() iter.Seq[htmlPlanSection] { return h.sections(true) }

// Index is Sections' titles and summaries without their steps, for the page's index of
// sections (laying the steps out there too would do the whole plan's work twice).
func (h *htmlPlan) Index() iter.Seq[htmlPlanSection] { return h.sections(false) }

func (h *htmlPlan) sections(withSteps bool) iter.Seq[htmlPlanSection] {
	return func(yield func(htmlPlanSection) bool) {
		for _, a := range h.head.Accounts {
			if !withSteps {
				a.Steps = nil // a copy: the plan keeps its steps
			}
			if !yield(accountSection(a, h.ref, h.shared, h.Compact)) {
				return
			}
		}
		// The zones are read as the template ranges: errStopped is the template's stop, any
		// other error a failed read, kept for Write.
		err := h.plan.EachZone(func(zp *migrate.ZonePlan) error {
			z := *zp
			if !withSteps {
				z.Steps = nil
			}
			if !yield(zoneSection(z, h.names, h.ref, h.shared, h.Compact)) {
				return errStopped
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStopped) && h.err == nil {
			h.err = err
		}
	}
}

// errStopped ends a pass over a plan's zones its caller needs no more of.
var errStopped = errors.New("stopped")

// htmlPlanSection is the plan of one account or zone.
type htmlPlanSection struct {
	Anchor, Title, Summary string
	Warnings               []htmlFold
	Steps                  []htmlStep
	Diffs                  []htmlDiff
	Manual                 []htmlStep
	// Auto are the steps that run by API calls folded by kind, in a compact page.
	Auto   []htmlFold
	Verify *htmlVerify
}

type htmlStep struct {
	N                        int
	Anchor, ID, Kind, Change string
	Title                    string
	// Reason and Note are shown on the step when no other step has the same text; a text
	// shared by several steps is shown once in the plan's shared list and the step links to
	// it (ReasonRef, NoteRef).
	Reason, Note        string
	ReasonRef, NoteRef  *htmlRef
	Method, Path, Body  string
	Risk                string
	Manual, Derived     bool
	Checks              []string
	Resolves, DependsOn []htmlRef
}

// htmlRef is a link inside the page (Href "" for plain text).
type htmlRef struct{ Href, Text string }

// htmlShared is a reason or note that several steps of the plan share, shown once.
type htmlShared struct {
	Anchor, Label, Text string
	Steps               int
	Kinds               []string
}

// newHTMLPlan starts laying out a plan for the page: accounts, then zones, in the plan's
// order. Steps link to the findings of the report they resolve; a fingerprint the report
// does not hold (a plan from another run) is shown as it is. Reasons and notes that several
// steps share are listed once, before the sections. The page's pass over the zones hands
// each to zone, then finish sums up; the template's ranges read the zones again. nil for
// no plan.
func newHTMLPlan(v migrate.PlanView, r *Report, names accountNames, compact bool) *htmlPlan {
	if v == nil {
		return nil
	}
	p := v.Head()
	out := &htmlPlan{Summary: planSummaryLine(p.Summary), findings: r.Findings, want: newFindingIndex()}
	if p.AsOf != "" && r.AsOf != "" && p.AsOf != r.AsOf {
		out.Notes = append(out.Notes, fmt.Sprintf("The plan was made as of %s and the findings as of %s: steps may not match the findings above.", textsafe.Sanitize(p.AsOf), textsafe.Sanitize(r.AsOf)))
	}
	for _, fp := range p.Unplanned {
		out.want.add(fp)
	}
	out.plan, out.head, out.names = v, p, names
	out.HasSections = len(p.Accounts)+v.ZoneCount() > 0
	out.Compact = compact
	out.shared, out.overview = newSharedTexts(), newOverview()
	for _, a := range p.Accounts {
		out.shared.count(a.Steps)
		out.wants(a.Steps)
		out.overview.scope(accountPlanKey(a), names.label(a.AccountID), a.Steps)
	}
	return out
}

// zone counts the next zone of the plan in the shared texts and the overview.
func (h *htmlPlan) zone(z *migrate.ZonePlan) {
	if h == nil {
		return
	}
	h.shared.count(z.Steps)
	h.wants(z.Steps)
	h.overview.scope(zonePlanKey(*z), textsafe.Sanitize(orElse(z.ZoneName, z.ZoneID)), z.Steps)
}

// finish numbers the shared texts and sums the plan up, once every zone was counted.
func (h *htmlPlan) finish() *htmlPlan {
	if h == nil {
		return nil
	}
	h.shared.number()
	h.Shared = h.shared.list
	h.Overview, h.overview = h.overview.finish(), nil
	h.ref = h.want.refs(h.findings)
	h.findings, h.want = nil, nil
	for _, fp := range h.head.Unplanned {
		h.Unplanned = append(h.Unplanned, h.ref(fp))
	}
	return h
}

// wants notes the findings that steps resolve and the page links to: every step's in a full
// page, only the manual steps' in a compact one (compactSteps shows the others by title).
func (h *htmlPlan) wants(steps []migrate.Step) {
	for _, st := range steps {
		if h.Compact && !st.Manual {
			continue
		}
		for _, fp := range st.Resolves {
			h.want.add(fp)
		}
	}
}

// sharedTexts numbers the reasons and notes used by more than one step, in the order the
// steps first use them. The steps are counted in plan order (count), then numbered, as the
// list is shown before the sections are laid out.
type sharedTexts struct {
	uses  map[string]int // text -> steps using it
	order []string       // the texts in the order steps first use them
	// kinds are the kinds of steps using a text, in words, in the order they first do.
	kinds map[string][]string
	refs  map[string]int // text -> index in list
	list  []htmlShared
}

func newSharedTexts() *sharedTexts {
	return &sharedTexts{uses: map[string]int{}, kinds: map[string][]string{}, refs: map[string]int{}}
}

// count counts the texts of steps, the next in plan order.
func (s *sharedTexts) count(steps []migrate.Step) {
	for _, st := range steps {
		kind := kindWords(st.Kind) // as planStep files it
		for _, t := range []string{st.Reason, st.Note} {
			if t == "" {
				continue
			}
			if s.uses[t] == 0 {
				s.order = append(s.order, t)
			}
			s.uses[t]++
			if !slices.Contains(s.kinds[t], kind) {
				s.kinds[t] = append(s.kinds[t], kind)
			}
		}
	}
}

// number lists the texts used more than once, once every step was counted; the texts used
// once are forgotten.
func (s *sharedTexts) number() {
	for _, t := range s.order {
		n := s.uses[t]
		if n < 2 {
			delete(s.uses, t)
			continue
		}
		i := len(s.list)
		s.refs[t] = i
		label := "[" + strconv.Itoa(i+1) + "]"
		s.list = append(s.list, htmlShared{Anchor: "why-" + strconv.Itoa(i+1), Label: label, Text: textsafe.Sanitize(t), Steps: n, Kinds: s.kinds[t]})
	}
	s.uses, s.order, s.kinds = nil, nil, nil
}

// ref returns the link to text in the shared list, or nil when no other step uses it.
func (s *sharedTexts) ref(text string) *htmlRef {
	i, ok := s.refs[text]
	if text == "" || !ok {
		return nil
	}
	sh := &s.list[i]
	return &htmlRef{Href: "#" + sh.Anchor, Text: sh.Label}
}

// findingIndex is the fingerprints the page links to and, once the findings were read
// (refs), the place of each one's finding. A fingerprint is kept as its 16 bytes
// (scanner.FingerprintKey) and the finding as its place, not as strings and links: a page
// of 50,000 zones links hundreds of thousands.
type findingIndex map[[16]byte]int32

// notFound is the place of a fingerprint no finding has.
const notFound = -1

func newFindingIndex() findingIndex { return findingIndex{} }

// add notes that the page links to the finding of fingerprint fp.
func (x findingIndex) add(fp string) { x[scanner.FingerprintKey(fp)] = notFound }

// refs reads findings once for the places of the wanted fingerprints, and returns the link
// to the finding of a fingerprint, or its plain text when there is none. The link is made
// when asked, from the finding read again (a large scan's findings are in a file).
func (x findingIndex) refs(findings *scanner.FindingList) func(fp string) htmlRef {
	for i, f := range findings.All() {
		if f.Fingerprint == "" {
			continue
		}
		k := scanner.FingerprintKey(f.Fingerprint)
		if _, wanted := x[k]; wanted {
			x[k] = int32(i) //nolint:gosec // a report holds far fewer than 2^31 findings
		}
	}
	return func(fp string) htmlRef {
		if i, ok := x[scanner.FingerprintKey(fp)]; ok && i != notFound {
			f := findings.At(int(i))
			return htmlRef{Href: "#" + findingAnchor(&f), Text: textsafe.Sanitize(string(f.RuleID)) + ": " + resourceLabel(&f)}
		}
		return htmlRef{Text: "finding " + textsafe.Sanitize(fp)}
	}
}

// accountPlanKey and zonePlanKey name a plan section in anchors: "plan-" + key is the
// section, stepAnchor(key, id) a step of it.
func accountPlanKey(a migrate.AccountPlan) string { return "account-" + anchorID(a.AccountID) }

func zonePlanKey(z migrate.ZonePlan) string {
	return "zone-" + anchorID(orElse(z.ZoneID, z.ZoneName))
}

func stepAnchor(key, id string) string { return "step-" + key + "-" + anchorID(id) }

// accountSection is the plan of one account, titled by its name and id.
func accountSection(a migrate.AccountPlan, ref func(string) htmlRef, shared *sharedTexts, compact bool) htmlPlanSection {
	title := "Account " + textsafe.Sanitize(orElse(a.AccountName, a.AccountID))
	if a.AccountName != "" {
		title += " (" + textsafe.Sanitize(a.AccountID) + ")"
	}
	sec := htmlPlanSection{Anchor: "plan-" + accountPlanKey(a), Title: title}
	planSection(&sec, "", a.Summary, a.Notes, a.Steps, ref, shared, compact)
	return sec
}

// zoneSection is the plan of one zone, titled by its name, with its id, account and plan
// level below.
func zoneSection(z migrate.ZonePlan, names accountNames, ref func(string) htmlRef, shared *sharedTexts, compact bool) htmlPlanSection {
	title := "Zone " + textsafe.Sanitize(orElse(z.ZoneName, z.ZoneID))
	var sub []string
	if z.ZoneName != "" && z.ZoneID != "" {
		sub = append(sub, textsafe.Sanitize(z.ZoneID))
	}
	if z.AccountID != "" {
		sub = append(sub, names.label(z.AccountID))
	}
	if z.PlanLevel != "" {
		sub = append(sub, textsafe.Sanitize(z.PlanLevel)+" plan")
	}
	sec := htmlPlanSection{Anchor: "plan-" + zonePlanKey(z), Title: title, Verify: verifyView(z.Verification)}
	planSection(&sec, strings.Join(sub, ", "), z.Summary, z.Notes, z.Steps, ref, shared, compact)
	return sec
}

// planSection lays out the steps of one account or zone (its anchor is "plan-" + the key of
// its steps' anchors), with the manual ones again in a list of their own, and the diffs of
// the expressions they change; in a compact page, by kind (compactSteps).
func planSection(sec *htmlPlanSection, sub string, sum migrate.Summary, notes []string, steps []migrate.Step, ref func(string) htmlRef, shared *sharedTexts, compact bool) {
	key := strings.TrimPrefix(sec.Anchor, "plan-")
	sec.Summary, sec.Warnings = planSummaryLine(sum), foldTexts(notes)
	if sub != "" {
		sec.Summary = sub + " · " + sec.Summary
	}
	if compact {
		compactSteps(sec, steps, key, ref, shared)
		return
	}
	for i, st := range steps {
		hs := planStep(i+1, st, key, ref, shared)
		sec.Steps = append(sec.Steps, hs)
		if st.Manual {
			sec.Manual = append(sec.Manual, hs)
		}
		for _, d := range st.Diffs {
			sec.Diffs = append(sec.Diffs, planDiff(d, hs))
		}
	}
}

// planStep is step n of a section: its request, the findings it resolves and links to the
// steps it depends on.
func planStep(n int, st migrate.Step, key string, ref func(string) htmlRef, shared *sharedTexts) htmlStep {
	hs := htmlStep{
		N: n, Anchor: stepAnchor(key, st.ID), ID: textsafe.Sanitize(st.ID), Kind: kindWords(st.Kind), Change: textsafe.Sanitize(st.ChangeWord()),
		Title:  textsafe.Sanitize(st.Title),
		Method: textsafe.Sanitize(st.Method), Path: textsafe.Sanitize(st.Path), Body: prettyBody(st.Body),
		Risk: textsafe.Sanitize(string(st.Risk)), Manual: st.Manual, Derived: st.Derived,
		Checks: sanitizeAll(st.Checks),
	}
	if hs.ReasonRef = shared.ref(st.Reason); hs.ReasonRef == nil {
		hs.Reason = textsafe.Sanitize(st.Reason)
	}
	if hs.NoteRef = shared.ref(st.Note); hs.NoteRef == nil {
		hs.Note = textsafe.Sanitize(st.Note)
	}
	for _, fp := range st.Resolves {
		hs.Resolves = append(hs.Resolves, ref(fp))
	}
	for _, d := range st.DependsOn {
		hs.DependsOn = append(hs.DependsOn, htmlRef{Href: "#" + stepAnchor(key, d), Text: textsafe.Sanitize(d)})
	}
	return hs
}

// sanitizeAll is textsafe.Sanitize of every string; nil for none, as the template's emptiness tests
// expect either way.
func sanitizeAll(ss []string) []string {
	var out []string
	for _, s := range ss {
		out = append(out, textsafe.Sanitize(s))
	}
	return out
}

// planSummaryLine is the plan's summary line, with the verify steps (reads) it also makes, in
// plan.md's word for them.
func planSummaryLine(s migrate.Summary) string {
	line := s.Line()
	if s.Verify > 0 {
		line += fmt.Sprintf(", %d to verify", s.Verify)
	}
	return line
}

// prettyBody indents a request body for reading; a body that is not JSON is shown as it is.
func prettyBody(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return textsafe.Block(string(raw))
	}
	return textsafe.Block(b.String())
}
