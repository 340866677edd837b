package reports

import (
	"encoding/xml"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sunsetscan/sunset/scanner"
)

func TestJUnitGolden(t *testing.T) {
	golden(t, "junit.golden", []byte(render(t, "junit", Options{}, ciReport())))
}

// junitDoc is JUnit XML as a reader sees it.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Name       string `xml:"name,attr"`
		Tests      int    `xml:"tests,attr"`
		Failures   int    `xml:"failures,attr"`
		Errors     int    `xml:"errors,attr"`
		Skipped    int    `xml:"skipped,attr"`
		Timestamp  string `xml:"timestamp,attr"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			ClassName string `xml:"classname,attr"`
			File      string `xml:"file,attr"`
			Line      int    `xml:"line,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Body    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			SystemOut *string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func parseJUnit(t *testing.T, out string) junitDoc {
	t.Helper()
	var doc junitDoc
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("JUnit XML does not parse: %v\n%s", err, out)
	}
	return doc
}

func TestJUnitParsesBack(t *testing.T) {
	r := ciReport()
	out := render(t, "junit", Options{}, r)
	if !strings.HasPrefix(out, `<?xml version="1.0" encoding="UTF-8"?>`+"\n<testsuites ") {
		t.Errorf("no XML declaration:\n%s", out[:80])
	}
	doc := parseJUnit(t, out)
	active := r.Summary.failing() // the gate is at error: warnings and notices pass
	if doc.Tests != r.Findings.Len()+len(r.Errors) || doc.Failures != active || doc.Skipped != r.Summary.Suppressed || doc.Errors != len(r.Errors) {
		t.Errorf("totals: tests %d failures %d skipped %d errors %d; want %d %d %d %d",
			doc.Tests, doc.Failures, doc.Skipped, doc.Errors, r.Findings.Len()+len(r.Errors), active, r.Summary.Suppressed, len(r.Errors))
	}
	// One suite per rule with findings, in catalog order, then the error suite.
	var names []string
	sum := 0
	for _, s := range doc.Suites {
		names = append(names, s.Name)
		passed := 0
		for _, c := range s.Cases {
			if c.SystemOut != nil && c.Failure == nil && c.Skipped == nil && c.Error == nil {
				passed++
			}
		}
		if s.Tests != len(s.Cases) || s.Failures+s.Skipped+s.Errors+passed != s.Tests {
			t.Errorf("suite %s counts: tests %d, failures %d, skipped %d, errors %d, %d cases", s.Name, s.Tests, s.Failures, s.Skipped, s.Errors, len(s.Cases))
		}
		if s.Timestamp != "2025-07-01T00:00:00" {
			t.Errorf("suite %s timestamp %q", s.Name, s.Timestamp)
		}
		sum += s.Tests
	}
	want := "access-bookmarks-api cname-flattening-setting firewall-rules srv-data-fields zone-setting-brotli " + JUnitErrorSuite
	if got := strings.Join(names, " "); got != want {
		t.Errorf("suites = %s, want %s", got, want)
	}
	if sum != doc.Tests {
		t.Errorf("suite tests add up to %d, total says %d", sum, doc.Tests)
	}
	fw := doc.Suites[2]
	if len(fw.Cases) != 3 || fw.Failures != 2 || fw.Skipped != 1 {
		t.Fatalf("firewall-rules suite: %+v", fw)
	}
	c := fw.Cases[0]
	if c.Name != "example.com: firewall_rule block bots" || c.ClassName != "sunset.firewall-rules" || c.Failure == nil ||
		c.Failure.Type != "error" || !strings.Contains(c.Failure.Body, "End of life: 2025-06-15") {
		t.Errorf("first case = %+v", c)
	}
	if s := fw.Cases[1]; s.Skipped == nil || s.Skipped.Message != "suppressed by baseline" || s.Failure != nil {
		t.Errorf("suppressed case = %+v", s)
	}
	if f := fw.Cases[2]; f.File != "infra/waf.tf" || f.Line != 12 || f.Name != "infra/waf.tf:12: cloudflare_firewall_rule.block" {
		t.Errorf("file case = %+v", f)
	}
	if p := fw.Properties; len(p) == 0 || p[0].Name != "title" || p[0].Value != "Firewall rules API" {
		t.Errorf("properties = %+v", p)
	}
	errs := doc.Suites[len(doc.Suites)-1]
	if errs.Errors != 3 || errs.Cases[0].Error == nil || errs.Cases[0].File != "infra/bad.tf" {
		t.Errorf("error suite = %+v", errs)
	}
}

func TestJUnitHostileText(t *testing.T) {
	for name, r := range map[string]*Report{"ci": ciReport(), "hostile": hostileReport()} {
		out := render(t, "junit", Options{}, r)
		doc := parseJUnit(t, out) // well-formed despite the text
		if !utf8.ValidString(out) {
			t.Errorf("%s: invalid UTF-8", name)
		}
		for _, c := range out {
			if notXMLChar(c) || c == 0x1b || c == 0x202e || c == 0xfffd {
				t.Errorf("%s: output keeps %U", name, c)
			}
		}
		// Markup in the text stays text: the only elements are JUnit's.
		dec := xml.NewDecoder(strings.NewReader(out))
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			if se, ok := tok.(xml.StartElement); ok {
				switch se.Name.Local {
				case "testsuites", "testsuite", "properties", "property", "testcase", "failure", "error", "skipped", "system-out":
				default:
					t.Errorf("%s: element <%s> in the output", name, se.Name.Local)
				}
			}
		}
		if doc.Tests != r.Findings.Len()+len(r.Errors) {
			t.Errorf("%s: %d tests", name, doc.Tests)
		}
	}
	if got := xmlText("a\x00b\ufffec\uffffd\x0be"); got != "abcd e" {
		t.Errorf("xmlText = %q", got)
	}
}

// TestJUnitCDATAEnd checks that text holding the end of a CDATA section reads back whole.
func TestJUnitCDATAEnd(t *testing.T) {
	fs := sampleFindings()[:1]
	fs[0].Message = "a ]]> b <c/> ]]]]>"
	doc := parseJUnit(t, render(t, "junit", Options{}, NewReport(Input{Findings: fs, FailOn: scanner.SeverityNotice})))
	f := doc.Suites[0].Cases[0].Failure
	if f == nil || f.Message != fs[0].Message || !strings.HasPrefix(f.Body, fs[0].Message+"\n") {
		t.Errorf("failure = %+v", f)
	}
}

// TestJUnitFailsWhatTheGateFails checks a notice-only run whose gate passed (--fail-on
// warning) has no failing case: the notice is a case that passes, its details in
// <system-out>; the same run gated at notice fails it, and --fail-on none fails nothing.
func TestJUnitFailsWhatTheGateFails(t *testing.T) {
	notice := sampleFindings()[:1]
	notice[0].Severity = scanner.SeverityNotice
	for _, tc := range []struct {
		failOn   scanner.Severity
		failures int
	}{{scanner.SeverityWarning, 0}, {scanner.SeverityNone, 0}, {scanner.SeverityNotice, 1}} {
		r := NewReport(Input{Findings: notice, FailOn: tc.failOn})
		out := render(t, "junit", Options{}, r)
		doc := parseJUnit(t, out)
		if r.Summary.GateFailed != (tc.failures > 0) || doc.Failures != tc.failures || doc.Suites[0].Failures != tc.failures {
			t.Errorf("--fail-on %s: gate failed %t, JUnit failures %d (suite %d), want %d\n%s",
				tc.failOn, r.Summary.GateFailed, doc.Failures, doc.Suites[0].Failures, tc.failures, out)
		}
		c := doc.Suites[0].Cases[0]
		if passes := tc.failures == 0; passes != (c.Failure == nil) || passes != (c.SystemOut != nil && strings.Contains(*c.SystemOut, "Severity: notice")) {
			t.Errorf("--fail-on %s: case %+v", tc.failOn, c)
		}
	}
}

func TestJUnitEmpty(t *testing.T) {
	out := render(t, "junit", Options{}, NewReport(Input{AsOf: asOf}))
	want := `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<testsuites name="sunset" tests="0" failures="0" errors="0" skipped="0" time="0"></testsuites>` + "\n"
	if out != want {
		t.Errorf("empty report:\n%s\nwant\n%s", out, want)
	}
	parseJUnit(t, out)
	// Without an as-of day there is no timestamp at all, rather than today's.
	if out := render(t, "junit", Options{}, &Report{Findings: scanner.NewFindingList(sampleFindings()[:1])}); strings.Contains(out, "timestamp") {
		t.Errorf("timestamp without as_of:\n%s", out)
	}
}

func TestJUnitDeterministic(t *testing.T) {
	first := render(t, "junit", Options{}, ciReport())
	for range 10 {
		if render(t, "junit", Options{}, ciReport()) != first {
			t.Fatal("JUnit output differs between runs")
		}
	}
}
