package cli

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/emulatortest"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/collect"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// scanArgs are the flags of a reproducible scan of base writing its JSON report to report.
func scanArgs(base, report string, extra ...string) []string {
	return append([]string{"scan", "--api-url", base, "--rps", "0", "--as-of", "2025-02-01", "--fail-on", "none",
		"--retries", "0", "--workers", "2", "--format", "json:" + report}, extra...)
}

func readStreamFile(t testing.TB, path string) *inventory.Stream {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	st, err := inventory.ReadStream(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return st
}

// TestScanResumeEqualsUninterrupted interrupts a scan once a third of its requests were
// answered, resumes it, and byte-compares the JSON report with an uninterrupted scan's.
// The resumed run sends no request naming a zone the snapshot held complete: exactly the
// listing, the account parts and the missing zones' requests.
func TestScanResumeEqualsUninterrupted(t *testing.T) {
	srv, base := startWatchedEmulator(t, emulator.Options{Seed: seed.Generate(40, 11)})
	dir := t.TempDir()
	full := runSunset(t, demoEnv(), scanArgs(base, filepath.Join(dir, "full.json"), "--snapshot-out", filepath.Join(dir, "full.jsonl"))...)
	if full.code != ExitOK {
		t.Fatalf("full scan: exit %d\n%s", full.code, full.stderr)
	}
	fullRequests := srv.Stats().Total

	snap := filepath.Join(dir, "part.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	// The event: the answer that makes a third of the requests, held until the cancel.
	third := srv.HoldWhen(emulatortest.Requests(fullRequests + fullRequests/3))
	defer third.Release()
	go func() {
		<-third.Reached()
		cancel()
	}()
	part := (&testRun{env: demoEnv()}).exec(ctx, scanArgs(base, filepath.Join(dir, "part.json"), "--snapshot-out", snap)...)
	cancel()
	if part.code != ExitIncomplete {
		t.Fatalf("interrupted scan: exit %d\n%s", part.code, part.stderr)
	}
	st := readStreamFile(t, snap)
	if len(st.Complete) == 0 || len(st.Complete) == len(st.Snapshot.Zones) {
		t.Fatalf("%d of %d zones complete: the test proves nothing", len(st.Complete), len(st.Snapshot.Zones))
	}

	before := len(srv.Requests())
	resumed := runSunset(t, demoEnv(), scanArgs(base, filepath.Join(dir, "resumed.json"), "--resume", snap)...)
	if resumed.code != ExitOK || !strings.Contains(resumed.stderr, "resumed ") {
		t.Fatalf("resumed scan: exit %d\n%s", resumed.code, resumed.stderr)
	}
	fullSnap := readStreamFile(t, filepath.Join(dir, "full.jsonl"))
	want := 1 + 1 // accounts, zones (one page of 40)
	if len(st.Snapshot.Accounts) != 1 || len(st.Snapshot.Accounts[0].Errors) > 0 {
		want += 4 // the account's parts, unless the interrupted run read them whole
	}
	for _, z := range fullSnap.Snapshot.Zones {
		if !st.Complete[z.Zone.ID] {
			want += z.Requests
		}
	}
	log := srv.Requests()[before:]
	for _, r := range log {
		for id := range st.Complete {
			if strings.Contains(r.Path, id) {
				t.Errorf("the resumed scan fetched %s of a zone the snapshot held complete", r.Path)
			}
		}
	}
	if len(log) != want {
		t.Errorf("the resumed scan sent %d requests, want %d", len(log), want)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "full.json"))
	b, _ := os.ReadFile(filepath.Join(dir, "resumed.json"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Error("the resumed scan's JSON report differs from the uninterrupted scan's")
	}
	if got := readStreamFile(t, snap); !got.Ended || got.Snapshot.Incomplete || len(got.Complete) != len(fullSnap.Complete) {
		t.Errorf("the resumed snapshot: ended %v, incomplete %v, %d complete zones", got.Ended, got.Snapshot.Incomplete, len(got.Complete))
	}
}

// snapshotScan scans base in full with --snapshot-out into dir and returns the snapshot's path.
func snapshotScan(t *testing.T, base, dir string) string {
	t.Helper()
	old := filepath.Join(dir, "old.jsonl")
	if r := runSunset(t, demoEnv(), scanArgs(base, filepath.Join(dir, "old.json"), "--snapshot-out", old)...); r.code != ExitOK {
		t.Fatalf("first scan: exit %d\n%s", r.code, r.stderr)
	}
	return old
}

// patchSetting changes a zone setting through the API, as a user would; the emulator
// records it in the account's audit log.
func patchSetting(t testing.TB, base, zoneID string) {
	t.Helper()
	apiWrite(t, http.MethodPatch, base+"/zones/"+zoneID+"/settings/minify", `{"value":{"css":"on","html":"on","js":"on"}}`)
}

// apiWrite sends one write with the demo token and fails the test unless it succeeds.
func apiWrite(t testing.TB, method, url, body string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+seed.DemoToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %d", method, url, resp.StatusCode)
	}
}

// TestScanSinceRescansChangedZones changes two zones after a scan; --since reads the audit
// log, rescans those two only, and finds what a full scan of the changed account finds.
func TestScanSinceRescansChangedZones(t *testing.T) {
	srv, base := startEmulator(t, emulator.Options{Seed: seed.Generate(30, 12)})
	dir := t.TempDir()
	old := snapshotScan(t, base, dir)
	zones := srv.Snapshot().Zones
	changed := []inventory.Zone{zones[3].Zone, zones[17].Zone}
	for _, z := range changed {
		patchSetting(t, base, z.ID)
	}
	before := len(srv.Requests())
	r, rep := scanReport(t, base, "2025-02-01", "--retries", "0", "--since", old, "--snapshot-out", filepath.Join(dir, "new.jsonl"))
	log := srv.Requests()[before:]
	inc := rep.Incremental
	if r.code != ExitOK || inc == nil || len(inc.Rescanned) != 2 || len(inc.Reused) != len(zones)-2 || inc.FullScan != "" {
		t.Fatalf("exit %d, incremental %+v\n%s", r.code, inc, r.stderr)
	}
	for _, z := range changed {
		if !strings.Contains(strings.Join(inc.Rescanned, ","), z.Name) {
			t.Errorf("%s changed but was not rescanned: %v", z.Name, inc.Rescanned)
		}
	}
	if !strings.Contains(r.stderr, "2 zones rescanned, 28 reused") {
		t.Errorf("stderr lacks the summary:\n%s", r.stderr)
	}
	// accounts, zones, one audit log page and two zones: the account's parts are reused.
	want := 1 + 1 + 1
	for _, z := range readStreamFile(t, filepath.Join(dir, "new.jsonl")).Snapshot.Zones {
		if z.Zone.ID == changed[0].ID || z.Zone.ID == changed[1].ID {
			want += z.Requests
		}
	}
	if len(log) != want {
		t.Errorf("--since sent %d requests, want %d", len(log), want)
	}
	_, fresh := scanReport(t, base, "2025-02-01")
	if got, want := fingerprints(rep.Findings.Slice()), fingerprints(fresh.Findings.Slice()); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("--since finds %d findings, a full scan %d", len(got), len(want))
	}
}

// TestScanSinceNoticesAddedAndRemovedZones rescans against an account that lost one zone
// and gained another: the added one is scanned, the removed one reported, nothing else read.
func TestScanSinceNoticesAddedAndRemovedZones(t *testing.T) {
	data := seed.Generate(6, 13)
	_, base := startEmulator(t, emulator.Options{Seed: data})
	dir := t.TempDir()
	old := snapshotScan(t, base, dir)
	other := seed.Generate(7, 13) // the same six zones and one more
	removed := other.Zones[0].Zone.Name
	other.Zones = other.Zones[1:]
	_, base2 := startEmulator(t, emulator.Options{Seed: other})
	r, rep := scanReport(t, base2, "2025-02-01", "--since", old)
	inc := rep.Incremental
	if r.code != ExitOK || inc == nil || len(inc.Added) != 1 || len(inc.Removed) != 1 || inc.Removed[0] != removed ||
		len(inc.Rescanned) != 1 || inc.Rescanned[0] != inc.Added[0] || len(inc.Reused) != 5 {
		t.Fatalf("exit %d, incremental %+v\n%s", r.code, inc, r.stderr)
	}
}

func TestScanSinceFallsBackWhenTheAuditLogIsRefused(t *testing.T) {
	_, base := startEmulator(t, emulator.Options{Seed: seed.Generate(5, 14), AuditLogs: emulator.AuditLogForbidden})
	dir := t.TempDir()
	old := snapshotScan(t, base, dir)
	r, rep := scanReport(t, base, "2025-02-01", "--retries", "0", "--since", old)
	inc := rep.Incremental
	if r.code != ExitOK || inc == nil || !strings.Contains(inc.FullScan, "cannot be read") || len(inc.Rescanned) != 5 || len(inc.Reused) != 0 {
		t.Fatalf("exit %d, incremental %+v\n%s", r.code, inc, r.stderr)
	}
	if !strings.Contains(r.stderr, "audit log of account") || !strings.Contains(r.stderr, "every zone scanned") {
		t.Errorf("stderr does not say why every zone was scanned:\n%s", r.stderr)
	}
	// A single-document snapshot has no time to ask the log from: a full scan, said so.
	doc := filepath.Join(dir, "old.json.snap")
	st := readStreamFile(t, old)
	var buf bytes.Buffer
	if err := st.Snapshot.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(doc, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r, rep = scanReport(t, base, "2025-02-01", "--since", doc)
	if rep.Incremental == nil || !strings.Contains(rep.Incremental.FullScan, "no time of collection") {
		t.Errorf("old format: %+v\n%s", rep.Incremental, r.stderr)
	}
	// Taken before the audit log's retention (the test clock is 2025-02-01): a full scan.
	data, _ := os.ReadFile(old)
	stale := filepath.Join(dir, "stale.jsonl")
	data = bytes.Replace(data, []byte(`"taken_at":"2025-02-01T12:00:00Z"`), []byte(`"taken_at":"2023-06-01T00:00:00Z"`), 1)
	if err := os.WriteFile(stale, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r, rep = scanReport(t, base, "2025-02-01", "--since", stale)
	if rep.Incremental == nil || !strings.Contains(rep.Incremental.FullScan, "older than the audit log reaches back") || len(rep.Incremental.Rescanned) != 5 {
		t.Errorf("stale snapshot: %+v\n%s", rep.Incremental, r.stderr)
	}
}

// TestScanDryRun prices the scan from the listing alone: two requests, no zone read.
func TestScanDryRun(t *testing.T) {
	srv, base := startEmulator(t, emulator.Options{Seed: seed.Generate(60, 15)})
	r := runSunset(t, demoEnv(), "scan", "--api-url", base, "--dry-run")
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	// accounts, and two pages of zones (50 a page)
	if n := srv.Stats().Total; n != 3 {
		t.Errorf("the dry run sent %d requests, want 3 (the listing)", n)
	}
	// The listing cannot tell whether the account has bookmarks or pools: up to 2 more.
	for _, want := range []string{"1 account, 60 zones listed with 3 requests", "about 847 requests", "\nand up to 2 more for accounts", "(--rps): about 3m32s"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestScanSinceRereadsAChangedAccount creates an Access application (an account object, no
// zone) in the demo's account with bookmarks: --since reads the account's own objects again,
// its Access applications included, and reuses every zone; its dry run priced exactly that.
func TestScanSinceRereadsAChangedAccount(t *testing.T) {
	srv, base := startEmulator(t, emulator.Options{AsOf: day(t, "2025-02-01")})
	dir := t.TempDir()
	old := snapshotScan(t, base, dir)
	acme := srv.Snapshot().Accounts[0]
	if acme.Account.Name != seed.AccountAcme || !acme.NeedsAccessApps() || acme.NeedsNotificationPolicies() {
		t.Fatalf("the demo's first account is %q: the test wants Acme's bookmarks and no notification_email", acme.Account.Name)
	}
	apiWrite(t, http.MethodPost, base+"/accounts/"+acme.Account.ID+"/access/apps", `{"type":"bookmark","name":"wiki","domain":"wiki.example"}`)

	dry := runSunset(t, demoEnv(), "scan", "--api-url", base, "--dry-run", "--since", old)
	m := regexp.MustCompile(`would send about (\d+) requests`).FindStringSubmatch(dry.stdout)
	if dry.code != ExitOK || m == nil || strings.Contains(dry.stdout, "up to") {
		t.Fatalf("dry run: exit %d, no estimate, or one that cannot tell Acme's reads:\n%s%s", dry.code, dry.stdout, dry.stderr)
	}
	estimate, _ := strconv.Atoi(m[1])

	before := srv.Stats().Total
	r, rep := scanReport(t, base, "2025-02-01", "--since", old)
	if inc := rep.Incremental; r.code != ExitOK || inc == nil || len(inc.Rescanned) != 0 || len(inc.Reused) != 6 {
		t.Fatalf("exit %d, incremental %+v\n%s", r.code, rep.Incremental, r.stderr)
	}
	// accounts, 3 zone listings, 3 audit log pages, Acme's 4 parts and its applications.
	sent := srv.Stats().Total - before
	if want := 1 + 3 + 3 + collect.AccountRequests(&acme); sent != want || want != 12 {
		t.Errorf("--since sent %d requests, want %d (12)", sent, want)
	}
	if sent != estimate {
		t.Errorf("--since sent %d requests, its dry run said %d", sent, estimate)
	}
}

// TestScanDryRunSince prices an incremental rescan: the audit log is read, and only the
// changed zone is priced, at its request count in the snapshot.
func TestScanDryRunSince(t *testing.T) {
	srv, base := startEmulator(t, emulator.Options{Seed: seed.Generate(10, 17)})
	dir := t.TempDir()
	old := snapshotScan(t, base, dir)
	z := srv.Snapshot().Zones[4].Zone
	patchSetting(t, base, z.ID)
	var requests int
	for _, inv := range readStreamFile(t, old).Snapshot.Zones {
		if inv.Zone.ID == z.ID {
			requests = inv.Requests
		}
	}
	before := srv.Stats().Total
	r := runSunset(t, demoEnv(), "scan", "--api-url", base, "--dry-run", "--since", old)
	if r.code != ExitOK || srv.Stats().Total-before != 3 {
		t.Fatalf("exit %d, %d requests (want 3: accounts, zones, audit log)\n%s", r.code, srv.Stats().Total-before, r.stderr)
	}
	for _, want := range []string{"listed with 3 requests (audit log pages included)", "9 zones would be taken from " + old,
		"about " + strconv.Itoa(3+requests) + " requests"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
		}
	}
}
