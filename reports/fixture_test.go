package reports

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// asOf is the fixed as-of day of the fixtures.
var asOf = time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)

// sampleFindings covers two zones, an account-level finding, a file finding and a suppressed
// one, in the order a scanner would give them.
func sampleFindings() []scanner.Finding {
	return []scanner.Finding{
		{
			RuleID: "firewall-rules", Severity: scanner.SeverityError, Title: "Firewall rules API",
			Message: `Firewall rule "block bots" uses the retired firewall rules API; migrate it to a custom rule.`,
			Source:  scanner.SourceLive, AccountID: "a1", ZoneID: "023e105f4ecef8ad9ca31a8372d0c353", ZoneName: "example.com",
			Resource:     scanner.Resource{Kind: "firewall_rule", ID: "372e67954025e0ba6aaa6d586b9e0b59", Name: "block bots"},
			DeprecatedOn: "2023-05-01", EndOfLife: "2025-06-15", Replacement: "custom rules",
			DocURL: "https://example.invalid/fw", Fingerprint: "fp1",
		},
		{
			RuleID: "cname-flattening-setting", Severity: scanner.SeverityWarning, Title: "CNAME flattening setting",
			Message: "Zone setting cname_flattening is deprecated; set dns_settings.flatten_all_cnames instead.",
			Source:  scanner.SourceLive, AccountID: "a1", ZoneID: "023e105f4ecef8ad9ca31a8372d0c353", ZoneName: "example.com",
			Resource:  scanner.Resource{Kind: "zone_setting", ID: "cname_flattening"},
			EndOfLife: "2026-01-01", Fingerprint: "fp2",
		},
		{
			RuleID: "firewall-rules", Severity: scanner.SeverityError, Title: "Firewall rules API",
			Message: "Firewall rule 7c5dae5552338874e5053f2534d2767a is suppressed by the baseline.",
			Source:  scanner.SourceLive, AccountID: "a1", ZoneID: "9a7806061c88ada191ed06f989cc3dac", ZoneName: "example.org",
			Resource:     scanner.Resource{Kind: "firewall_rule", ID: "7c5dae5552338874e5053f2534d2767a"},
			DeprecatedOn: "2023-05-01", EndOfLife: "2025-06-15", Fingerprint: "fp3",
			Suppressed: true, SuppressedBy: "baseline",
		},
		{
			RuleID: "srv-data-fields", Severity: scanner.SeverityWarning, Title: "SRV data fields",
			Message: "SRV record _sip._tcp.example.org sets data.service, data.proto and data.name; put them in name.",
			Source:  scanner.SourceLive, AccountID: "a1", ZoneID: "9a7806061c88ada191ed06f989cc3dac", ZoneName: "example.org",
			Resource:  scanner.Resource{Kind: "dns_record", ID: "1d2b9a2e0b1c4e7f8a9b0c1d2e3f4a5b", Name: "_sip._tcp.example.org"},
			EndOfLife: "2025-12-31", Fingerprint: "fp4",
		},
		{
			RuleID: "access-bookmarks-api", Severity: scanner.SeverityNotice, Title: "Access bookmarks API",
			Message: "The account has 2 Access bookmarks; bookmarks are now Access applications.",
			Source:  scanner.SourceLive, AccountID: "a1",
			Resource:    scanner.Resource{Kind: "access_bookmark", ID: "a1"},
			Fingerprint: "fp5",
		},
		{
			RuleID: "firewall-rules", Severity: scanner.SeverityError, Title: "Firewall rules API",
			Message:      "Terraform resource cloudflare_firewall_rule.block uses the retired firewall rules API.",
			Source:       scanner.SourceFile,
			Resource:     scanner.Resource{Kind: "cloudflare_firewall_rule", Name: "cloudflare_firewall_rule.block"},
			Location:     &scanner.Location{Path: "infra/waf.tf", StartLine: 12, StartColumn: 1, EndLine: 18, EndColumn: 2},
			DeprecatedOn: "2023-05-01", EndOfLife: "2025-06-15", Fingerprint: "fp6",
		},
	}
}

// sampleReport is a report over sampleFindings with one read error.
func sampleReport() *Report {
	return NewReport(Input{
		Version:  "1.2.3",
		AsOf:     asOf,
		Source:   Source{Kind: SourceLive, Target: "https://api.example.invalid/client/v4"},
		Findings: sampleFindings(),
		Errors: []scanner.RunError{
			{AccountID: "a1", ZoneID: "5f0c1c3c7e9d4b2a8c6e0f1a2b3c4d5e", ZoneName: "broken.example", What: "firewall rules", Message: "HTTP 500 after 3 attempts"},
		},
		Counts: Counts{ZonesScanned: 3, ZonesFailed: 1, Accounts: 1, FilesScanned: 1},
		FailOn: scanner.SeverityError,
	})
}

// golden compares got with testdata/name, or rewrites the file under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run go test -update to create it): %v", err)
	}
	if string(got) != string(want) {
		t.Errorf("output differs from %s (run go test -update after checking the change):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// render writes r with the reporter of format under opts.
func render(t testing.TB, format string, opts Options, r *Report) string {
	t.Helper()
	rep, err := New(format, opts)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.Write(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
