package reports

import (
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

func TestCSVGolden(t *testing.T) {
	golden(t, "csv.golden", []byte(render(t, "csv", Options{}, ciReport())))
}

func parseCSV(t *testing.T, out string) [][]string {
	t.Helper()
	rd := csv.NewReader(strings.NewReader(out))
	rd.FieldsPerRecord = len(CSVHeader) // every row as wide as the header
	rows, err := rd.ReadAll()
	if err != nil {
		t.Fatalf("CSV does not parse: %v\n%s", err, out)
	}
	return rows
}

func TestCSVParsesBack(t *testing.T) {
	r := ciReport()
	out := render(t, "csv", Options{}, r)
	if !strings.HasSuffix(out, "\r\n") || strings.Count(out, "\r\n") != r.Findings.Len()+1 {
		t.Errorf("want CRLF line ends, one line per row:\n%q", out)
	}
	rows := parseCSV(t, out)
	if !slices.Equal(rows[0], CSVHeader) {
		t.Errorf("header = %q", rows[0])
	}
	if len(rows) != r.Findings.Len()+1 {
		t.Fatalf("%d rows for %d findings (suppressed included)", len(rows)-1, r.Findings.Len())
	}
	col := map[string]int{}
	for i, h := range CSVHeader {
		col[h] = i
	}
	first := rows[1]
	for name, want := range map[string]string{
		"severity": "error", "rule_id": "firewall-rules", "zone_name": "example.com", "resource_name": "block bots",
		"path": "", "line": "", "end_of_life": "2025-06-15", "replacement": "custom rules", "fingerprint": "fp1", "suppressed": "false",
	} {
		if first[col[name]] != want {
			t.Errorf("row 1 %s = %q, want %q", name, first[col[name]], want)
		}
	}
	file := rows[7] // the file finding with every position and commas in its path
	if file[col["path"]] != "envs/prod, eu:west/zone settings%.tf" || file[col["line"]] != "7" || file[col["column"]] != "5" || file[col["zone_name"]] != "" {
		t.Errorf("file row = %q", file)
	}
	if rows[3][col["suppressed"]] != "true" || rows[8][col["path"]] != "envs/prod/zone.tf" {
		t.Errorf("suppressed row = %q / %q", rows[3], rows[8])
	}
	hostile := rows[9]
	if want := "SRV record " + textsafe.Sanitize(hostileText); hostile[col["message"]] != want {
		t.Errorf("hostile message = %q, want %q", hostile[col["message"]], want)
	}
}

// TestCSVFormulaGuard checks that no cell a spreadsheet would run as a formula is left as one.
func TestCSVFormulaGuard(t *testing.T) {
	fs := []scanner.Finding{{
		RuleID: "firewall-rules", Severity: scanner.SeverityError, Title: "+cmd|' /C calc'!A0",
		Message: "=HYPERLINK(\"http://evil.invalid\",\"click\")", ZoneName: "@SUM(1+1)", ZoneID: "-2+3",
		Resource: scanner.Resource{Kind: "firewall_rule", ID: " =1+1", Name: "\t=1+1"}, Replacement: "\r\n+1",
	}}
	rows := parseCSV(t, render(t, "csv", Options{}, NewReport(Input{Findings: fs})))
	for i, cell := range rows[1] {
		if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
			t.Errorf("column %s = %q starts a formula", CSVHeader[i], cell)
		}
	}
	for name, want := range map[int]string{2: "'+cmd|' /C calc'!A0", 3: "'@SUM(1+1)", 4: "'-2+3", 7: "'=1+1", 8: "'=1+1", 12: `'=HYPERLINK("http://evil.invalid","click")`, 14: "'+1"} {
		if rows[1][name] != want {
			t.Errorf("column %s = %q, want %q", CSVHeader[name], rows[1][name], want)
		}
	}
	if got := csvCell("2025-06-15"); got != "2025-06-15" {
		t.Errorf("a date was changed: %q", got)
	}
}

func TestCSVEmpty(t *testing.T) {
	want := strings.Join(CSVHeader, ",") + "\r\n"
	if got := render(t, "csv", Options{}, NewReport(Input{})); got != want {
		t.Errorf("empty report = %q, want the header only", got)
	}
}
