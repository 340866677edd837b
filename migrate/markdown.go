package migrate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// changeSymbol marks a step like Terraform's plan does.
func changeSymbol(st Step) string {
	if st.Manual {
		return "!"
	}
	switch st.Change {
	case ChangeCreate:
		return "+"
	case ChangeUpdate:
		return "~"
	case ChangeDelete:
		return "-"
	case ChangeVerify:
		return "?"
	}
	return " "
}

// MarkdownMode says where escaped text lands, which decides how much of it is escaped. The
// modes are flags; the zero mode, MarkdownDocument, is inline text of a Markdown file.
type MarkdownMode uint8

const (
	// MarkdownDocument is text after something else on its line (a list marker, a label, a
	// table cell's pipe) of a file people read raw as well as rendered (plan.md, the
	// Terraform README): what would change how the line renders is escaped, and '$', '{',
	// '}' and '@' stay as they are, so expressions and e-mail addresses copy out intact.
	MarkdownDocument MarkdownMode = 0
	// MarkdownComment escapes also what GitHub and GitLab act on where reports are posted
	// (pull-request comments, job summaries, SARIF messages): '$' (math), '{' and '}' (GitLab's
	// inline diff), and '@', followed by a word joiner so "@team" mentions nobody.
	MarkdownComment MarkdownMode = 1 << 0
	// MarkdownLineStart is text that may begin a line (a paragraph of its own): a leading
	// '-', '+' or '=' (a list item, a setext underline) or "1." / "1)" (an ordered list) is
	// escaped too.
	MarkdownLineStart MarkdownMode = 1 << 1
)

// EscapeMarkdown makes user text safe inline in Markdown prose and table cells of a
// document: EscapeMarkdownAs(s, MarkdownDocument).
func EscapeMarkdown(s string) string { return EscapeMarkdownAs(s, MarkdownDocument) }

// EscapeMarkdownAs makes text from the account or a repository (descriptions, names,
// messages) render as itself in GFM where mode says it lands; it is the project's one
// Markdown escaper. The characters that start emphasis, links, code, strikethrough or
// headings get a backslash; HTML's <, > and & become entities (so `<script>` shows as text
// and never runs); a pipe cannot end a table cell. The text is sanitised first
// (textsafe.Sanitize): one line, no escape sequence or control character, spaces folded.
func EscapeMarkdownAs(s string, mode MarkdownMode) string {
	if s = textsafe.Sanitize(s); s == "" {
		return ""
	}
	lineStart, comment := mode&MarkdownLineStart != 0, mode&MarkdownComment != 0
	listMark := -1
	if lineStart {
		listMark = orderedListMark(s)
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i, r := range s {
		if i == listMark || (i == 0 && lineStart && strings.ContainsRune("-+=", r)) {
			b.WriteByte('\\')
		}
		switch {
		case strings.ContainsRune("\\`*_[]|~#!", r), comment && strings.ContainsRune("${}", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '&':
			b.WriteString("&amp;")
		case r == '@' && comment:
			b.WriteString("@\u2060")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// orderedListMark is the index of the '.' or ')' of a leading "1." or "1)" (up to nine
// digits), which at the start of a line would begin an ordered list; -1 when there is none.
func orderedListMark(s string) int {
	d := 0
	for d < len(s) && d < 9 && s[d] >= '0' && s[d] <= '9' {
		d++
	}
	if d > 0 && d < len(s) && (s[d] == '.' || s[d] == ')') {
		return d
	}
	return -1
}

// code renders s as inline code whatever backticks it holds (a fence longer than any run
// inside, padded with spaces when s starts or ends with a backtick); s is sanitised
// (textsafe.Sanitize), so line breaks become spaces and no control character is left.
func code(s string) string {
	s = textsafe.Sanitize(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || s == "" {
		s = " " + s + " "
	}
	return fence + s + fence
}

// fenced renders a block of text in a fence no line inside can close.
func fenced(w io.Writer, lang, body string) {
	fence := strings.Repeat("`", max(3, longestRun(body, '`')+1))
	fmt.Fprintf(w, "%s%s\n%s\n%s\n", fence, lang, strings.TrimRight(body, "\n"), fence)
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// TwoWays is the paragraph of plan.md that names the Terraform output written beside it
// (terraform/, package migrate/terraform) and says that a plan is carried out one way only.
const TwoWays = "**Two ways to carry out this plan, never both on the same objects:** the API steps below, " +
	"or the Terraform configuration in `terraform/` (Cloudflare provider v5; its `terraform/README.md` gives the order: " +
	"old resources out of Terraform state while still on provider v4, then the upgrade, then `terraform apply`). " +
	"`terraform/README.md` lists the steps below that the configuration replaces: on the Terraform way, skip those; " +
	"the other steps (verifications, deleting the old objects, manual steps) are the same on both ways."

// WriteMarkdown writes the plan in its human form (plan.md), Terraform-plan-like: per
// account and zone, the numbered steps with their call, why, what they resolve and the old
// -> new diffs, and a summary line. Text from the account is escaped.
func (p *Plan) WriteMarkdown(w io.Writer) error {
	return writeMarkdown(w, p, func(fn func(int, planScope) error) error {
		for si, s := range planScopes(p) {
			if err := fn(si, s); err != nil {
				return err
			}
		}
		return nil
	})
}

// WriteMarkdown is Plan.WriteMarkdown for the spilled plan whose head Finish gave: its zones
// are read back one at a time, three times (the index and step patterns, the shared texts,
// the sections), so memory holds one zone and what the index shows of the others.
func (s *Spill) WriteMarkdown(w io.Writer, head *Plan) error {
	return writeMarkdown(w, head, func(fn func(int, planScope) error) error {
		si := 0
		for _, sc := range planScopes(&Plan{Accounts: head.Accounts}) {
			if err := fn(si, sc); err != nil {
				return err
			}
			si++
		}
		return s.Zones(func(z *ZonePlan) error {
			err := fn(si, zoneScope(z))
			si++
			return err
		})
	})
}

// writeMarkdown writes plan.md for the plan whose summary, accounts and findings without a
// step head holds, scopes handing over its accounts' and zones' sections (planScope) one
// at a time, in order, each time it is called.
func writeMarkdown(w io.Writer, head *Plan, scopes func(fn func(int, planScope) error) error) error {
	var lines []scopeLine
	pf := newPatternFinder()
	zones := 0
	err := scopes(func(si int, s planScope) error {
		lines = append(lines, lineOf(s))
		if s.kind == "Zone" {
			zones++
		}
		pf.scope(si, s.steps)
		return nil
	})
	if err != nil {
		return err
	}
	shared, need := pf.shared()
	sf := newSharedFinder(&shared, need)
	if err := scopes(func(si int, s planScope) error { sf.scope(si, s); return nil }); err != nil {
		return err
	}
	sf.done()
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Migration plan\n\n")
	var meta []string
	if head.AsOf != "" {
		meta = append(meta, "as of "+head.AsOf)
	}
	if head.Source != "" {
		meta = append(meta, "source "+code(head.Source))
	}
	meta = append(meta, fmt.Sprintf("plan schema %d", head.SchemaVersion))
	fmt.Fprintf(bw, "%s.\n\n", strings.Join(meta, ", "))
	writeIncomplete(bw, head)
	fmt.Fprintf(bw, "Symbols: `+` create, `~` change, `-` delete, `?` verify (a read), `!` manual (an operator acts). Steps run in order; a step runs only after the steps it depends on.\n\n")
	fmt.Fprintf(bw, "**Plan: %s** (%s, %s).\n\n", head.Summary.Line(), plural(len(lines)-zones, "account", "accounts"), plural(zones, "zone", "zones"))
	if len(lines) == 0 {
		fmt.Fprintf(bw, "No changes. Nothing deprecated needs migrating.\n")
	} else {
		fmt.Fprintf(bw, "%s\n\n", TwoWays)
	}
	if len(lines) > 1 { // one section needs no index
		writeIndex(bw, lines)
	}
	writeShared(bw, lines, shared)
	if err := scopes(func(_ int, s planScope) error { writeScope(bw, s, shared); return nil }); err != nil {
		return err
	}
	if len(head.Unplanned) > 0 {
		fmt.Fprintf(bw, "## Findings without a step\n\n")
		for _, f := range head.Unplanned {
			fmt.Fprintf(bw, "- %s\n", code(f))
		}
		fmt.Fprintln(bw)
	}
	return bw.Flush()
}

// writeIncomplete says, at the top of plan.md, that the scan was incomplete: which zones and
// accounts were not read whole and what was not read of each, that apply and verify refuse
// the plan for them, and how to plan them whole. Nothing for a complete plan.
func writeIncomplete(w *bufio.Writer, p *Plan) {
	if !p.Incomplete {
		return
	}
	fmt.Fprintf(w, "**The scan was incomplete: this plan covers only what it read.** ")
	if len(p.Unread) == 0 {
		fmt.Fprintf(w, "It stopped before it listed every account and zone.")
	} else {
		fmt.Fprintf(w, "%s not read whole; what the plan says of them may lack steps, or hold steps that would be wrong with what was not read.",
			plural(len(p.Unread), "zone or account was", "zones or accounts were"))
	}
	fmt.Fprintf(w, " `sunset apply` and `sunset verify` refuse this plan; with `--partial` they skip these and carry out the rest.\n\n")
	for _, u := range p.Unread {
		parts := make([]string, len(u.Parts))
		for i, part := range u.Parts {
			parts[i] = code(part)
		}
		label := code(u.ID)
		if u.Name != "" {
			label = EscapeMarkdown(u.Name) + " (" + label + ")"
		}
		what := "not read: " + strings.Join(parts, ", ")
		if slices.Equal(u.Parts, []string{"zone"}) {
			what = "not read at all" // a zone the scan never started
		}
		fmt.Fprintf(w, "- %s %s: %s\n", u.Scope, label, what)
	}
	if len(p.Unread) > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "To plan them whole, continue the scan and plan again: `sunset scan --resume SNAPSHOT --plan-dir DIR`, "+
		"SNAPSHOT being the scan's `--snapshot-out` file (without one, scan again).\n\n")
}

// writeScope writes an account's or zone's section: its summary, verification and notes,
// then its steps.
func writeScope(w io.Writer, s planScope, shared planShared) {
	fmt.Fprintf(w, "## %s\n\n", s.heading)
	if s.nameLine {
		fmt.Fprintf(w, "Name: %s.\n\n", s.name)
	}
	fmt.Fprintf(w, "%s.\n\n", s.summary.Line())
	if s.verify != nil {
		writeVerification(w, s.verify, &shared)
	}
	if len(s.notes) > 0 {
		fmt.Fprintf(w, "Notes:\n\n")
		for _, n := range s.notes {
			fmt.Fprintf(w, "- %s\n", EscapeMarkdown(n))
		}
		fmt.Fprintln(w)
	}
	num := map[string]int{}
	for i, st := range s.steps {
		num[st.ID] = i + 1
	}
	for i, st := range s.steps {
		writeStep(w, i+1, st, num, &shared)
	}
	fmt.Fprintf(w, "**%s.**\n\n", s.summary.Line())
}

// ComparedRateLimits counts the rate limits compared with the rules that replace them (not
// those the plan keeps: there is no rule to compare).
func (v *Verification) ComparedRateLimits() int {
	n := 0
	for _, rl := range v.RateLimits {
		if rl.Rule != "" {
			n++
		}
	}
	return n
}

// VerificationLine is the one-line account of a zone's verification: "verified on N
// generated requests: same decision", or how many differ, and how the rate limits compare.
func (v *Verification) VerificationLine() string {
	var parts []string
	switch {
	case v.Requests == 0 && len(v.RateLimits) == 0:
		return "nothing compared"
	case v.Requests == 0:
	case v.Differing == 0:
		parts = append(parts, fmt.Sprintf("verified on %s: same decision", plural(v.Requests, "generated request", "generated requests")))
	default:
		parts = append(parts, fmt.Sprintf("verified on %s: %d decide otherwise (%s)", plural(v.Requests, "generated request", "generated requests"),
			v.Differing, plural(len(v.Differences), "kind of difference", "kinds of difference")))
	}
	if n := v.ComparedRateLimits(); n > 0 {
		differ, exact := 0, 0
		for _, rl := range v.RateLimits {
			if rl.Differing > 0 {
				differ++
			}
			if rl.Exact {
				exact++
			}
		}
		rl := fmt.Sprintf("%s compared: ", plural(n, "rate limit", "rate limits"))
		if differ == 0 {
			rl += "same requests counted"
		} else {
			rl += fmt.Sprintf("%d count other requests", differ)
		}
		parts = append(parts, fmt.Sprintf("%s, %d exact", rl, exact))
	}
	if kept := len(v.RateLimits) - v.ComparedRateLimits(); kept > 0 {
		parts = append(parts, fmt.Sprintf("%s kept by the plan (no rule to compare)", plural(kept, "rate limit", "rate limits")))
	}
	return strings.Join(parts, "; ")
}

// writeVerification writes a zone's verification: its line, then each difference with its
// witness and rules, each rate limit that is not exact, and the notes (a long one that many
// zones share as a link to where plan.md says it once).
func writeVerification(w io.Writer, v *Verification, shared *planShared) {
	fmt.Fprintf(w, "Verification: %s.\n\n", v.VerificationLine())
	var items []string
	for _, d := range v.Differences {
		item := fmt.Sprintf("%s on %s: old %s, new %s; witness %s; old rules matched: %s; new rules matched: %s",
			decisionText(d.Old)+" -> "+decisionText(d.New), plural(d.Requests, "request", "requests"),
			EscapeMarkdown(orNone(d.Old.By)), EscapeMarkdown(orNone(d.New.By)), code(witnessJSON(d.Witness)),
			EscapeMarkdown(orNone(strings.Join(d.OldRules, ", "))), EscapeMarkdown(orNone(strings.Join(d.NewRules, ", "))))
		if d.Declared != "" {
			item += "; declared by the plan: " + EscapeMarkdown(d.Declared)
		}
		items = append(items, item)
	}
	for _, rl := range v.RateLimits {
		if rl.Differing > 0 {
			items = append(items, fmt.Sprintf("rate limit %s: %d of %d requests counted otherwise; witness %s (old counts it: %t, new: %t)",
				code(rl.RateLimitID), rl.Differing, rl.Requests, code(witnessJSON(rl.Witness)), rl.OldCounts, rl.NewCounts))
		}
		if len(rl.NotExact) > 0 {
			items = append(items, fmt.Sprintf("rate limit %s is not exact: %s", code(rl.RateLimitID), EscapeMarkdown(strings.Join(rl.NotExact, "; "))))
		}
	}
	for _, n := range v.Notes {
		items = append(items, shared.textRef(n))
	}
	for _, it := range items {
		fmt.Fprintf(w, "- %s\n", it)
	}
	if len(items) > 0 {
		fmt.Fprintln(w)
	}
}

// decisionText is a decision in a few words, for plan.md.
func decisionText(d Decision) string {
	s := code(orNone(d.Action))
	if len(d.Skipped) > 0 {
		s += " skipping " + EscapeMarkdown(strings.Join(d.Skipped, " "))
	}
	if d.Logged {
		s += " logged"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// witnessJSON is a witness request as one line of JSON (keys sorted).
func witnessJSON(w map[string]any) string {
	b, err := json.Marshal(w)
	if err != nil {
		return fmt.Sprint(w)
	}
	return string(b)
}

// writeStep writes one step: its heading, its call and facts, then its text (see
// writeStepText), or a link to its pattern when plan.md says that text once.
func writeStep(w io.Writer, n int, st Step, num map[string]int, shared *planShared) {
	fmt.Fprintf(w, "### %d. `%s` %s\n\n", n, changeSymbol(st), EscapeMarkdown(st.Title))
	fmt.Fprintf(w, "- %s\n", strings.Join(stepFacts(st, num), " · "))
	resolves := ""
	if len(st.Resolves) > 0 {
		var fps []string
		for _, f := range st.Resolves {
			fps = append(fps, code(f))
		}
		resolves = fmt.Sprintf("- Resolves %s: %s\n", plural(len(st.Resolves), "finding", "findings"), strings.Join(fps, ", "))
	}
	if k := shared.pattern[patternID(st)]; k > 0 {
		fmt.Fprintf(w, "- Why, notes and checks: as [%s](#%s), said once for the %s that have this step.\n%s\n",
			patternName(k), githubSlug(patternName(k)), plural(len(shared.patternScopes[k-1]), "account or zone", "accounts and zones"), resolves)
		return
	}
	writeStepText(w, st, shared, resolves)
}

// stepFacts are the one-line facts of a step: its call, id, risk, whether it is derived or
// manual, and the steps it comes after (by number in the scope, else by id).
func stepFacts(st Step, num map[string]int) []string {
	var facts []string
	if st.Method != "" {
		facts = append(facts, code(st.Method+" "+st.Path))
	}
	facts = append(facts, "id "+code(st.ID), "risk "+string(st.Risk))
	if st.Derived {
		facts = append(facts, "**derived**")
	}
	if st.Manual {
		facts = append(facts, "**manual**")
	}
	if len(st.DependsOn) > 0 {
		var deps []string
		for _, d := range st.DependsOn {
			if k, ok := num[d]; ok {
				deps = append(deps, fmt.Sprintf("%d", k))
			} else {
				deps = append(deps, code(d))
			}
		}
		facts = append(facts, "after "+strings.Join(deps, ", "))
	}
	return facts
}

// inlineBody is the most a request body may take to be written on the step's list, as code,
// rather than pretty-printed in a folded block: a pause, a switch-off, a setting, one rule.
const inlineBody = 400

// writeStepText writes what a step says whatever zone it is in, as the items of a list (a
// step of plan.md is a handful of lines, read at 200 zones as at one): why, its note, then
// resolves (what it settles, written by the caller), its checks, a short request body; then
// its diffs and a longer body as blocks. With shared, a long reason or note that many steps
// share is a link to where plan.md says it once.
func writeStepText(w io.Writer, st Step, shared *planShared, resolves string) {
	ref := EscapeMarkdown
	if shared != nil {
		ref = shared.textRef
	}
	fmt.Fprintf(w, "- Why: %s\n", ref(st.Reason))
	if st.Note != "" {
		fmt.Fprintf(w, "- Note: %s\n", ref(st.Note))
	}
	fmt.Fprint(w, resolves)
	switch len(st.Checks) {
	case 0:
	case 1:
		fmt.Fprintf(w, "- Check: %s\n", EscapeMarkdown(st.Checks[0]))
	default:
		fmt.Fprintf(w, "- Check:\n")
		for _, c := range st.Checks {
			fmt.Fprintf(w, "  - %s\n", EscapeMarkdown(c))
		}
	}
	var compact bytes.Buffer
	short := len(st.Body) > 0 && json.Compact(&compact, st.Body) == nil && compact.Len() <= inlineBody
	if short {
		fmt.Fprintf(w, "- Request body: %s\n", code(escapeControls(compact.String())))
	}
	fmt.Fprintln(w)
	writeStepDiffs(w, st.Diffs)
	if len(st.Body) > 0 && !short {
		fmt.Fprintf(w, "<details><summary>Request body</summary>\n\n")
		fenced(w, "json", escapeControls(foldedJSON(st.Body)))
		fmt.Fprintf(w, "\n</details>\n\n")
	}
}

// separator is the comma after element i of n, none after the last.
func separator(i, n int) string {
	if i < n-1 {
		return ","
	}
	return ""
}

// foldedJSON writes a JSON object a member a line and a list member an element a line, each
// compact (an entry point's body reads a rule a line, not twelve); anything else, or what does
// not parse, as it is.
func foldedJSON(body []byte) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil || len(top) == 0 {
		return string(body)
	}
	compact := func(raw []byte) string {
		var b bytes.Buffer
		if json.Compact(&b, raw) != nil {
			return string(raw)
		}
		return b.String()
	}
	var b strings.Builder
	b.WriteString("{\n")
	for i, k := range slices.Sorted(maps.Keys(top)) {
		name, _ := json.Marshal(k) // a string always encodes
		var elems []json.RawMessage
		if json.Unmarshal(top[k], &elems) == nil && len(elems) > 0 {
			fmt.Fprintf(&b, "  %s: [\n", name)
			for j, e := range elems {
				fmt.Fprintf(&b, "    %s%s\n", compact(e), separator(j, len(elems)))
			}
			b.WriteString("  ]")
		} else {
			fmt.Fprintf(&b, "  %s: %s", name, compact(top[k]))
		}
		b.WriteString(separator(i, len(top)) + "\n")
	}
	b.WriteString("}")
	return b.String()
}

// writeStepDiffs writes a step's old -> new diffs as one diff block.
func writeStepDiffs(w io.Writer, diffs []Diff) {
	if len(diffs) == 0 {
		return
	}
	var b strings.Builder
	for i, d := range diffs {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "# %s\n", oneLine(d.Label))
		fmt.Fprintf(&b, "- %s\n", oneLine(d.Old))
		fmt.Fprintf(&b, "+ %s\n", oneLine(d.New))
		for _, c := range d.Changes {
			fmt.Fprintf(&b, "#   %s\n", oneLine(c))
		}
	}
	fenced(w, "diff", b.String())
	fmt.Fprintln(w)
}

// oneLine keeps a diff entry on one line so that +/- prefixes stay meaningful: line breaks
// are written as \n and \r, and what else textsafe.Block drops (escape sequences, controls)
// goes.
func oneLine(s string) string {
	return textsafe.Block(strings.NewReplacer("\r\n", `\n`, "\n", `\n`, "\r", `\r`).Replace(s))
}

// escapeControls writes each control character of a request body (textsafe.IsControl) other
// than a newline or a tab as a JSON \uXXXX escape. In JSON that json.Indent wrote such a
// character stands only inside a string, where the escape means the same; the body keeps its
// meaning and the fenced block holds nothing a terminal would act on.
func escapeControls(s string) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if textsafe.IsControl(r) && r != '\n' && r != '\t' {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
