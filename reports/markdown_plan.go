package reports

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// WithPlan implements PlanAware: the Markdown report then ends with the migration plan.
func (m Markdown) WithPlan(p migrate.PlanView) Reporter {
	m.Plan = p
	return m
}

// markdownPlan renders a plan as the last section of the Markdown report, in at most maxLen
// bytes: the summary line, then one collapsible block per account and zone (its warnings, a
// table of its steps, its old -> new diffs, its manual steps) while they fit; a note counts
// the ones left out and where they are: plan.md in dir, or, when the plan was not written
// (dir ""), the command that writes it. User text goes through the same escapes as the findings; expressions and
// request paths sit in code, where nothing is interpreted and nobody is mentioned. The zones
// are read one at a time, and no more once one does not fit; a failure to read one is the
// error.
func markdownPlan(v migrate.PlanView, maxLen int, dir string) (string, error) {
	p := v.Head()
	total := len(p.Accounts) + v.ZoneCount()
	var b strings.Builder
	fmt.Fprintf(&b, "### Migration plan\n\n**Plan:** %s (%s, %s).\n\n", escapeMarkdown(planSummaryLine(p.Summary)),
		Plural(len(p.Accounts), "account", "accounts"), Plural(v.ZoneCount(), "zone", "zones"))
	if total == 0 {
		b.WriteString("No changes: nothing deprecated needs migrating.\n")
	}
	const noteRoom = 200
	shown := 0
	// add writes a section while it fits; errFull stops reading the zones once one does not.
	add := func(s string) error {
		if b.Len()+len(s)+noteRoom > maxLen {
			fmt.Fprintf(&b, "**%s of the plan left out** to keep this report under its size limit: %s.\n",
				Plural(total-shown, "account or zone", "accounts and zones"), wholePlanAt(dir))
			return errFull
		}
		b.WriteString(s)
		shown++
		return nil
	}
	err := func() error {
		for _, a := range p.Accounts {
			title := "Account " + textsafe.Sanitize(orElse(a.AccountName, a.AccountID))
			if a.AccountName != "" {
				title += " (" + textsafe.Sanitize(a.AccountID) + ")"
			}
			if err := add(markdownPlanScope(title, a.Summary, a.Notes, a.Steps)); err != nil {
				return err
			}
		}
		return v.EachZone(func(z *migrate.ZonePlan) error {
			title := "Zone " + textsafe.Sanitize(orElse(z.ZoneName, z.ZoneID))
			if z.PlanLevel != "" {
				title += " (" + textsafe.Sanitize(z.PlanLevel) + " plan)"
			}
			return add(markdownPlanScope(title, z.Summary, z.Notes, z.Steps))
		})
	}()
	if err != nil && !errors.Is(err, errFull) {
		return "", err
	}
	if n := len(p.Unplanned); n > 0 {
		fmt.Fprintf(&b, "%s no step resolves (%s lists them under `unplanned`).\n", Plural(n, "finding", "findings"), planJSONAt(dir))
	}
	return b.String(), nil
}

// errFull stops reading a plan's zones once the report has no room for more.
var errFull = errors.New("no room left")

// markdownPlanScope is the collapsible block of one account or zone.
func markdownPlanScope(title string, sum migrate.Summary, notes []string, steps []migrate.Step) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<details>\n<summary>%s · %s</summary>\n\n", escapeHTML(title), escapeHTML(planSummaryLine(sum)))
	if len(notes) > 0 {
		b.WriteString("**Warnings (quotas, differences in behaviour):**\n\n")
		for _, n := range notes {
			b.WriteString("- " + cell(truncateRunes(textsafe.Sanitize(n), markdownMaxCell*2)) + "\n")
		}
		b.WriteString("\n")
	}
	if len(steps) > 0 {
		b.WriteString("| # | Step | Call | Risk | Resolves |\n| ---: | --- | --- | --- | ---: |\n")
		for i, st := range steps {
			step := cell(truncateRunes(textsafe.Sanitize(st.Title), markdownMaxCell)) + " · " + codeSpan(st.ID)
			var tags []string
			if st.Manual {
				tags = append(tags, "manual")
			}
			if st.Derived {
				tags = append(tags, "derived")
			}
			if len(tags) > 0 {
				step += " · " + strings.Join(tags, ", ")
			}
			call := "-"
			if st.Method != "" {
				call = codeSpan(st.Method + " " + st.Path)
			}
			fmt.Fprintf(&b, "| %d | %s | %s | %s | %d |\n", i+1, step, call, cell(string(st.Risk)), len(st.Resolves))
		}
		b.WriteString("\n")
	}
	var diffs []string
	for _, st := range steps {
		for _, d := range st.Diffs {
			diffs = append(diffs, markdownDiff(st.ID, d))
		}
	}
	if len(diffs) > 0 {
		b.WriteString("**Old → new:**\n\n")
		b.WriteString(strings.Join(diffs, ""))
	}
	var manual []string
	for _, st := range steps {
		if st.Manual {
			line := "- " + codeSpan(st.ID) + ": " + escapeInline(truncateRunes(textsafe.Sanitize(st.Title), markdownMaxCell))
			if st.Note != "" {
				line += " — " + escapeInline(truncateRunes(textsafe.Sanitize(st.Note), markdownMaxCell))
			}
			manual = append(manual, line+"\n")
		}
	}
	if len(manual) > 0 {
		fmt.Fprintf(&b, "**Manual steps (%d):**\n\n%s\n", len(manual), strings.Join(manual, ""))
	}
	b.WriteString("</details>\n\n")
	return b.String()
}

// markdownDiff is one old -> new pair as a diff block (GitHub colours the lines), under the
// object's label and the step that carries it out.
func markdownDiff(stepID string, d migrate.Diff) string {
	var body strings.Builder
	for _, line := range strings.Split(textsafe.Block(d.Old), "\n") {
		if d.Old != "" {
			body.WriteString("- " + line + "\n")
		}
	}
	for _, line := range strings.Split(textsafe.Block(d.New), "\n") {
		if d.New != "" {
			body.WriteString("+ " + line + "\n")
		}
	}
	text := body.String()
	fence := strings.Repeat("`", max(3, longestBacktickRun(text)+1))
	var b strings.Builder
	b.WriteString(escapeMarkdown(d.Label) + " (step " + codeSpan(stepID) + ")\n\n")
	b.WriteString(fence + "diff\n" + text + fence + "\n\n")
	for _, c := range d.Changes {
		b.WriteString("- " + escapeInline(truncateRunes(textsafe.Sanitize(c), markdownMaxCell)) + "\n")
	}
	if len(d.Changes) > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

func longestBacktickRun(s string) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// wholePlanAt says where the whole plan is: the plan.md written to dir, or, when the scan wrote
// none, the command that writes it.
func wholePlanAt(dir string) string {
	if dir == "" {
		return "`sunset plan --plan-dir DIR` writes the whole plan"
	}
	return codeSpan(path.Join(dir, "plan.md")) + " has them all"
}

// planJSONAt names the plan.json written to dir, or the command that writes one.
func planJSONAt(dir string) string {
	if dir == "" {
		return "the `plan.json` that `sunset plan --plan-dir DIR` writes"
	}
	return codeSpan(path.Join(dir, "plan.json"))
}
