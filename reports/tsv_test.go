package reports

import (
	"slices"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner"
)

func TestHostileTextTSV(t *testing.T) {
	out := render(t, "tsv", Options{}, hostileReport())
	for _, bad := range []string{"\x1b", "\r", "\x00", "\u009b", "\u202e", "pwned"} {
		if strings.Contains(out, bad) {
			t.Errorf("output contains %q:\n%q", bad, out)
		}
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header and 2 rows, got %d lines:\n%q", len(lines), out)
	}
	for _, line := range lines {
		if n := strings.Count(line, "\t"); n != len(tsvColumns)-1 {
			t.Errorf("line has %d tabs, want %d: %q", n, len(tsvColumns)-1, line)
		}
	}
	fields := strings.Split(lines[1], "\t")
	if fields[2] != "evil.example" || fields[4] != "id x" || fields[8] != "okRED INJECTED rowgnp.exe2Jend" {
		t.Errorf("sanitised fields = %q", fields)
	}
	if f := strings.Split(lines[2], "\t"); f[2] != "-" || f[5] != "infra/waf .tf" || f[6] != "3" || f[7] != "-" {
		t.Errorf("file finding's zone, path, line, column = %q", f[2:8])
	}
}

func TestTSVColumns(t *testing.T) {
	out := render(t, "tsv", Options{}, sampleReport())
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if want := "severity\trule_id\tzone\tresource_kind\tresource_id\tpath\tline\tcolumn\tmessage"; lines[0] != TSVHeader || TSVHeader != want {
		t.Errorf("header = %q, TSVHeader = %q, want %q", lines[0], TSVHeader, want)
	}
	want := [][]string{
		{"error", "firewall-rules", "example.com", "firewall_rule", "372e67954025e0ba6aaa6d586b9e0b59", "-", "-", "-"},
		{"warning", "cname-flattening-setting", "example.com", "zone_setting", "cname_flattening", "-", "-", "-"},
		{"warning", "srv-data-fields", "example.org", "dns_record", "1d2b9a2e0b1c4e7f8a9b0c1d2e3f4a5b", "-", "-", "-"},
		{"notice", "access-bookmarks-api", "account:a1", "access_bookmark", "a1", "-", "-", "-"},
		{"error", "firewall-rules", "-", "cloudflare_firewall_rule", "cloudflare_firewall_rule.block", "infra/waf.tf", "12", "1"},
	}
	if len(lines) != len(want)+1 {
		t.Fatalf("got %d rows, want %d (suppressed left out):\n%s", len(lines)-1, len(want), out)
	}
	for i, w := range want {
		got := strings.Split(lines[i+1], "\t")
		if len(got) != len(tsvColumns) || !slices.Equal(got[:len(w)], w) {
			t.Errorf("row %d = %q, want prefix %q", i, got, w)
		}
	}
	// Empty fields are written as "-" so whitespace splitting keeps every column.
	r := NewReport(Input{Findings: []scanner.Finding{{RuleID: "x", Severity: scanner.SeverityNotice}}})
	if got := render(t, "tsv", Options{}, r); got != TSVHeader+"\nnotice\tx"+strings.Repeat("\t-", len(tsvColumns)-2)+"\n" {
		t.Errorf("empty fields: %q", got)
	}
}

// TestRowFormatsShareColumns checks that TSV's columns read as CSV's: the same cells for the
// same finding (before each format's own escaping), so the layout has one home.
func TestRowFormatsShareColumns(t *testing.T) {
	r := sampleReport()
	rows := parseCSV(t, render(t, "csv", Options{}, r))
	csvCol := map[string]int{}
	for i, h := range rows[0] {
		csvCol[h] = i
	}
	tsv := strings.Split(strings.TrimSuffix(render(t, "tsv", Options{}, r), "\n"), "\n")
	n := 0
	for i := range r.Findings.Len() {
		if r.Findings.At(i).Suppressed {
			continue
		}
		n++
		fields := strings.Split(tsv[n], "\t")
		for j, c := range tsvColumns {
			csvIdx, ok := csvCol[c.name]
			if !ok {
				continue // zone: CSV splits it into zone_name, zone_id and account_id
			}
			want := rows[i+1][csvIdx]
			if c.name == "resource_id" && want == "" {
				want = rows[i+1][csvCol["resource_name"]]
			}
			if want == "" {
				want = "-"
			}
			if fields[j] != want {
				t.Errorf("finding %d: TSV %s = %q, CSV has %q", i, c.name, fields[j], want)
			}
		}
	}
}
