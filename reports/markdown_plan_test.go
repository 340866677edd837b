package reports

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
)

// TestMarkdownPlan renders the demo report with its plan: the plan section follows the
// findings, with one collapsible block per account and zone, a five-column step table per
// block (as GitHub renders it), the old -> new diffs as diff blocks, and the manual steps.
func TestMarkdownPlan(t *testing.T) {
	rep := readFixtureReport(t, "demo-report.json")
	plan := readFixturePlan(t, "demo-plan.json")
	md := renderReporter(t, WithPlan(Markdown{}, plan), rep)
	i := strings.Index(md, "### Migration plan\n")
	if i < 0 || i < strings.Index(md, "### Findings") {
		t.Fatalf("no plan section after the findings")
	}
	section := md[i:]
	if want := "**Plan:** " + plan.Summary.Line() + ", 15 to verify (3 accounts, 6 zones)."; !strings.Contains(section, want) {
		t.Errorf("plan summary: want %q", want)
	}
	if got, want := strings.Count(section, "<details>"), len(plan.Accounts)+len(plan.Zones); got != want {
		t.Errorf("%d plan blocks, want %d", got, want)
	}
	diffs, manual, steps := 0, 0, 0
	for _, st := range plan.Steps() {
		steps++
		diffs += len(st.Diffs)
		if st.Manual {
			manual++
		}
	}
	if got := strings.Count(section, "```diff\n"); got != diffs {
		t.Errorf("%d diff blocks, want %d", got, diffs)
	}
	if !strings.Contains(section, "- managed_challenge @5: ip.geoip.country in") || !strings.Contains(section, "+ managed_challenge: ip.src.country in") {
		t.Error("the geoip rename is not shown as a diff")
	}
	page := renderGFM(t, md[i:])
	rows := 0
	for _, table := range htmlTables(t, page) {
		for _, row := range table {
			if len(row) != 5 {
				t.Errorf("a step row has %d cells, want 5: %q", len(row), row)
			}
		}
		rows += len(table) - 1
	}
	if rows != steps {
		t.Errorf("%d step rows, want %d", rows, steps)
	}
	if got := regexp.MustCompile(`(?m)^- `+"`").FindAllStringIndex(section, -1); len(got) != manual {
		t.Errorf("%d manual steps listed, want %d", len(got), manual)
	}
	if strings.Contains(page, "<script") {
		t.Error("a description's <script> became markup")
	}
}

// TestMarkdownPlanEscapes puts markup, pipes, mentions and fences in every plan field.
func TestMarkdownPlanEscapes(t *testing.T) {
	const evil = "</details><script>alert(1)</script> | @security-team ```\n# heading"
	plan := &migrate.Plan{
		SchemaVersion: migrate.SchemaVersion,
		Zones: []migrate.ZonePlan{{
			ZoneID: "z1", ZoneName: "n" + evil, PlanLevel: evil, Notes: []string{evil},
			Steps: []migrate.Step{{
				ID: "s" + evil, Kind: "k", Change: migrate.ChangeCreate, Method: "POST", Path: "/p" + evil,
				Risk: migrate.Risk(evil), Manual: true, Title: evil, Note: evil,
				Diffs: []migrate.Diff{{Label: evil, Old: "a " + evil, New: evil + " b", Changes: []string{evil}}},
			}},
		}},
		Unplanned: []string{"f1"},
	}
	md := renderReporter(t, Markdown{Plan: plan}, sampleReport())
	page := renderGFM(t, md)
	if strings.Contains(page, "<script") || strings.Contains(page, "<h1>heading") {
		t.Errorf("plan text became markup:\n%s", page)
	}
	// GitHub turns @name into a mention except in code; outside code a word joiner follows '@'.
	for _, m := range regexp.MustCompile(`@security-team`).FindAllStringIndex(page, -1) {
		before := page[:m[0]]
		inCode := strings.LastIndex(before, "<code") > strings.LastIndex(before, "</code>")
		if !inCode {
			t.Errorf("a mention outside code: %q", page[max(0, m[0]-80):m[1]])
		}
	}
	for _, table := range htmlTables(t, page) {
		for _, row := range table {
			if len(row) != len(table[0]) {
				t.Errorf("a pipe broke a table row: %q", row)
			}
		}
	}
	if !strings.Contains(md, "1 finding no step resolves") {
		t.Error("unplanned findings are not counted")
	}
}

// TestMarkdownPlanCap checks the plan takes at most half of a small cap, leaving the rest
// out with a note, and the whole report stays under the cap.
func TestMarkdownPlanCap(t *testing.T) {
	rep := readFixtureReport(t, "demo-report.json")
	plan := readFixturePlan(t, "demo-plan.json")
	const limit = 64 << 10
	md := renderReporter(t, Markdown{MaxBytes: limit, Plan: plan}, rep)
	if len(md) > limit {
		t.Errorf("%d bytes, over the %d cap", len(md), limit)
	}
	i := strings.Index(md, "### Migration plan\n")
	if i < 0 || len(md)-i > limit/2 {
		t.Fatalf("the plan section is missing or takes more than half the cap (%d bytes)", len(md)-i)
	}
	if !strings.Contains(md[i:], "of the plan left out** to keep this report under its size limit") {
		t.Error("no note says part of the plan was left out")
	}
	if !strings.Contains(md[:i], "**Showing ") {
		t.Error("the findings did not give way")
	}
}

// renderReporter writes r with rep.
func renderReporter(t *testing.T, rep Reporter, r *Report) string {
	t.Helper()
	var b strings.Builder
	if err := rep.Write(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestMarkdownPlanSaysWhereTheWholePlanIs: when sections are left out, the report names the
// plan.md the run wrote, or, when it wrote none, the command that writes it.
func TestMarkdownPlanSaysWhereTheWholePlanIs(t *testing.T) {
	p := &migrate.Plan{}
	for i := range 40 {
		p.Zones = append(p.Zones, migrate.ZonePlan{ZoneID: fmt.Sprint(i), ZoneName: fmt.Sprintf("z%02d.example", i),
			Steps: []migrate.Step{{ID: "s1", Title: strings.Repeat("a long step title ", 20), Manual: true}}})
	}
	if got, _ := markdownPlan(p, 4000, ""); !strings.Contains(got, "`sunset plan --plan-dir DIR` writes the whole plan") || strings.Contains(got, "plan.md") {
		t.Errorf("no plan written: %s", got[strings.LastIndex(got, "**"):])
	}
	if got, _ := markdownPlan(p, 4000, "out/plan"); !strings.Contains(got, "`out/plan/plan.md` has them all") {
		t.Errorf("plan in out/plan: %s", got[strings.LastIndex(got, "**"):])
	}
}
