package reports

import (
	"regexp"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner"
)

func TestLineGolden(t *testing.T) {
	golden(t, "line.golden", []byte(render(t, "line", Options{}, sampleReport())))
}

// TestLineShape: one line per finding that is not suppressed, in the table's order, each in
// the compiler's shape: the column only when known, the object only for a live finding.
func TestLineShape(t *testing.T) {
	fs := []scanner.Finding{
		{RuleID: "firewall-rules", Severity: scanner.SeverityError, Message: "no column", Source: scanner.SourceFile,
			Resource: scanner.Resource{Kind: "script"}, Location: &scanner.Location{Path: "b.sh", StartLine: 7}},
		{RuleID: "firewall-rules", Severity: scanner.SeverityWarning, Message: "with column", Source: scanner.SourceFile,
			Resource: scanner.Resource{Kind: "script"}, Location: &scanner.Location{Path: "a.sh", StartLine: 3, StartColumn: 9}},
		{RuleID: "filters", Severity: scanner.SeverityNotice, Message: "whole file", Source: scanner.SourceFile,
			Location: &scanner.Location{Path: "a.sh"}},
		{RuleID: "firewall-rules", Severity: scanner.SeverityError, Message: "live", Source: scanner.SourceLive,
			AccountID: "acc", ZoneID: "z1", ZoneName: "shop.example", Resource: scanner.Resource{Kind: "firewall_rule", ID: "r1", Name: "Block bots"}},
		{RuleID: "access-bookmarks-api", Severity: scanner.SeverityNotice, Message: "account-level", Source: scanner.SourceLive,
			AccountID: "acc", Resource: scanner.Resource{Kind: "access_bookmark", ID: "b1", Name: "Wiki"}},
		{RuleID: "firewall-rules", Severity: scanner.SeverityError, Message: "hidden", Source: scanner.SourceLive,
			ZoneID: "z1", ZoneName: "shop.example", Suppressed: true},
	}
	r := NewReport(Input{Findings: fs, AccountNames: map[string]string{"acc": "Acme"}})
	want := strings.Join([]string{
		"account:acc: notice access-bookmarks-api access_bookmark Wiki: account-level",
		"shop.example: error firewall-rules firewall_rule Block bots: live",
		"a.sh: notice filters: whole file",
		"a.sh:3:9: warning firewall-rules: with column",
		"b.sh:7: error firewall-rules: no column",
	}, "\n") + "\n"
	if got := render(t, "line", Options{Width: 40}, r); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := render(t, "line", Options{}, NewReport(Input{})); got != "" {
		t.Errorf("no findings: got %q, want nothing", got)
	}
}

// TestLineOrderIsTheTable's: the line format lists findings in the order the table shows
// them, on the demo's report.
func TestLineOrderIsTheTables(t *testing.T) {
	demo := readFixtureReport(t, "demo-report.json")
	lines := strings.Split(strings.TrimSuffix(render(t, "line", Options{}, demo), "\n"), "\n")
	var want []string
	for _, g := range tableGroups(demo) {
		for _, fi := range g.idx {
			want = append(want, demo.Findings.At(fi).Message)
		}
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines for %d findings", len(lines), len(want))
	}
	for i, line := range lines {
		if !strings.HasSuffix(line, ": "+want[i]) {
			t.Errorf("line %d: %q does not end in finding %d's message %q", i+1, line, i+1, want[i])
		}
	}
}

// TestLineColor: colour only with Options.Color (what the table gets), and then nothing but
// the severity's colour.
func TestLineColor(t *testing.T) {
	plain := render(t, "line", Options{}, sampleReport())
	if strings.ContainsRune(plain, 0x1b) {
		t.Errorf("Color off: escape sequences:\n%q", plain)
	}
	colored := render(t, "line", Options{Color: true}, sampleReport())
	if !regexp.MustCompile(`: \x1b\[[0-9;]*31merror\x1b\[0m firewall-rules`).MatchString(colored) {
		t.Errorf("Color on: error is not red:\n%q", colored)
	}
	if got := sgr.ReplaceAllString(colored, ""); got != plain {
		t.Errorf("colour changed more than styling:\n%s\n---\n%s", got, plain)
	}
}

// TestHostileTextLine: control characters and line breaks in user text neither reach the
// output nor start a line of their own.
func TestHostileTextLine(t *testing.T) {
	out := render(t, "line", Options{}, hostileReport())
	if n := strings.Count(out, "\n"); n != 2 {
		t.Errorf("%d lines for 2 findings:\n%q", n, out)
	}
	for _, bad := range []string{"\x1b", "\r", "\t", "\x00", "\u009b", "\u202e", "pwned", "title"} {
		if strings.Contains(out, bad) {
			t.Errorf("output contains %q:\n%q", bad, out)
		}
	}
}
