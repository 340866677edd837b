package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/collect"
)

// producedUntilEndOfLife are the entries whose deprecated fields the API stops producing on
// their end-of-life day (spec, Versioning: zone_id/zone_name and locked on DNS records, the
// SRV data fields). A live scan on or after that day cannot see them; a snapshot taken the
// day before still holds them and is an error when scanned on the day.
var producedUntilEndOfLife = map[string]bool{
	"dns-record-zone-fields": true,
	"dns-record-locked":      true,
	"srv-data-fields":        true,
}

// advisoryDates are the --as-of days of advisory entries that have no end of life: they are
// notices whatever the day, so any two days do.
var advisoryDates = [2]string{"2024-06-01", "2025-06-01"}

// dayClock is the emulator's clock in TestLiveDetectableEntries: one emulator serves every
// day, its date moved to each scan's --as-of day, so the API's dated behaviour matches it.
type dayClock struct {
	mu  sync.Mutex
	day time.Time
}

func (c *dayClock) set(d time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.day = d
}

func (c *dayClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.day.Add(12 * time.Hour)
}

// ofRule returns the findings of one catalog id in one zone, or about its account.
func ofRule(rep *reports.Report, id, zone string) []scanner.Finding {
	var out []scanner.Finding
	for _, f := range rep.Findings.Slice() {
		if f.RuleID == vocab.RuleID(id) && (f.ZoneName == zone || f.ZoneName == "") {
			out = append(out, f)
		}
	}
	return out
}

// checkSeverity asserts that the findings of entry e are at want: every one of them, or, for
// zone settings, at want or notice (a setting that is off loses nothing at end of life), with
// at least one at want. Dates in the findings must be the catalog's.
func checkSeverity(t *testing.T, e catalog.Entry, fs []scanner.Finding, asOf string, want scanner.Severity) {
	t.Helper()
	if len(fs) == 0 {
		t.Errorf("as of %s: no %s finding, want %s", asOf, e.ID, want)
		return
	}
	top := scanner.SeverityNone
	for _, f := range fs {
		top = max(top, f.Severity)
		// Only a zone setting's own finding: waf-managed-rules-v1 names the waf setting too, and
		// its packages' findings must still be at want.
		settingOff := len(e.Match.Settings) > 0 && f.Resource.Kind == vocab.KindZoneSetting && f.Severity == scanner.SeverityNotice
		if f.Severity != want && !settingOff {
			t.Errorf("as of %s: %s finding on %s %s is %s, want %s", asOf, e.ID, f.Resource.Kind, f.Resource.ID, f.Severity, want)
		}
		if f.EndOfLife != dateString(e.EndOfLife) {
			t.Errorf("as of %s: %s finding says end of life %q, the catalog %q", asOf, e.ID, f.EndOfLife, dateString(e.EndOfLife))
		}
	}
	if top != want {
		t.Errorf("as of %s: the most severe %s finding is %s, want %s", asOf, e.ID, top, want)
	}
}

func dateString(d catalog.Date) string {
	if d.IsZero() {
		return ""
	}
	return d.Format(time.DateOnly)
}

// entryCase is how TestLiveDetectableEntries checks one catalog entry: in which zone of the
// demo, on which two days, at which severities.
type entryCase struct {
	entry              catalog.Entry
	zone               string
	before, on         string
	wantBefore, wantOn scanner.Severity
	problem            string // why the entry cannot be checked, if it cannot
}

// TestLiveDetectableEntries checks every catalog entry a live scan can detect: the demo
// account holds it, and a scan of the demo reports it as a warning the day before its end
// of life and as an error on the day (advisory entries: a notice on both days).
// liveSeverities are the entries whose demo findings are not warning before the end of life
// and error on it: values the replacement already reflects and objects only their callers
// must stop using are notices; a deprecated setting whose feature is on must change before
// its end of life and is inert after it; brotli off is a behaviour change only.
var liveSeverities = map[string][2]scanner.Severity{
	"account-nameserver-settings":      {scanner.SeverityNotice, scanner.SeverityNotice},
	"argo-tunnels-api":                 {scanner.SeverityNotice, scanner.SeverityNotice},
	"cname-flattening-setting":         {scanner.SeverityNotice, scanner.SeverityNotice},
	"dns-record-locked":                {scanner.SeverityNotice, scanner.SeverityNotice},
	"dns-record-zone-fields":           {scanner.SeverityNotice, scanner.SeverityNotice},
	"dns-settings-secondary-overrides": {scanner.SeverityNotice, scanner.SeverityNotice},
	"dns-settings-use-apex-ns":         {scanner.SeverityNotice, scanner.SeverityNotice},
	"zone-setting-brotli":              {scanner.SeverityNotice, scanner.SeverityNotice},
	"zone-setting-minify":              {scanner.SeverityWarning, scanner.SeverityNotice},
	"zone-setting-privacy-pass":        {scanner.SeverityWarning, scanner.SeverityNotice},
	"zone-setting-server-side-exclude": {scanner.SeverityWarning, scanner.SeverityNotice},
}

func TestLiveDetectableEntries(t *testing.T) {
	cat := catalog.Default()
	clock := &dayClock{day: day(t, "2024-01-01")}
	_, base := startEmulator(t, emulator.Options{Now: clock.now})
	dir := t.TempDir()

	// One full scan on a day when every entry is deprecated and every dated field is still
	// produced finds where each entry shows up; each entry is then checked in the zone of its
	// most severe finding (a zone setting that is off is only a notice), or for an account
	// finding in a zone of that account, which brings the account along.
	_, full := scanReport(t, base, "2024-01-01")
	zoneFor, sevFor := map[string]string{}, map[string]scanner.Severity{}
	for _, f := range full.Findings.Slice() {
		if _, ok := zoneFor[string(f.RuleID)]; ok && f.Severity <= sevFor[string(f.RuleID)] {
			continue
		}
		sevFor[string(f.RuleID)] = f.Severity
		zone := f.ZoneName
		for _, z := range demoSeed().Zones {
			if zone == "" && z.Zone.Account.ID == f.AccountID {
				zone = z.Zone.Name
			}
		}
		zoneFor[string(f.RuleID)] = zone
	}

	ids := scanner.LiveDetectableIDs()
	if len(ids) == 0 {
		t.Fatal("no live-detectable catalog entry")
	}
	cases := map[string]*entryCase{}
	zonesOn := map[string]map[string]bool{} // day -> zones to scan that day
	for _, id := range ids {
		c := &entryCase{zone: zoneFor[string(id)]}
		cases[string(id)] = c
		e, ok := cat.Lookup(id)
		switch {
		case !ok:
			c.problem = "not in the catalog"
		case c.zone == "":
			c.problem = "the demo account holds nothing for it (a full scan as of 2024-01-01 found no such finding)"
		case !e.Advisory && e.EndOfLife.IsZero():
			c.problem = "neither advisory nor dated"
		}
		if c.problem != "" {
			continue
		}
		c.entry = e
		c.before, c.on = advisoryDates[0], advisoryDates[1]
		c.wantBefore, c.wantOn = scanner.SeverityNotice, scanner.SeverityNotice
		if !e.EndOfLife.IsZero() {
			c.before, c.on = e.EndOfLife.AddDate(0, 0, -1).Format(time.DateOnly), e.EndOfLife.Format(time.DateOnly)
		}
		if !e.Advisory {
			c.wantBefore, c.wantOn = scanner.SeverityWarning, scanner.SeverityError
		}
		if w, ok := liveSeverities[string(id)]; ok {
			c.wantBefore, c.wantOn = w[0], w[1]
		}
		for _, d := range []string{c.before, c.on} {
			if zonesOn[d] == nil {
				zonesOn[d] = map[string]bool{}
			}
			zonesOn[d][c.zone] = true
		}
	}

	// One scan per day, of the zones checked that day, saving its snapshot.
	live, snaps := map[string]*reports.Report{}, map[string]string{}
	for d, zones := range zonesOn {
		clock.set(day(t, d))
		snaps[d] = filepath.Join(dir, d+".snapshot.json")
		args := []string{"--snapshot-out", snaps[d]}
		for _, z := range slices.Sorted(maps.Keys(zones)) {
			args = append(args, "--zone", z)
		}
		r, rep := scanReport(t, base, d, args...)
		if r.code != ExitOK || rep.Summary.Incomplete {
			t.Fatalf("scan as of %s: exit %d, incomplete %v; stderr:\n%s", d, r.code, rep.Summary.Incomplete, r.stderr)
		}
		live[d] = rep
	}

	for _, id := range ids {
		t.Run(string(id), func(t *testing.T) {
			c := cases[string(id)]
			if c.problem != "" {
				t.Fatalf("live-detectable id %s: %s", id, c.problem)
			}
			checkSeverity(t, c.entry, ofRule(live[c.before], string(id), c.zone), c.before, c.wantBefore)
			if producedUntilEndOfLife[string(id)] {
				if fs := ofRule(live[c.on], string(id), c.zone); len(fs) > 0 {
					t.Errorf("as of %s the API no longer produces the fields of %s, yet a live scan reports %d findings", c.on, id, len(fs))
				}
				// The state of the day before, judged on the day: the severity follows --as-of.
				r, rep := scanReport(t, "http://127.0.0.1:9/client/v4", c.on, "--snapshot", snaps[c.before])
				if r.code != ExitOK {
					t.Fatalf("scan of the snapshot of %s as of %s: exit %d; stderr:\n%s", c.before, c.on, r.code, r.stderr)
				}
				checkSeverity(t, c.entry, ofRule(rep, string(id), c.zone), c.on+" (snapshot of "+c.before+")", c.wantOn)
				return
			}
			checkSeverity(t, c.entry, ofRule(live[c.on], string(id), c.zone), c.on, c.wantOn)
		})
	}
}

// TestScanIsReadOnly checks that a full scan sends only GET requests and leaves the
// emulator's state as it found it.
func TestScanIsReadOnly(t *testing.T) {
	srv, base := sharedEmulator(t)
	state := func() []byte {
		b, err := json.Marshal(srv.Snapshot())
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	before, stBefore, logBefore := state(), srv.Stats(), len(srv.Requests())
	r, rep := scanReport(t, base, "2025-02-01")
	if r.code != ExitOK || rep.Summary.ZonesScanned != 6 || len(rep.Findings.Slice()) == 0 {
		t.Fatalf("scan: exit %d, %d zones, %d findings; stderr:\n%s", r.code, rep.Summary.ZonesScanned, len(rep.Findings.Slice()), r.stderr)
	}
	st := srv.Stats()
	if n := st.Writes - stBefore.Writes; n != 0 {
		t.Errorf("the scan sent %d writes", n)
	}
	for method, n := range st.ByMethod {
		if d := n - stBefore.ByMethod[method]; method != "GET" && d > 0 {
			t.Errorf("the scan sent %d %s requests; only GET is allowed", d, method)
		}
	}
	gets, total := st.ByMethod["GET"]-stBefore.ByMethod["GET"], st.Total-stBefore.Total
	if gets == 0 || gets != total {
		t.Errorf("the scan sent %d GET of %d requests", gets, total)
	}
	for _, req := range srv.Requests()[logBefore:] {
		if req.Method != "GET" {
			t.Errorf("request %s %s", req.Method, req.Path)
		}
	}
	if !bytes.Equal(before, state()) {
		t.Error("the emulator's state changed during the scan")
	}
}

// TestScanRetriesTransientFaults scans an emulator that answers a share of requests with
// 5xx and 429: the client retries them (waiting at least the Retry-After after a 429), and
// the findings and exit code are those of a clean run.
func TestScanRetriesTransientFaults(t *testing.T) {
	cleanCode, clean := cleanDemo(t)

	cases := []struct {
		name   string
		faults emulator.FaultSpec
		slow   bool
	}{
		// Every 429 holds the whole client back for its Retry-After (1s, the shortest the
		// header can say), so a few of them cost seconds; 5xx are retried after a backoff.
		{name: "5xx-and-some-429", faults: emulator.FaultSpec{ServerError: 0.2, TooMany: 0.02, RetryAfter: time.Second}},
		// A fifth of requests answered 429: about 40 one-second holds, so about 30s.
		{name: "5xx-and-429-a-fifth-each", faults: emulator.FaultSpec{ServerError: 0.2, TooMany: 0.2, RetryAfter: time.Second}, slow: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.slow && testing.Short() {
				t.Skip("about 30s of Retry-After waits; skipped with -short")
			}
			srv, base := startEmulator(t, emulator.Options{AsOf: day(t, "2025-02-01"), Faults: c.faults, Rand: 1})
			r, rep := scanReport(t, base, "2025-02-01", "--retries", "10")
			if r.code != cleanCode {
				t.Errorf("exit %d with faults, %d without; stderr:\n%s", r.code, cleanCode, r.stderr)
			}
			if rep.Summary.Incomplete || len(rep.Errors) > 0 {
				t.Errorf("incomplete %v, errors %v: every fault should have been retried", rep.Summary.Incomplete, rep.Errors)
			}
			if got, want := fingerprints(rep.Findings.Slice()), fingerprints(clean.Findings.Slice()); !slices.Equal(got, want) {
				t.Errorf("findings differ from a clean run: %d vs %d fingerprints", len(got), len(want))
			}
			st := srv.Stats()
			if st.FaultsInjected == 0 || (c.faults.TooMany > 0 && st.TooManyRequests == 0) {
				t.Fatalf("no fault injected (%d faults, %d 429s): the test tests nothing", st.FaultsInjected, st.TooManyRequests)
			}
			checkRetries(t, srv.Requests(), c.faults.RetryAfter)
		})
	}
}

// checkRetries asserts from the emulator's log that every faulted request was sent again
// until it succeeded, and that a retry after a 429 came no sooner than its Retry-After.
func checkRetries(t *testing.T, log []emulator.LoggedRequest, retryAfter time.Duration) {
	t.Helper()
	key := func(r emulator.LoggedRequest) string { return r.Method + " " + r.Path + "?" + r.Query }
	for i, req := range log {
		if req.Fault == "" {
			continue
		}
		next := -1
		for j := i + 1; j < len(log); j++ {
			if key(log[j]) == key(req) {
				next = j
				break
			}
		}
		if next < 0 {
			t.Errorf("%s (fault %s) was never retried", key(req), req.Fault)
			continue
		}
		if gap := log[next].Time.Sub(req.Time); req.Fault == "429" && gap < retryAfter {
			t.Errorf("%s was retried %v after a 429 with Retry-After %v", key(req), gap, retryAfter)
		}
	}
	done := map[string]bool{}
	for _, req := range log {
		if req.Status == 200 {
			done[key(req)] = true
		}
	}
	for _, req := range log {
		if req.Fault != "" && !done[key(req)] {
			t.Errorf("%s (fault %s) never succeeded", key(req), req.Fault)
		}
	}
}

// TestScanFailingZone scans an emulator where every request about one zone fails: the run
// is incomplete (exit 4), the zone is listed in errors, and every other finding is intact.
func TestScanFailingZone(t *testing.T) {
	const failing = "shop.example"
	_, clean := cleanDemo(t)

	srv, base := startEmulator(t, emulator.Options{AsOf: day(t, "2025-02-01"), Faults: emulator.FaultSpec{Zones: []string{failing}}})
	r, rep := scanReport(t, base, "2025-02-01", "--retries", "1")
	if r.code != ExitIncomplete {
		t.Errorf("exit %d, want %d (incomplete); stderr:\n%s", r.code, ExitIncomplete, r.stderr)
	}
	if !rep.Summary.Incomplete || rep.Summary.ZonesFailed != 1 || rep.Summary.ZonesScanned != 6 {
		t.Errorf("summary incomplete %v, %d zones failed of %d, want true, 1 of 6", rep.Summary.Incomplete, rep.Summary.ZonesFailed, rep.Summary.ZonesScanned)
	}
	if len(rep.Errors) == 0 {
		t.Fatal("no error listed")
	}
	for _, e := range rep.Errors {
		if e.ZoneName != failing {
			t.Errorf("error about %q (%s: %s), want only %s", e.ZoneName, e.What, e.Message, failing)
		}
	}
	var want []scanner.Finding
	for _, f := range clean.Findings.Slice() {
		if f.ZoneName != failing {
			want = append(want, f)
		}
	}
	if got, w := fingerprints(rep.Findings.Slice()), fingerprints(want); !slices.Equal(got, w) {
		t.Errorf("findings outside %s differ from a clean run: %d vs %d", failing, len(got), len(w))
	}
	if srv.Stats().FaultsInjected == 0 {
		t.Error("the emulator injected no fault")
	}

	// With the gate failing too, 4 wins over 1: CI tells an incomplete scan from findings. On a terminal in CI, stderr carries no
	// progress line, only what there is to say: the failing zone, once, and the summary.
	env := demoEnv()
	env["CI"] = "true"
	r = (&testRun{env: env, errTTY: true}).exec(context.Background(), "scan", "--api-url", base, "--rps", "0", "--retries", "0",
		"--as-of", "2025-02-01", "--format", "json:"+filepath.Join(t.TempDir(), "r.json"))
	if r.code != ExitIncomplete {
		t.Errorf("with --fail-on warning: exit %d, want %d", r.code, ExitIncomplete)
	}
	lines := strings.Split(strings.TrimSuffix(withoutEnding(r.stderr), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "sunset: not read: zone "+failing+": ") || !strings.Contains(lines[1], "; incomplete: 6 zones scanned (1 failed)") {
		t.Errorf("stderr in CI: %q, want the failing zone once and the summary line", r.stderr)
	}
}

// TestScanWrongCredentials checks that refused credentials are fatal (exit 3) and that the
// message names the kind of credential tried, never its value.
func TestScanWrongCredentials(t *testing.T) {
	_, base := sharedEmulator(t)
	cases := []struct {
		name    string
		env     map[string]string
		kind    string
		secrets []string
	}{
		{name: "token", env: map[string]string{"CLOUDFLARE_API_TOKEN": "wrong-token-0123456789abcdef"},
			kind: "API token", secrets: []string{"wrong-token-0123456789abcdef"}},
		{name: "email-and-key", env: map[string]string{"CLOUDFLARE_EMAIL": "ops@example.org", "CLOUDFLARE_API_KEY": "feedfacecafebeef0123456789abcdef00"},
			kind: "API key", secrets: []string{"feedfacecafebeef0123456789abcdef00"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			report := filepath.Join(t.TempDir(), "r.json")
			r := runSunset(t, c.env, "scan", "--api-url", base, "--rps", "0", "--retries", "0", "--format", "json:"+report, "--format", "table")
			if r.code != ExitFatal {
				t.Errorf("exit %d, want %d; stderr:\n%s", r.code, ExitFatal, r.stderr)
			}
			if !strings.Contains(r.stderr, c.kind) {
				t.Errorf("stderr does not say which credential was tried (%q):\n%s", c.kind, r.stderr)
			}
			for _, s := range c.secrets {
				if strings.Contains(r.stderr, s) || strings.Contains(r.stdout, s) {
					t.Errorf("the secret %q appears in the output:\nstdout:\n%s\nstderr:\n%s", s, r.stdout, r.stderr)
				}
			}
			if _, err := os.Stat(report); err == nil {
				t.Error("a report was written for a run that could not authenticate")
			}
		})
	}
}

// TestScanInterrupted cancels a slow scan of a generated account once it is under way: Run
// returns promptly with exit 4 (it sends nothing more than the requests in flight) and
// writes a report of what was read, marked incomplete, listing the zones that were not
// scanned.
//
// The account has 20 zones rather than hundreds: the emulator deep-copies its seed through
// JSON, which for 200 zones takes seconds under -race, and 20 zones at 50ms a request with 2
// workers already take about 10s to scan uncancelled.
func TestScanInterrupted(t *testing.T) {
	srv, base := startWatchedEmulator(t, emulator.Options{
		AsOf: day(t, "2025-02-01"), Seed: seed.Generate(20, 1),
		Latency: emulator.LatencySpec{Min: 50 * time.Millisecond, Max: 50 * time.Millisecond},
	})
	path := filepath.Join(t.TempDir(), "report.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The event: a second zone setting answered, so that the interrupted report has
	// findings. That answer is held: its worker is mid-zone when the cancel comes.
	read := srv.HoldWhen(func(s *emulator.Server) bool { return settingsRead(s) >= 2 })
	defer read.Release()
	var cancelled atomic.Bool
	cancelledAt := make(chan int, 1)
	go func() {
		<-read.Reached()
		cancelled.Store(true)
		cancel()
		cancelledAt <- srv.Stats().Total
	}()
	r := (&testRun{env: demoEnv()}).exec(ctx, "scan", "--api-url", base, "--rps", "0", "--workers", "2",
		"--as-of", "2025-02-01", "--fail-on", "none", "--format", "json:"+path)
	if !cancelled.Load() {
		t.Fatalf("Run returned (exit %d) before it was cancelled; stderr:\n%s", r.code, r.stderr)
	}
	// Promptly: nothing is sent after the cancel, and at most the requests then in flight
	// (one per worker) are answered (the scan would send about 200 more uncancelled).
	if after := srv.Stats().Total - <-cancelledAt; after > 2 {
		t.Errorf("%d requests answered after the cancellation, want at most the 2 in flight", after)
	}
	if r.code != ExitIncomplete {
		t.Errorf("exit %d, want %d; stderr:\n%s", r.code, ExitIncomplete, r.stderr)
	}
	if !strings.Contains(r.stderr, "interrupted") {
		t.Errorf("stderr does not say the scan was interrupted:\n%s", r.stderr)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no report written: %v", err)
	}
	if !bytes.Contains(raw, []byte(`"incomplete": true`)) {
		t.Error(`the report does not say "incomplete": true`)
	}
	rep := readReportFile(t, path)
	if len(rep.Findings.Slice()) == 0 {
		t.Error("no finding in the interrupted report: what was read before the cancellation is lost")
	}
	notScanned := 0
	for _, e := range rep.Errors {
		if e.What == "zone" && e.Message == collect.NotScannedInterrupted {
			notScanned++
		}
	}
	// The zones never started are counted apart: scanned (begun) and not scanned make the 20
	// in scope, and only begun zones can have failed.
	sum := rep.Summary
	if notScanned == 0 || notScanned != sum.ZonesNotScanned || sum.ZonesScanned == 0 || sum.ZonesScanned+sum.ZonesNotScanned != 20 || sum.ZonesFailed > sum.ZonesScanned {
		t.Errorf("%d zones listed %q; summary: %d scanned, %d failed, %d not scanned: want some not scanned, the rest scanned",
			notScanned, collect.NotScannedInterrupted, sum.ZonesScanned, sum.ZonesFailed, sum.ZonesNotScanned)
	}
	// Said once, not once per zone or per request: besides the summary and the line after it
	// (how to make the scan resumable), stderr names only the zones cut short (at most one
	// per worker), each once.
	once := fmt.Sprintf("interrupted: %d zones not scanned", notScanned)
	summary := lastLine(strings.TrimSuffix(r.stderr, lastLine(r.stderr)+"\n"))
	if strings.Count(r.stderr, "zones not scanned") != 1 || !strings.Contains(summary, once) {
		t.Errorf("the line before the last of stderr does not say %q, once:\n%s", once, r.stderr)
	}
	if lines := strings.Count(r.stderr, "\n"); lines > 2+2 {
		t.Errorf("%d lines on stderr, want at most one per worker (2), the summary and how to resume:\n%s", lines, r.stderr)
	}
}

// TestScanInterruptedBeforeListing cancels before anything was read: the report written is
// still marked incomplete, like the exit code, and says why.
func TestScanInterruptedBeforeListing(t *testing.T) {
	_, base := sharedEmulator(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	path := filepath.Join(t.TempDir(), "report.json")
	r := (&testRun{env: demoEnv()}).exec(ctx, "scan", "--api-url", base, "--rps", "0", "--as-of", "2025-02-01",
		"--fail-on", "none", "--format", "json:"+path)
	if r.code != ExitIncomplete {
		t.Errorf("exit %d, want %d; stderr:\n%s", r.code, ExitIncomplete, r.stderr)
	}
	rep := readReportFile(t, path)
	if !rep.Summary.Incomplete {
		t.Error("the report of an interrupted scan says it is complete")
	}
	if len(rep.Errors) != 1 || rep.Errors[0].Message != collect.NotScannedInterrupted {
		t.Errorf("errors %+v, want one saying %q", rep.Errors, collect.NotScannedInterrupted)
	}
}

// settingsRead counts the zone settings the emulator has answered.
func settingsRead(srv *emulator.Server) int {
	n := 0
	for _, req := range srv.Requests() {
		if req.Status == 200 && strings.Contains(req.Pattern, "/settings/") {
			n++
		}
	}
	return n
}

// TestScanSnapshotRoundTrip saves the snapshot of a live scan and scans it offline: the
// findings are byte for byte those of the live scan.
func TestScanSnapshotRoundTrip(t *testing.T) {
	_, base := sharedEmulator(t)
	dir := t.TempDir()
	snap, live, offline := filepath.Join(dir, "snap.json"), filepath.Join(dir, "live.json"), filepath.Join(dir, "offline.json")
	env := demoEnv()
	if r := runSunset(t, env, "scan", "--api-url", base, "--rps", "0", "--as-of", "2025-02-01", "--fail-on", "none",
		"--snapshot-out", snap, "--format", "json:"+live); r.code != ExitOK {
		t.Fatalf("live scan: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	// The offline scan must not touch the network: point it at a closed port.
	if r := runSunset(t, env, "scan", "--api-url", "http://127.0.0.1:9/client/v4", "--as-of", "2025-02-01", "--fail-on", "none",
		"--snapshot", snap, "--format", "json:"+offline); r.code != ExitOK {
		t.Fatalf("offline scan: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	a, b := findingsMember(t, live), findingsMember(t, offline)
	if len(a) < 10 {
		t.Fatalf("live findings member is %q", a)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("findings differ between the live scan and its snapshot:\n%s", firstDiff(string(a), string(b)))
	}
	if rep := readReportFile(t, offline); rep.Source.Kind != reports.SourceSnapshot || rep.Source.Target != snap {
		t.Errorf("offline report source %+v, want kind snapshot, target %s", rep.Source, snap)
	}
}

// findingsMember returns the raw bytes of a JSON report's findings array.
func findingsMember(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc["findings"]
}

// TestScanProgressLine checks the live progress line: drawn on a terminal's stderr and
// cleared at the end, never drawn when stderr is not a terminal or CI is set.
func TestScanProgressLine(t *testing.T) {
	_, base := sharedEmulator(t)
	cases := []struct {
		name     string
		errTTY   bool
		ci       string
		progress bool
	}{
		{name: "terminal", errTTY: true, progress: true},
		{name: "terminal-in-ci", errTTY: true, ci: "true"},
		{name: "not-a-terminal", errTTY: false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := demoEnv()
			if c.ci != "" {
				env["CI"] = c.ci
			}
			r := (&testRun{env: env, errTTY: c.errTTY}).exec(context.Background(), "scan", "--api-url", base, "--rps", "0",
				"--zone-filter", "*.example.com", "--as-of", "2025-02-01", "--fail-on", "none", "--format", "json:"+filepath.Join(t.TempDir(), "r.json"))
			if r.code != ExitOK {
				t.Fatalf("exit %d; stderr:\n%q", r.code, r.stderr)
			}
			// Whatever the terminal, stderr ends with the summary line, after the progress line
			// and the files and next command.
			summary := "sunset: 25 findings (14 errors, 0 warnings, 11 notices); no gate (--fail-on none); complete: 2 zones scanned\n"
			progress, ok := strings.CutSuffix(withoutEnding(r.stderr), summary)
			if !ok {
				t.Fatalf("stderr %q does not end with the summary line %q", r.stderr, summary)
			}
			if !c.progress {
				if progress != "" {
					t.Errorf("stderr %q, want the summary line alone: a clean run has no error to print", r.stderr)
				}
				return
			}
			r.stderr = progress
			if !strings.Contains(r.stderr, "scanning zones") {
				t.Errorf("no progress line on stderr: %q", r.stderr)
			}
			if !strings.Contains(r.stderr, "scanning zones 2/2") {
				t.Errorf("the progress line never showed the end (2/2): %q", r.stderr)
			}
			if !strings.HasSuffix(r.stderr, "\r\x1b[K") {
				t.Errorf("stderr does not end by clearing the line: %q", r.stderr)
			}
			if strings.Contains(r.stderr, "\n") {
				t.Errorf("the progress line scrolls (newline on stderr): %q", r.stderr)
			}
		})
	}
}

// TestScanSelection checks how --account, --zone and --zone-filter select zones.
func TestScanSelection(t *testing.T) {
	_, base := sharedEmulator(t)
	demo := demoSeed()
	accountOf := map[string]string{} // account name -> id
	zoneID := map[string]string{}    // zone name -> id
	for _, a := range demo.Accounts {
		accountOf[a.Account.Name] = a.Account.ID
	}
	for _, z := range demo.Zones {
		zoneID[z.Zone.Name] = z.Zone.ID
	}
	if len(accountOf) != 3 || len(zoneID) != 6 {
		t.Fatalf("the demo has %d accounts and %d zones, want 3 and 6", len(accountOf), len(zoneID))
	}
	cases := []struct {
		name     string
		args     []string
		zones    []string
		accounts int
	}{
		{name: "all", zones: []string{"api.example.com", "blog.example.org", "docs.example.test", "media.example.net", "news.example.com", "shop.example"}, accounts: 3},
		{name: "zone-name", args: []string{"--zone", "shop.example"}, zones: []string{"shop.example"}, accounts: 1},
		{name: "zone-name-and-id", args: []string{"--zone", "shop.example", "--zone", zoneID["api.example.com"]},
			zones: []string{"api.example.com", "shop.example"}, accounts: 2},
		{name: "zone-filter", args: []string{"--zone-filter", "*.example.com"}, zones: []string{"api.example.com", "news.example.com"}, accounts: 2},
		{name: "account", args: []string{"--account", accountOf["Acme Retail"]}, zones: []string{"blog.example.org", "shop.example"}, accounts: 1},
		{name: "two-accounts", args: []string{"--account", accountOf["Acme Retail"], "--account", accountOf["Initech Platform"]},
			zones: []string{"api.example.com", "blog.example.org", "docs.example.test", "shop.example"}, accounts: 2},
		{name: "account-and-zone-filter", args: []string{"--account", accountOf["Globex Media"], "--zone-filter", "*.example.com"},
			zones: []string{"news.example.com"}, accounts: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var rep *reports.Report
			if len(c.args) == 0 {
				_, rep = cleanDemo(t) // the same scan, already made
			} else {
				var r *testRun
				if r, rep = scanReport(t, base, "2025-02-01", c.args...); r.code != ExitOK {
					t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
				}
			}
			if rep.Summary.ZonesScanned != len(c.zones) || rep.Summary.Accounts != c.accounts {
				t.Errorf("zones_scanned %d, accounts %d; want %d, %d", rep.Summary.ZonesScanned, rep.Summary.Accounts, len(c.zones), c.accounts)
			}
			// Every zone in scope of the demo has findings, so the findings name exactly the zones scanned.
			if got := zonesOf(rep.Findings.Slice()); !slices.Equal(got, c.zones) {
				t.Errorf("findings about zones %v, want %v", got, c.zones)
			}
		})
	}

	t.Run("unknown-zone", func(t *testing.T) {
		r := runSunset(t, demoEnv(), "scan", "--api-url", base, "--rps", "0", "--zone", "no-such-zone.example")
		if r.code != ExitUsage || !strings.Contains(r.stderr, "no-such-zone.example") {
			t.Errorf("exit %d, want %d naming the zone; stderr:\n%s", r.code, ExitUsage, r.stderr)
		}
	})
}

// endingLines are a command's files and next command (printEnding), wherever a line starts.
var endingLines = regexp.MustCompile(`sunset: (wrote|next:) [^\n]*\n`)

// withoutEnding is a command's stderr without its files and next command.
func withoutEnding(stderr string) string { return endingLines.ReplaceAllString(stderr, "") }
