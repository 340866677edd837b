package migrate_test

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// The two forges' heading anchors, written from their documentation, apart from the code
// under test: GitHub lower-cases, drops what is not a word character, '-' or space, and
// makes spaces hyphens; GitLab does the same and then folds runs of hyphens into one.
var notSlug = regexp.MustCompile(`[^\p{L}\p{M}\p{Nd}\p{Pc}\- ]`)

func githubAnchor(heading string) string {
	return strings.ReplaceAll(notSlug.ReplaceAllString(strings.ToLower(strings.TrimSpace(heading)), ""), " ", "-")
}

func gitlabAnchor(heading string) string {
	return regexp.MustCompile(`-{2,}`).ReplaceAllString(githubAnchor(heading), "-")
}

// renderedHeadings returns the text of each "## " and "### " heading as a forge renders it
// (code spans to their content, backslash escapes and entities undone).
func renderedHeadings(md string) []string {
	unescape := strings.NewReplacer("`", "", `\`, "", "&lt;", "<", "&gt;", ">", "&amp;", "&")
	var out []string
	for _, line := range strings.Split(md, "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			out = append(out, unescape.Replace(h))
		} else if h, ok := strings.CutPrefix(line, "### "); ok {
			out = append(out, unescape.Replace(h))
		}
	}
	return out
}

// planMarkdown renders a plan's plan.md.
func planMarkdown(t *testing.T, p *migrate.Plan) string {
	t.Helper()
	var b bytes.Buffer
	if err := p.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var mdLink = regexp.MustCompile(`\]\(#([^)]+)\)`)

// TestPlanMarkdownIndex: plan.md of a 40-zone account opens with an index, a row per account
// and zone before any section, each linked to its section by an anchor GitHub and GitLab
// both give its heading; every link of the file lands on a heading.
func TestPlanMarkdownIndex(t *testing.T) {
	p, _ := planOf(seed.Generate(40, 3), time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC))
	md := planMarkdown(t, p)
	index, rest, ok := strings.Cut(md, "## Index\n")
	if !ok || strings.Contains(index, "\n## Zone ") || strings.Contains(index, "\n## Account ") {
		t.Fatal("no index before the sections")
	}
	table, _, _ := strings.Cut(rest, "\n\n## ")
	rows := strings.Count(table, "\n| [")
	if want := len(p.Accounts) + len(p.Zones); rows != want || want < 40 {
		t.Errorf("index has %d rows, want %d (one per account and zone)", rows, want)
	}
	anchors := map[string]bool{}
	for _, h := range renderedHeadings(md) {
		if gh, gl := githubAnchor(h), gitlabAnchor(h); gh == gl {
			anchors[gh] = true
		}
	}
	links := mdLink.FindAllStringSubmatch(md, -1)
	if len(links) < rows {
		t.Fatalf("%d links for %d index rows", len(links), rows)
	}
	for _, l := range links {
		if !anchors[l[1]] {
			t.Errorf("link #%s lands on no heading (on GitHub and GitLab alike)", l[1])
		}
	}
	for _, z := range p.Zones {
		if !strings.Contains(table, "[Zone "+migrate.EscapeMarkdown(z.ZoneName)) {
			t.Errorf("zone %s has no row", z.ZoneName)
		}
	}
}

// TestPlanMarkdownSaysPatternsOnce: a step that reads the same in many zones is written once,
// under "Step pattern N" with the list of its zones, and each zone's step links there while
// keeping its own call, id and findings. The plan is smaller for it.
func TestPlanMarkdownSaysPatternsOnce(t *testing.T) {
	p, _ := planOf(seed.Generate(40, 3), time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC))
	md := planMarkdown(t, p)
	counts := map[string]int{} // pattern text -> zones with such a step
	reasons := map[string]int{}
	for _, z := range p.Zones {
		for _, st := range z.Steps {
			if st.Manual && st.Method == "" && len(st.Body) == 0 && len(st.Diffs) == 0 {
				counts[st.Title+"\x00"+st.Reason+"\x00"+st.Note]++
				reasons[st.Reason]++
			}
		}
	}
	var title, reason string
	best := 0
	for k, n := range counts {
		if n > best {
			best = n
			parts := strings.SplitN(k, "\x00", 3)
			title, reason = parts[0], parts[1]
		}
	}
	if best < 3 {
		t.Fatalf("the generated account has no manual step shared by 3 zones (best %d)", best)
	}
	if n := strings.Count(md, "Why: "+migrate.EscapeMarkdown(reason)+"\n"); n != 1 || reasons[reason] < 3 {
		t.Errorf("the reason of %q (%d steps) is written %d times, want once", title, reasons[reason], n)
	}
	i := strings.Index(md, "`!` "+migrate.EscapeMarkdown(title)+"\n\nIn ")
	if i < 0 || !strings.Contains(md[:i], "\n### Step pattern ") {
		t.Fatalf("no step pattern for %q", title)
	}
	if n := strings.Count(strings.SplitN(md[i:], "\n", 4)[2], "](#zone-"); n < best {
		t.Errorf("the pattern lists %d zones, want %d", n, best)
	}
	if n := strings.Count(md, "Why, notes and checks: as [Step pattern "); n < best {
		t.Errorf("%d steps link to a pattern, want at least %d", n, best)
	}
}

// TestPlanMarkdownHeadingWithoutHyphenRuns: a zone whose name would give its heading a run of
// hyphens (an IDN's "xn--"), which GitLab folds and GitHub keeps, is headed by its id, with
// its name on the next line, so that the index's link works on both.
func TestPlanMarkdownHeadingWithoutHyphenRuns(t *testing.T) {
	p := &migrate.Plan{SchemaVersion: 1, Zones: []migrate.ZonePlan{
		{ZoneID: "aaa", ZoneName: "xn--bcher-kva.example", Steps: []migrate.Step{{ID: "s", Title: "t", Reason: "r", Manual: true}}},
		{ZoneID: "bbb", ZoneName: "plain.example", PlanLevel: "pro", Steps: []migrate.Step{{ID: "s", Title: "t", Reason: "r", Manual: true}}},
	}}
	md := planMarkdown(t, p)
	for _, want := range []string{"## Zone `aaa`\n\nName: xn--bcher-kva.example.\n", "(#zone-aaa)", "## Zone plain.example (`bbb`, pro plan)\n", "(#zone-plainexample-bbb-pro-plan)"} {
		if !strings.Contains(md, want) {
			t.Errorf("plan.md lacks %q:\n%s", want, md)
		}
	}
}

var patternLink = regexp.MustCompile(`as \[Step pattern (\d+)\]`)

// TestPlanMarkdownNumbersPatternsInPlanOrder: step patterns are numbered in the order the
// plan first uses them, so that reading the zones in order meets pattern 1, then 2, ...
func TestPlanMarkdownNumbersPatternsInPlanOrder(t *testing.T) {
	p, _ := planOf(seed.Generate(40, 3), time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC))
	md := planMarkdown(t, p)
	seen := map[string]bool{}
	var first []string
	for _, m := range patternLink.FindAllStringSubmatch(md, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			first = append(first, m[1])
		}
	}
	if len(first) < 2 {
		t.Fatalf("the generated account's plan.md links %d step patterns, want several", len(first))
	}
	for i, n := range first {
		if want := strconv.Itoa(i + 1); n != want {
			t.Fatalf("the zones first link to patterns %v, want 1, 2, ... in order", first)
		}
	}
}
