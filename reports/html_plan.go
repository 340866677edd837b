package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

type htmlPlan struct {
	Summary   string
	Notes     []string
	Sections  []htmlPlanSection
	Unplanned []htmlRef
}

// htmlPlanSection is the plan of one account or zone.
type htmlPlanSection struct {
	Anchor, Title, Summary string
	Warnings               []string
	Steps                  []htmlStep
	Diffs                  []htmlDiff
	Manual                 []htmlStep
}

type htmlStep struct {
	N                        int
	Anchor, ID, Kind, Change string
	Title, Reason, Note      string
	Method, Path, Body       string
	Risk                     string
	Manual, Derived          bool
	Checks                   []string
	Resolves, DependsOn      []htmlRef
}

// htmlRef is a link inside the page (Href "" for plain text).
type htmlRef struct{ Href, Text string }

// buildHTMLPlan lays out a plan for the page: accounts, then zones, in the plan's order.
// Steps link to the findings of the report they resolve; a fingerprint the report does not
// hold (a plan from another run) is shown as it is.
func buildHTMLPlan(p *migrate.Plan, r *Report) *htmlPlan {
	if p == nil {
		return nil
	}
	ref := findingRefs(r.Findings)
	out := &htmlPlan{Summary: planSummaryLine(p.Summary)}
	if p.AsOf != "" && r.AsOf != "" && p.AsOf != r.AsOf {
		out.Notes = append(out.Notes, fmt.Sprintf("The plan was made as of %s and the findings as of %s: steps may not match the findings above.", textsafe.Sanitize(p.AsOf), textsafe.Sanitize(r.AsOf)))
	}
	for _, fp := range p.Unplanned {
		out.Unplanned = append(out.Unplanned, ref(fp))
	}
	for _, a := range p.Accounts {
		out.Sections = append(out.Sections, accountSection(a, ref))
	}
	for _, z := range p.Zones {
		out.Sections = append(out.Sections, zoneSection(z, ref))
	}
	return out
}

// findingRefs returns the link to the finding of a fingerprint among findings, or its plain
// text when there is none.
func findingRefs(findings []scanner.Finding) func(fp string) htmlRef {
	byFingerprint := map[string]*scanner.Finding{}
	for i := range findings {
		if fp := findings[i].Fingerprint; fp != "" {
			byFingerprint[fp] = &findings[i]
		}
	}
	return func(fp string) htmlRef {
		if f, ok := byFingerprint[fp]; ok {
			return htmlRef{Href: "#" + findingAnchor(f), Text: textsafe.Sanitize(string(f.RuleID)) + ": " + resourceLabel(f)}
		}
		return htmlRef{Text: "finding " + textsafe.Sanitize(fp)}
	}
}

// accountSection is the plan of one account, titled by its name and id.
func accountSection(a migrate.AccountPlan, ref func(string) htmlRef) htmlPlanSection {
	key := "account-" + anchorID(a.AccountID)
	title := "Account " + textsafe.Sanitize(orElse(a.AccountName, a.AccountID))
	if a.AccountName != "" {
		title += " (" + textsafe.Sanitize(a.AccountID) + ")"
	}
	return planSection(key, title, "", a.Summary, a.Notes, a.Steps, ref)
}

// zoneSection is the plan of one zone, titled by its name, with its id and plan level below.
func zoneSection(z migrate.ZonePlan, ref func(string) htmlRef) htmlPlanSection {
	key := "zone-" + anchorID(orElse(z.ZoneID, z.ZoneName))
	title := "Zone " + textsafe.Sanitize(orElse(z.ZoneName, z.ZoneID))
	var sub []string
	if z.ZoneName != "" && z.ZoneID != "" {
		sub = append(sub, textsafe.Sanitize(z.ZoneID))
	}
	if z.PlanLevel != "" {
		sub = append(sub, textsafe.Sanitize(z.PlanLevel)+" plan")
	}
	return planSection(key, title, strings.Join(sub, ", "), z.Summary, z.Notes, z.Steps, ref)
}

// planSection lays out the steps of one account or zone (key names it in anchors), with the
// manual ones again in a list of their own, and the diffs of the expressions they change.
func planSection(key, title, sub string, sum migrate.Summary, notes []string, steps []migrate.Step, ref func(string) htmlRef) htmlPlanSection {
	sec := htmlPlanSection{Anchor: "plan-" + key, Title: title, Summary: planSummaryLine(sum), Warnings: sanitizeAll(notes)}
	if sub != "" {
		sec.Summary = sub + " · " + sec.Summary
	}
	stepAnchor := func(id string) string { return "step-" + key + "-" + anchorID(id) }
	for i, st := range steps {
		hs := planStep(i+1, st, stepAnchor, ref)
		sec.Steps = append(sec.Steps, hs)
		if st.Manual {
			sec.Manual = append(sec.Manual, hs)
		}
		for _, d := range st.Diffs {
			sec.Diffs = append(sec.Diffs, planDiff(d, hs))
		}
	}
	return sec
}

// planStep is step n of a section: its request, the findings it resolves and links to the
// steps it depends on.
func planStep(n int, st migrate.Step, stepAnchor func(id string) string, ref func(string) htmlRef) htmlStep {
	hs := htmlStep{
		N: n, Anchor: stepAnchor(st.ID), ID: textsafe.Sanitize(st.ID), Kind: textsafe.Sanitize(st.Kind), Change: textsafe.Sanitize(string(st.Change)),
		Title: textsafe.Sanitize(st.Title), Reason: textsafe.Sanitize(st.Reason), Note: textsafe.Sanitize(st.Note),
		Method: textsafe.Sanitize(st.Method), Path: textsafe.Sanitize(st.Path), Body: prettyBody(st.Body),
		Risk: textsafe.Sanitize(string(st.Risk)), Manual: st.Manual, Derived: st.Derived,
		Checks: sanitizeAll(st.Checks),
	}
	for _, fp := range st.Resolves {
		hs.Resolves = append(hs.Resolves, ref(fp))
	}
	for _, d := range st.DependsOn {
		hs.DependsOn = append(hs.DependsOn, htmlRef{Href: "#" + stepAnchor(d), Text: textsafe.Sanitize(d)})
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

// planSummaryLine is the plan's summary line, with the checks it also makes.
func planSummaryLine(s migrate.Summary) string {
	line := s.Line()
	if s.Verify > 0 {
		line += ", " + plural(s.Verify, "check", "checks")
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
