package reports

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
	"github.com/sunsetscan/sunset/scanner/vocab"
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
	// A message as long as the real ones wraps in its column on a wide terminal.
	fs := sampleFindings()
	fs[0].Message = remedyMessage
	r := NewReport(Input{AsOf: asOf, Findings: fs, Counts: Counts{ZonesScanned: 3, FilesScanned: 1}})
	golden(t, "table-200.txt", []byte(render(t, "table", Options{Width: 200}, r)))
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
				if w := ansi.StringWidth(line); w > width && !isLinkLine(line) {
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
		"Account a1",
		"Zone example.com (023e105f4ecef8ad9ca31a8372d0c353)",
		"Zone example.org (9a7806061c88ada191ed06f989cc3dac)",
		"File infra/waf.tf",
		"Could not read (1 error):",
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
	if !strings.Contains(out, "line 12: Terraform resource cloudflare_firewall_rule.block") {
		t.Errorf("file finding resource lacks its line:\n%s", out)
	}
	wantSummary := "3 zones scanned, 1 file scanned, 2 errors, 2 warnings, 1 notice, 1 zone failed, 0 files failed, 1 suppressed\n"
	if !strings.HasSuffix(out, "\n\n"+wantSummary) {
		t.Errorf("summary line: want %q at the end of:\n%s", wantSummary, out)
	}
}

// headingOrder returns the offsets of each heading (a whole line) in out, failing the test
// when one is missing or they are out of order.
func headingOrder(t *testing.T, out string, headings ...string) {
	t.Helper()
	last := -1
	for _, h := range headings {
		i := strings.Index("\n"+out, "\n"+h+"\n")
		if i < 0 || i < last {
			t.Errorf("heading %q missing or out of order in:\n%s", h, out)
		}
		last = i
	}
}

// remedyMessage is a finding's message as long as the real ones, with the remedy at its end.
const remedyMessage = `Firewall rule "Internal health checks skip WAF, rate limiting and security level" (id ` +
	`89bb302659c4f80d1130630344bf6302): action bypass (products waf, rateLimit, securityLevel), priority 2, ` +
	`active; its filter be67e6384987b49fa8c42ee9f7522ef2 parses. The firewall rules API is past its end of ` +
	`life (2025-01-15): recreate the rule as a custom rule (phase http_request_firewall_custom) with action ` +
	`skip with action_parameters {"products": [waf, rateLimit, securityLevel]}.`

// isLinkLine reports whether a line is a documentation link (alone, or after its rule id):
// the one line the table lets be wider than the terminal, so that it can be followed.
func isLinkLine(line string) bool {
	f := strings.Fields(line)
	return len(f) > 0 && len(f) <= 2 && strings.HasPrefix(f[len(f)-1], "https://") &&
		(len(f) == 1 || strings.HasSuffix(f[0], ":"))
}

// tableEntries reads a table back: each finding's text (its line under the rule's line, with
// the lines it wrapped to) and each rule's text under "How to fix" (with its link), wrapped
// lines joined with spaces.
func tableEntries(out string) (findings []string, advice map[string]string) {
	advice = map[string]string{}
	inAdvice, rule := false, ""
	for _, line := range strings.Split(out, "\n") {
		text := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "How to fix"):
			inAdvice = true
		case line == "" || !strings.HasPrefix(line, " "):
			continue
		case inAdvice && !strings.HasPrefix(line, "    "):
			rule, text, _ = strings.Cut(text, ": ")
			rule = strings.TrimSuffix(rule, ":")
			advice[rule] = text
		case inAdvice:
			advice[rule] = strings.TrimSpace(advice[rule] + " " + text)
		case strings.HasPrefix(line, "      "):
			findings[len(findings)-1] += " " + text
		case strings.HasPrefix(line, "    "):
			findings = append(findings, text)
		}
	}
	return findings, advice
}

// words are the words of a text, lower case, without the punctuation around them.
func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(s) {
		out[strings.ToLower(strings.Trim(w, ".,;:"))] = true
	}
	return out
}

// TestTableSaysEveryWordOnce: at 200, 120, 80 and 60 columns and without a width, every word
// of each finding's message is in its own entry or in its rule's "How to fix" entry, which is
// written once; nothing but links is wider than the terminal; and the demo's table is a
// fraction of the 606 lines at 120 columns it took when each finding repeated its advice.
func TestTableSaysEveryWordOnce(t *testing.T) {
	fs := sampleFindings()
	fs[0].Message = remedyMessage
	r := NewReport(Input{AsOf: asOf, Findings: fs, Counts: Counts{ZonesScanned: 3, FilesScanned: 1}})
	demo := readFixtureReport(t, "demo-report.json")
	for _, width := range []int{200, 120, 80, 60, 0} {
		for name, rep := range map[string]*Report{"sample": r, "demo": demo} {
			out := render(t, "table", Options{Width: width}, rep)
			entries, advice := tableEntries(out)
			for _, f := range rep.Findings.All() {
				if !f.Suppressed && !entryHolds(entries, advice[string(f.RuleID)], f.Message) {
					t.Errorf("%s, width %d: no entry holds every word of %q (advice %q)", name, width, f.Message, advice[string(f.RuleID)])
				}
			}
			for i, line := range strings.Split(out, "\n") {
				if w := ansi.StringWidth(line); width > 0 && w > width && !isLinkLine(line) {
					t.Errorf("%s, width %d: line %d is %d wide: %q", name, width, i+1, w, line)
				}
			}
		}
	}
	out := render(t, "table", Options{}, demo)
	const said = "The firewall rules API is past its end of life (2025-01-15)."
	if n := strings.Count(out, said); n != 1 {
		t.Errorf("%q said %d times, want once", said, n)
	}
	if n := strings.Count(render(t, "table", Options{Width: 120}, demo), "\n"); n > 400 {
		t.Errorf("the demo's table is %d lines at 120 columns, want at most 400", n)
	}
}

// entryHolds reports whether one of the entries, with the rule's advice, has every word of msg.
func entryHolds(entries []string, advice, msg string) bool {
	have := words(advice)
	for _, e := range entries {
		ew := words(e)
		all := true
		for w := range words(msg) {
			if !ew[w] && !have[w] {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// TestTableOrder: accounts, zones and files each sorted by name regardless of case (an
// account by its name, not its id), a file's findings by line then column, whatever the
// report's order.
func TestTableOrder(t *testing.T) {
	file := func(path string, line, col int, name string) scanner.Finding {
		return scanner.Finding{RuleID: "firewall-rules", Severity: scanner.SeverityError, Message: "m " + name,
			Source: scanner.SourceFile, Resource: scanner.Resource{Kind: "cloudflare_firewall_rule", Name: name},
			Location: &scanner.Location{Path: path, StartLine: line, StartColumn: col}}
	}
	zone := func(account, id, name string) scanner.Finding {
		return scanner.Finding{RuleID: "firewall-rules", Severity: scanner.SeverityWarning, Message: "m " + name,
			Source: scanner.SourceLive, AccountID: account, ZoneID: id, ZoneName: name,
			Resource: scanner.Resource{Kind: "firewall_rule", ID: "r-" + name}}
	}
	account := func(id string) scanner.Finding {
		return scanner.Finding{RuleID: "access-bookmarks-api", Severity: scanner.SeverityNotice, Message: "m " + id,
			Source: scanner.SourceLive, AccountID: id, Resource: scanner.Resource{Kind: "access_bookmark", ID: "b-" + id}}
	}
	fs := []scanner.Finding{
		file("b.tf", 1, 1, "b_first"),
		file("a.tf", 30, 1, "a_line30"),
		zone("aaa", "z2", "zeta.example"),
		account("aaa"),
		file("a.tf", 5, 10, "a_line5_col10"),
		zone("zzz", "z1", "alpha.example"),
		account("zzz"),
		file("a.tf", 5, 2, "a_line5_col2"),
	}
	r := NewReport(Input{Findings: fs, AccountNames: map[string]string{"aaa": "Zulu Corp", "zzz": "alpha Inc"}})
	for _, opts := range []Options{{}, {Width: 160}, {Width: 80}} {
		out := render(t, "table", opts, r)
		headingOrder(t, out, "Account alpha Inc (zzz)", "Account Zulu Corp (aaa)",
			"Zone alpha.example (z1)", "Zone zeta.example (z2)", "File a.tf", "File b.tf")
		last := -1
		for _, name := range []string{"line 5: m a_line5_col2", "line 5: m a_line5_col10", "line 30: m a_line30", "line 1: m b_first"} {
			i := strings.Index(out, name)
			if i < 0 || i < last {
				t.Errorf("%+v: file finding %q missing or out of line order:\n%s", opts, name, out)
			}
			last = i
		}
	}
}

// TestTableAccountNames: an account the report names is shown by name with its id in
// parentheses, in its heading and its read errors, also after a round trip through the JSON
// report (what sunset report re-renders); an account without a name by its id.
func TestTableAccountNames(t *testing.T) {
	fs := []scanner.Finding{
		{RuleID: "access-bookmarks-api", Severity: scanner.SeverityNotice, Message: "m", Source: scanner.SourceLive,
			AccountID: "47da6e62", Resource: scanner.Resource{Kind: "access_bookmark", ID: "b1"}},
		{RuleID: "access-bookmarks-api", Severity: scanner.SeverityNotice, Message: "m", Source: scanner.SourceLive,
			AccountID: "5ed2b0f0", Resource: scanner.Resource{Kind: "access_bookmark", ID: "b2"}},
	}
	r := NewReport(Input{
		Findings:     fs,
		Errors:       []scanner.RunError{{AccountID: "47da6e62", What: "tunnels", Message: "HTTP 500"}},
		AccountNames: map[string]string{"47da6e62": "Acme\x1b[31m Retail"},
	})
	var b strings.Builder
	if err := (JSON{}).Write(&b, r); err != nil {
		t.Fatal(err)
	}
	back, err := ReadReport(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	for name, rep := range map[string]*Report{"report": r, "read back": back} {
		out := render(t, "table", Options{Width: 120}, rep)
		headingOrder(t, out, "Account 5ed2b0f0", "Account Acme Retail (47da6e62)") // by what is shown
		if !strings.Contains(out, "\n  account Acme Retail (47da6e62): tunnels: HTTP 500\n") {
			t.Errorf("%s: the read error does not name the account:\n%s", name, out)
		}
	}
}

// ruleCounts parses "Rules hit" of a table: rule id -> counts per severity. It reads both
// layouts: columns ERROR WARNING NOTICE RULE, or stacked "N severity" lines beside the rule.
func ruleCounts(t *testing.T, out string, ids map[string]bool) map[string]SeverityCounts {
	t.Helper()
	_, block, ok := strings.Cut(out, "\nRules hit:\n")
	if !ok {
		t.Fatalf("no Rules hit in:\n%s", out)
	}
	block, _, _ = strings.Cut(block, "\n\n")
	lines := strings.Split(block, "\n")
	counts := map[string]SeverityCounts{}
	add := func(rule string, sev string, n int) {
		c := counts[rule]
		switch sev {
		case "error":
			c.Error += n
		case "warning":
			c.Warning += n
		case "notice":
			c.Notice += n
		default:
			t.Fatalf("unknown severity %q in:\n%s", sev, block)
		}
		counts[rule] = c
	}
	stacked := strings.HasPrefix(lines[0], "FINDINGS")
	rule := ""
	for _, line := range lines[2:] {
		f := strings.Fields(line)
		switch {
		case !stacked:
			for i, sev := range []string{"error", "warning", "notice"} {
				if f[i] != "-" {
					n, err := strconv.Atoi(f[i])
					if err != nil {
						t.Fatalf("count %q in %q", f[i], line)
					}
					add(f[3], sev, n)
				}
			}
		case len(f) >= 2: // "N severity" beside the rule id, its title, or nothing
			n, err := strconv.Atoi(f[0])
			if err != nil {
				continue // a title line
			}
			if len(f) >= 3 && ids[f[2]] {
				rule = f[2]
			}
			add(rule, f[1], n)
		}
	}
	return counts
}

// ruleIDs are the ids of the rules a report's summary counts.
func ruleIDs(r *Report) map[string]bool {
	ids := map[string]bool{}
	for _, rc := range r.Summary.ByRule {
		ids[rc.RuleID] = true
	}
	return ids
}

// TestTableRulesHitMatchesSummary: "Rules hit" counts each rule's findings per severity (a
// rule that fires at several severities shows each), suppressed ones left out, and its
// columns add up to the summary's counts.
func TestTableRulesHitMatchesSummary(t *testing.T) {
	fs := sampleFindings()
	for _, sev := range []scanner.Severity{scanner.SeverityNotice, scanner.SeverityWarning, scanner.SeverityNotice} {
		f := fs[0]
		f.Severity = sev
		fs = append(fs, f)
	}
	r := NewReport(Input{AsOf: asOf, Findings: fs, Counts: Counts{ZonesScanned: 3, FilesScanned: 1}})
	demo := readFixtureReport(t, "demo-report.json")
	for _, width := range []int{0, 200, 120, 80, 60} {
		for name, rep := range map[string]*Report{"sample": r, "demo": demo} {
			counts := ruleCounts(t, render(t, "table", Options{Width: width}, rep), ruleIDs(rep))
			want := map[string]SeverityCounts{}
			for _, f := range rep.Findings.All() {
				if !f.Suppressed {
					c := want[string(f.RuleID)]
					c.add(f.Severity)
					want[string(f.RuleID)] = c
				}
			}
			var sum SeverityCounts
			for rule, c := range counts {
				sum.Error, sum.Warning, sum.Notice = sum.Error+c.Error, sum.Warning+c.Warning, sum.Notice+c.Notice
				if c != want[rule] {
					t.Errorf("%s, width %d: %s counts %+v, want %+v", name, width, rule, c, want[rule])
				}
			}
			if sum != rep.Summary.BySeverity || len(counts) != len(rep.Summary.ByRule) {
				t.Errorf("%s, width %d: rules hit add up to %+v over %d rules, the summary says %+v over %d",
					name, width, sum, len(counts), rep.Summary.BySeverity, len(rep.Summary.ByRule))
			}
		}
	}
	for _, width := range []int{120, 60} {
		out := render(t, "table", Options{Width: width}, r)
		if c := ruleCounts(t, out, ruleIDs(r))["firewall-rules"]; c != (SeverityCounts{Error: 2, Warning: 1, Notice: 2}) {
			t.Errorf("width %d: firewall-rules at three severities counts %+v:\n%s", width, c, out)
		}
	}
}

// TestWrapKeepsText: wrapping (plain, and with a hanging indent) only breaks lines, at spaces
// or inside a word wider than the width; it loses no character and no line is too wide.
func TestWrapKeepsText(t *testing.T) {
	texts := []string{
		remedyMessage,
		"two  spaces   and a " + strings.Repeat("longword", 12) + " end",
		" leading and trailing ",
		strings.Repeat("長い", 30) + " 例え.jp",
		"cloudflare_firewall_rule.a_very_long_terraform_address_that_does_not_fit (line 12)",
	}
	noSpace := func(s string) string { return strings.ReplaceAll(s, " ", "") }
	for _, s := range texts {
		for _, width := range []int{12, 25, 60} {
			var got []string
			for _, l := range strings.Split(wrapAt(s, width, resourceBreaks), "\n") {
				got = append(got, l)
				if w := ansi.StringWidth(l); w > width {
					t.Errorf("wrapAt(%q, %d): line %q is %d wide", s, width, l, w)
				}
			}
			if noSpace(strings.Join(got, "")) != noSpace(s) {
				t.Errorf("wrapAt(%q, %d) lost text: %q", s, width, got)
			}
			lines := hang(s, width, "  ", "    ")
			for i, l := range lines {
				prefix := "    "
				if i == 0 {
					prefix = "  "
				}
				if !strings.HasPrefix(l, prefix) || ansi.StringWidth(l) > width {
					t.Errorf("hang(%q, %d): line %d %q", s, width, i, l)
				}
			}
			if noSpace(strings.Join(lines, "")) != noSpace(s) {
				t.Errorf("hang(%q, %d) lost or repeated text: %q", s, width, lines)
			}
		}
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
		if len(lines) != 2 || strings.Count(lines[1], "\t") != len(tsvColumns)-1 {
			t.Fatalf("TSV broke its shape: %q", tsv)
		}
		for _, field := range strings.Split(lines[1], "\t") {
			if textsafe.Sanitize(field) != field {
				t.Fatalf("TSV field is not safe text: %q", field)
			}
		}
	})
}

// TestMessagePieces: a message is cut after ". ", "; " and ": " outside quotes and
// brackets, and its pieces joined give it back.
func TestMessagePieces(t *testing.T) {
	msg := `Firewall rule "Block: bots. Now; go" (id x; y): action block; its filter (a: b. c) parses. The API is past its end of life (2025-01-15): recreate it.`
	want := []string{`Firewall rule "Block: bots. Now; go" (id x; y):`, "action block;", "its filter (a: b. c) parses.",
		"The API is past its end of life (2025-01-15):", "recreate it."}
	got := messagePieces(msg)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("pieces:\n%q\nwant\n%q", got, want)
	}
	if strings.Join(got, " ") != msg {
		t.Errorf("joined: %q", strings.Join(got, " "))
	}
	// Left out, a piece that started a sentence hands its capital on; a text left ending in
	// ':' ends in a full stop.
	if s := joinPieces(got, func(i int) bool { return i != 3 }); !strings.HasSuffix(s, "parses. Recreate it.") {
		t.Errorf("without the fourth piece: %q", s)
	}
	if s := joinPieces(got, func(i int) bool { return i == 3 }); s != "The API is past its end of life (2025-01-15)." {
		t.Errorf("the fourth piece alone: %q", s)
	}
	if got := messagePieces(`unbalanced "quote: here. and on`); len(got) != 1 {
		t.Errorf("an unbalanced quote cut the message: %q", got)
	}
}

// TestRuleAdvice: only what every finding of a rule says, long enough to be advice and not
// its first piece, is shared; a rule with one finding shares nothing.
func TestRuleAdvice(t *testing.T) {
	f := func(rule, msg string) scanner.Finding {
		return scanner.Finding{RuleID: vocab.RuleID(rule), Severity: scanner.SeverityError, Message: msg, Source: scanner.SourceLive, ZoneName: "z"}
	}
	const eol = "The firewall rules API is past its end of life (2025-01-15):"
	r := NewReport(Input{Findings: []scanner.Finding{
		f("firewall-rules", `Rule "a" is active; enabled. `+eol+" recreate it with action block."),
		f("firewall-rules", `Rule "b" is paused; enabled. `+eol+" recreate it with action log."),
		f("filters", "Filter x is unused. The filters API is past its end of life (2025-01-15)."),
	}})
	adv := ruleAdvices(r)
	if a := adv["firewall-rules"]; a.text != "The firewall rules API is past its end of life (2025-01-15)." {
		t.Errorf("firewall-rules advice %q", a.text)
	}
	if got := adv["firewall-rules"].ownText(r.Findings.At(0).Message); got != `Rule "a" is active; enabled. Recreate it with action block.` {
		t.Errorf("own text %q", got)
	}
	if a := adv["filters"]; a.text != "" || a.ownText(r.Findings.At(2).Message) != r.Findings.At(2).Message {
		t.Errorf("a single finding shares %q", a.text)
	}
}

// TestTableKeepsALabelWithWhatItIntroduces: the findings of `sunset check` end "Use instead:
// REPLACEMENT", and a replacement may say "Terraform: ...". Said alike by every finding, it
// goes under "How to fix" with its label: no finding is left with "Use instead: Terraform."
func TestTableKeepsALabelWithWhatItIntroduces(t *testing.T) {
	rep := "Rate limiting rules of the zone's http_ratelimit entry-point ruleset (PUT /zones/:zone_id/rulesets/phases/http_ratelimit/entrypoint). " +
		`Terraform: cloudflare_ruleset with phase = "http_ratelimit".`
	var fs []scanner.Finding
	for i, call := range []string{"GET /zones/:zone_id/rate_limits (zones/${zoneId}/rate_limits)", "POST /zones/:zone_id/rate_limits (built as zones/{…}/rate_limits)"} {
		fs = append(fs, scanner.Finding{RuleID: "rate-limiting-v1", Severity: scanner.SeverityError, Source: scanner.SourceFile,
			Message:  "calls " + call + "; past its end of life (2025-01-15). Use instead: " + rep,
			Location: &scanner.Location{Path: "client.php", StartLine: 9 + i}, Resource: scanner.Resource{Kind: "endpoint", Name: "e" + strconv.Itoa(i)}})
	}
	out := render(t, "table", Options{}, NewReport(Input{AsOf: asOf, Findings: fs}))
	entries, advice := tableEntries(out)
	for _, e := range entries {
		if strings.Contains(e, "Use instead") || strings.Contains(e, "Terraform") {
			t.Errorf("a finding keeps a label without what it introduces: %q", e)
		}
	}
	if a := advice["rate-limiting-v1"]; !strings.Contains(a, "Use instead: Rate limiting rules") || !strings.Contains(a, "Terraform: cloudflare_ruleset") {
		t.Errorf("How to fix: %q\n%s", a, out)
	}
}

// TestTableAtScaleSumsUp: on a terminal, the table of 200 zones (13,000 lines listed one by
// one) is a summary: the rules hit first, the ten zones with the most to do (the one with
// most errors first, dated by its errors), how to fix each rule, and where every finding is;
// the same table written to a file (no width) lists every finding.
func TestTableAtScaleSumsUp(t *testing.T) {
	rep, _ := scaleFixture()
	out := render(t, "table", Options{Width: 120}, rep)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) > 150 || !strings.HasPrefix(out, "Rules hit:\n") {
		t.Errorf("the table of %d zones on a terminal is %d lines, starting %q", scaleZones, len(lines), lines[0])
	}
	_, top, ok := strings.Cut(out, fmt.Sprintf("\nThe %d zones and accounts with the most to do (of %d):\n", TableTopGroups, scaleZones+2))
	if !ok {
		t.Fatalf("no list of the zones with the most to do:\n%s", out)
	}
	top, _, _ = strings.Cut(top, "\n\n")
	// The first is the zone with the most errors, dated by the earliest of its errors' ends of
	// life, not by a notice's.
	most, errs, date := "", 0, ""
	byZone, dates := map[string]int{}, map[string]string{}
	for _, f := range rep.Findings.All() {
		if f.Severity == scanner.SeverityError && f.ZoneName != "" {
			byZone[f.ZoneName]++
			if d := dates[f.ZoneName]; d == "" || f.EndOfLife < d {
				dates[f.ZoneName] = f.EndOfLife
			}
		}
	}
	for z, n := range byZone {
		if n > errs {
			most, errs, date = z, n, dates[z]
		}
	}
	first := fmt.Sprintf("  %s: %d errors, ", most, errs)
	if n := strings.Count(top, "\n") + 1; n != TableTopGroups || !strings.HasPrefix(top, first) ||
		!strings.Contains(strings.Split(top, "\n")[0], "; past end of life since "+date) {
		t.Errorf("the %d zones with the most to do, want %q dated %s first:\n%s", n, first, date, top)
	}
	if !strings.Contains(out, "--format table:FILE") || strings.Contains(out, "\nZone ") {
		t.Errorf("the summary lists zones' findings, or does not say where they are:\n%s", out)
	}
	if !strings.Contains(out, "firewall-rules: Use instead: WAF custom rules") {
		t.Errorf("how to fix firewall rules is not said though no finding is listed:\n%s", out)
	}
	full := render(t, "table", Options{}, rep)
	if n := strings.Count(full, "\nZone "); n != scaleZones || strings.Contains(full, "with the most to do") {
		t.Errorf("the table in a file lists %d zones, want every one", n)
	}
}
