package reports

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// Markdown limits.
const (
	// MarkdownMaxBytes is the default size cap of the Markdown report: GitHub refuses a job
	// step summary over 1 MiB, so the report stays a little under it.
	MarkdownMaxBytes = 1<<20 - 4<<10
	// markdownMaxCell is how many characters of a message a table cell shows.
	markdownMaxCell = 500
	// markdownMaxErrors is how many report errors are listed; the rest are counted.
	markdownMaxErrors = 100
)

// Markdown writes a GitHub-flavoured Markdown report for a pull-request comment or the job
// summary ($GITHUB_STEP_SUMMARY): a headline with the counts, the gate and what was scanned;
// a table of the rules hit (id, title, severity, end of life, replacement, count); the
// findings that are not suppressed, one collapsible <details> table per zone, file or
// account; and the parts of the run that could not be read.
//
// Every piece of user text is sanitised and escaped for GFM tables and inline Markdown
// (pipes, backticks, emphasis, links, HTML, and @mentions, which would notify people from a
// comment), so a hostile description renders as text. Long messages are cut to 500 characters.
// The output stays under MaxBytes: past it the findings are left out, and a note says how
// many are shown and where the rest are. The error list takes at most a quarter of it (and
// 100 rows); only a rule table larger than the cap by itself (thousands of rules) exceeds it.
type Markdown struct {
	// MaxBytes caps the output; 0 means MarkdownMaxBytes. A PR comment caller sets 65,536,
	// GitHub's limit on a comment body.
	MaxBytes int
	// Plan, when set, ends the report with the migration plan (see markdownPlan), given at
	// most half of MaxBytes; the findings share what is left. A *migrate.Plan is one.
	Plan migrate.PlanView
	// PlanDir is the directory the whole plan was written to, "" when it was not written.
	PlanDir string
}

// Write implements Reporter.
func (m Markdown) Write(w io.Writer, r *Report) error {
	limit := m.MaxBytes
	if limit <= 0 {
		limit = MarkdownMaxBytes
	}
	head := markdownHead(r)
	tail := markdownErrors(r, limit/4)
	var plan string
	if m.Plan != nil {
		var err error
		if plan, err = markdownPlan(m.Plan, limit/2, m.PlanDir); err != nil {
			return fmt.Errorf("writing Markdown: %w", err)
		}
	}
	var body bytes.Buffer
	groups := groupFindings(r.Findings)
	if len(groups) == 0 {
		body.WriteString("No findings.\n")
	} else {
		// The note about left-out findings is at most this long; room for it is kept.
		const noteRoom = 256
		budget := limit - len(head) - len(tail) - len(plan) - noteRoom
		shown, total := markdownFindings(&body, groups, budget)
		if shown < total {
			fmt.Fprintf(&body, "\n**Showing %d of %d findings**: the rest were left out to keep this summary under %s. The JSON report (`--format json`) has them all.\n",
				shown, total, byteSize(limit))
		}
	}
	var out bytes.Buffer
	out.Grow(len(head) + body.Len() + len(tail) + len(plan) + 1)
	out.WriteString(head)
	out.WriteString("\n### Findings\n\n")
	out.Write(body.Bytes())
	if tail != "" && !bytes.HasSuffix(body.Bytes(), []byte("\n\n")) {
		out.WriteByte('\n') // a blank line before the next heading
	}
	out.WriteString(tail)
	if plan != "" {
		if !bytes.HasSuffix(out.Bytes(), []byte("\n\n")) {
			out.WriteByte('\n')
		}
		out.WriteString(plan)
	}
	if _, err := w.Write(out.Bytes()); err != nil {
		return fmt.Errorf("writing Markdown: %w", err)
	}
	return nil
}

// markdownHead is the headline, the scan line, the gate and incomplete notes, and the rule table.
func markdownHead(r *Report) string {
	var b strings.Builder
	s := r.Summary
	if s.FindingsTotal == 0 {
		b.WriteString("## sunset: no findings\n\n")
	} else {
		fmt.Fprintf(&b, "## sunset: %s, %s, %s\n\n",
			Plural(s.BySeverity.Error, "error", "errors"),
			Plural(s.BySeverity.Warning, "warning", "warnings"),
			Plural(s.BySeverity.Notice, "notice", "notices"))
	}
	var scan []string
	if r.AsOf != "" {
		scan = append(scan, "As of "+escapeMarkdown(r.AsOf))
	}
	if src := markdownSource(r.Source); src != "" {
		scan = append(scan, src)
	}
	scan = append(scan, escapeMarkdown(summaryLine(r, newTableStyles(io.Discard, false), 0)))
	b.WriteString(strings.Join(scan, " · "))
	b.WriteString(".\n")
	if s.GateFailed {
		fmt.Fprintf(&b, "\n**Gate failed:** findings at or above %s (`--fail-on %s`).\n", s.FailOn, s.FailOn)
	}
	if s.Incomplete {
		n := len(r.Errors)
		b.WriteString("\n> [!WARNING]\n> **The scan is incomplete:** ")
		if n > 0 {
			fmt.Fprintf(&b, "%s could not be read, so findings may be missing (see *Incomplete* below).\n", Plural(n, "part", "parts"))
		} else {
			b.WriteString("some zones or files could not be read, so findings may be missing.\n")
		}
	}
	for _, line := range SkippedLines(r, 0) {
		b.WriteString("\n" + escapeMarkdown(line) + ".\n")
	}
	if len(s.ByRule) > 0 {
		info := make(map[string]RuleInfo, len(r.Catalog))
		for _, c := range r.Catalog {
			info[c.ID] = c
		}
		b.WriteString("\n### Rules\n\n| Rule | Title | Severity | End of life | Replacement | Findings |\n| --- | --- | --- | --- | --- | ---: |\n")
		for _, rc := range s.ByRule {
			c := info[rc.RuleID]
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d |\n",
				codeSpan(rc.RuleID),
				cell(truncateRunes(textsafe.Sanitize(orElse(rc.Title, c.Title)), markdownMaxCell)),
				rc.Severity,
				cell(c.EndOfLife),
				cell(truncateRunes(textsafe.Sanitize(c.Replacement), markdownMaxCell)),
				rc.Count)
		}
	}
	return b.String()
}

// markdownSource says what was scanned: "live scan of URL", "files: a, b".
func markdownSource(src Source) string {
	switch {
	case src.Kind == SourceFiles && len(src.Paths) > 0:
		paths := make([]string, len(src.Paths))
		for i, p := range src.Paths {
			paths[i] = escapeMarkdown(p)
		}
		return "files " + strings.Join(paths, ", ")
	case src.Kind != "" && src.Target != "":
		return escapeMarkdown(src.Kind) + " scan of " + escapeMarkdown(src.Target)
	case src.Kind != "":
		return escapeMarkdown(src.Kind) + " scan"
	}
	return ""
}

// markdownFindings writes one <details> table per group while the budget lasts, and returns
// how many findings it showed of how many there are.
func markdownFindings(b *bytes.Buffer, groups []tableGroup, budget int) (shown, total int) {
	for _, g := range groups {
		total += len(g.idx)
	}
	const header = "| Severity | Rule | Resource | Message | End of life |\n| --- | --- | --- | --- | --- |\n"
	const closing = "\n</details>\n\n"
	for _, g := range groups {
		open := "<details>\n<summary>" + escapeHTML(g.heading) + " · " + Plural(len(g.idx), "finding", "findings") + "</summary>\n\n" + header
		if b.Len()+len(open)+len(closing) > budget {
			return shown, total
		}
		b.WriteString(open)
		for _, row := range g.rows() {
			line := "| " + row.sev.String() + " | " + codeSpan(row.rule) + " | " + cell(row.resource) + " | " +
				cell(truncateRunes(row.message, markdownMaxCell)) + " | " + cell(row.eol) + " |\n"
			if b.Len()+len(line)+len(closing) > budget {
				b.WriteString(closing)
				return shown, total
			}
			b.WriteString(line)
			shown++
		}
		b.WriteString(closing)
	}
	return shown, total
}

// markdownErrors is the section on what could not be read, at most maxLen bytes long (past
// markdownMaxErrors rows or maxLen, the rest are counted); "" when everything was read.
func markdownErrors(r *Report, maxLen int) string {
	if len(r.Errors) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### Incomplete\n\n%s of the scan could not be read; findings there may be missing.\n\n| Where | What | Error |\n| --- | --- | --- |\n",
		Plural(len(r.Errors), "part", "parts"))
	const moreRoom = 64 // the "…and N more" line
	for i, e := range r.Errors {
		where := e.Path
		switch {
		case where != "":
		case e.ZoneName != "":
			where = e.ZoneName
		case e.ZoneID != "":
			where = "zone " + e.ZoneID
		case e.AccountID != "":
			where = "account " + e.AccountID
		}
		row := fmt.Sprintf("| %s | %s | %s |\n", cell(truncateRunes(textsafe.Sanitize(where), markdownMaxCell)),
			cell(truncateRunes(textsafe.Sanitize(e.What), markdownMaxCell)), cell(truncateRunes(textsafe.Sanitize(e.Message), markdownMaxCell)))
		if i == markdownMaxErrors || b.Len()+len(row)+moreRoom > maxLen {
			fmt.Fprintf(&b, "\n…and %d more (see the JSON report).\n", len(r.Errors)-i)
			break
		}
		b.WriteString(row)
	}
	return b.String()
}

// cell escapes user text for a table cell, with "-" for nothing so no cell reads as missing.
// A cell never starts a line, so a leading '-' or '+' needs no escape there.
func cell(s string) string {
	if s = escapeInline(s); s == "" {
		return "-"
	}
	return s
}

// escapeMarkdown makes user text render as itself in GFM in a paragraph of its own: it is
// sanitised (one line, no controls), then escaped by migrate.EscapeMarkdownAs, the project's
// one Markdown escaper, for a comment (no @mention, math or inline diff) at a line's start.
func escapeMarkdown(s string) string {
	return migrate.EscapeMarkdownAs(textsafe.Sanitize(s), migrate.MarkdownComment|migrate.MarkdownLineStart)
}

// escapeInline is escapeMarkdown for text after something else on its line (a table cell, a
// list item, a label), where what it starts with cannot open a block.
func escapeInline(s string) string {
	return migrate.EscapeMarkdownAs(textsafe.Sanitize(s), migrate.MarkdownComment)
}

// escapeHTML makes sanitised user text safe inside raw HTML such as <summary>, where Markdown
// is not interpreted; '@' gets the same word joiner as in escapeMarkdown.
func escapeHTML(s string) string {
	s = textsafe.Sanitize(s)
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '"':
			b.WriteString("&quot;")
		case '@':
			b.WriteString("@\u2060")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// codeSpan writes an identifier as inline code. The fence is one backtick longer than the
// longest run inside, so backticks in the text cannot close it; a pipe is escaped because GFM
// splits table cells before it parses code spans.
func codeSpan(s string) string {
	s = textsafe.Sanitize(s)
	if s == "" {
		return "-"
	}
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	inner := strings.ReplaceAll(s, "|", `\|`)
	if strings.HasPrefix(inner, "`") || strings.HasSuffix(inner, "`") {
		inner = " " + inner + " "
	}
	return fence + inner + fence
}

// markdownURL writes an absolute URL as a link destination: parentheses, spaces and angle
// brackets are percent-encoded so the link cannot end early.
func markdownURL(u string) string {
	return strings.NewReplacer("(", "%28", ")", "%29", " ", "%20", "<", "%3C", ">", "%3E").Replace(u)
}

// truncateRunes cuts s to n characters, marking the cut with an ellipsis.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n-1 {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// byteSize writes a size limit for people, rounded up: "1 MiB", "64 KiB", "900 bytes".
func byteSize(n int) string {
	switch {
	case n > 1<<19:
		return strconv.Itoa((n+1<<20-1)>>20) + " MiB"
	case n >= 1<<10:
		return strconv.Itoa((n+1<<10-1)>>10) + " KiB"
	}
	return strconv.Itoa(n) + " bytes"
}
