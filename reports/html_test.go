package reports

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// reportGoldenDir holds the report fixtures and golden pages at the repository root:
// demo-report.json is `sunset demo --as-of 2025-02-01 --format json` (the cli package's
// TestReportFixture keeps it in step with the demo and rewrites it under -update).
var reportGoldenDir = filepath.Join("..", "testdata", "golden", "report")

// readFixtureReport reads a JSON report fixture of reportGoldenDir.
func readFixtureReport(t testing.TB, name string) *Report {
	t.Helper()
	f, err := os.Open(filepath.Join(reportGoldenDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	r, err := ReadReport(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

// renderHTML writes r with h.
func renderHTML(t testing.TB, h HTML, r *Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := h.Write(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// checkReportGolden compares got with reportGoldenDir/name, or rewrites it under -update.
func checkReportGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(reportGoldenDir, name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("output differs from %s at line %d (run go test -update after checking the change):\n  want: %.300s\n  got:  %.300s", path, i+1, w, g)
			}
		}
	}
}

// readFixturePlan reads a plan.json fixture of reportGoldenDir.
func readFixturePlan(t testing.TB, name string) *migrate.Plan {
	t.Helper()
	f, err := os.Open(filepath.Join(reportGoldenDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	p, err := migrate.ReadPlan(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return p
}

// TestHTMLGoldenDemo renders the demo account's report and plan (as of 2025-02-01) and
// compares the page with the golden file, then checks what the page must show whatever it
// is regenerated to: the summary numbers, every dated catalog entry on the timeline, the hit
// rules highlighted, one table row per finding.
func TestHTMLGoldenDemo(t *testing.T) {
	rep := readFixtureReport(t, "demo-report.json")
	page := renderHTML(t, HTML{Plan: readFixturePlan(t, "demo-plan.json")}, rep)
	checkReportGolden(t, "demo.html", page)

	s := rep.Summary
	for key, value := range map[string]int{
		"zones": s.ZonesScanned, "findings": s.FindingsTotal, "error": s.BySeverity.Error,
		"warning": s.BySeverity.Warning, "notice": s.BySeverity.Notice, "incomplete": s.ZonesFailed,
	} {
		want := fmt.Sprintf(`data-card="%s"><span class="value">%d</span>`, key, value)
		if !strings.Contains(page, want) {
			t.Errorf("summary card %s: want %q in the page", key, want)
		}
	}
	if !strings.Contains(page, `data-card="as-of"><span class="value">2025-02-01</span>`) {
		t.Error("the as-of card is missing")
	}
	if got := findingRows(page); got != rep.Findings.Len() {
		t.Errorf("%d finding rows, want %d", got, rep.Findings.Len())
	}
	dated := 0
	for _, e := range catalog.Default().Entries() {
		if e.EndOfLife.IsZero() && e.DeprecatedOn.IsZero() {
			if !strings.Contains(page, "<code class=\"hit\">"+string(e.ID)+"</code>") && !strings.Contains(page, "<code>"+string(e.ID)+"</code>") {
				t.Errorf("undated entry %s is not listed under the timeline", e.ID)
			}
			continue
		}
		dated++
	}
	if got := strings.Count(page, `<g class="tl-row`); got != dated {
		t.Errorf("timeline has %d rows, the catalog %d dated entries", got, dated)
	}
	for _, rc := range s.ByRule {
		if !strings.Contains(page, `<g class="tl-row hit sev-`+rc.Severity.String()+`" data-rule="`+rc.RuleID+`">`) &&
			!strings.Contains(page, "<code class=\"hit\">"+rc.RuleID+"</code>") {
			t.Errorf("hit rule %s (%s) is not highlighted on the timeline", rc.RuleID, rc.Severity)
		}
		if !strings.Contains(page, `id="rule-`+rc.RuleID+`"`) {
			t.Errorf("rule %s has no section", rc.RuleID)
		}
	}
	if !strings.Contains(page, `>as of 2025-02-01</text>`) {
		t.Error("the timeline does not mark the as-of date")
	}
}

// findingRows counts the findings listed in the page's groups.
func findingRows(page string) int {
	return len(regexp.MustCompile(`<li[^>]* data-severity="`).FindAllStringIndex(page, -1))
}

// TestHTMLEscapesUserText puts markup in every field that comes from the account, a
// repository or a user catalog, and checks that none of it becomes markup: the only script
// element is the page's own, no tag carries an event handler, and the text reads back as
// written.
func TestHTMLEscapesUserText(t *testing.T) {
	const (
		script = `<script>document.body.setAttribute("data-pwned","1")</script>`
		img    = `<img src=x onerror=alert(1)>`
		breakA = `"><svg onload=alert(1)>`
		closeT = `</title></textarea></style><script>alert(1)</script>`
	)
	f := sampleFindings()
	f[0].Message = "message " + script
	f[0].ZoneName = "zone" + breakA
	f[0].Resource.Name = img
	f[0].RuleID = "rule" + breakA
	f[1].Title = closeT
	f[1].EndOfLife = "2026-01-01" + img
	f[3].Location = &scanner.Location{Path: "infra/" + closeT + ".tf", StartLine: 3}
	f[4].SuppressedBy = script
	rep := NewReport(Input{Version: "1.0" + img, AsOf: asOf, Source: Source{Kind: SourceFiles, Paths: []string{"repo" + breakA}}, Findings: f})
	rep.Errors = []scanner.RunError{{Path: "x" + script, What: img, Message: closeT}}
	rep.Catalog = append(rep.Catalog, RuleInfo{
		ID: "user-rule", Title: "User " + closeT, Description: "A rule whose description holds " + script,
		Replacement: img, DocURL: "javascript:alert(1)", EndOfLife: "2025-01-01",
	}, RuleInfo{ID: "rule-with-link", DocURL: `https://example.invalid/a"onmouseover="alert(1)`})

	page := renderHTML(t, HTML{}, rep)

	if n := strings.Count(strings.ToLower(page), "<script"); n != 1 {
		t.Errorf("%d <script elements, want only the page's own", n)
	}
	// html/template quotes every attribute value and escapes quotes inside it, so what is
	// left of a tag without its quoted values is its real name and attributes.
	tag := regexp.MustCompile(`<[a-zA-Z][^>]*>`)
	quoted := regexp.MustCompile(`"[^"]*"`)
	handler := regexp.MustCompile(`(?i)\son[a-z]+\s*=`)
	for _, m := range tag.FindAllString(page, -1) {
		if handler.MatchString(quoted.ReplaceAllString(m, `""`)) {
			t.Errorf("a tag carries an event handler: %s", m)
		}
		if strings.HasPrefix(strings.ToLower(m), "<img") || strings.HasPrefix(strings.ToLower(m), "<svg onload") {
			t.Errorf("user text became an element: %s", m)
		}
	}
	if strings.Contains(page, `href="javascript:`) || !strings.Contains(page, `<a href="#ZgotmplZ"`) {
		t.Error("a javascript: URL made it into a link")
	}
	if !strings.Contains(page, `<a href="https://example.invalid/a%22onmouseover=%22alert%281%29" rel="noopener noreferrer">`) {
		t.Error("a quote in a documentation URL is not escaped")
	}
	for _, want := range []string{
		"A rule whose description holds &lt;script&gt;document.body.setAttribute(&#34;data-pwned&#34;,&#34;1&#34;)&lt;/script&gt;",
		"message &lt;script&gt;",
		"&lt;img src=x onerror=alert(1)&gt;",
		"zone&#34;&gt;&lt;svg onload=alert(1)&gt;",
		"User &lt;/title&gt;&lt;/textarea&gt;&lt;/style&gt;&lt;script&gt;alert(1)&lt;/script&gt;",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("escaped text %q missing from the page", want)
		}
	}
	// The page's own script is the one the policy admits: a stray edit of the script that
	// forgets the hash would leave the table inert in a browser.
	checkCSPMatches(t, page)
}

// checkCSPMatches checks that the CSP admits exactly the page's inline style and script.
func checkCSPMatches(t *testing.T, page string) {
	t.Helper()
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(page)
	if csp == nil {
		t.Fatal("no Content-Security-Policy meta element")
	}
	policy := html.UnescapeString(csp[1])
	for _, el := range []string{"style", "script"} {
		m := regexp.MustCompile(`(?s)<` + el + `>(.*?)</` + el + `>`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("no inline %s", el)
		}
		sum := sha256.Sum256([]byte(m[1]))
		want := el + "-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
		if !strings.Contains(policy, want) {
			t.Errorf("policy %q does not admit the inline %s (want %q)", policy, el, want)
		}
	}
	for _, want := range []string{"default-src 'none'", "connect-src 'none'", "img-src 'none'", "font-src 'none'", "base-uri 'none'", "form-action 'none'"} {
		if !strings.Contains(policy, want) {
			t.Errorf("policy %q lacks %q", policy, want)
		}
	}
	if strings.Contains(policy, "unsafe-inline") || strings.Contains(policy, "http") {
		t.Errorf("policy %q admits more than the page's own inline code", policy)
	}
}

// TestHTMLSelfContained checks the page references nothing outside itself: no src
// attribute, no link element, no url() or @import in its style, and no http(s) URL anywhere
// but in the href of a plain link a reader may click (documentation).
func TestHTMLSelfContained(t *testing.T) {
	page := renderHTML(t, HTML{}, readFixtureReport(t, "demo-report.json"))
	if msg := externalReference(page); msg != "" {
		t.Error(msg)
	}
	if !strings.Contains(page, `<a href="https://developers.cloudflare.com/`) {
		t.Error("documentation links are missing (the test would pass vacuously)")
	}
}

// externalReference returns what in page could make a browser fetch something, or "": an
// element that loads (img, link, iframe, ...), a loading attribute (src, srcset, ...), a style
// attribute, url() or @import in the style sheet, or an http(s) URL in any attribute but the
// href of a plain link (documentation), which loads nothing until clicked. (URLs in text,
// such as a redirect target a step describes, load nothing either.)
func externalReference(page string) string {
	tag := regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9:-]*)([^>]*)>`)
	attr := regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9:_.-]*)(?:\s*=\s*"([^"]*)")?`)
	for _, m := range tag.FindAllStringSubmatch(page, -1) {
		name := strings.ToLower(m[1])
		switch name {
		case "img", "image", "link", "iframe", "frame", "object", "embed", "base", "use", "audio", "video", "source", "track", "picture", "portal", "input type=\"image\"":
			return "the page has a loading element: " + m[0]
		}
		for _, a := range attr.FindAllStringSubmatch(m[2], -1) {
			an, value := strings.ToLower(a[1]), strings.ToLower(html.UnescapeString(a[2]))
			switch an {
			case "src", "srcset", "xlink:href", "background", "poster", "data", "style", "action", "formaction", "ping", "manifest":
				return "the page has a loading attribute: " + m[0]
			}
			if strings.Contains(value, "http://") || strings.Contains(value, "https://") || strings.Contains(value, "//") && strings.HasPrefix(value, "//") {
				if name == "a" && an == "href" {
					continue
				}
				return "an attribute names a URL: " + m[0]
			}
		}
	}
	style := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindStringSubmatch(page)
	if style == nil {
		return "no inline style sheet"
	}
	for _, bad := range []string{"url(", "@import", "image-set(", "@font-face"} {
		if strings.Contains(strings.ToLower(style[1]), bad) {
			return "the style sheet uses " + bad
		}
	}
	return ""
}

// TestExternalReference checks the check: each of these pages would fetch something.
func TestExternalReference(t *testing.T) {
	for _, page := range []string{
		`<style>a{}</style><img alt="">`,
		`<style>a{}</style><p style="color:red">`,
		`<style>a{}</style><svg><use href="#x"/></svg>`,
		`<style>a{background:url(x.png)}</style>`,
		`<style>@import "x.css";</style>`,
		`<style></style><script src="x.js"></script>`,
		`<style></style><form action="https://example.invalid/"></form>`,
		`<style></style><meta http-equiv="refresh" content="0; url=https://example.invalid/">`,
		`<style></style><a ping="https://example.invalid/" href="#x">x</a>`,
	} {
		if externalReference(page) == "" {
			t.Errorf("not caught: %s", page)
		}
	}
	if msg := externalReference(`<style>a{}</style><a href="https://example.invalid/x" rel="noopener noreferrer">https://example.invalid/x</a> <p>see https://example.invalid/</p>`); msg != "" {
		t.Errorf("a documentation link is flagged: %s", msg)
	}
}

// TestHTMLDeterministic renders the same report twice and checks the bytes match and the
// report is not modified.
func TestHTMLDeterministic(t *testing.T) {
	rep := sampleReport()
	before := render(t, "json", Options{}, rep)
	a := render(t, "html", Options{}, rep)
	b := render(t, "html", Options{Color: true, Width: 40}, rep)
	if a != b {
		t.Error("two renderings differ")
	}
	if after := render(t, "json", Options{}, rep); after != before {
		t.Error("rendering modified the report")
	}
}

// TestHTMLSampleReport checks the parts the demo does not exercise: an incomplete scan,
// a failed gate, a suppressed finding, a file finding and read errors.
func TestHTMLSampleReport(t *testing.T) {
	rep := sampleReport()
	page := renderHTML(t, HTML{}, rep)
	for _, want := range []string{
		`<p class="banner incomplete" role="status"><strong>Incomplete scan.</strong> 1 zone could not be read completely.`,
		`<p class="banner gate" role="status">Gate failed: 2 findings at or above error (--fail-on error), so a CI job running this scan fails.</p>`,
		`<p class="headline">2 objects in 1 zone and 1 file use API features past their end of life: they may stop working at any time and must move to their replacements. 2 more reach their end of life from 2025-12-31.</p>`,
		`<div class="card bad" data-card="incomplete"><span class="value">1</span><span class="label">zones incomplete</span><span class="note">1 read error</span>`,
		`<span class="note">plus 1 suppressed</span>`,
		`<li id="f-fp3" data-severity="error" data-suppressed="true" class="suppressed">`,
		`<dt>Suppressed</dt><dd>baseline</dd>`,
		`<span class="gtitle">example.org</span> <span class="gsub">account a1</span> <span class="gcounts"><span class="sev sev-warning">1 warning</span> <span class="muted">1 finding, 1 suppressed &middot; end of life <time datetime="2025-12-31">2025-12-31</time></span></span></summary>`,
		`<details class="group sev-error" id="g-file-infra_2fwaf_2etf" data-kind="file" data-label="infra/waf.tf">`,
		`<span class="fres">cloudflare_firewall_rule.block (line 12)</span>`,
		`<details class="group sev-notice" id="g-account-a1" data-kind="account" data-label="account a1">`,
		`<h2 id="errors-h">Could not read (1)</h2>`,
		`<tr><td>broken.example</td><td>firewall rules</td><td>HTTP 500 after 3 attempts</td></tr>`,
		`<input type="checkbox" id="filter-suppressed">`,
		`Live account at https://api.example.invalid/client/v4`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// The suppressed finding is listed but not counted in the charts.
	if strings.Contains(page, `data-label="example.org" data-count="2"`) || !strings.Contains(page, `data-label="example.org" data-count="1"`) {
		t.Error("the zone chart counts the suppressed finding")
	}
}

// TestHTMLEmptyAndFiles renders a files scan without findings: no charts, no table, the
// files card, and the timeline with nothing hit.
func TestHTMLEmptyAndFiles(t *testing.T) {
	rep := NewReport(Input{Version: "1", AsOf: asOf, Source: Source{Kind: SourceFiles, Paths: []string{"infra", "scripts"}}, Counts: Counts{FilesScanned: 12}})
	page := renderHTML(t, HTML{}, rep)
	for _, want := range []string{
		`data-card="files"><span class="value">12</span><span class="label">files scanned</span>`,
		`Configuration files in infra, scripts`,
		`<h2 id="findings-h">Findings (0)</h2>`,
		`<h2 id="charts-h">Findings by rule and by file</h2>`,
		`<p>No rule is hit.</p>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, unwanted := range []string{`<table class="findings"`, `<figure class="chart" id="chart-rules"`, ` hit sev-`, `class="banner`} {
		if strings.Contains(page, unwanted) {
			t.Errorf("page has %q", unwanted)
		}
	}
}

// TestHTMLTimelineUserCatalog checks the timeline takes its context from the given catalog,
// adds rules only the report knows, and draws the report's (effective) dates for hit rules.
func TestHTMLTimelineUserCatalog(t *testing.T) {
	cat, err := catalog.New([]catalog.Entry{{
		ID: "firewall-rules", Title: "Firewall rules", Description: "d", DateSource: "spec",
		EndOfLife: catalog.NewDate(2025, 1, 15), Replacement: "custom rules", DocURL: "https://example.invalid",
		Match: catalog.Match{Objects: []string{string(vocab.KindFirewallRule)}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	rep := sampleReport() // its firewall-rules findings carry the notice date 2025-06-15
	long := "team-rule-with-a-very-long-identifier-that-does-not-fit"
	rep.Catalog = append(rep.Catalog, RuleInfo{ID: "team-rule", Title: "Team rule", EndOfLife: "2027-03-01"},
		RuleInfo{ID: long, EndOfLife: "2026-03-01"})
	page := renderHTML(t, HTML{Catalog: cat}, rep)
	if got := strings.Count(page, `<g class="tl-row`); got != 5 {
		t.Errorf("%d timeline rows, want 5 (the catalog's entry and the report's other dated rules)", got)
	}
	if !strings.Contains(page, `data-rule="`+long+`">`) || !strings.Contains(page, `text-anchor="end">`+shorten(long, tlMaxLabel)+`</text>`) {
		t.Error("a long rule id is not shortened on its label (and kept whole in data-rule)")
	}
	for _, want := range []string{
		`data-rule="firewall-rules">`, `>end of life 2025-06-15</text>`,
		`data-rule="team-rule">`, `>end of life 2027-03-01</text>`, `>2028</text>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("timeline lacks %q", want)
		}
	}
	if strings.Contains(page, "2025-01-15") {
		t.Error("the catalog's date replaced the report's effective date")
	}
}

// TestHTMLBarChartCap checks a chart of many zones keeps barMaxRows bars, the last summing
// the rest, while the table lists every finding.
func TestHTMLBarChartCap(t *testing.T) {
	var findings []scanner.Finding
	for i := 0; i < 40; i++ {
		for j := 0; j <= i%3; j++ {
			findings = append(findings, scanner.Finding{
				RuleID: "firewall-rules", Severity: scanner.SeverityError, Source: scanner.SourceLive,
				ZoneName: fmt.Sprintf("zone-%02d.example", i), Resource: scanner.Resource{Kind: "firewall_rule", ID: fmt.Sprint(i, j)},
			})
		}
	}
	rep := NewReport(Input{AsOf: asOf, Source: Source{Kind: SourceLive}, Findings: findings, Counts: Counts{ZonesScanned: 40}})
	page := renderHTML(t, HTML{}, rep)
	chart := page[strings.Index(page, `id="chart-groups"`):]
	chart = chart[:strings.Index(chart, "</figure>")]
	if got := strings.Count(chart, `<g class="bar-row"`); got != barMaxRows {
		t.Errorf("%d bars, want %d", got, barMaxRows)
	}
	// 40 zones: 13 with 3 findings, 13 with 2, 14 with 1. The 24 largest are 13 of 3 and 11
	// of 2; the last bar sums the other 16 zones: 2 of 2 and 14 of 1, 18 findings.
	if !strings.Contains(chart, `data-label="16 more zones" data-count="18"`) {
		t.Errorf("the last bar does not sum the rest:\n%s", chart[strings.LastIndex(chart, "<g "):])
	}
	if got := findingRows(page); got != len(findings) {
		t.Errorf("%d rows, want %d", got, len(findings))
	}
}

func TestShorten(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghij", 10, "abcdefghij"},
		{"abcdefghijk", 10, "abcd…ghijk"},
		{"ééééééééééé", 5, "éé…éé"},
	} {
		if got := shorten(c.in, c.n); got != c.want {
			t.Errorf("shorten(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// BenchmarkHTML renders the demo report.
func BenchmarkHTML(b *testing.B) {
	rep := readFixtureReport(b, "demo-report.json")
	h := HTML{Catalog: catalog.Default()}
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := h.Write(&buf, rep); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHTMLPlan checks the plan sections of the demo: one per account and zone with steps,
// one row per step, warnings, old -> new diffs with the changed tokens marked, the manual
// steps, and links that land: every step's findings and prerequisites are anchors of the page.
func TestHTMLPlan(t *testing.T) {
	rep := readFixtureReport(t, "demo-report.json")
	plan := readFixturePlan(t, "demo-plan.json")
	page := renderHTML(t, HTML{Plan: plan}, rep)

	if !strings.Contains(page, "<p><strong>Plan:</strong> "+plan.Summary.Line()) {
		t.Errorf("the plan's summary line %q is missing", plan.Summary.Line())
	}
	steps, manual, diffs, notes := 0, 0, 0, 0
	for _, a := range plan.Accounts {
		if !strings.Contains(page, `<div class="zone-plan" id="plan-account-`+a.AccountID+`">`) {
			t.Errorf("account %s has no plan section", a.AccountID)
		}
		steps += len(a.Steps)
	}
	for _, z := range plan.Zones {
		if !strings.Contains(page, `<div class="zone-plan" id="plan-zone-`+z.ZoneID+`">`) || !strings.Contains(page, "<h3>Zone "+z.ZoneName+"</h3>") {
			t.Errorf("zone %s has no plan section", z.ZoneName)
		}
		steps += len(z.Steps)
		notes += len(z.Notes)
	}
	for _, st := range plan.Steps() {
		if st.Manual {
			manual++
		}
		diffs += len(st.Diffs)
	}
	if notes == 0 || manual == 0 || diffs == 0 {
		t.Fatalf("the demo plan lacks notes (%d), manual steps (%d) or diffs (%d): the test would pass vacuously", notes, manual, diffs)
	}
	for name, c := range map[string]struct{ got, want int }{
		"step rows":     {strings.Count(page, `<td class="step">`), steps},
		"diffs":         {strings.Count(page, `<div class="diff-block">`), diffs},
		"warning items": {strings.Count(page, `<ul class="warnings">`), countSectionsWithNotes(plan)},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", name, c.got, c.want)
		}
	}
	manualList := 0
	for _, part := range strings.Split(page, `<ul class="manual">`)[1:] {
		manualList += strings.Count(part[:strings.Index(part, "</ul>")], "<li>")
	}
	if manualList != manual {
		t.Errorf("%d manual steps listed, want %d", manualList, manual)
	}
	if !strings.Contains(page, "<del>ip.geoip.country</del>") || !strings.Contains(page, "<ins>ip.src.country</ins>") {
		t.Error("the renamed geoip field is not marked in its diff")
	}
	// Every in-page link lands on an element of the page.
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(` id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		ids[m[1]] = true
	}
	links := regexp.MustCompile(`href="#([^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(links) < steps {
		t.Errorf("only %d in-page links for %d steps", len(links), steps)
	}
	for _, m := range links {
		if !ids[m[1]] {
			t.Errorf("link #%s lands nowhere", m[1])
		}
	}
	checkCSPMatches(t, page)
	if msg := externalReference(page); msg != "" {
		t.Error(msg)
	}
}

func countSectionsWithNotes(p *migrate.Plan) int {
	n := 0
	for _, a := range p.Accounts {
		if len(a.Notes) > 0 {
			n++
		}
	}
	for _, z := range p.Zones {
		if len(z.Notes) > 0 {
			n++
		}
	}
	return n
}

// TestHTMLPlanEscapes puts markup in every plan field a zone's data flows into.
func TestHTMLPlanEscapes(t *testing.T) {
	const evil = `</pre></td><script>alert(1)</script><img src=x onerror=alert(2)>`
	plan := &migrate.Plan{
		SchemaVersion: migrate.SchemaVersion, AsOf: "2025-01-01",
		Zones: []migrate.ZonePlan{{
			ZoneID: "z" + evil, ZoneName: "n" + evil, PlanLevel: evil, Notes: []string{evil},
			Steps: []migrate.Step{{
				ID: "s" + evil, Kind: evil, Change: migrate.ChangeCreate, Method: "POST", Path: "/p" + evil,
				Body:      []byte(`{"description": "` + strings.ReplaceAll(evil, `"`, `\"`) + `"}`),
				DependsOn: []string{evil}, Resolves: []string{"fp1", evil}, Risk: migrate.Risk(evil),
				Manual: true, Title: evil, Reason: evil, Note: evil, Checks: []string{evil},
				Diffs: []migrate.Diff{{Label: evil, Old: "a " + evil, New: evil + " b", Changes: []string{evil}}},
			}},
		}},
		Unplanned: []string{evil},
	}
	page := renderHTML(t, HTML{Plan: plan}, sampleReport())
	if n := strings.Count(strings.ToLower(page), "<script"); n != 1 {
		t.Errorf("%d <script elements, want only the page's own", n)
	}
	if strings.Contains(page, "<img") || strings.Contains(page, "</pre></td><script") {
		t.Error("plan text became markup")
	}
	if !strings.Contains(page, "The plan was made as of 2025-01-01 and the findings as of 2025-07-01") {
		t.Error("a plan of another day is not flagged")
	}
	if !strings.Contains(page, `<a href="#f-fp1">firewall-rules: firewall_rule block bots</a>`) {
		t.Error("a resolved finding does not link to its row")
	}
	checkCSPMatches(t, page)
}

// TestWithPlan checks that only formats with plan sections take a plan.
func TestWithPlan(t *testing.T) {
	plan := &migrate.Plan{SchemaVersion: 1}
	if got := WithPlan(JSON{}, plan); got != (JSON{}) {
		t.Errorf("WithPlan(JSON) = %#v, want it unchanged", got)
	}
	if got := WithPlan(HTML{}, plan); got.(HTML).Plan != plan {
		t.Error("WithPlan(HTML) dropped the plan")
	}
	if got := WithPlan(HTML{}, nil); got.(HTML).Plan != nil {
		t.Error("WithPlan(HTML, nil) set a plan")
	}
}

func TestDiffTokens(t *testing.T) {
	render := func(spans []diffSpan, mark string) string {
		var b strings.Builder
		for _, s := range spans {
			if s.Changed {
				b.WriteString(mark + "(" + s.Text + ")")
			} else {
				b.WriteString(s.Text)
			}
		}
		return b.String()
	}
	for _, c := range []struct{ old, new, wantOld, wantNew string }{
		{"a eq 1", "a eq 1", "a eq 1", "a eq 1"},
		{`ip.geoip.country in {"KP"}`, `ip.src.country in {"KP"}`, `-(ip.geoip.country) in {"KP"}`, `+(ip.src.country) in {"KP"}`},
		{"block @1: x", "block: x", "block-( @1): x", "block: x"},
		{"a and b", "a or c", "a -(and b)", "a +(or c)"},
		{"", "new", "", "+(new)"},
		{"old", "", "-(old)", ""},
		{"línea\n  dos", "línea\n  tres", "línea\n  -(dos)", "línea\n  +(tres)"},
	} {
		o, n := diffTokens(c.old, c.new)
		if got := render(o, "-"); got != c.wantOld {
			t.Errorf("diff(%q, %q) old side %q, want %q", c.old, c.new, got, c.wantOld)
		}
		if got := render(n, "+"); got != c.wantNew {
			t.Errorf("diff(%q, %q) new side %q, want %q", c.old, c.new, got, c.wantNew)
		}
	}
	// A huge pair is shown whole rather than diffed in quadratic time.
	big := strings.Repeat("a ", 1000)
	o, n := diffTokens(big, big+"b")
	if len(o) != 1 || !o[0].Changed || len(n) != 1 || !n[0].Changed {
		t.Errorf("huge diff not shown whole: %d and %d spans", len(o), len(n))
	}
}

// ExampleHTML writes the HTML report of a small scan: one self-contained page whose only
// script is its own and whose policy forbids every fetch.
func ExampleHTML() {
	rep := NewReport(Input{
		Version: "0.1.0",
		AsOf:    asOf,
		Source:  Source{Kind: SourceDemo},
		Findings: []scanner.Finding{{
			RuleID: "firewall-rules", Severity: scanner.SeverityError, Title: "Firewall rules API",
			Message: `Firewall rule "<b>block bots</b>" uses the retired firewall rules API.`,
			Source:  scanner.SourceLive, ZoneName: "example.com", Fingerprint: "5d1c",
			Resource: scanner.Resource{Kind: "firewall_rule", ID: "r1"}, EndOfLife: "2025-06-15",
		}},
		Counts: Counts{ZonesScanned: 1, Accounts: 1},
	})
	var b bytes.Buffer
	if err := (HTML{}).Write(&b, rep); err != nil {
		panic(err)
	}
	page := b.String()
	fmt.Println(regexp.MustCompile(`<title>.*</title>`).FindString(page))
	fmt.Println(html.UnescapeString(regexp.MustCompile(`content="(default-src [^"]*)`).FindStringSubmatch(page)[1])[:38])
	fmt.Println(strings.Count(page, "<script"), "script element")
	fmt.Println(regexp.MustCompile(`<p class="msg">[^<]*`).FindString(page))
	// Output:
	// <title>sunset report: Demo account (built-in emulator), as of 2025-07-01</title>
	// default-src 'none'; style-src 'sha256-
	// 1 script element
	// <p class="msg">Firewall rule &#34;&lt;b&gt;block bots&lt;/b&gt;&#34; uses the retired firewall rules API.
}

// TestHTMLFindingGroups checks the findings are grouped by zone, account and file, each
// group closed with a summary line of counts, each finding a one-line headline with its
// details behind it, every finding once, in the report's order within its group.
func TestHTMLFindingGroups(t *testing.T) {
	rep := readFixtureReport(t, "demo-report.json")
	page := renderHTML(t, HTML{}, rep)
	groups := regexp.MustCompile(`<details class="group [^"]*" id="([^"]*)" data-kind="(zone|account|file)"`).FindAllStringSubmatch(page, -1)
	want := map[groupKey]bool{}
	for i := range rep.Findings.Len() {
		want[groupKeyOf(new(rep.Findings.At(i)))] = true
	}
	if len(groups) != len(want) || len(groups) < 2 {
		t.Fatalf("%d groups, the findings belong to %d zones and accounts", len(groups), len(want))
	}
	if strings.Contains(page, `<details class="group" open`) || regexp.MustCompile(`<details class="group [^>]* open`).MatchString(page) {
		t.Error("a group is open when the page loads")
	}
	// Each finding sits in its own group, as a headline: severity, rule title, resource.
	for i := range rep.Findings.Len() {
		f := new(rep.Findings.At(i))
		at := strings.Index(page, `<li id="`+findingAnchor(f)+`"`)
		if at < 0 {
			t.Fatalf("finding %s is not listed", f.Fingerprint)
		}
		holder := strings.LastIndex(page[:at], `<details class="group `)
		k := groupKeyOf(f)
		if wantID := `id="g-` + k.kind; !strings.HasPrefix(page[holder:][strings.Index(page[holder:], "id="):], wantID) {
			t.Errorf("finding %s is in group %.80s", f.Fingerprint, page[holder:])
		}
		head := fmt.Sprintf(`<summary><span class="sev sev-%s">%s</span> <span class="ftitle">%s</span> <span class="fres">%s</span>`,
			f.Severity, f.Severity, html.EscapeString(f.Title), html.EscapeString(resourceLabel(f)))
		if !strings.Contains(page[at:], head) {
			t.Errorf("finding %s has no headline %q", f.Fingerprint, head)
		}
	}
	// An account's findings are grouped under its name (the plan knows it) with the id below.
	named := renderHTML(t, HTML{Plan: readFixturePlan(t, "demo-plan.json")}, rep)
	for _, a := range readFixturePlan(t, "demo-plan.json").Accounts {
		if a.AccountName == "" {
			continue
		}
		if !strings.Contains(named, `<summary><span class="gtitle">`+html.EscapeString(a.AccountName)+`</span> <span class="gsub">`+a.AccountID+`</span>`) {
			t.Errorf("account %s is not grouped under its name %q", a.AccountID, a.AccountName)
		}
	}
	if strings.Contains(named, `>account 47da6e6217660dba7c3a71c4005dba9f<`) {
		t.Error("an account the plan names is shown by id")
	}
	// Groups come as in the terminal table: accounts, zones, files, each by name or path.
	for _, page := range []string{named, renderHTML(t, HTML{}, sampleReport())} {
		order := regexp.MustCompile(`data-kind="(\w+)" data-label="([^"]*)"`).FindAllStringSubmatch(page, -1)
		for i := 1; i < len(order); i++ {
			a, b := order[i-1], order[i]
			if a[1] == b[1] && strings.ToLower(a[2]) > strings.ToLower(b[2]) || groupRank[a[1]] > groupRank[b[1]] {
				t.Errorf("group %s %q after %s %q", b[1], b[2], a[1], a[2])
			}
		}
	}
}

// TestHTMLAccountNames checks names given to the report (and kept by its JSON) replace
// account ids in groups, the zones' lines, errors and charts, escaped.
func TestHTMLAccountNames(t *testing.T) {
	rep := sampleReport()
	rep.AccountNames = map[string]string{"a1": `Acme <b>"Retail"</b>`}
	var buf bytes.Buffer
	if err := (JSON{}).Write(&buf, rep); err != nil {
		t.Fatal(err)
	}
	read, err := ReadReport(&buf)
	if err != nil {
		t.Fatal(err)
	}
	const name = `Acme &lt;b&gt;&#34;Retail&#34;&lt;/b&gt;`
	page := renderHTML(t, HTML{}, read)
	for _, want := range []string{
		`<summary><span class="gtitle">` + name + `</span> <span class="gsub">a1</span>`,
		`<span class="gtitle">example.com</span> <span class="gsub">` + name + `</span>`,
		`data-label="` + name + `" data-count="1"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	rep.Errors = []scanner.RunError{{AccountID: "a1", What: "accounts", Message: "x"}}
	if page := renderHTML(t, HTML{}, rep); !strings.Contains(page, `<tr><td>`+name+`</td><td>accounts</td>`) {
		t.Error("a read error of an account is not shown by its name")
	}
	if strings.Contains(page, "account a1") {
		t.Error("an account with a name is still shown by id")
	}
}

// firstPlan is a plan for sampleReport's zones: example.org migrates by API calls but for a
// rate limit the quota keeps and a firewall rule the zone's plan cannot express; example.com
// has a manual step that blocks nothing.
func firstPlan() *migrate.Plan {
	return &migrate.Plan{
		SchemaVersion: migrate.SchemaVersion, AsOf: "2025-07-01",
		Zones: []migrate.ZonePlan{{
			ZoneID: "023e105f4ecef8ad9ca31a8372d0c353", ZoneName: "example.com", AccountID: "a1",
			Steps: []migrate.Step{
				{ID: "custom-rules.create", Kind: "custom-rules.create", Change: migrate.ChangeCreate, Title: "Create", Reason: "shared reason"},
				{ID: "dns-settings.stop-old-endpoint", Kind: "dns-settings.stop-old-endpoint", Manual: true, Change: migrate.ChangeManual, Title: "Stop using the old endpoint", Reason: "callers"},
			},
		}, {
			ZoneID: "9a7806061c88ada191ed06f989cc3dac", ZoneName: "example.org", AccountID: "a1", PlanLevel: "free",
			Verification: &migrate.Verification{Requests: 200, Differing: 7, Differences: []migrate.Difference{
				{Requests: 5, Declared: "cf.threat_score is always 0"}, {Requests: 2},
			}},
			Notes: []string{"the free plan allows 1 rate limiting rules (fewer than previous-version rate limits): 0 existing, 1 fit, 1 do not"},
			Steps: []migrate.Step{
				{ID: "rate-limiting-rules.create", Kind: "rate-limiting-rules.create", Change: migrate.ChangeCreate, Title: "Create the entry point", Reason: "shared reason"},
				{ID: "rate-limit.delete:1", Kind: "rate-limit.delete", Change: migrate.ChangeDelete, Title: "Delete 1", Reason: "twice"},
				{ID: "rate-limit.delete:2", Kind: "rate-limit.delete", Change: migrate.ChangeDelete, Title: "Delete 2", Reason: "twice"},
				{ID: "rate-limit.keep:3", Kind: "rate-limit.keep", Manual: true, Change: migrate.ChangeManual, Title: "Keep rate limit 3",
					Reason: "It cannot become a rate limiting rule now: it does not fit the free plan's quota of 1 rate limiting rules."},
				{ID: "firewall-rule.keep:4", Kind: "firewall-rule.keep", Manual: true, Change: migrate.ChangeManual, Title: "Keep firewall rule 4",
					Reason: "The translator left it out of the custom rules: error plan-regex: matches needs the Business plan."},
			},
		}},
	}
}

// TestHTMLWhatToDoFirst checks the section lists zones and accounts most urgent first, with
// the plan's automatic steps by kind, what blocks it (quota, plan features), what needs a
// person, each linking to its step, and the plan's verification when it has one.
func TestHTMLWhatToDoFirst(t *testing.T) {
	page := renderHTML(t, HTML{Plan: firstPlan()}, sampleReport())
	sec := page[strings.Index(page, `<section id="first"`):]
	sec = sec[:strings.Index(sec, "</section>")]
	order := regexp.MustCompile(`class="gtitle">([^<]*)</a>`).FindAllStringSubmatch(sec, -1)
	var titles []string
	for _, m := range order {
		titles = append(titles, m[1])
	}
	// example.com has an error; example.org a warning; the account a notice. The file is no zone.
	if got := strings.Join(titles, ", "); got != "example.com, example.org, account a1" {
		t.Errorf("order %s, want example.com, example.org, account a1", got)
	}
	for _, want := range []string{
		`<strong>Automatic (3 steps):</strong> <span class="kind">create the rate limiting rules entry point&nbsp;&times;1</span>, <span class="kind">delete rate limit&nbsp;&times;2</span></p>`,
		`<p class="first-label"><strong>Blocked (2):</strong></p>`,
		`<li><span class="tag blocker">quota</span> <a href="#step-zone-9a7806061c88ada191ed06f989cc3dac-rate-limit_2ekeep_3a3">Keep rate limit 3</a>`,
		`<li><span class="tag blocker">plan features</span> <a href="#step-zone-9a7806061c88ada191ed06f989cc3dac-firewall-rule_2ekeep_3a4">Keep firewall rule 4</a>`,
		`<li><a href="#step-zone-023e105f4ecef8ad9ca31a8372d0c353-dns-settings_2estop-old-endpoint">Stop using the old endpoint</a></li>`,
		`<li>the free plan allows 1 rate limiting rules`,
		`<a href="#plan-zone-9a7806061c88ada191ed06f989cc3dac" class="muted">plan</a>`,
		`<p class="first-label bad"><strong>Verification:</strong> 7 of 200 generated requests decided otherwise (2 not declared by the plan).</p>`,
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("what to do first lacks %q", want)
		}
	}
	if strings.Count(sec, `tag blocker`) != 2 {
		t.Error("a manual step that keeps nothing is listed as blocked")
	}
	// Every link of the section lands.
	for _, m := range regexp.MustCompile(`href="#([^"]+)"`).FindAllStringSubmatch(sec, -1) {
		if !strings.Contains(page, ` id="`+m[1]+`"`) {
			t.Errorf("link #%s lands nowhere", m[1])
		}
	}
	if p := renderHTML(t, HTML{}, NewReport(Input{Source: Source{Kind: SourceFiles}, Findings: sampleFindings()[5:]})); strings.Contains(p, `<section id="first"`) {
		t.Error("a files scan has a what-to-do-first section")
	}
	// Text from the plan stays text here too.
	const evil = `<script>alert(1)</script><img src=x onerror=alert(2)>`
	plan := firstPlan()
	z := &plan.Zones[1]
	z.Notes = append(z.Notes, evil)
	for i := range z.Steps {
		if !z.Steps[i].Manual {
			z.Steps[i].Kind += evil
		}
		z.Steps[i].Title += evil
		z.Steps[i].Reason += evil
	}
	page = renderHTML(t, HTML{Plan: plan}, sampleReport())
	if strings.Count(page, "<script") != 1 || strings.Contains(page, "<img") {
		t.Error("plan text became markup in what to do first")
	}
	if !strings.Contains(page, `<span class="tag blocker">quota</span> <a href="#step-zone-9a7806061c88ada191ed06f989cc3dac-rate-limit_2ekeep_3a3">Keep rate limit 3&lt;script&gt;`) {
		t.Error("a blocker's title is not shown escaped")
	}
}

// TestHTMLWhatToDoFirstCap checks a large account lists the most urgent zones only: errors
// first, then the nearest end of life, and says how many more there are.
func TestHTMLWhatToDoFirstCap(t *testing.T) {
	var findings []scanner.Finding
	for i := range firstMaxEntries + 5 {
		sev, eol := scanner.SeverityWarning, fmt.Sprintf("2026-%02d-01", 12-i%12)
		if i%10 == 7 {
			sev = scanner.SeverityError
		}
		findings = append(findings, scanner.Finding{
			RuleID: "firewall-rules", Severity: sev, Source: scanner.SourceLive, EndOfLife: eol,
			ZoneName: fmt.Sprintf("zone-%02d.example", i), Resource: scanner.Resource{Kind: "firewall_rule", ID: fmt.Sprint(i)},
		})
	}
	page := renderHTML(t, HTML{}, NewReport(Input{Source: Source{Kind: SourceLive}, Findings: findings}))
	sec := page[strings.Index(page, `<section id="first"`):]
	sec = sec[:strings.Index(sec, "</section>")]
	entries := regexp.MustCompile(`<li class="first-entry sev-(\w+)" id="first-\d+">\n<p class="first-head"><a [^>]*>([^<]*)</a>.*?datetime="([^"]*)"`).FindAllStringSubmatch(sec, -1)
	if len(entries) != firstMaxEntries {
		t.Fatalf("%d entries, want %d", len(entries), firstMaxEntries)
	}
	if !strings.Contains(sec, "And 5 more zones and accounts, less urgent") {
		t.Error("the section does not say how many zones it leaves out")
	}
	for i, e := range entries {
		if wantErr := i < 3; (e[1] == "error") != wantErr {
			t.Errorf("entry %d (%s) is %s", i, e[2], e[1])
		}
		if i > 0 && e[1] == entries[i-1][1] && e[3] < entries[i-1][3] {
			t.Errorf("entry %d (%s, %s) after a later end of life (%s)", i, e[2], e[3], entries[i-1][3])
		}
	}
}

// countAlone counts text in sec outside the other shared texts that contain it (a step's
// note may be a longer note that ends with a shorter one).
func countAlone(sec, text string, uses map[string]int) int {
	n := strings.Count(sec, text)
	for other, m := range uses {
		other = textsafe.Sanitize(other)
		if m > 1 && other != text && strings.Contains(other, text) {
			n -= strings.Count(sec, other) * strings.Count(other, text)
		}
	}
	return n
}

// TestHTMLPlanSharedReasons checks a reason or note that several steps share is shown once,
// in the plan's list, and each of those steps links to it; a reason of one step stays on it.
func TestHTMLPlanSharedReasons(t *testing.T) {
	plan := readFixturePlan(t, "demo-plan.json")
	page := renderHTML(t, HTML{Plan: plan}, readFixtureReport(t, "demo-report.json"))
	uses := map[string]int{}
	for _, st := range plan.Steps() {
		for _, text := range []string{st.Reason, st.Note} {
			if text != "" {
				uses[text]++
			}
		}
	}
	sec := page[strings.Index(page, `<section id="plan"`):]
	sec = html.UnescapeString(sec[:strings.Index(sec, "</section>")])
	shared, refs := 0, 0
	for text, n := range uses {
		text = textsafe.Sanitize(text)
		if n == 1 {
			if !strings.Contains(sec, text) {
				t.Errorf("%q (used by one step) is not on its step", text)
			}
			continue
		}
		shared++
		refs += n
		if got := countAlone(sec, text, uses); got != 1 {
			t.Errorf("%q (used by %d steps) is in the plan %d times, want once", text, n, got)
		}
	}
	if shared == 0 {
		t.Fatal("no reason is shared by several steps in the demo plan: the test would pass vacuously")
	}
	if got := strings.Count(page, `<li id="why-`); got != shared {
		t.Errorf("%d shared texts listed, want %d", got, shared)
	}
	if got := strings.Count(page, `">Why: <a href="#why-`) + strings.Count(page, `">Note: <a href="#why-`); got < refs {
		t.Errorf("%d links to shared texts, want at least %d (one per step using one)", got, refs)
	}
}

func TestVerificationLine(t *testing.T) {
	for _, c := range []struct {
		v    *migrate.Verification
		want string
		bad  bool
	}{
		{nil, "", false},
		{&migrate.Verification{Missing: true}, "not verified: the snapshot lacks the zone.", true},
		{&migrate.Verification{Requests: 64}, "the new rules decide all 64 generated requests as the old ones.", false},
		{&migrate.Verification{Requests: 64, Differing: 3, Differences: []migrate.Difference{{Requests: 3, Declared: "threat score"}}},
			"3 of 64 generated requests decided otherwise (0 not declared by the plan).", false},
		{&migrate.Verification{Requests: 64, RateLimits: []migrate.RateLimitCheck{{Differing: 1}, {}}},
			"0 of 64 generated requests decided otherwise (0 not declared by the plan); 1 rate limit counts otherwise.", true},
	} {
		if got, bad := verificationLine(c.v); got != c.want || bad != c.bad {
			t.Errorf("verificationLine(%+v) = %q, %v; want %q, %v", c.v, got, bad, c.want, c.bad)
		}
	}
}
