package catalog

import (
	"strings"
	"testing"
	"time"
)

// specEndOfLife is the spec's date of each dated entry (the day the interface is no longer
// available), transcribed from the spec, except zone-settings-bulk (public notice).
var specEndOfLife = map[string]string{
	"firewall-rules": "2025-01-15", "filters": "2025-01-15", "waf-managed-rules-v1": "2025-01-15",
	"rate-limiting-v1": "2025-01-15", "cname-flattening-setting": "2025-03-21",
	"zone-settings-bulk": "2026-09-15", "account-nameserver-settings": "2025-03-14",
	"dns-settings-use-apex-ns": "2024-09-13", "dns-settings-secondary-overrides": "2024-09-13",
	"dns-record-zone-fields": "2024-11-30", "dns-record-locked": "2024-07-14", "dns-error-chain": "2024-10-01",
	"srv-data-fields": "2024-05-31", "zone-setting-brotli": "2024-08-15", "zone-setting-minify": "2024-08-05",
	"zone-setting-mobile-redirect": "2024-06-30", "zone-setting-server-side-exclude": "2024-06-14",
	"zone-setting-privacy-pass": "2024-03-31", "argo-tunnels-api": "2024-02-04",
	"billing-profile-api": "2023-06-06", "access-bookmarks-api": "2023-03-19",
	"images-v1-direct-upload": "2022-07-01", "analytics-dashboard-api": "2021-03-01",
	"organizations-api": "2020-04-02", "page-shield-script-monitor": "2022-10-11",
	"notification-email": "2023-04-03", "transfer-encoding-with-content-length": "2023-07-01",
	"chacha20-draft-ciphers": "2023-07-01",
}

func day(s string) time.Time {
	d, err := ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d.Time
}

func TestSeverityAtAroundEndOfLife(t *testing.T) {
	c := Default()
	for _, e := range c.Entries() {
		eol, dated := specEndOfLife[string(e.ID)]
		switch {
		case e.Advisory:
			for _, d := range []string{"2019-01-01", "2024-09-30", "2024-10-01", "2030-01-01"} {
				if got := e.SeverityAt(day(d)); got != SeverityNotice {
					t.Errorf("%s (advisory) at %s = %v, want notice", e.ID, d, got)
				}
				if got := e.StatusAt(day(d)); got != StatusAdvisory {
					t.Errorf("%s (advisory) status at %s = %q, want advisory", e.ID, d, got)
				}
			}
			continue
		case !dated:
			t.Errorf("%s: not advisory and no spec date in the test table", e.ID)
			continue
		}
		if e.EndOfLife.String() != eol {
			t.Errorf("%s: end_of_life %s, spec %s", e.ID, e.EndOfLife, eol)
		}
		before := e.EndOfLife.AddDate(0, 0, -1)
		cases := []struct {
			at     time.Time
			sev    Severity
			status string
		}{
			{before, SeverityWarning, StatusDeprecated},
			{e.EndOfLife.Time, SeverityError, StatusRetired},
			{e.EndOfLife.AddDate(1, 0, 0), SeverityError, StatusRetired},
		}
		for _, tc := range cases {
			if got := e.SeverityAt(tc.at); got != tc.sev {
				t.Errorf("%s at %s = %v, want %v", e.ID, DateOf(tc.at), got, tc.sev)
			}
			if got := e.StatusAt(tc.at); got != tc.status {
				t.Errorf("%s status at %s = %q, want %q", e.ID, DateOf(tc.at), got, tc.status)
			}
		}
	}
}

func TestSeverityAtDeprecatedOn(t *testing.T) {
	bulk := mustLookup(t, Default(), "zone-settings-bulk")
	for _, tc := range []struct {
		at     string
		sev    Severity
		status string
	}{
		{"2025-04-22", SeverityNone, StatusUpcoming},
		{"2025-04-23", SeverityWarning, StatusDeprecated},
		{"2026-09-14", SeverityWarning, StatusDeprecated},
		{"2026-09-15", SeverityError, StatusRetired},
	} {
		if got := bulk.SeverityAt(day(tc.at)); got != tc.sev {
			t.Errorf("zone-settings-bulk at %s = %v, want %v", tc.at, got, tc.sev)
		}
		if got := bulk.StatusAt(day(tc.at)); got != tc.status {
			t.Errorf("zone-settings-bulk status at %s = %q, want %q", tc.at, got, tc.status)
		}
	}
}

func TestSeverityAtEdgeCases(t *testing.T) {
	undated := Entry{ID: "x"}
	if got := undated.SeverityAt(day("2000-01-01")); got != SeverityWarning {
		t.Errorf("an entry without dates = %v, want warning (deprecated, no end of life)", got)
	}
	adv := Entry{ID: "x", Advisory: true, DeprecatedOn: NewDate(2025, 1, 1)}
	if got := adv.SeverityAt(day("2024-12-31")); got != SeverityNone {
		t.Errorf("advisory before its deprecated_on = %v, want none", got)
	}
	if got := adv.StatusAt(day("2024-12-31")); got != StatusUpcoming {
		t.Errorf("advisory before its deprecated_on: status %q, want upcoming", got)
	}
	// The as-of day is the caller's calendar day, whatever the time of day and zone.
	e := Entry{ID: "x", EndOfLife: NewDate(2025, 1, 15)}
	tokyo := time.FixedZone("JST", 9*3600)
	if got := e.SeverityAt(time.Date(2025, 1, 15, 0, 30, 0, 0, tokyo)); got != SeverityError {
		t.Errorf("00:30 JST on the end-of-life day = %v, want error", got)
	}
	if got := e.SeverityAt(time.Date(2025, 1, 14, 23, 59, 0, 0, time.UTC)); got != SeverityWarning {
		t.Errorf("23:59 UTC the day before = %v, want warning", got)
	}
	if got := e.SeverityAt(time.Time{}); got != SeverityWarning {
		t.Errorf("zero as-of = %v, want warning (before every date)", got)
	}
}

// TestLifeAtCallsARenameARename: the ip.geoip.* names are a pure rename, which findings do
// not call "a behaviour change"; cf.threat_score, which changed what rules do, stays one. An
// advisory_text without advisory: true is refused.
func TestLifeAtCallsARenameARename(t *testing.T) {
	asOf := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	geo := mustLookup(t, Default(), "geoip-field-names")
	if got := geo.LifeAt(asOf); got != "a rename: the old names still work and mean the same" {
		t.Errorf("geoip-field-names: %q", got)
	}
	if got := mustLookup(t, Default(), "threat-score-field").LifeAt(asOf); got != "a behaviour change" {
		t.Errorf("threat-score-field: %q", got)
	}
	geo.Advisory = false
	if err := geo.Validate(); err == nil || !strings.Contains(err.Error(), "advisory_text") {
		t.Errorf("advisory_text without advisory: %v", err)
	}
}
