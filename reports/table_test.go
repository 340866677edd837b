package reports

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

func TestTableGolden(t *testing.T) {
	for _, tt := range []struct {
		name  string
		width int
	}{
		{"table-unknown-width.txt", 0},
		{"table-120.txt", 120},
		{"table-narrow-60.txt", 60},
	} {
		t.Run(tt.name, func(t *testing.T) {
			golden(t, tt.name, []byte(render(t, "table", Options{Width: tt.width}, sampleReport())))
		})
	}
}

func TestTSVGolden(t *testing.T) {
	golden(t, "report.tsv", []byte(render(t, "tsv", Options{}, sampleReport())))
}

func TestTableFitsWidth(t *testing.T) {
	long := sampleFindings()
	long = append(long, scanner.Finding{
		RuleID: "transfer-encoding-with-content-length", Severity: scanner.SeverityNotice,
		Message: "A request sets both Transfer-Encoding and Content-Length; the edge now rejects it.",
		Source:  scanner.SourceFile, Resource: scanner.Resource{Kind: "script"},
		Location: &scanner.Location{Path: "scripts/deploy.sh", StartLine: 40},
	})
	longRules := NewReport(Input{AsOf: asOf, Findings: long, Counts: Counts{ZonesScanned: 3, FilesScanned: 2}})
	ids := []string{"firewall-rules", "cname-flattening-setting", "srv-data-fields", "access-bookmarks-api", "transfer-encoding-with-content-length"}
	for _, width := range []int{40, 60, 80, 99, 100, 105, 110, 120, 160} {
		for name, r := range map[string]*Report{"sample": sampleReport(), "long rule ids": longRules} {
			out := render(t, "table", Options{Width: width}, r)
			for _, line := range strings.Split(out, "\n") {
				if w := ansi.StringWidth(line); w > width {
					t.Errorf("%s, width %d: line is %d wide: %q", name, width, w, line)
				}
			}
			// Rule ids are never cut where they fit: users copy them into suppressions.
			for _, id := range ids[:4] {
				if !strings.Contains(out, id) {
					t.Errorf("%s, width %d: rule id %s missing or cut", name, width, id)
				}
			}
			if r == longRules && width >= 60 && !strings.Contains(out, ids[4]) {
				t.Errorf("%s, width %d: rule id %s missing or cut", name, width, ids[4])
			}
		}
	}
}

func TestTableContent(t *testing.T) {
	out := render(t, "table", Options{}, sampleReport())
	headings := []string{
		"Zone example.com (023e105f4ecef8ad9ca31a8372d0c353)",
		"Zone example.org (9a7806061c88ada191ed06f989cc3dac)",
		"Account a1",
		"File infra/waf.tf",
		"Could not read (1):",
	}
	last := -1
	for _, h := range headings {
		i := strings.Index(out, "\n"+h+"\n")
		if out[:len(h)] == h {
			i = 0
		}
		if i < 0 || i < last {
			t.Errorf("heading %q missing or out of order in:\n%s", h, out)
		}
		last = i
	}
	if strings.Contains(out, "suppressed by the baseline") {
		t.Error("a suppressed finding is listed")
	}
	if !strings.Contains(out, "cloudflare_firewall_rule.block (line 12)") {
		t.Errorf("file finding resource lacks its line:\n%s", out)
	}
	wantSummary := "3 zones scanned, 1 file scanned, 2 errors, 2 warnings, 1 notice, 1 zone failed, 0 files failed, 1 suppressed\n"
	if !strings.HasSuffix(out, "\n\n"+wantSummary) {
		t.Errorf("summary line: want %q at the end of:\n%s", wantSummary, out)
	}
}

func TestSummaryLine(t *testing.T) {
	st := newTableStyles(&strings.Builder{}, false)
	tests := []struct {
		name string
		r    Report
		want string
	}{
		{"live", Report{Summary: Summary{ZonesScanned: 1, BySeverity: SeverityCounts{Warning: 1}}},
			"1 zone scanned, 0 errors, 1 warning, 0 notices, 0 zones failed"},
		{"files only", Report{Source: Source{Kind: SourceFiles}, Summary: Summary{FilesScanned: 2, FilesFailed: 1, BySeverity: SeverityCounts{Error: 3, Notice: 2}}},
			"2 files scanned, 3 errors, 0 warnings, 2 notices, 1 file failed"},
		{"nothing scanned", Report{}, "0 zones scanned, 0 errors, 0 warnings, 0 notices, 0 zones failed"},
	}
	wrapped := summaryLine(&Report{Summary: Summary{ZonesScanned: 12, ZonesFailed: 2}}, st, 40)
	if want := "12 zones scanned, 0 errors, 0 warnings,\n0 notices, 2 zones failed"; wrapped != want {
		t.Errorf("wrapped at 40: got %q, want %q", wrapped, want)
	}
	for _, tt := range tests {
		if got := summaryLine(&tt.r, st, 0); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestTableEmpty(t *testing.T) {
	r := NewReport(Input{Counts: Counts{ZonesScanned: 4}})
	want := "No findings.\n\n4 zones scanned, 0 errors, 0 warnings, 0 notices, 0 zones failed\n"
	if got := render(t, "table", Options{Width: 80}, r); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := render(t, "tsv", Options{}, r); got != TSVHeader+"\n" {
		t.Errorf("empty TSV = %q, want just the header", got)
	}
}

var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

func TestTableColor(t *testing.T) {
	plain := render(t, "table", Options{Width: 120}, sampleReport())
	if strings.ContainsRune(plain, 0x1b) {
		t.Errorf("Color off: escape sequences in output:\n%q", plain)
	}
	colored := render(t, "table", Options{Width: 120, Color: true}, sampleReport())
	for sev, code := range map[string]string{"error": "31", "warning": "33", "notice": "36"} {
		if !regexp.MustCompile(`\x1b\[[0-9;]*` + code + `m` + sev + `\x1b\[0m`).MatchString(colored) {
			t.Errorf("Color on: %s is not coloured %s:\n%q", sev, code, colored)
		}
	}
	if got := sgr.ReplaceAllString(colored, ""); got != plain {
		t.Errorf("colour changed more than styling:\n%s\n---\n%s", got, plain)
	}
	// Plain asks the table format for rows.
	if got := render(t, "table", Options{Plain: true, Width: 120}, sampleReport()); got != render(t, "tsv", Options{}, sampleReport()) {
		t.Errorf("table with Plain is not TSV:\n%s", got)
	}
}

// hostileReport carries escape sequences and row/field breaks in every user-provided text.
func hostileReport() *Report {
	evil := "ok\x1b[31mRED\x1b[0m\r\nINJECTED\trow\x1b]0;pwned\x07\u202egnp.exe\u009b2J\x00end"
	f := scanner.Finding{
		RuleID: "firewall-rules", Severity: scanner.SeverityError, Title: evil, Message: evil,
		Source: scanner.SourceLive, AccountID: "a\x1b[2J1", ZoneID: "z\r1", ZoneName: "evil\x1b]0;title\x07.example",
		Resource:  scanner.Resource{Kind: "firewall_rule", ID: "id\tx", Name: evil},
		EndOfLife: "2025-06-15\x1b[5m", Fingerprint: "h",
	}
	file := f
	file.Source, file.ZoneID, file.ZoneName, file.AccountID = scanner.SourceFile, "", "", ""
	file.Location = &scanner.Location{Path: "infra/\x1b[1mwaf\n.tf", StartLine: 3}
	return NewReport(Input{
		AsOf: asOf, Findings: []scanner.Finding{f, file},
		Errors: []scanner.RunError{{ZoneName: evil, What: "firewall\nrules", Message: evil}},
		Counts: Counts{ZonesScanned: 1, ZonesFailed: 1},
	})
}

func TestHostileTextTable(t *testing.T) {
	for _, opts := range []Options{{}, {Width: 60}, {Width: 120}, {Width: 120, Color: true}} {
		t.Run(fmt.Sprintf("%+v", opts), func(t *testing.T) {
			out := render(t, "table", opts, hostileReport())
			if opts.Color {
				out = sgr.ReplaceAllString(out, "") // our own styling; anything else must be gone
			}
			for _, bad := range []string{"\x1b", "\r", "\t", "\x00", "\u009b", "\u202e", "pwned", "title"} {
				if strings.Contains(out, bad) {
					t.Errorf("output contains %q:\n%q", bad, out)
				}
			}
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(line, "INJECTED") {
					t.Errorf("a newline in user text started a line: %q", line)
				}
			}
		})
	}
}

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
		if n := strings.Count(line, "\t"); n != 5 {
			t.Errorf("line has %d tabs, want 5: %q", n, line)
		}
	}
	fields := strings.Split(lines[1], "\t")
	if fields[2] != "evil.example" || fields[4] != "id x" || fields[5] != "okRED INJECTED rowgnp.exe2Jend" {
		t.Errorf("sanitised fields = %q", fields)
	}
	if f := strings.Split(lines[2], "\t"); f[2] != "infra/waf .tf:3" {
		t.Errorf("file zone column = %q", f[2])
	}
}

func TestTSVColumns(t *testing.T) {
	out := render(t, "tsv", Options{}, sampleReport())
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if lines[0] != TSVHeader {
		t.Errorf("header = %q", lines[0])
	}
	want := [][]string{
		{"error", "firewall-rules", "example.com", "firewall_rule", "372e67954025e0ba6aaa6d586b9e0b59"},
		{"warning", "cname-flattening-setting", "example.com", "zone_setting", "cname_flattening"},
		{"warning", "srv-data-fields", "example.org", "dns_record", "1d2b9a2e0b1c4e7f8a9b0c1d2e3f4a5b"},
		{"notice", "access-bookmarks-api", "account:a1", "access_bookmark", "a1"},
		{"error", "firewall-rules", "infra/waf.tf:12", "cloudflare_firewall_rule", "cloudflare_firewall_rule.block"},
	}
	if len(lines) != len(want)+1 {
		t.Fatalf("got %d rows, want %d (suppressed left out):\n%s", len(lines)-1, len(want), out)
	}
	for i, w := range want {
		got := strings.Split(lines[i+1], "\t")
		if strings.Join(got[:5], "|") != strings.Join(w, "|") {
			t.Errorf("row %d = %q, want prefix %q", i, got, w)
		}
	}
	// Empty fields are written as "-" so whitespace splitting keeps six columns.
	r := NewReport(Input{Findings: []scanner.Finding{{RuleID: "x", Severity: scanner.SeverityNotice}}})
	if got := render(t, "tsv", Options{}, r); got != TSVHeader+"\nnotice\tx\t-\t-\t-\t-\n" {
		t.Errorf("empty fields: %q", got)
	}
}

func TestTableDeterministic(t *testing.T) {
	for _, opts := range []Options{{}, {Width: 70}, {Width: 130, Color: true}} {
		first := render(t, "table", opts, sampleReport())
		for i := 0; i < 10; i++ {
			if got := render(t, "table", opts, sampleReport()); got != first {
				t.Fatalf("%+v: run %d differs", opts, i)
			}
		}
	}
}

// largeReport has n findings spread over n/10 zones.
func largeReport(n int) *Report {
	fs := make([]scanner.Finding, n)
	for i := range fs {
		fs[i] = scanner.Finding{
			RuleID: "firewall-rules", Severity: scanner.Severity(1 + i%3), Title: "Firewall rules API",
			Message: fmt.Sprintf("Firewall rule %d uses the retired firewall rules API; migrate it to a custom rule.", i),
			Source:  scanner.SourceLive, AccountID: "a1", ZoneID: fmt.Sprintf("zone%06d", i/10), ZoneName: fmt.Sprintf("z%d.example", i/10),
			Resource: scanner.Resource{Kind: "firewall_rule", ID: fmt.Sprintf("%032x", i)}, EndOfLife: "2025-06-15", Fingerprint: fmt.Sprint(i),
		}
	}
	return NewReport(Input{AsOf: asOf, Findings: fs, Counts: Counts{ZonesScanned: n / 10}})
}

func BenchmarkTable(b *testing.B) {
	r := largeReport(10000)
	for _, opts := range []Options{{Width: 120}, {Width: 80}} {
		b.Run(fmt.Sprintf("width%d", opts.Width), func(b *testing.B) {
			var sb strings.Builder
			for b.Loop() {
				sb.Reset()
				if err := (Table{Options: opts}).Write(&sb, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkTSV(b *testing.B) {
	r := largeReport(10000)
	var sb strings.Builder
	for b.Loop() {
		sb.Reset()
		if err := (TSV{}).Write(&sb, r); err != nil {
			b.Fatal(err)
		}
	}
}

func TestConcurrentWrites(t *testing.T) {
	r := sampleReport()
	for _, name := range Formats() {
		for _, opts := range []Options{{Width: 120, Color: true}, {Width: 60}} {
			want := render(t, name, opts, r)
			rep, _ := New(name, opts)
			done := make(chan string)
			for range 4 {
				go func() {
					var b strings.Builder
					if err := rep.Write(&b, r); err != nil {
						b.WriteString(err.Error())
					}
					done <- b.String()
				}()
			}
			for range 4 {
				if got := <-done; got != want {
					t.Errorf("%s %+v: concurrent write differs", name, opts)
				}
			}
		}
	}
}

// FuzzTableText feeds arbitrary text into every user-provided field: the table and TSV must
// stay free of controls other than their own newlines (and tabs for TSV), keep one line per
// TSV row, and the table must fit its width.
func FuzzTableText(f *testing.F) {
	f.Add("\x1b[31mred", "evil\r\n.example", "name\tx", 60)
	f.Add("\x1b]8;;http://x\x1b\\link", "z\u202e", "\u009b2J", 120)
	f.Add(strings.Repeat("長い", 40), "例え.jp", strings.Repeat("x", 90), 100)
	f.Fuzz(func(t *testing.T, message, zone, name string, width int) {
		width = 40 + int(uint(width)%160)
		fs := []scanner.Finding{{
			RuleID: "firewall-rules", Severity: scanner.SeverityWarning, Message: message,
			Source: scanner.SourceLive, ZoneID: "z1", ZoneName: zone,
			Resource: scanner.Resource{Kind: "firewall_rule", ID: name, Name: name}, EndOfLife: "2026-01-01",
		}}
		r := NewReport(Input{Findings: fs, Errors: []scanner.RunError{{ZoneName: zone, What: name, Message: message}}})
		table := render(t, "table", Options{Width: width}, r)
		for _, line := range strings.Split(table, "\n") {
			if w := ansi.StringWidth(line); w > width {
				t.Fatalf("width %d: line is %d wide: %q", width, w, line)
			}
			for _, c := range line {
				if textsafe.IsControl(c) {
					t.Fatalf("table keeps %U: %q", c, line)
				}
			}
		}
		tsv := render(t, "tsv", Options{}, r)
		lines := strings.Split(strings.TrimSuffix(tsv, "\n"), "\n")
		if len(lines) != 2 || strings.Count(lines[1], "\t") != 5 {
			t.Fatalf("TSV broke its shape: %q", tsv)
		}
		for _, field := range strings.Split(lines[1], "\t") {
			if textsafe.Sanitize(field) != field {
				t.Fatalf("TSV field is not safe text: %q", field)
			}
		}
	})
}
