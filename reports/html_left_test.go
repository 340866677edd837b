package reports

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// TestHTMLDatesAZoneByItsErrors: a zone of errors past their end of life on 2025-01-15 and a
// notice of a setting retired on 2024-03-31 is dated 2025-01-15, in its group and in "what
// to do first": the notice's older date is not what the errors wait on.
func TestHTMLDatesAZoneByItsErrors(t *testing.T) {
	zone := func(rule string, sev scanner.Severity, eol, id string) scanner.Finding {
		return scanner.Finding{RuleID: vocab.RuleID(rule), Severity: sev, EndOfLife: eol, Message: "m", Source: scanner.SourceLive,
			AccountID: "a1", ZoneID: "z1", ZoneName: "status.example", Resource: scanner.Resource{Kind: "firewall_rule", ID: id}, Fingerprint: id}
	}
	r := NewReport(Input{AsOf: asOf, Source: Source{Kind: SourceLive}, Findings: []scanner.Finding{
		zone("zone-setting-privacy-pass", scanner.SeverityNotice, "2024-03-31", "s1"),
		zone("firewall-rules", scanner.SeverityError, "2025-01-15", "r1"),
		zone("firewall-rules", scanner.SeverityError, "2025-01-15", "r2"),
	}})
	page := renderHTML(t, HTML{}, r)
	for where, end := range map[string]string{`<details class="group`: "</summary>", `<li class="first-entry`: "</p>"} {
		_, block, ok := strings.Cut(page, where)
		block, _, _ = strings.Cut(block, end)
		if !ok || !strings.Contains(block, `<time datetime="2025-01-15">`) || strings.Contains(block, "2024-03-31") {
			t.Errorf("%s: dated otherwise than by its errors: %s", where, block)
		}
	}
}

// TestHTMLChartCountsZonesAndAccountsApart: the chart of a 200-zone account with findings in
// its 2 accounts says 200 zones and 2 accounts, not 202 zones.
func TestHTMLChartCountsZonesAndAccountsApart(t *testing.T) {
	page, _, _ := scalePage(t)
	_, chart, _ := strings.Cut(page, `<figure class="chart" id="chart-groups">`)
	chart, _, _ = strings.Cut(chart, "</figure>")
	if !strings.Contains(chart, "200 zones and 2 accounts, most findings first") || strings.Contains(chart, "202") {
		t.Errorf("the chart by zone miscounts:\n%.600s", chart)
	}
	if !regexp.MustCompile(`data-label="\d+ more zones( and accounts)?"`).MatchString(chart) {
		t.Errorf("the last bar does not say what it sums:\n%s", chart[len(chart)-400:])
	}
}

// TestHTMLLeadsWithWhatIsLeft: the page of a 200-zone account opens, under its title, with
// what is left in words a manager reads: the steps sunset apply carries out with the requests
// and time the apply takes at the API's budget, the steps by hand (and how many hold an old
// object), since when the errors are past their end of life, the zones to start with (each
// linking to its entry in "what to do first"), then the gate with its count, CI's word
// last; the finding counts and "what to do first" follow.
func TestHTMLLeadsWithWhatIsLeft(t *testing.T) {
	fixture, p := scaleFixture()
	rep := *fixture // gated as scan gates by default
	rep.Summary.FailOn, rep.Summary.GateFailed = scanner.SeverityWarning, true
	page := renderHTML(t, HTML{Plan: p}, &rep)
	_, body, _ := strings.Cut(page, "</header>")
	left, rest, ok := strings.Cut(body, "</section>")
	if !ok || !strings.Contains(left, `<h2 id="left-h">What is left</h2>`) || !strings.Contains(rest, `<section id="first"`) ||
		strings.Index(rest, `<section id="summary"`) > strings.Index(rest, `<section id="first"`) {
		t.Fatalf("the page does not open with what is left, then the findings, then what to do first:\n%.2000s", body)
	}
	auto, byHand, blocked := 0, 0, 0
	for _, st := range p.Steps() {
		switch {
		case !st.Manual:
			auto++
		case blockerTag(st) != "":
			blocked++
			byHand++
		default:
			byHand++
		}
	}
	requests := apply.EstimateRequests(p, false)
	for _, want := range []string{
		fmt.Sprintf(`<p class="headline">%d objects in `, rep.Summary.BySeverity.Error),
		fmt.Sprintf(`<span class="value">%d</span><span class="label">steps sunset apply carries out</span><span class="note">%d requests, %s at the API&#39;s budget of 1,200 requests per 5 minutes</span>`,
			auto, requests, aboutTime(requests)),
		fmt.Sprintf(`<span class="value">%d</span><span class="label">steps by hand</span><span class="note">%d keep an old object until unblocked</span>`, byHand, blocked),
		`<span class="label">past end of life since</span>`,
		`<li><a href="#first-1">`,
		fmt.Sprintf(`<p class="banner gate" role="status">Gate failed: %d findings at or above warning (--fail-on warning), so a CI job running this scan fails.</p>`,
			rep.Summary.BySeverity.Error),
	} {
		if !strings.Contains(left, want) {
			t.Errorf("what is left lacks %s\n%s", want, left)
		}
	}
	if strings.Count(left, `<li><a href="#first-`) != leftFirst || !strings.Contains(page, `<li class="first-entry sev-error" id="first-1">`) {
		t.Errorf("the zones to start with do not link to their entries:\n%s", left)
	}
	if i, j := strings.Index(left, "headline"), strings.Index(left, "Gate failed"); i < 0 || j < i {
		t.Error("the gate comes before the headline")
	}
	if strings.Contains(page, "x8") || !strings.Contains(aboutTime(4945), "about 21 minutes") || aboutTime(61944) != "about 4.3 hours" {
		t.Errorf("aboutTime: %q, %q", aboutTime(4945), aboutTime(61944))
	}
}

// TestHTMLPrintsItsSummary: printed, a large page is its summary. The script no longer opens
// every folded item for the print (a 200-zone account was 511 pages); the findings by zone
// and the plan's zones, listed on screen, are left out on paper, which says where they are.
func TestHTMLPrintsItsSummary(t *testing.T) {
	page, _, _ := scalePage(t)
	if strings.Contains(page, "beforeprint") {
		t.Error("the page opens its folded items to print them")
	}
	for _, want := range []string{
		`<div class="groups screen-only" id="finding-groups">`,
		`<p class="print-only muted">On paper the findings are summed up`,
		`<p class="print-only muted">On paper the plan is summed up by kind`,
		`.screen-only { display: none !important; }`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	_, plan, _ := strings.Cut(page, `<section id="plan"`)
	if i, j := strings.Index(plan, `<div class="screen-only">`+"\n"+`<h3 id="plan-sections">`), strings.Index(plan, `<details class="zone-plan"`); i < 0 || j < i {
		t.Error("the plan's zones are not left to the screen")
	}
}
