package reports

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

func TestBuildSummary(t *testing.T) {
	errs := []scanner.RunError{{ZoneName: "broken.example", What: "firewall rules", Message: "HTTP 500"}}
	s := BuildSummary(sampleFindings(), errs, Counts{ZonesScanned: 3, ZonesFailed: 1, Accounts: 1, FilesScanned: 1}, scanner.SeverityError)
	want := Summary{
		FindingsTotal: 5,
		BySeverity:    SeverityCounts{Error: 2, Warning: 2, Notice: 1},
		Suppressed:    1,
		ZonesScanned:  3, ZonesFailed: 1, Accounts: 1, FilesScanned: 1,
		Incomplete: true,
		FailOn:     scanner.SeverityError,
		GateFailed: true,
		ByRule: []RuleCount{
			{RuleID: "firewall-rules", Title: "Firewall rules API", Severity: scanner.SeverityError, Count: 2},
			{RuleID: "cname-flattening-setting", Title: "CNAME flattening setting", Severity: scanner.SeverityWarning, Count: 1},
			{RuleID: "srv-data-fields", Title: "SRV data fields", Severity: scanner.SeverityWarning, Count: 1},
			{RuleID: "access-bookmarks-api", Title: "Access bookmarks API", Severity: scanner.SeverityNotice, Count: 1},
		},
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("BuildSummary =\n%+v\nwant\n%+v", s, want)
	}
}

func TestBuildSummaryGate(t *testing.T) {
	warningOnly := []scanner.Finding{
		{RuleID: "a", Severity: scanner.SeverityWarning},
		{RuleID: "b", Severity: scanner.SeverityError, Suppressed: true}, // suppressed: never gates
	}
	for _, tt := range []struct {
		failOn scanner.Severity
		want   bool
	}{
		{scanner.SeverityNone, false},
		{scanner.SeverityNotice, true},
		{scanner.SeverityWarning, true},
		{scanner.SeverityError, false},
	} {
		if got := BuildSummary(warningOnly, nil, Counts{}, tt.failOn).GateFailed; got != tt.want {
			t.Errorf("fail_on %s: GateFailed = %v, want %v", tt.failOn, got, tt.want)
		}
	}
	empty := BuildSummary(nil, nil, Counts{ZonesScanned: 2}, scanner.SeverityNotice)
	if empty.GateFailed || empty.Incomplete || empty.ByRule == nil || len(empty.ByRule) != 0 {
		t.Errorf("empty summary = %+v, want no gate, complete, by_rule []", empty)
	}
	for _, c := range []Counts{{ZonesFailed: 1}, {FilesFailed: 1}} {
		if !BuildSummary(nil, nil, c, scanner.SeverityNone).Incomplete {
			t.Errorf("counts %+v: want incomplete", c)
		}
	}
}

// lookup is a RuleLookup over a map.
type lookup map[string]catalog.Entry

func (l lookup) Lookup(id vocab.RuleID) (catalog.Entry, bool) { e, ok := l[string(id)]; return e, ok }

func TestBuildCatalog(t *testing.T) {
	eol := catalog.Date{Time: time.Date(2025, 11, 30, 0, 0, 0, 0, time.UTC)}
	rules := lookup{
		"access-bookmarks-api": {ID: "access-bookmarks-api", Title: "Access bookmarks (catalog)", Description: "Bookmarks are applications now.", EndOfLife: eol, Replacement: "Access applications", Advisory: true},
	}
	got := BuildCatalog(sampleFindings(), rules)
	ids := make([]string, len(got))
	for i, r := range got {
		ids[i] = r.ID
	}
	wantIDs := []string{"access-bookmarks-api", "cname-flattening-setting", "firewall-rules", "srv-data-fields"}
	if !reflect.DeepEqual(ids, wantIDs) {
		t.Fatalf("catalog ids = %v, want %v", ids, wantIDs)
	}
	wantBookmarks := RuleInfo{
		ID: "access-bookmarks-api", Title: "Access bookmarks API", // the finding's title wins
		Description: "Bookmarks are applications now.", EndOfLife: "2025-11-30",
		Replacement: "Access applications", Advisory: true,
	}
	if got[0] != wantBookmarks {
		t.Errorf("enriched entry = %+v, want %+v", got[0], wantBookmarks)
	}
	wantFW := RuleInfo{ID: "firewall-rules", Title: "Firewall rules API", DeprecatedOn: "2023-05-01", EndOfLife: "2025-06-15", Replacement: "custom rules", DocURL: "https://example.invalid/fw"}
	if got[2] != wantFW {
		t.Errorf("entry from findings = %+v, want %+v", got[2], wantFW)
	}
	if c := BuildCatalog(nil, nil); c == nil || len(c) != 0 {
		t.Errorf("BuildCatalog(nil) = %#v, want []", c)
	}
}

func TestNewReport(t *testing.T) {
	in := Input{
		Version:  "1.0.0",
		AsOf:     time.Date(2025, 7, 1, 23, 30, 0, 0, time.FixedZone("east", 10*3600)),
		Source:   Source{Kind: SourceLive, Target: "https://user:s3cret@api.example.invalid/client/v4?token=s3cret#frag"},
		Findings: sampleFindings(),
		Errors: []scanner.RunError{
			{ZoneName: "b.example", What: "rate limits", Message: "x"},
			{ZoneName: "a.example", What: "waf", Message: "y"},
			{AccountID: "a0", What: "zone list", Message: "z"},
		},
	}
	r := NewReport(in)
	if r.SchemaVersion != SchemaVersion || r.Tool != (Tool{Name: "sunset", Version: "1.0.0"}) {
		t.Errorf("header = %d %+v", r.SchemaVersion, r.Tool)
	}
	if r.AsOf != "2025-07-01" {
		t.Errorf("AsOf = %q, want the caller's day 2025-07-01", r.AsOf)
	}
	if r.Source.Target != "https://api.example.invalid/client/v4" {
		t.Errorf("Target = %q, want credentials, query and fragment removed", r.Source.Target)
	}
	var order []string
	for _, e := range r.Errors {
		order = append(order, e.AccountID+e.ZoneName)
	}
	if want := []string{"a.example", "b.example", "a0"}; !reflect.DeepEqual(order, want) {
		t.Errorf("errors order = %v, want %v", order, want)
	}
	if in.Errors[0].ZoneName != "b.example" {
		t.Error("NewReport sorted the caller's errors in place")
	}
	if r.Findings.Len() != len(in.Findings) || r.Findings.At(0).Fingerprint != "fp1" || r.Findings.At(5).Fingerprint != "fp6" {
		t.Error("findings not kept in the given order")
	}
	files := NewReport(Input{Source: Source{Kind: SourceFiles, Paths: []string{"infra", "scripts"}}})
	if files.Findings == nil || files.Errors == nil || files.Catalog == nil || files.AsOf != "" {
		t.Errorf("empty report = %+v, want empty lists", files)
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                                      "",
		"https://api.example.invalid/client/v4": "https://api.example.invalid/client/v4",
		"http://127.0.0.1:8787/client/v4":       "http://127.0.0.1:8787/client/v4",
		"https://u:tok@h.invalid/p?k=v#f":       "https://h.invalid/p",
		"not a url with a token":                "",
		"h.invalid/path":                        "",
		"://bad":                                "",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReadReportRoundTrip(t *testing.T) {
	orig := sampleReport()
	first := render(t, "json", Options{}, orig)
	read, err := ReadReport(strings.NewReader(first))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(read, orig) {
		t.Errorf("read report differs from the written one:\n%+v\n%+v", read, orig)
	}
	if second := render(t, "json", Options{}, read); second != first {
		t.Errorf("re-rendered JSON differs:\n%s\n---\n%s", second, first)
	}
}

func TestReadReportVersions(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"newer", `{"schema_version": 2, "findings": []}`, "schema_version 2, newer than this build of sunset reads (up to 1): upgrade sunset"},
		{"much newer, unknown shape", `{"schema_version": 99, "findings": {"x": 1}}`, "schema_version 99"},
		{"missing", `{"findings": []}`, "no schema_version"},
		{"zero", `{"schema_version": 0}`, "schema_version 0"},
		{"not json", `table output`, "not a sunset JSON report"},
		{"trailing data", `{"schema_version": 1} {}`, "not a sunset JSON report"},
		{"bad severity", `{"schema_version": 1, "findings": [{"severity": "fatal"}]}`, "unknown severity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadReport(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("ReadReport error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
	// The current version with lists missing or null reads, and the lists come back empty.
	r, err := ReadReport(strings.NewReader(`{"schema_version": 1, "tool": {"name": "sunset", "version": "0.9"}, "as_of": "2025-01-01", "findings": null, "future_field": true}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Findings == nil || r.Errors == nil || r.Catalog == nil || r.Summary.ByRule == nil || r.Tool.Version != "0.9" {
		t.Errorf("ReadReport = %+v, want empty lists and the tool kept", r)
	}
	var b bytes.Buffer
	if err := (JSON{}).Write(&b, r); err != nil || strings.Contains(b.String(), "null") {
		t.Errorf("re-written report has null lists or failed (%v):\n%s", err, b.String())
	}
}
