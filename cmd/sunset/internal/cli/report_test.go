package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// reportGoldenDir holds the report fixtures (demo-report.json, demo-plan.json) and the
// golden HTML page (demo.html, checked by the reports package) at the repository root.
var reportGoldenDir = filepath.Join("..", "..", "..", "..", "testdata", "golden", "report")

// demoFixtures runs the demo as of 2025-02-01 in-process and returns its JSON report and
// plan.json, made the way `sunset demo --format json:FILE` and `sunset plan --snapshot`
// make them. The plan's source (the emulator's loopback URL, a new port every run) is
// replaced by "demo" so the fixture does not change between runs.
func demoFixtures(t *testing.T) (report, plan []byte) {
	t.Helper()
	dir := t.TempDir()
	reportPath, snapPath := filepath.Join(dir, "report.json"), filepath.Join(dir, "snapshot.json")
	r := runSunset(t, nil, "demo", "--as-of", "2025-02-01", "--report", "", "--format", "json:"+reportPath, "--snapshot-out", snapPath)
	if r.code != ExitOK {
		t.Fatalf("demo: exit %d\n%s", r.code, r.stderr)
	}
	report, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(snapPath)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	snap, err := inventory.ReadSnapshot(f)
	if err != nil {
		t.Fatal(err)
	}
	asOf := time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	cat := catalog.Default()
	res := scanner.ScanSnapshot(snap, cat, scanner.Options{AsOf: asOf})
	p := migrate.Build(snap, res, migrate.Options{AsOf: asOf, Catalog: cat})
	p.Source = reports.SourceDemo
	var b bytes.Buffer
	if err := p.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return report, b.Bytes()
}

// TestReportFixtures keeps the fixtures the HTML golden page is rendered from in step with
// the demo: -update rewrites them (then run the reports package's tests with -update to
// rewrite demo.html); otherwise the demo's findings and the plan's steps must still be
// those of the fixtures, compared by fingerprint and step id rather than byte for byte so
// a reworded message does not make the fixtures stale.
func TestReportFixtures(t *testing.T) {
	report, plan := demoFixtures(t)
	reportPath, planPath := filepath.Join(reportGoldenDir, "demo-report.json"), filepath.Join(reportGoldenDir, "demo-plan.json")
	if *update {
		for path, data := range map[string][]byte{reportPath: report, planPath: plan} {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	got, err := reports.ReadReport(bytes.NewReader(report))
	if err != nil {
		t.Fatal(err)
	}
	want := readReportFile(t, reportPath)
	if g, w := strings.Join(fingerprints(got.Findings.Slice()), " "), strings.Join(fingerprints(want.Findings.Slice()), " "); g != w || got.Summary.BySeverity != want.Summary.BySeverity {
		t.Errorf("the demo's findings are no longer those of %s (run go test -run TestReportFixtures -update here, then go test -update ./reports)", reportPath)
	}
	gotPlan, err := migrate.ReadPlan(bytes.NewReader(plan))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(planPath)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	wantPlan, err := migrate.ReadPlan(f)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := stepIDs(gotPlan), stepIDs(wantPlan); g != w {
		t.Errorf("the demo's plan steps are no longer those of %s (run go test -run TestReportFixtures -update here, then go test -update ./reports)", planPath)
	}
}

func stepIDs(p *migrate.Plan) string {
	var ids []string
	for _, a := range p.Accounts {
		for _, st := range a.Steps {
			ids = append(ids, a.AccountID+"/"+st.ID)
		}
	}
	for _, z := range p.Zones {
		for _, st := range z.Steps {
			ids = append(ids, z.ZoneID+"/"+st.ID)
		}
	}
	return strings.Join(ids, " ")
}

// TestReportRerender re-renders the saved demo report and plan: the HTML is the golden page,
// the JSON the saved report byte for byte, and several formats come out of one run.
func TestReportRerender(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(reportGoldenDir, "demo-report.json")
	planDir := filepath.Join(dir, "plan")
	copyFile(t, filepath.Join(reportGoldenDir, "demo-plan.json"), filepath.Join(planDir, "plan.json"))
	out := func(name string) string { return filepath.Join(dir, name) }
	r := runSunset(t, nil, "report", in, "--plan-dir", planDir,
		"--format", "html:"+out("r.html"), "--format", "markdown:"+out("r.md"), "--format", "json:"+out("r.json"), "--format", "tsv")
	// stderr holds the saved run's summary line alone.
	if r.code != ExitOK || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "sunset: ") || !strings.Contains(r.stderr, "; complete: 6 zones scanned") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got, want := read(out("r.html")), read(filepath.Join(reportGoldenDir, "demo.html")); got != want {
		t.Errorf("sunset report's HTML differs from the golden page:\n%s", firstDiff(want, got))
	}
	if got, want := read(out("r.json")), read(in); got != want {
		t.Errorf("the JSON report does not round-trip:\n%s", firstDiff(want, got))
	}
	rep := readReportFile(t, in)
	if !strings.HasPrefix(r.stdout, "severity\trule_id\t") || strings.Count(r.stdout, "\n") != len(rep.Findings.Slice())+1 {
		t.Errorf("tsv on stdout: want a header and %d rows, got:\n%.300s", len(rep.Findings.Slice()), r.stdout)
	}
	md := read(out("r.md"))
	if !strings.Contains(md, "firewall-rules") || strings.Contains(md, "<script>") || !strings.Contains(md, "### Migration plan\n") {
		t.Errorf("the Markdown report lacks findings or the plan, or carries raw markup:\n%.500s", md)
	}

	// Without a plan the page has no plan section; the report - is standard input.
	var stdout, stderr syncBuffer
	s := (&testRun{}).streams(&stdout, &stderr)
	s.In = strings.NewReader(read(in))
	if code := Run(context.Background(), []string{"sunset", "report", "-", "--format", "html"}, s); code != ExitOK {
		t.Fatalf("report -: exit %d\n%s", code, stderr.String())
	}
	page := stdout.String()
	if !strings.Contains(page, `<h2 id="findings-h">Findings (`) || strings.Contains(page, `<section id="plan"`) {
		t.Error("report - without --plan: want the findings and no plan section")
	}
}

// TestReportTakesThePathAsOtherCommandsDo: `sunset report FILE` renders FILE, as every other
// command takes its input as an argument; --in FILE, the old spelling, still works and says
// it goes in the next release.
func TestReportTakesThePathAsOtherCommandsDo(t *testing.T) {
	in := filepath.Join(reportGoldenDir, "demo-report.json")
	arg := runSunset(t, nil, "report", in, "--format", "json")
	old := runSunset(t, nil, "report", "--in", in, "--format", "json")
	if arg.code != ExitOK || arg.stdout == "" || strings.Contains(arg.stderr, "deprecated") {
		t.Fatalf("report FILE: exit %d\n%s", arg.code, arg.stderr)
	}
	if old.code != ExitOK || old.stdout != arg.stdout ||
		!strings.Contains(old.stderr, "sunset: --in FILE is deprecated and goes in the next release: use the report as the argument: sunset report FILE") {
		t.Errorf("report --in FILE: exit %d, same output %t\n%s", old.code, old.stdout == arg.stdout, old.stderr)
	}
	if help := runSunset(t, nil, "report", "--help").stdout; !strings.Contains(help, "sunset report REPORT.json") || strings.Contains(help, "--in") {
		t.Errorf("report --help:\n%s", help)
	}
}

// TestReportBadInput checks the exit codes: 2 for what the user gave (no report, a missing
// file, not a report, a newer schema, a bad plan, both from stdin, a stray argument), 3 for
// output that cannot be written.
func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := filepath.Join(reportGoldenDir, "demo-report.json")
	newer := write("newer.json", `{"schema_version": 99, "findings": []}`)
	for _, c := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no report", []string{"report"}, ExitUsage, "report: give the JSON report to render (sunset report REPORT.json; - for standard input)"},
		{"missing file", []string{"report", filepath.Join(dir, "nope.json")}, ExitUsage, "nope.json: no such file"},
		{"not JSON", []string{"report", write("x.json", "<html>")}, ExitUsage, "not a sunset JSON report"},
		{"no schema", []string{"report", write("y.json", `{"findings": []}`)}, ExitUsage, "no schema_version"},
		{"newer schema", []string{"report", newer}, ExitUsage, "report has schema_version 99, newer than this build of sunset reads (up to 1): upgrade sunset"},
		{"bad plan", []string{"report", good, "--plan-dir", filepath.Dir(write("plan.json", `{"schema_version": 7}`))}, ExitUsage, "the plan " + filepath.Join(dir, "plan.json")},
		{"both stdin", []string{"report", "-", "--plan", "-"}, ExitUsage, "cannot both read standard input"},
		{"two reports", []string{"report", good, "extra"}, ExitUsage, "report takes one JSON report (got 2 arguments: "},
		{"argument and --in", []string{"report", good, "--in", good}, ExitUsage, "the report is the argument or --in, its old spelling: give one"},
		{"unknown format", []string{"report", good, "--format", "pdf"}, ExitUsage, `unknown format "pdf"`},
		{"unwritable", []string{"report", good, "--format", "html:" + filepath.Join(dir, "no", "dir", "r.html")}, ExitFatal, "cannot write"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runSunset(t, nil, c.args...)
			if r.code != c.code || !strings.Contains(r.stderr, c.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", r.code, r.stderr, c.code, c.msg)
			}
		})
	}
}

// TestReportReadsOlderLayout renders a minimal schema-1 report as the first version wrote
// it (no catalog, no errors, no by_rule): lists come back empty and every format works.
func TestReportReadsOlderLayout(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "old.json")
	const old = `{"schema_version": 1, "tool": {"name": "sunset", "version": "0.0.1"}, "as_of": "2024-12-01",
"source": {"kind": "live"}, "summary": {"findings_total": 1, "by_severity": {"error": 0, "warning": 1, "notice": 0}, "zones_scanned": 1},
"findings": [{"rule_id": "firewall-rules", "severity": "warning", "title": "Firewall rules API", "message": "rule <b>x</b>",
"source": "live", "zone_name": "example.com", "resource": {"kind": "firewall_rule", "id": "r1"}, "fingerprint": "f1", "suppressed": false}]}`
	if err := os.WriteFile(in, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range reports.Formats() {
		r := runSunset(t, nil, "report", in, "--format", format)
		if r.code != ExitOK {
			t.Errorf("--format %s: exit %d\n%s", format, r.code, r.stderr)
		}
	}
	r := runSunset(t, nil, "report", in, "--format", "html")
	if !strings.Contains(r.stdout, "rule &lt;b&gt;x&lt;/b&gt;") || !strings.Contains(r.stdout, `data-card="warning"><span class="value">1</span>`) {
		t.Errorf("the old report's finding is not rendered:\n%.400s", r.stdout)
	}
}

// TestDemoWritesHTML checks where the demo writes its HTML report: next to the JSON report by
// default, where --html says, and nowhere with --html "" or without a JSON report.
func TestDemoWritesHTML(t *testing.T) {
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "demo.json")
	planDir := filepath.Join(dir, "plan")
	r := runSunset(t, nil, "demo", "--as-of", "2025-02-01", "--report", jsonPath, "--plan-dir", planDir, "--format", "tsv:"+filepath.Join(dir, "rows.tsv"))
	htmlPath := filepath.Join(dir, demoHTMLDefault)
	if r.code != ExitOK || !strings.Contains(r.stderr, "HTML report written to "+htmlPath) {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	page, err := os.ReadFile(htmlPath)
	if err != nil {
		t.Fatal(err)
	}
	// The demo's HTML (which carries the plan) is the re-rendered JSON report and plan's,
	// byte for byte.
	rr := runSunset(t, nil, "report", jsonPath, "--plan-dir", planDir, "--format", "html")
	if rr.code != ExitOK || rr.stdout != string(page) {
		t.Errorf("the demo's HTML report differs from sunset report's rendering of its JSON report")
	}

	other := filepath.Join(dir, "elsewhere.html")
	r = runSunset(t, nil, "demo", "--as-of", "2025-02-01", "--report", "", "--html", other, "--format", "json:"+filepath.Join(dir, "x.json"))
	if _, err := os.Stat(other); err != nil || r.code != ExitOK || !strings.Contains(r.stderr, "HTML report written to "+other) {
		t.Errorf("--html FILE: exit %d, stderr %q, file: %v", r.code, r.stderr, err)
	}

	none := t.TempDir()
	r = runSunset(t, nil, "demo", "--as-of", "2025-02-01", "--report", filepath.Join(none, "r.json"), "--html", "", "--format", "json:"+filepath.Join(none, "x.json"))
	if _, err := os.Stat(filepath.Join(none, demoHTMLDefault)); err == nil || strings.Contains(r.stderr, "HTML report") {
		t.Errorf("--html \"\" still wrote an HTML report (stderr %q)", r.stderr)
	}
}
