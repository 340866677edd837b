package reports

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// htmlDetailLimit is the number of findings and plan steps up to which the page shows each
// one in full (a finding's message, a step's request, body and diff: about 1.5 KB each).
// Past it the page stays readable and small by showing findings by rule with the objects
// they name, and plan steps by kind with their titles; every detail stays in the plan's
// plan.md and plan.json and in the other report formats.
const htmlDetailLimit = 1500

// compactPage says whether a report of findings and a plan of steps is past htmlDetailLimit.
// It reads no zone: the view counts their steps.
func compactPage(findings int, v migrate.PlanView) bool {
	n := findings
	if v != nil {
		for _, a := range v.Head().Accounts {
			n += len(a.Steps)
		}
		n += v.ZoneSteps()
	}
	return n > htmlDetailLimit
}

// htmlRuleRow is a group's findings of one rule and severity (suppressed ones apart), shown
// once with the objects they name.
type htmlRuleRow struct {
	Severity, SevClass            string
	RuleID, RuleAnchor, RuleTitle string
	Suppressed                    bool
	Items                         []htmlFinding
}

// RuleRows are the group's findings by rule and severity, in the order each first appears.
// A finding has its anchor only when the page links to it (g.linked): in a compact page only
// the plan's list of findings no step resolves does.
func (g *htmlGroup) RuleRows() []htmlRuleRow {
	var rows []htmlRuleRow
	index := map[string]int{}
	for _, i := range g.idx {
		f := new(g.findings.At(int(i)))
		k := string(f.RuleID) + "\x00" + f.Severity.String() + "\x00" + strconv.FormatBool(f.Suppressed)
		j, ok := index[k]
		if !ok {
			j = len(rows)
			index[k] = j
			hf := htmlFindingOf(f)
			rows = append(rows, htmlRuleRow{Severity: hf.Severity, SevClass: hf.SevClass, RuleID: hf.RuleID,
				RuleAnchor: hf.RuleAnchor, RuleTitle: hf.RuleTitle, Suppressed: f.Suppressed})
		}
		item := htmlFinding{Resource: resourceLabel(f), Suppressed: f.Suppressed}
		if g.linked[f.Fingerprint] {
			item.Anchor = findingAnchor(f)
		}
		rows[j].Items = append(rows[j].Items, item)
	}
	return rows
}

// linkedFindings are the fingerprints a compact page links to: the plan's findings that no
// step resolves.
func linkedFindings(v migrate.PlanView) map[string]bool {
	out := map[string]bool{}
	if v != nil {
		for _, fp := range v.Head().Unplanned {
			out[fp] = true
		}
	}
	return out
}

// htmlPlanOverview is the plan as a whole: its steps by kind, the zones that run the same
// kinds of steps, and the manual steps, those that read alike shown once.
type htmlPlanOverview struct {
	Kinds    []htmlKindRow
	Patterns []htmlPattern
	Manual   []htmlFold
}

// htmlKindRow is how many steps of one kind the plan holds, in how many zones and accounts.
type htmlKindRow struct {
	Words, Kind   string
	Steps, Scopes int
	Manual        bool
}

// htmlPattern is the zones and accounts whose plans run the same kinds of steps.
type htmlPattern struct {
	Auto, ByHand []string
	Scopes       []htmlRef
}

// overviewBuilder sums a plan up one account or zone at a time (scope), in plan order.
type overviewBuilder struct {
	ov       htmlPlanOverview
	kinds    map[migrate.StepKind]int
	patterns map[string]int
	manual   manualFolds
}

func newOverview() *overviewBuilder {
	return &overviewBuilder{kinds: map[migrate.StepKind]int{}, patterns: map[string]int{}, manual: manualFolds{index: map[string]int{}}}
}

// scope adds the steps of one account or zone, its section's key and title.
func (b *overviewBuilder) scope(key, title string, steps []migrate.Step) {
	ov := &b.ov
	seen := map[migrate.StepKind]bool{}
	var auto, byHand []string
	ref := htmlRef{Href: "#plan-" + key, Text: title} // one copy of its strings for every fold naming it
	for _, st := range steps {
		i, ok := b.kinds[st.Kind]
		if !ok {
			i = len(ov.Kinds)
			b.kinds[st.Kind] = i
			ov.Kinds = append(ov.Kinds, htmlKindRow{Words: kindWords(st.Kind), Kind: textsafe.Sanitize(string(st.Kind)), Manual: st.Manual})
		}
		ov.Kinds[i].Steps++
		if !seen[st.Kind] {
			seen[st.Kind] = true
			ov.Kinds[i].Scopes++
			if st.Manual {
				byHand = append(byHand, kindWords(st.Kind))
			} else {
				auto = append(auto, kindWords(st.Kind))
			}
		}
		if st.Manual {
			b.manual.add(ref, key, st)
		}
	}
	ov.addPattern(b.patterns, auto, byHand, ref)
}

// finish is the overview of every scope added: kinds and patterns the most frequent first.
func (b *overviewBuilder) finish() htmlPlanOverview {
	ov := b.ov
	slices.SortStableFunc(ov.Kinds, func(a, b htmlKindRow) int { return cmp.Compare(b.Steps, a.Steps) })
	slices.SortStableFunc(ov.Patterns, func(a, b htmlPattern) int { return cmp.Compare(len(b.Scopes), len(a.Scopes)) })
	ov.Manual = b.manual.finish()
	return ov
}

// addPattern files a scope under the kinds of steps it runs (sorted, so the order of the
// steps does not matter).
func (ov *htmlPlanOverview) addPattern(index map[string]int, auto, byHand []string, ref htmlRef) {
	if len(auto)+len(byHand) == 0 {
		return
	}
	slices.Sort(auto)
	slices.Sort(byHand)
	k := strings.Join(auto, "\x00") + "\x01" + strings.Join(byHand, "\x00")
	i, ok := index[k]
	if !ok {
		i = len(ov.Patterns)
		index[k] = i
		ov.Patterns = append(ov.Patterns, htmlPattern{Auto: auto, ByHand: byHand})
	}
	ov.Patterns[i].Scopes = append(ov.Patterns[i].Scopes, ref)
}

// manualFolds folds the plan's manual steps that read alike as the scopes come, the most
// frequent first when finished. A fold lists the zones and accounts that have such steps
// (with how many when more than one), not the steps: each zone's section lists its own. A
// step alone links to itself. Only the first step of a fold is kept, not every step: a plan
// of 50,000 zones has hundreds of thousands.
type manualFolds struct {
	index map[string]int // text pattern -> fold
	folds []manualFold
}

// manualFold is one fold being made: its first step, and the scopes of its steps in the
// order they come with how many each has (a scope's steps come together).
type manualFold struct {
	fold   htmlFold
	first  htmlRef // the first step, "scope: step"
	scopes []htmlRef
	counts []int
}

// add files manual step st of the scope whose section is ref (key in anchors).
func (m *manualFolds) add(ref htmlRef, key string, st migrate.Step) {
	text := textsafe.Sanitize(st.Title)
	pattern := textPattern(text)
	i, ok := m.index[pattern]
	if !ok {
		i = len(m.folds)
		m.index[pattern] = i
		first := ref.Text + ": " + text
		m.folds = append(m.folds, manualFold{
			fold:  htmlFold{Text: pattern, First: first},
			first: htmlRef{Href: "#" + stepAnchor(key, st.ID), Text: first},
		})
	}
	f := &m.folds[i]
	f.fold.Count++
	if n := len(f.scopes); n > 0 && f.scopes[n-1].Href == ref.Href {
		f.counts[n-1]++
		return
	}
	f.scopes, f.counts = append(f.scopes, ref), append(f.counts, 1)
}

// finish is the folds, the most frequent first.
func (m *manualFolds) finish() []htmlFold {
	folds := make([]htmlFold, len(m.folds))
	for i := range m.folds {
		mf := &m.folds[i]
		f := mf.fold
		if f.Count == 1 {
			f.Text, f.Count, f.Items = mf.first.Text, 0, []htmlRef{mf.first}
			folds[i] = f
			continue
		}
		f.Items = mf.scopes
		for j := range f.Items {
			if n := mf.counts[j]; n > 1 {
				f.Items[j].Text += " ×" + strconv.Itoa(n)
			}
		}
		folds[i] = f
	}
	m.folds, m.index = nil, nil
	slices.SortStableFunc(folds, func(a, b htmlFold) int { return cmp.Compare(b.Len(), a.Len()) })
	return folds
}

// htmlVerify is the plan's verification of a zone: its line, and each kind of difference
// with the request fields that decide it.
type htmlVerify struct {
	Line        string
	Bad         bool
	Differences []htmlDifference
	Notes       []string
}

// htmlDifference is one way the new rules decide otherwise than the old ones, or a rate
// limit counts otherwise.
type htmlDifference struct {
	Requests int
	Old, New string
	Declared string
	Fields   []htmlField
}

// htmlField is one field of a witness request and its value (JSON).
type htmlField struct{ Name, Value string }

// verifyView lays out a zone's verification; nil when the plan was not verified.
func verifyView(v *migrate.Verification) *htmlVerify {
	if v == nil {
		return nil
	}
	out := &htmlVerify{Notes: sanitizeAll(v.Notes)}
	out.Line, out.Bad = verificationLine(v)
	for _, d := range v.Differences {
		out.Differences = append(out.Differences, htmlDifference{
			Requests: d.Requests, Old: decisionText(d.Old), New: decisionText(d.New),
			Declared: textsafe.Sanitize(d.Declared), Fields: witnessFields(d.Witness),
		})
	}
	for _, rl := range v.RateLimits {
		if rl.Differing == 0 {
			continue
		}
		counts := func(b bool) string {
			if b {
				return "counts it"
			}
			return "does not count it"
		}
		out.Differences = append(out.Differences, htmlDifference{
			Requests: rl.Differing, Old: "rate limit " + textsafe.Sanitize(rl.RateLimitID) + " " + counts(rl.OldCounts),
			New: "its rate limiting rule " + counts(rl.NewCounts), Fields: witnessFields(rl.Witness),
		})
	}
	return out
}

// decisionText is what a rule list does to a request, in words.
func decisionText(d migrate.Decision) string {
	action := orElse(textsafe.Sanitize(d.Action), "no action")
	if d.By == "" {
		return action + " (no rule decides)"
	}
	return action + " by " + textsafe.Sanitize(d.By)
}

// witnessFields are a witness request's fields, by name. The plan's witness holds only the
// fields the rules on either side read (package verify keeps no other), so these are the
// fields that decide the difference.
func witnessFields(w map[string]any) []htmlField {
	var out []htmlField
	for name, v := range w {
		b, err := json.Marshal(v)
		if err != nil {
			continue
		}
		out = append(out, htmlField{Name: textsafe.Sanitize(name), Value: textsafe.Sanitize(string(b))})
	}
	slices.SortFunc(out, func(a, b htmlField) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// compactSteps lays a section's steps out by kind: those that run by API calls folded by
// kind in words with their titles, the manual ones each on its own (they are what a person
// does, and what the page links to).
func compactSteps(sec *htmlPlanSection, steps []migrate.Step, key string, ref func(string) htmlRef, shared *sharedTexts) {
	index := map[migrate.StepKind]int{}
	var members [][]foldItem
	for i, st := range steps {
		if st.Manual {
			hs := planStep(i+1, st, key, ref, shared)
			sec.Manual = append(sec.Manual, hs)
			continue
		}
		j, ok := index[st.Kind]
		if !ok {
			j = len(sec.Auto)
			index[st.Kind] = j
			sec.Auto = append(sec.Auto, htmlFold{Text: kindWords(st.Kind)})
			members = append(members, nil)
		}
		members[j] = append(members[j], foldItem{ref: htmlRef{Text: textsafe.Sanitize(st.Title)}})
	}
	for j := range sec.Auto {
		sec.Auto[j].Items = foldRefs(members[j])
	}
	sec.Auto = mergeSameItems(sec.Auto)
}

// mergeSameItems shows once the kinds of steps that act on the same objects (a firewall
// rule is paused, then deleted): a fold whose items are those of an earlier one joins it.
func mergeSameItems(folds []htmlFold) []htmlFold {
	var out []htmlFold
	for _, f := range folds {
		i := slices.IndexFunc(out, func(o htmlFold) bool { return slices.Equal(o.Items, f.Items) })
		if i < 0 {
			out = append(out, f)
			continue
		}
		out[i].Text += ", then " + f.Text
	}
	return out
}
