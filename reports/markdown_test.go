package reports

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

func TestMarkdownGolden(t *testing.T) {
	golden(t, "markdown.golden", []byte(render(t, "markdown", Options{}, ciReport())))
}

// renderGFM renders Markdown as GitHub would (GFM: tables, strikethrough, autolinks, task
// lists), keeping raw HTML so the test sees any that gets through.
func renderGFM(t testing.TB, md string) string {
	t.Helper()
	var out bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	if err := gm.Convert([]byte(md), &out); err != nil {
		t.Fatalf("goldmark: %v", err)
	}
	return out.String()
}

var (
	tableRE = regexp.MustCompile(`(?s)<table>(.*?)</table>`)
	rowRE   = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	cellRE  = regexp.MustCompile(`(?s)<t[hd][^>]*>(.*?)</t[hd]>`)
	tagRE   = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>`)
)

// htmlTables returns every table of the rendered HTML as rows of cell texts. Cells may hold
// <code> (rule ids) and links GFM makes of visible URLs (checked by checkLinks), nothing else:
// any other tag in a cell came from user text.
func htmlTables(t *testing.T, page string) [][][]string {
	t.Helper()
	var tables [][][]string
	for _, tm := range tableRE.FindAllStringSubmatch(page, -1) {
		var rows [][]string
		for _, rm := range rowRE.FindAllStringSubmatch(tm[1], -1) {
			var cells []string
			for _, cm := range cellRE.FindAllStringSubmatch(rm[1], -1) {
				for _, tag := range tagRE.FindAllStringSubmatch(cm[1], -1) {
					if tag[2] != "code" && tag[2] != "a" {
						t.Errorf("tag <%s%s> inside a table cell: %q", tag[2], tag[3], cm[1])
					}
				}
				cells = append(cells, html.UnescapeString(tagRE.ReplaceAllString(cm[1], "")))
			}
			rows = append(rows, cells)
		}
		tables = append(tables, rows)
	}
	return tables
}

var linkRE = regexp.MustCompile(`(?s)<a href="([^"]*)"[^>]*>(.*?)</a>`)

// checkLinks fails on any link but the visible http(s) URLs GFM links by itself (as GitHub
// does in any comment): user text must not hide a destination behind other words.
func checkLinks(t *testing.T, page string) {
	t.Helper()
	for _, m := range linkRE.FindAllStringSubmatch(page, -1) {
		href, text := html.UnescapeString(m[1]), html.UnescapeString(m[2])
		web := strings.HasPrefix(href, "https://") || strings.HasPrefix(href, "http://")
		if !web || href != text {
			t.Errorf("link to %q reads %q", href, text)
		}
	}
}

// shown is how user text reads once rendered: sanitised, with the word joiner after '@'.
func shown(s string) string { return strings.ReplaceAll(textsafe.Sanitize(s), "@", "@\u2060") }

func TestMarkdownTables(t *testing.T) {
	r := ciReport()
	md := render(t, "markdown", Options{}, r)
	page := renderGFM(t, md)
	tables := htmlTables(t, page)
	// The rules, one table per zone, account or file (six groups), and the errors.
	if len(tables) != 8 || strings.Count(page, "<table>") != 8 {
		t.Fatalf("%d tables, want 8:\n%s", len(tables), page)
	}
	widths := []int{6, 5, 5, 5, 5, 5, 5, 3}
	for i, tab := range tables {
		for j, row := range tab {
			if len(row) != widths[i] {
				t.Errorf("table %d row %d has %d cells, want %d: %q", i, j, len(row), widths[i], row)
			}
		}
	}
	rules := tables[0]
	if len(rules) != 1+len(r.Summary.ByRule) {
		t.Errorf("rule table has %d rows for %d rules", len(rules)-1, len(r.Summary.ByRule))
	}
	if got := strings.Join(rules[1], "|"); got != "firewall-rules|Firewall rules API|error|2025-06-15|custom rules|2" {
		t.Errorf("first rule row = %q", got)
	}
	// Each group's rows read back as the findings' own text: escaping lost nothing and no
	// pipe, backtick or bracket in user text broke a cell.
	var rows [][]string
	for _, tab := range tables[1:7] {
		rows = append(rows, tab[1:]...)
	}
	k := 0
	for _, f := range r.Findings.All() {
		if f.Suppressed {
			continue
		}
		row := rows[k]
		k++
		want := []string{f.Severity.String(), textsafe.Sanitize(string(f.RuleID)), shown(resourceLabel(&f)), shown(truncateRunes(textsafe.Sanitize(f.Message), markdownMaxCell)), orElse(textsafe.Sanitize(f.EndOfLife), "-")}
		if strings.Join(row, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("finding %s row:\n got %q\nwant %q", f.Fingerprint, row, want)
		}
	}
	errs := tables[7]
	if len(errs) != 1+len(r.Errors) || errs[2][2] != shown(hostileText) {
		t.Errorf("error table = %q", errs)
	}
	// Nothing from user text became markup: the only tags are the report's own, links are
	// visible URLs, and no one is mentioned.
	allowed := map[string]bool{"h2": true, "h3": true, "p": true, "strong": true, "em": true, "code": true, "blockquote": true,
		"details": true, "summary": true, "table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "a": true}
	for _, tag := range tagRE.FindAllStringSubmatch(page, -1) {
		if !allowed[strings.ToLower(tag[2])] {
			t.Errorf("unexpected tag <%s%s>", tag[2], tag[3])
		}
	}
	checkLinks(t, page)
	if regexp.MustCompile(`(^|[^\w])@[a-zA-Z0-9]`).MatchString(html.UnescapeString(tagRE.ReplaceAllString(page, ""))) {
		t.Error("an @mention survived")
	}
	if strings.Count(md, "<details>") != 6 || strings.Count(md, "</details>") != 6 {
		t.Error("unbalanced <details>")
	}
}

func TestMarkdownEscaping(t *testing.T) {
	for _, s := range []string{
		"a|b", "`x`", "``y``", "*b* _i_ ~~s~~", "[l](javascript:x)", "![i](http://t.invalid/p.png)", "<b>x</b> &amp; &#60;",
		"$x^2$", "# h", "- item", "+ item", "1. item", "\\|", "a\nb\r\nc", "@user and @org/team", "{curly}",
	} {
		page := renderGFM(t, "| h |\n| --- |\n| "+cell(s)+" |\n")
		tables := htmlTables(t, page)
		if len(tables) != 1 || len(tables[0]) != 2 || len(tables[0][1]) != 1 {
			t.Errorf("%q: the table broke: %s", s, page)
			continue
		}
		checkLinks(t, page)
		if got := tables[0][1][0]; got != shown(s) {
			t.Errorf("%q renders as %q, want %q", s, got, shown(s))
		}
		para := renderGFM(t, escapeMarkdown(s)+"\n")
		checkLinks(t, para)
		if got := html.UnescapeString(tagRE.ReplaceAllString(para, "")); got != shown(s)+"\n" {
			t.Errorf("%q as a paragraph renders as %q", s, para)
		}
	}
	for _, s := range []string{"firewall-rules", "a`b", "`a", "a``b`", "x|y"} {
		page := renderGFM(t, "| h |\n| --- |\n| "+codeSpan(s)+" |\n")
		if tabs := htmlTables(t, page); len(tabs) != 1 || tabs[0][1][0] != s || !strings.Contains(page, "<code>") {
			t.Errorf("codeSpan(%q) renders as %s", s, page)
		}
	}
}

func TestMarkdownCap(t *testing.T) {
	r := largeReport(100000)
	for _, limit := range []int{0, 65536, 4096} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			want := limit
			if want == 0 {
				want = MarkdownMaxBytes
			}
			var b bytes.Buffer
			if err := (Markdown{MaxBytes: limit}).Write(&b, r); err != nil {
				t.Fatal(err)
			}
			md := b.String()
			if b.Len() > want || b.Len() > 1<<20 {
				t.Errorf("%d bytes, cap %d", b.Len(), want)
			}
			if b.Len() < want/2 {
				t.Errorf("only %d bytes of %d used", b.Len(), want)
			}
			m := regexp.MustCompile(`\*\*Showing (\d+) of 100000 findings\*\*`).FindStringSubmatch(md)
			if m == nil {
				t.Fatalf("no note on left-out findings:\n%s", md[len(md)-400:])
			}
			rows := strings.Count(md, "\n| error |") + strings.Count(md, "\n| warning |") + strings.Count(md, "\n| notice |")
			if fmt.Sprint(rows) != m[1] {
				t.Errorf("note says %s shown, %d rows written", m[1], rows)
			}
			if strings.Count(md, "<details>") != strings.Count(md, "</details>") {
				t.Error("a <details> is left open")
			}
			if limit == 65536 {
				page := renderGFM(t, md)
				for _, tab := range htmlTables(t, page) {
					for _, row := range tab {
						if len(row) != 5 && len(row) != 6 {
							t.Fatalf("row with %d cells", len(row))
						}
					}
				}
			}
		})
	}
}

func TestMarkdownEmpty(t *testing.T) {
	md := render(t, "markdown", Options{}, NewReport(Input{AsOf: asOf, Counts: Counts{ZonesScanned: 2}}))
	want := "## sunset: no findings\n\nAs of 2025-07-01 · 2 zones scanned, 0 errors, 0 warnings, 0 notices, 0 zones failed.\n\n### Findings\n\nNo findings.\n"
	if md != want {
		t.Errorf("empty report:\n%q\nwant\n%q", md, want)
	}
	// Nothing found but something unreadable: the errors still show, after a blank line.
	r := NewReport(Input{Errors: []scanner.RunError{{ZoneName: "z.example", What: "zone", Message: "HTTP 403"}}})
	md = render(t, "markdown", Options{}, r)
	if !strings.Contains(md, "No findings.\n\n### Incomplete\n") || !strings.Contains(md, "> **The scan is incomplete:** 1 part could not be read") {
		t.Errorf("errors only:\n%s", md)
	}
	if tabs := htmlTables(t, renderGFM(t, md)); len(tabs) != 1 || tabs[0][1][0] != "z.example" {
		t.Errorf("error table = %q", tabs)
	}
}

// TestMarkdownManyErrors checks that a run where everything failed stays under the cap.
func TestMarkdownManyErrors(t *testing.T) {
	errs := make([]scanner.RunError, 5000)
	for i := range errs {
		errs[i] = scanner.RunError{ZoneName: fmt.Sprintf("z%d.example", i), What: strings.Repeat("w", 2000), Message: strings.Repeat("m", 2000)}
	}
	r := NewReport(Input{Findings: manyFindings(50), Errors: errs})
	for _, limit := range []int{0, 65536, 8192} {
		md := render(t, "markdown", Options{}, r)
		if limit > 0 {
			var b bytes.Buffer
			if err := (Markdown{MaxBytes: limit}).Write(&b, r); err != nil {
				t.Fatal(err)
			}
			md = b.String()
		} else {
			limit = MarkdownMaxBytes
		}
		if len(md) > limit {
			t.Errorf("cap %d: %d bytes", limit, len(md))
		}
		m := regexp.MustCompile(`…and (\d+) more \(see the JSON report\)`).FindStringSubmatch(md)
		rows := strings.Count(md, ".example | ")
		if m == nil || fmt.Sprint(len(errs)-rows) != m[1] || rows == 0 || rows > markdownMaxErrors {
			t.Errorf("cap %d: %d error rows, note %q", limit, rows, m)
		}
	}
}

func BenchmarkMarkdown(b *testing.B) {
	r := largeReport(100000)
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := (Markdown{}).Write(&buf, r); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}
