package reports

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/verify"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// scaleZones is the size of the generated account the large-page tests render: the 200
// zones of issue 23, whose page was 19.6 MB before findings were shown by rule and steps by
// kind.
const scaleZones = 200

// scaleFixture is the report and verified plan of the generated account of scaleZones zones
// (seed 1, as `sunset emulator --zones 200` serves), as of a fixed day, built once.
var scaleFixture = sync.OnceValues(func() (*Report, *migrate.Plan) {
	asOf := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	snap := seed.Generate(scaleZones, 1)
	cat := catalog.Default()
	res := scanner.ScanSnapshot(snap, cat, scanner.Options{AsOf: asOf})
	p := migrate.Build(snap, res, migrate.Options{AsOf: asOf, Catalog: cat})
	verify.Verify(p, snap)
	rep := NewReport(Input{
		AsOf: asOf, Source: Source{Kind: SourceSnapshot, Target: "generated.json"}, Findings: res.Findings,
		Errors: res.Errors, Retired: res.Retired, Counts: Counts{ZonesScanned: res.Zones, Accounts: res.Accounts}, Rules: cat,
	})
	return rep, p
})

// scalePage renders the large page.
func scalePage(t testing.TB) (string, *Report, *migrate.Plan) {
	t.Helper()
	rep, p := scaleFixture()
	return renderHTML(t, HTML{Plan: p}, rep), rep, p
}

// TestHTMLAt200Zones checks the page of 200 zones stays under 3 MB, lists each finding once
// by the object it names under its rule, and shows steps that read alike once with their
// count: the manual steps of the plan, the steps of each kind in a zone, the warnings.
func TestHTMLAt200Zones(t *testing.T) {
	page, rep, p := scalePage(t)
	const maxBytes = 3 << 20
	if len(page) > maxBytes {
		t.Errorf("the page of %d zones is %d bytes, more than %d", scaleZones, len(page), maxBytes)
	}
	if rep.Findings.Len() < 2000 || !compactPage(rep.Findings.Len(), p) {
		t.Fatalf("%d findings: the generated account is too small to test the compact page", rep.Findings.Len())
	}
	if got := findingRows(page); got != rep.Findings.Len() {
		t.Errorf("%d findings listed, want %d", got, rep.Findings.Len())
	}
	if n := strings.Count(page, `<p class="msg">`); n != 0 {
		t.Errorf("%d findings show their message in a page of %d findings", n, rep.Findings.Len())
	}
	// The expression reviews name a rule each; they are one fold with their count.
	reviews := 0
	for _, st := range p.Steps() {
		if st.Kind == migrate.KindExpressionReview && strings.Contains(st.Title, `"`) {
			reviews++
		}
	}
	// Shown as the first of them and how many more, not as a pattern with its count.
	want := regexp.MustCompile(`<summary>[^<]*: Review the expression of &#34;[^&<]+&#34; \([^)<]+\) <span class="count">and ` + strconv.Itoa(reviews-1) + ` more</span>`)
	if reviews < 10 || len(want.FindAllString(page, -1)) != 1 {
		t.Errorf("the %d expression reviews are not shown once as %s", reviews, want)
	}
	if n := strings.Count(page, `&#34;…&#34; (…) <span class="count">`); n > 0 {
		t.Errorf("%d folds show their pattern (\"…\" (…) ×N), not their first item", n)
	}
	// A zone's warnings that read alike are one fold: no list holds two items alike.
	folded := 0
	for _, block := range strings.Split(page, `<ul class="warnings">`)[1:] {
		block = block[:strings.Index(block, "\n</ul>")]
		seen := map[string]bool{}
		for _, item := range strings.Split(block, "\n<li>")[1:] {
			pattern := textPattern(item)
			if seen[pattern] {
				t.Errorf("warnings alike listed one by one: %.200s", item)
			}
			seen[pattern] = true
			if strings.HasPrefix(item, `<details class="fold">`) {
				folded++
			}
		}
	}
	if folded == 0 {
		t.Error("no warnings folded: the test would pass without folding")
	}
	checkLinksLand(t, page)
	checkCSPMatches(t, page)
}

// checkLinksLand checks every in-page link of page lands on an element of it.
func checkLinksLand(t *testing.T, page string) {
	t.Helper()
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(` id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		ids[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`href="#([^"]+)"`).FindAllStringSubmatch(page, -1) {
		if !ids[m[1]] {
			t.Errorf("link #%s lands nowhere", m[1])
			return
		}
	}
}

// TestHTMLFirstRanksByStake checks "what to do first" at 200 zones: every entry says why it
// ranks there, and among zones past their end of life (all of them here) more objects
// affected rank first, whatever their end-of-life dates.
func TestHTMLFirstRanksByStake(t *testing.T) {
	rep, p := scaleFixture()
	page, err := buildHTMLPage(rep, catalog.Default(), p)
	if err != nil {
		t.Fatal(err)
	}
	first := page.First
	if first == nil || len(first.Entries) != firstMaxEntries {
		t.Fatalf("what to do first: %+v", first)
	}
	for i, e := range first.Entries {
		if e.Rank != i+1 || !strings.HasSuffix(e.Why, ".") || !strings.Contains(e.Why, "past end of life") {
			t.Errorf("entry %d (%s): rank %d, why %q", i, e.Title, e.Rank, e.Why)
		}
		if i == 0 {
			continue
		}
		prev := first.Entries[i-1]
		if e.Worst == prev.Worst && (e.stake.retired > 0) == (prev.stake.retired > 0) && e.stake.objects > prev.stake.objects {
			t.Errorf("%s (%d objects) ranks after %s (%d objects)", e.Title, e.stake.objects, prev.Title, prev.stake.objects)
		}
	}
	dates := map[string]bool{}
	for _, e := range first.Entries {
		dates[e.EOL] = true
	}
	if len(dates) < 2 {
		t.Error("every entry has the same end of life: the test cannot show the date does not rank them")
	}
}

// TestFoldAlike checks steps that differ only by the names and ids in them fold into one,
// each item keeping only what sets it apart, and that a fold of one shows its item whole.
func TestFoldAlike(t *testing.T) {
	items := []foldItem{
		{ref: htmlRef{Href: "#a", Text: `Pause firewall rule "a b" (0123456789abcdef0123)`}},
		{ref: htmlRef{Href: "#b", Text: `Pause firewall rule "c" (fedcba98765432100000)`}},
		{ref: htmlRef{Href: "#c", Text: `Stop using /zones/:zone_id/settings/brotli (value "off")`}, prefix: "z1"},
	}
	got := foldAlike(items)
	want := []htmlFold{
		{Text: `Pause firewall rule "…" (…)`, Items: []htmlRef{{Href: "#a", Text: `"a b" (0123456789abcdef0123)`}, {Href: "#b", Text: `"c" (fedcba98765432100000)`}}},
		{Text: `z1: Stop using /zones/:zone_id/settings/brotli (value "off")`, Items: []htmlRef{{Href: "#c", Text: `z1: Stop using /zones/:zone_id/settings/brotli (value "off")`}}},
	}
	if !slices.EqualFunc(got, want, func(a, b htmlFold) bool { return a.Text == b.Text && slices.Equal(a.Items, b.Items) }) {
		t.Errorf("foldAlike:\n got %+v\nwant %+v", got, want)
	}
	if got := trimCommonWords([]string{"same text", "same text"}); !slices.Equal(got, []string{"same text", "same text"}) {
		t.Errorf("identical texts trimmed to %q", got)
	}
	// Names that begin or end alike keep their quotes and every word inside them.
	got = foldAlike([]foldItem{
		{ref: htmlRef{Text: `Keep rate limit "rate limit 6" (0123456789abcdef0123) until it can be migrated`}},
		{ref: htmlRef{Text: `Keep rate limit "rate limit 7" (fedcba98765432100000) until it can be migrated`}},
	})
	if items := []string{got[0].Items[0].Text, got[0].Items[1].Text}; !slices.Equal(items, []string{`"rate limit 6" (0123456789abcdef0123)`, `"rate limit 7" (fedcba98765432100000)`}) {
		t.Errorf("items alike in their names read %q", items)
	}
	if got := trimCommonWords([]string{`Pause "old rule" now`, `Pause "new rule" now`}); !slices.Equal(got, []string{`"old rule"`, `"new rule"`}) {
		t.Errorf("names ending alike trimmed to %q", got)
	}
}

// TestKindWords checks every kind of step has words, and the page uses them.
func TestKindWords(t *testing.T) {
	for k, spec := range migrate.KindSpecs {
		if spec.Words == "" || strings.ContainsAny(spec.Words, ".-_") && !strings.Contains(spec.Words, "e-mail") {
			t.Errorf("kind %s: words %q", k, spec.Words)
		}
	}
	if got := kindWords(migrate.KindFirewallRulePause); got != "pause firewall rule" {
		t.Errorf("kindWords(%s) = %q", migrate.KindFirewallRulePause, got)
	}
	if got := kindWords("made-up.kind"); got != "made-up.kind" {
		t.Errorf("an unknown kind reads %q, want its identifier", got)
	}
}

// BenchmarkHTMLAt200Zones renders the page of 200 zones with its plan.
func BenchmarkHTMLAt200Zones(b *testing.B) {
	rep, p := scaleFixture()
	b.ReportAllocs()
	for b.Loop() {
		var w countingWriter
		if err := (HTML{Plan: p}).Write(&w, rep); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(w))
	}
}

// countingWriter counts the bytes written to it.
type countingWriter int

func (w *countingWriter) Write(p []byte) (int, error) {
	*w += countingWriter(len(p))
	return len(p), nil
}

// TestHTMLVerificationWitness checks a zone's plan shows each difference its verification
// found with the request fields that decide it, and whether the plan declares it.
func TestHTMLVerificationWitness(t *testing.T) {
	plan := firstPlan()
	z := &plan.Zones[1]
	z.Verification.Differences[0].Old = migrate.Decision{Action: "block", By: "firewall rule 4 (block)"}
	z.Verification.Differences[0].Witness = map[string]any{"http.request.uri.path": "/xmlrpc.php", "ip.src.asnum": 64497}
	page := renderHTML(t, HTML{Plan: plan}, sampleReport())
	sec := page[strings.Index(page, `id="plan-zone-9a7806061c88ada191ed06f989cc3dac"`):]
	for _, want := range []string{
		`<p class="verify bad">7 of 200 generated requests decided otherwise (2 not declared by the plan).</p>`,
		`<li>5 requests: old rules block by firewall rule 4 (block), new rules no action (no rule decides), for instance when <code>http.request.uri.path = &#34;/xmlrpc.php&#34;</code> and <code>ip.src.asnum = 64497</code>. <span class="muted">Declared: cf.threat_score is always 0</span></li>`,
		`<li>2 requests: old rules no action (no rule decides), new rules no action (no rule decides), whatever the request. <span class="tag blocker">not declared</span></li>`,
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("the zone's plan lacks %q", want)
		}
	}
}
