package reports

import (
	"regexp"
	"strings"
	"testing"

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
