package cli

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// lastLine is the last line of out.
func lastLine(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	return lines[len(lines)-1]
}

// TestSummaryLinePiped: piped, as in CI, a scan whose zone keeps failing and whose gate
// fails ends with one line on stderr saying the counts, the gate and why, and what was not
// read; the failing zone is named once however many of its requests failed.
func TestSummaryLinePiped(t *testing.T) {
	const failing = "docs.example.test"
	_, base := startEmulator(t, emulator.Options{AsOf: day(t, "2025-02-01"), Faults: emulator.FaultSpec{Zones: []string{failing}}})
	r := runSunset(t, demoEnv(), "scan", "--api-url", base, "--rps", "0", "--retries", "0", "--as-of", "2025-02-01",
		"--fail-on", "error", "--format", "tsv")
	if r.code != ExitIncomplete { // incomplete wins over the failed gate
		t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, ExitIncomplete, r.stderr)
	}
	last := lastLine(r.stderr)
	for _, want := range []string{"sunset: ", " findings (", "; gate failed: ", " at or above --fail-on error; incomplete: 6 zones scanned (1 failed)"} {
		if !strings.Contains(last, want) {
			t.Errorf("last stderr line %q lacks %q", last, want)
		}
	}
	if n := strings.Count(r.stderr, "not read: zone "+failing+": "); n != 1 {
		t.Errorf("the failing zone is named %d times, want once:\n%s", n, r.stderr)
	}
	again := runSunset(t, demoEnv(), "scan", "--api-url", base, "--rps", "0", "--retries", "0", "--as-of", "2025-02-01",
		"--fail-on", "error", "--format", "tsv")
	if again.stderr != r.stderr {
		t.Errorf("two runs end differently:\n%s\n---\n%s", r.stderr, again.stderr)
	}
}

// TestSummaryLineAfterTerminalTable: when the table went to a terminal (it shows the counts
// and every read error itself), stderr still ends with one line, with the gate and
// completeness only; piped, the same run says everything.
func TestSummaryLineAfterTerminalTable(t *testing.T) {
	_, base := sharedEmulator(t)
	args := []string{"scan", "--api-url", base, "--rps", "0", "--as-of", "2025-02-01", "--fail-on", "error", "--color", "never"}
	tty := (&testRun{env: demoEnv(), outTTY: true, width: 120}).exec(t.Context(), args...)
	if tty.code != ExitFindings {
		t.Fatalf("exit %d; stderr:\n%s", tty.code, tty.stderr)
	}
	if want := "sunset: gate failed: 56 at or above --fail-on error; complete: 6 zones scanned\n"; withoutEnding(tty.stderr) != want {
		t.Errorf("stderr after the terminal table %q, want %q", tty.stderr, want)
	}
	piped := runSunset(t, demoEnv(), args...)
	if !strings.HasPrefix(lastLine(piped.stderr), "sunset: 77 findings (56 errors, ") || strings.Count(withoutEnding(piped.stderr), "\n") != 1 {
		t.Errorf("piped stderr %q", piped.stderr)
	}
}

// TestRetiredEndpointsReported scans an emulator started with retirement (--retire) past
// the end of life of the old firewall, WAF and rate limiting APIs: what those endpoints
// serve cannot be read, so the run is incomplete (exit 4), and the report lists each
// endpoint per zone or account with its status and catalog ids; every rule whose findings
// the retirement hid is covered by a retired endpoint; stderr names each endpoint once.
func TestRetiredEndpointsReported(t *testing.T) {
	const asOf = "2026-11-01"
	_, plainBase := startEmulator(t, emulator.Options{AsOf: day(t, asOf)})
	_, full := scanReport(t, plainBase, asOf)
	_, retiredBase := startEmulator(t, emulator.Options{AsOf: day(t, asOf), Retire: true})
	path := filepath.Join(t.TempDir(), "report.json")
	r := runSunset(t, demoEnv(), "scan", "--api-url", retiredBase, "--rps", "0", "--as-of", asOf, "--fail-on", "none",
		"--format", "json:"+path, "--format", "tsv")
	if r.code != ExitIncomplete {
		t.Fatalf("exit %d, want %d (incomplete); stderr:\n%s", r.code, ExitIncomplete, r.stderr)
	}
	rep := readReportFile(t, path)
	if !rep.Summary.Incomplete || rep.Summary.RetiredEndpoints == 0 || rep.Summary.RetiredEndpoints != len(rep.Retired) {
		t.Fatalf("summary %+v with %d retired endpoints", rep.Summary, len(rep.Retired))
	}
	covered := map[vocab.RuleID]bool{}
	fwZones := map[string]bool{}
	for _, n := range rep.Retired {
		if n.Status != 404 || n.Method != "GET" || len(n.RuleIDs) == 0 {
			t.Errorf("retired endpoint %+v: want GET, 404 and the catalog ids", n)
		}
		for _, id := range n.RuleIDs {
			covered[id] = true
			if id == vocab.FirewallRules && strings.HasSuffix(n.Path, "/firewall/rules") {
				fwZones[n.ZoneName] = true
			}
		}
	}
	found := map[vocab.RuleID]bool{}
	for _, f := range rep.Findings.Slice() {
		found[f.RuleID] = true
	}
	// Expression rules are found in the filters and rules the retired endpoints serve.
	covered[vocab.GeoIPFieldNames] = covered[vocab.Filters] && covered[vocab.FirewallRules]
	covered[vocab.ThreatScoreField] = covered[vocab.GeoIPFieldNames]
	for _, f := range full.Findings.Slice() {
		if !found[f.RuleID] && !covered[f.RuleID] {
			t.Errorf("%s: found without retirement, neither found nor reported retired with it", f.RuleID)
		}
		if f.RuleID == vocab.FirewallRules && !fwZones[f.ZoneName] {
			t.Errorf("zone %s has firewall rules, but no retired firewall rules endpoint is reported for it", f.ZoneName)
		}
	}
	if len(rep.Findings.Slice()) >= len(full.Findings.Slice()) {
		t.Errorf("%d findings with retirement, %d without: the test does not retire anything", len(rep.Findings.Slice()), len(full.Findings.Slice()))
	}
	retiredErrors := 0
	for _, e := range rep.Errors {
		if strings.Contains(e.Message, "as retired") && strings.Contains(e.Message, "may still exist") {
			retiredErrors++
		}
	}
	if retiredErrors != len(rep.Retired) {
		t.Errorf("%d errors for %d retired endpoints: each must be an error too, for the other formats", retiredErrors, len(rep.Retired))
	}
	line := "sunset: retired: GET /zones/:zone_id/firewall/rules answered 404 as retired (firewall-rules) in "
	if strings.Count(r.stderr, line) != 1 || !strings.Contains(r.stderr, "may still exist") {
		t.Errorf("stderr does not name the retired firewall rules endpoint once:\n%s", r.stderr)
	}
	if last := lastLine(r.stderr); !strings.Contains(last, "; incomplete: 6 zones scanned, ") || !strings.HasSuffix(last, " endpoints answered retired") {
		t.Errorf("last line %q", last)
	}
}

// TestSummaryLineCheck: a check ends with the summary line too, files counted.
func TestSummaryLineCheck(t *testing.T) {
	dir := checkRepo(t, map[string]string{"a.sh": "curl \"$API/zones/$Z/filters\"\n", "b.txt": "nothing\n"})
	r := runSunset(t, nil, "check", "--as-of", "2025-07-01", "--format", "tsv", dir)
	last := lastLine(r.stderr)
	if !strings.HasPrefix(last, "sunset: 1 finding (") || !strings.HasSuffix(last, "; complete: 2 files checked") {
		t.Errorf("exit %d, last stderr line %q", r.code, last)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if !slices.Contains(lines, last) || len(lines) != 1 {
		t.Errorf("stderr %q, want the summary line alone", r.stderr)
	}
}
