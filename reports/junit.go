package reports

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// JUnitErrorSuite is the name of the test suite that lists what could not be read.
const JUnitErrorSuite = "sunset: incomplete scan"

// JUnitSkippedSuite names the suite of the files a files scan did not read.
const JUnitSkippedSuite = "sunset: files not read"

// JUnit writes JUnit XML for CI systems that show test reports (GitLab, Jenkins, Azure
// Pipelines, CircleCI): one <testsuite> per rule of Report.Catalog that has findings, one
// <testcase> per finding named after its place (file and line, else zone or account) and
// resource. A case fails (<failure>: message, type = severity, details in the body) when its
// finding fails the gate, at or above Summary.FailOn, as the exit code does; a finding below
// it (a notice under --fail-on warning, any finding under --fail-on none) is a case that
// passes, its details in <system-out>, so a run whose gate passed shows no failure; a
// suppressed finding is <skipped>. Rules without findings have no suite. Report errors form
// one more suite, JUnitErrorSuite, with an <error> per part that could not be read. tests,
// failures, errors and skipped are counted on every suite and on <testsuites>.
//
// The only time written is the as-of day (timestamp "YYYY-MM-DDT00:00:00", time "0"), so the
// same report gives the same bytes. User text is sanitised (see textsafe.Sanitize) and stripped of
// the characters XML 1.0 cannot hold, so hostile descriptions still give well-formed XML.
type JUnit struct{}

// The JUnit XML model; attribute order is output order.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string           `xml:"name,attr"`
		Tests      int              `xml:"tests,attr"`
		Failures   int              `xml:"failures,attr"`
		Errors     int              `xml:"errors,attr"`
		Skipped    int              `xml:"skipped,attr"`
		Time       string           `xml:"time,attr"`
		Timestamp  string           `xml:"timestamp,attr,omitempty"`
		Properties *junitProperties `xml:"properties"`
		Cases      junitCases       `xml:"testcase"`
	}
	// junitCases are the cases of a suite: a rule's are made from its findings as they are
	// encoded, one at a time, so the document never holds a case per finding.
	junitCases struct {
		list     *scanner.FindingList
		findings []int // indexes in list
		failOn   scanner.Severity
		cases    []junitCase
	}
	junitProperties struct {
		Items []junitProperty `xml:"property"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		ClassName string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		File      string        `xml:"file,attr,omitempty"`
		Line      int           `xml:"line,attr,omitempty"`
		Failure   *junitProblem `xml:"failure"`
		Error     *junitProblem `xml:"error"`
		Skipped   *junitSkipped `xml:"skipped"`
		// SystemOut holds the details of a finding below the gate: a case that passes.
		SystemOut *junitOutput `xml:"system-out"`
	}
	junitOutput struct {
		Body string `xml:",cdata"`
	}
	junitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Body    string `xml:",cdata"` // CDATA keeps the body's line breaks readable
	}
	junitSkipped struct {
		Message string `xml:"message,attr,omitempty"`
	}
)

// Write implements Reporter.
func (JUnit) Write(w io.Writer, r *Report) error {
	stamp := ""
	if r.AsOf != "" {
		stamp = xmlText(r.AsOf) + "T00:00:00"
	}
	// Indexes, not findings: a spilled list is read again a rule at a time, in order.
	byRule := map[string][]int{}
	suppressed, failed := map[string]int{}, map[string]int{}
	var order []string // rule ids: the catalog's order, then any the catalog lacks
	for i, f := range r.Findings.All() {
		if _, ok := byRule[string(f.RuleID)]; !ok {
			order = append(order, string(f.RuleID))
		}
		byRule[string(f.RuleID)] = append(byRule[string(f.RuleID)], i)
		switch {
		case f.Suppressed:
			suppressed[string(f.RuleID)]++
		case failsGate(f.Severity, r.Summary.FailOn):
			failed[string(f.RuleID)]++
		}
	}
	info := map[string]RuleInfo{}
	var ids []string
	for _, c := range r.Catalog {
		if _, ok := byRule[c.ID]; ok && info[c.ID].ID == "" {
			ids = append(ids, c.ID)
		}
		info[c.ID] = c
	}
	for _, id := range order {
		if _, ok := info[id]; !ok {
			ids = append(ids, id)
		}
	}

	doc := junitSuites{Name: ToolName, Time: "0"}
	for _, id := range ids {
		suite := junitSuite{Name: xmlText(id), Time: "0", Timestamp: stamp, Properties: junitRuleProperties(info[id])}
		suite.Cases.list, suite.Cases.findings, suite.Cases.failOn = r.Findings, byRule[id], r.Summary.FailOn
		// A suppressed finding is a skipped case, one below the gate a case that passes
		// (junitCaseOf).
		suite.Tests, suite.Skipped, suite.Failures = len(byRule[id]), suppressed[id], failed[id]
		doc.add(suite)
	}
	if len(r.Errors) > 0 {
		suite := junitSuite{Name: JUnitErrorSuite, Time: "0", Timestamp: stamp}
		for _, e := range r.Errors {
			line := xmlText(errorLine(e))
			suite.Cases.cases = append(suite.Cases.cases, junitCase{
				Name:      orElse(xmlText(orElse(e.Path, orElse(e.ZoneName, orElse(e.ZoneID, e.AccountID)))), "scan"),
				ClassName: ToolName + ".read",
				Time:      "0",
				File:      xmlText(slashPath(e.Path)),
				Error:     &junitProblem{Message: orElse(line, "read error"), Type: "read-error", Body: orElse(line, "read error")},
			})
		}
		suite.Tests, suite.Errors = len(suite.Cases.cases), len(suite.Cases.cases)
		doc.add(suite)
	}
	if len(r.Summary.Skipped) > 0 {
		doc.add(junitSkippedFiles(r.Summary.Skipped, stamp))
	}

	// Encoded into the writer, not a buffer: the document is as large as the findings.
	bw := bufio.NewWriterSize(w, streamBufSize)
	bw.WriteString(xml.Header)
	enc := xml.NewEncoder(bw)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encoding JUnit XML: %w", err)
	}
	bw.WriteByte('\n')
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing JUnit XML: %w", err)
	}
	return nil
}

// junitSkippedFiles is the suite of the files a files scan did not read, each a skipped
// case: they do not fail the run, and are named.
func junitSkippedFiles(skipped []scanner.SkippedFile, stamp string) junitSuite {
	suite := junitSuite{Name: JUnitSkippedSuite, Time: "0", Timestamp: stamp}
	for _, f := range skipped {
		suite.Cases.cases = append(suite.Cases.cases, junitCase{
			Name: xmlText(f.Path), ClassName: ToolName + ".skipped", Time: "0", File: xmlText(slashPath(f.Path)),
			Skipped: &junitSkipped{Message: "not read: " + orElse(xmlText(f.Why), "skipped")},
		})
	}
	suite.Tests, suite.Skipped = len(skipped), len(skipped)
	return suite
}

// add appends a suite and adds its counts to the totals.
func (d *junitSuites) add(s junitSuite) {
	d.Suites = append(d.Suites, s)
	d.Tests += s.Tests
	d.Failures += s.Failures
	d.Errors += s.Errors
	d.Skipped += s.Skipped
}

// junitRuleProperties describes a rule in a suite's <properties>; nil when there is nothing.
func junitRuleProperties(c RuleInfo) *junitProperties {
	var props []junitProperty
	for _, p := range [][2]string{
		{"title", c.Title}, {"deprecated_on", c.DeprecatedOn}, {"end_of_life", c.EndOfLife},
		{"replacement", c.Replacement}, {"doc_url", c.DocURL},
	} {
		if v := xmlText(p[1]); v != "" {
			props = append(props, junitProperty{Name: p[0], Value: v})
		}
	}
	if len(props) == 0 {
		return nil
	}
	return &junitProperties{Items: props}
}

// MarshalXML writes one start element per case, as a slice of cases would be written.
func (cs junitCases) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	for _, i := range cs.findings {
		f := cs.list.At(i)
		if err := e.EncodeElement(junitCaseOf(&f, cs.failOn), start); err != nil {
			return err
		}
	}
	if err := cs.list.Err(); err != nil {
		return err
	}
	for _, c := range cs.cases {
		if err := e.EncodeElement(c, start); err != nil {
			return err
		}
	}
	return nil
}

// junitCaseOf is the test case of one finding under the gate at failOn.
func junitCaseOf(f *scanner.Finding, failOn scanner.Severity) junitCase {
	place := xmlText(where(f))
	if l := f.Location; l != nil && l.Path != "" {
		place = xmlText(slashPath(place))
	}
	resource := xmlText(resourceName(f))
	name := strings.TrimSpace(place + " " + resource)
	if place != "" && resource != "" {
		name = place + ": " + resource
	}
	c := junitCase{
		Name:      orElse(name, xmlText(string(f.RuleID))),
		ClassName: ToolName + "." + xmlText(string(f.RuleID)),
		Time:      "0",
	}
	if f.Location != nil && f.Location.Path != "" {
		c.File = xmlText(slashPath(f.Location.Path))
		c.Line = max(f.Location.StartLine, 0)
	}
	if f.Suppressed {
		msg := "suppressed"
		if by := xmlText(f.SuppressedBy); by != "" {
			msg += " by " + by
		}
		c.Skipped = &junitSkipped{Message: msg}
		return c
	}
	msg := orElse(xmlText(f.Message), orElse(xmlText(f.Title), xmlText(string(f.RuleID))))
	if !failsGate(f.Severity, failOn) {
		c.SystemOut = &junitOutput{Body: junitDetails(f, msg)}
		return c
	}
	c.Failure = &junitProblem{Message: msg, Type: f.Severity.String(), Body: junitDetails(f, msg)}
	return c
}

// junitDetails is the body of a failure: the message, then one "Key: value" line per fact.
func junitDetails(f *scanner.Finding, msg string) string {
	lines := []string{msg, ""}
	for _, p := range [][2]string{
		{"Rule", strings.TrimSpace(xmlText(string(f.RuleID)) + " " + parenthesized(xmlText(f.Title)))},
		{"Severity", f.Severity.String()},
		{"Zone", strings.TrimSpace(xmlText(f.ZoneName) + " " + parenthesized(xmlText(f.ZoneID)))},
		{"Account", xmlText(f.AccountID)},
		{"File", xmlText(fileLine(f))},
		{"Resource", xmlText(resourceName(f))},
		{"Deprecated on", xmlText(f.DeprecatedOn)},
		{"End of life", xmlText(f.EndOfLife)},
		{"Replacement", xmlText(f.Replacement)},
		{"Documentation", xmlText(f.DocURL)},
		{"Fingerprint", xmlText(f.Fingerprint)},
	} {
		if p[1] != "" {
			lines = append(lines, p[0]+": "+p[1])
		}
	}
	return strings.Join(lines, "\n")
}

// resourceName is resourceLabel without the line of a file finding.
func resourceName(f *scanner.Finding) string {
	g := *f
	g.Location = nil
	return resourceLabel(&g)
}

// fileLine is "PATH:LINE" (or PATH) of a file finding, with forward slashes; "" for a live one.
func fileLine(f *scanner.Finding) string {
	if f.Location == nil || f.Location.Path == "" {
		return ""
	}
	return slashPath(where(f))
}

func parenthesized(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}

// xmlText sanitises user text and drops what XML 1.0 cannot hold at all (even escaped):
// controls other than tab and line ends, U+FFFE and U+FFFF.
func xmlText(s string) string {
	s = textsafe.Sanitize(s)
	if !strings.ContainsFunc(s, notXMLChar) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if notXMLChar(r) {
			return -1
		}
		return r
	}, s)
}

// notXMLChar reports a rune outside XML 1.0's Char production.
func notXMLChar(r rune) bool {
	switch {
	case r == 0x09 || r == 0x0a || r == 0x0d:
		return false
	case r < 0x20, r >= 0xd800 && r <= 0xdfff, r == 0xfffe, r == 0xffff, r > 0x10ffff:
		return true
	}
	return false
}
