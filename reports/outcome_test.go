package reports

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// TestOutcomeSummaryLine: the last line says the counts, the gate's result with its reason,
// and what was read, for each kind of run.
func TestOutcomeSummaryLine(t *testing.T) {
	findings := []scanner.Finding{
		{RuleID: "a", Severity: scanner.SeverityError},
		{RuleID: "a", Severity: scanner.SeverityError},
		{RuleID: "b", Severity: scanner.SeverityWarning},
		{RuleID: "c", Severity: scanner.SeverityNotice},
		{RuleID: "c", Severity: scanner.SeverityError, Suppressed: true},
	}
	zoneErr := scanner.RunError{ZoneID: "z9", ZoneName: "broken.example", What: "firewall/rules", Message: "HTTP 500"}
	cases := []struct {
		name string
		in   Input
		o    OutcomeOptions
		want string
	}{
		{"gate failed, complete", Input{Findings: findings, Counts: Counts{ZonesScanned: 6}, FailOn: scanner.SeverityError}, OutcomeOptions{},
			"4 findings (2 errors, 1 warning, 1 notice), 1 suppressed; gate failed: 2 at or above --fail-on error; complete: 6 zones scanned"},
		{"gate passed", Input{Findings: findings[2:4], Counts: Counts{ZonesScanned: 1}, FailOn: scanner.SeverityError}, OutcomeOptions{},
			"2 findings (0 errors, 1 warning, 1 notice); gate passed: none at or above --fail-on error; complete: 1 zone scanned"},
		{"no gate, a zone failed", Input{Findings: findings, Errors: []scanner.RunError{zoneErr}, Counts: Counts{ZonesScanned: 6, ZonesFailed: 1}, FailOn: scanner.SeverityNone}, OutcomeOptions{},
			"4 findings (2 errors, 1 warning, 1 notice), 1 suppressed; no gate (--fail-on none); incomplete: 6 zones scanned (1 failed)"},
		{"warning gate counts errors too", Input{Findings: findings, Counts: Counts{ZonesScanned: 6}, FailOn: scanner.SeverityWarning}, OutcomeOptions{Brief: true},
			"gate failed: 3 at or above --fail-on warning; complete: 6 zones scanned"},
		{"interrupted", Input{Counts: Counts{ZonesScanned: 48, ZonesFailed: 8, ZonesNotScanned: 152}, FailOn: scanner.SeverityError}, OutcomeOptions{Interrupted: true},
			"0 findings (0 errors, 0 warnings, 0 notices); gate passed: none at or above --fail-on error; incomplete: interrupted: 152 zones not scanned, 48 zones scanned (8 failed)"},
		{"interrupted before listing", Input{Errors: []scanner.RunError{{What: "accounts", Message: "not scanned: interrupted"}}, FailOn: scanner.SeverityError}, OutcomeOptions{Interrupted: true},
			"0 findings (0 errors, 0 warnings, 0 notices); gate passed: none at or above --fail-on error; incomplete: interrupted, 0 zones scanned, 1 other part not read"},
		{"files", Input{Source: Source{Kind: SourceFiles}, Findings: findings[:1], Counts: Counts{FilesScanned: 12, FilesFailed: 2}, FailOn: scanner.SeverityError}, OutcomeOptions{},
			"1 finding (1 error, 0 warnings, 0 notices); gate failed: 1 at or above --fail-on error; incomplete: 12 files checked, 2 files not fully read"},
		{"retired", Input{Retired: []scanner.RetiredNote{{ZoneID: "z1", Method: "GET", Path: "/zones/z1/filters", Status: 404}}, Counts: Counts{ZonesScanned: 1}, FailOn: scanner.SeverityError}, OutcomeOptions{Brief: true},
			"gate passed: none at or above --fail-on error; incomplete: 1 zone scanned, 1 endpoint answered retired"},
	}
	for _, c := range cases {
		lines := OutcomeLines(NewReport(c.in), c.o)
		if got := lines[len(lines)-1]; got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// TestOutcomeUnreadOncePerZone: a zone with many parts not read is one line (its first
// reason, the rest counted), zones never started are counted once in the summary line, not
// named, and past the cap the rest are counted by kind.
func TestOutcomeUnreadOncePerZone(t *testing.T) {
	var errs []scanner.RunError
	for i := range 14 {
		zone := fmt.Sprintf("z%02d.example", i)
		for _, part := range []string{"dns_settings", "firewall/rules", "filters"} {
			errs = append(errs, scanner.RunError{AccountID: "a1", ZoneID: "id" + zone, ZoneName: zone, What: part, Message: "HTTP 503"})
		}
	}
	for i := range 200 {
		errs = append(errs, scanner.RunError{AccountID: "a1", ZoneID: fmt.Sprint("n", i), ZoneName: fmt.Sprintf("n%03d.example", i), What: "zone", Message: "not scanned: interrupted"})
	}
	errs = append(errs, scanner.RunError{AccountID: "a2", What: "tunnels", Message: "HTTP 500"},
		scanner.RunError{Path: "infra/deep.json", What: "parse", Message: "nested too deep"})
	rep := NewReport(Input{Errors: errs, Counts: Counts{ZonesScanned: 14, ZonesFailed: 14, ZonesNotScanned: 200}, FailOn: scanner.SeverityError})
	lines := OutcomeLines(rep, OutcomeOptions{Interrupted: true})
	want := []string{
		"not read: file infra/deep.json: parse: nested too deep",
		"not read: zone z00.example: dns_settings: HTTP 503 (and 2 more parts)",
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d = %q, want %q", i, lines[i], w)
		}
	}
	if got, want := len(lines), DefaultMaxUnread+2; got != want {
		t.Fatalf("%d lines, want %d (%d places, the rest counted, the summary):\n%s", got, want, DefaultMaxUnread, strings.Join(lines, "\n"))
	}
	if got := lines[DefaultMaxUnread]; got != "not read: and 5 more zones, 1 more account (the report's errors list every part)" {
		t.Errorf("cap line %q", got)
	}
	all := strings.Join(lines, "\n")
	if strings.Contains(all, "n000.example") || strings.Count(all, "interrupted") != 1 {
		t.Errorf("zones never started are named, or the interruption is said more than once:\n%s", all)
	}
	if brief := OutcomeLines(rep, OutcomeOptions{Brief: true, Interrupted: true}); len(brief) != 1 {
		t.Errorf("brief: %q, want the summary line alone", brief)
	}
}

// TestOutcomeRetired: retired endpoints are errors in the report (so every format lists
// them), one line per endpoint on stderr naming the zones, and the run is incomplete.
func TestOutcomeRetired(t *testing.T) {
	var notes []scanner.RetiredNote
	for _, z := range []string{"a.example", "b.example", "c.example", "d.example"} {
		notes = append(notes, scanner.RetiredNote{AccountID: "acc", ZoneID: "id-" + z, ZoneName: z, Method: "GET", Path: "/zones/id-" + z + "/firewall/rules", Status: 404, RuleIDs: []vocab.RuleID{vocab.FirewallRules}})
	}
	notes = append(notes, scanner.RetiredNote{AccountID: "acc", Method: "GET", Path: "/accounts/acc/tunnels", Status: 410, RuleIDs: []vocab.RuleID{vocab.ArgoTunnelsAPI}})
	rep := NewReport(Input{Retired: notes, Counts: Counts{ZonesScanned: 4, Accounts: 1}, FailOn: scanner.SeverityError})
	if !rep.Summary.Incomplete || rep.Summary.RetiredEndpoints != 5 || len(rep.Errors) != 5 || len(rep.Retired) != 5 {
		t.Fatalf("summary %+v, %d errors, %d retired", rep.Summary, len(rep.Errors), len(rep.Retired))
	}
	e := rep.Errors[1]
	if e.ZoneName != "a.example" || e.What != "GET /zones/id-a.example/firewall/rules" || !strings.HasPrefix(e.Message, "answered 404 as retired (firewall-rules): ") || !strings.Contains(e.Message, "may still exist") {
		t.Errorf("retired error %+v", e)
	}
	lines := OutcomeLines(rep, OutcomeOptions{})
	want := []string{
		"retired: GET /accounts/:account_id/tunnels answered 410 as retired (argo-tunnels-api) in account acc",
		"retired: GET /zones/:zone_id/firewall/rules answered 404 as retired (firewall-rules) in zone a.example, zone b.example, zone c.example and 1 more",
		"retired: for each, " + RetiredWhy,
	}
	if len(lines) != len(want)+1 {
		t.Fatalf("lines:\n%s", strings.Join(lines, "\n"))
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d = %q, want %q", i, lines[i], w)
		}
	}
}

// TestOutcomeSanitised: a hostile zone name cannot start a line of its own or carry escapes.
func TestOutcomeSanitised(t *testing.T) {
	hostile := "x\n::error file=a.tf,line=1::FORGED\x1b[31m"
	rep := NewReport(Input{
		Errors:  []scanner.RunError{{ZoneID: "z", ZoneName: hostile, What: "filters", Message: "HTTP 500\nsecond"}},
		Retired: []scanner.RetiredNote{{ZoneID: "z2", ZoneName: hostile, Method: "GET", Path: "/zones/z2/x\ny", Status: 404}},
		Counts:  Counts{ZonesScanned: 2, ZonesFailed: 1},
	})
	for _, line := range OutcomeLines(rep, OutcomeOptions{}) {
		if strings.ContainsAny(line, "\n\r\x1b") {
			t.Errorf("unsafe line %q", line)
		}
	}
}
