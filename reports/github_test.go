package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

func TestGitHubGolden(t *testing.T) {
	golden(t, "github.golden", []byte(render(t, "github", Options{}, ciReport())))
}

// ghCommand is a workflow command as the runner reads it.
type ghCommand struct {
	level string
	props map[string]string
	data  string
}

// runnerUnescape undoes the escaping the way the Actions runner does: %25 last.
func runnerUnescape(s string, property bool) string {
	pairs := []string{"%0D", "\r", "%0A", "\n"}
	if property {
		pairs = append(pairs, "%3A", ":", "%2C", ",")
	}
	for i := 0; i < len(pairs); i += 2 {
		s = strings.ReplaceAll(s, pairs[i], pairs[i+1])
	}
	return strings.ReplaceAll(s, "%25", "%")
}

// parseGitHub reads the output as the runner does, line by line: "::NAME PROPS::DATA" is a
// command, anything else is a log line.
func parseGitHub(t *testing.T, out string) (cmds []ghCommand, logLines []string) {
	t.Helper()
	if !strings.HasSuffix(out, "\n") {
		t.Fatalf("output does not end with a newline: %q", out)
	}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.ContainsRune(line, '\r') {
			t.Errorf("line holds a carriage return: %q", line)
		}
		if !strings.HasPrefix(line, "::") {
			logLines = append(logLines, line)
			continue
		}
		end := strings.Index(line[2:], "::")
		if end < 0 {
			t.Fatalf("unterminated command: %q", line)
		}
		info, data := line[2:2+end], line[2+end+2:]
		name, propText, _ := strings.Cut(info, " ")
		c := ghCommand{level: name, props: map[string]string{}, data: runnerUnescape(data, false)}
		if propText != "" {
			for _, kv := range strings.Split(propText, ",") {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					t.Fatalf("property without '=': %q in %q", kv, line)
				}
				if _, dup := c.props[k]; dup {
					t.Fatalf("property %s twice in %q", k, line)
				}
				c.props[k] = runnerUnescape(v, true)
			}
		}
		cmds = append(cmds, c)
	}
	return cmds, logLines
}

func TestGitHubAnnotations(t *testing.T) {
	r := ciReport()
	cmds, logLines := parseGitHub(t, render(t, "github", Options{}, r))
	if len(logLines) != 1 || logLines[0] != "sunset: 4 zones scanned, 3 files scanned, 3 errors, 3 warnings, 1 notice, 2 zones failed, 1 file failed, 2 suppressed" {
		t.Errorf("log lines = %q", logLines)
	}
	// One annotation per active finding, in report order, then the incomplete-scan warning.
	var active []int
	for i, f := range r.Findings.All() {
		if !f.Suppressed {
			active = append(active, i)
		}
	}
	if len(cmds) != len(active)+1 {
		t.Fatalf("%d commands for %d active findings", len(cmds), len(active))
	}
	for k, i := range active {
		f, c := r.Findings.At(i), cmds[k]
		if want := githubLevel(f.Severity); c.level != want {
			t.Errorf("finding %d: ::%s, want ::%s", i, c.level, want)
		}
		if f.Location == nil {
			if _, ok := c.props["file"]; ok || c.props["line"] != "" {
				t.Errorf("live finding %d has a file: %+v", i, c.props)
			}
			if !strings.HasPrefix(c.props["title"], textsafe.Sanitize(string(f.RuleID))+": ") {
				t.Errorf("live finding %d title %q", i, c.props["title"])
			}
		} else if c.props["file"] != slashPath(f.Location.Path) {
			t.Errorf("finding %d: file %q, want %q", i, c.props["file"], slashPath(f.Location.Path))
		}
		if !strings.HasPrefix(c.data, textsafe.Sanitize(f.Message)) {
			t.Errorf("finding %d: data %q does not start with the message", i, c.data)
		}
	}
	if got := cmds[0]; got.props["title"] != "firewall-rules: zone example.com, firewall_rule block bots" ||
		got.data != `Firewall rule "block bots" uses the retired firewall rules API; migrate it to a custom rule.`+"\nEnd of life: 2025-06-15. Replacement: custom rules. Documentation: https://example.invalid/fw" {
		t.Errorf("first annotation = %+v", got)
	}
	if got := cmds[3]; got.props["title"] != "access-bookmarks-api: account a1, access_bookmark a1" {
		t.Errorf("account annotation title = %q", got.props["title"])
	}
	// The path with a comma, colon, space and percent sign reads back whole, with all positions.
	wantProps := map[string]string{"file": "envs/prod, eu:west/zone settings%.tf", "line": "7", "col": "5", "endLine": "7", "endColumn": "31",
		"title": "cname-flattening-setting: CNAME flattening setting"}
	if got := cmds[5].props; !equalMaps(got, wantProps) {
		t.Errorf("file annotation props = %v, want %v", got, wantProps)
	}
	// The hostile finding: its text reads back as sanitised, and injected commands stay data.
	hostile := cmds[6]
	if hostile.data != "SRV record "+textsafe.Sanitize(hostileText)+"\nEnd of life: 2025-12-31. Replacement: name "+textsafe.Sanitize(hostileText)+"." {
		t.Errorf("hostile data = %q", hostile.data)
	}
	if !strings.Contains(hostile.props["title"], "::error ::pwned %0A 100%") {
		t.Errorf("hostile title = %q", hostile.props["title"])
	}
	last := cmds[len(cmds)-1]
	if last.level != "warning" || last.props["title"] != "sunset: incomplete scan" || !strings.Contains(last.data, "\n- broken.example: firewall rules: HTTP 500 after 3 attempts") {
		t.Errorf("incomplete warning = %+v", last)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestGitHubEscaping(t *testing.T) {
	for _, s := range []string{
		"plain", "100%", "%0A literal", "%%25", "a\r\nb", "::error file=x::boom", "a,b:c", "%3A%2C", "\n::warning::injected\n", hostileText,
	} {
		data, prop := escapeGitHubData(s), escapeGitHubProperty(s)
		if strings.ContainsAny(data, "\r\n") || strings.ContainsAny(prop, "\r\n:,") {
			t.Errorf("%q: escaped data %q or property %q keeps a separator", s, data, prop)
		}
		if got := runnerUnescape(data, false); got != s {
			t.Errorf("data %q reads back as %q", s, got)
		}
		if got := runnerUnescape(prop, true); got != s {
			t.Errorf("property %q reads back as %q", s, got)
		}
	}
	if got := escapeGitHubProperty("a%b\r\nc:d,e"); got != "a%25b%0D%0Ac%3Ad%2Ce" {
		t.Errorf("escapeGitHubProperty = %q", got)
	}
	if got := escapeGitHubData("a%b\r\nc:d,e"); got != "a%25b%0D%0Ac:d,e" {
		t.Errorf("escapeGitHubData = %q", got)
	}
	// A hostile file name cannot add a property or end the command; controls are dropped.
	fs := sampleFindings()[5:6]
	fs[0].Location.Path = "x,line=1::\x1b[2Jy\n::error::z.tf"
	cmds, logLines := parseGitHub(t, render(t, "github", Options{}, NewReport(Input{Findings: fs})))
	if len(cmds) != 1 || len(logLines) != 1 || cmds[0].props["file"] != "x,line=1::[2Jy::error::z.tf" || cmds[0].props["line"] != "12" {
		t.Errorf("hostile path: %+v, log %q", cmds, logLines)
	}
}

func TestGitHubLimits(t *testing.T) {
	count := func(cmds []ghCommand) map[string]int {
		n := map[string]int{}
		for _, c := range cmds {
			n[c.level]++
		}
		return n
	}
	// Exactly ten of each: all annotated, no summary.
	cmds, _ := parseGitHub(t, render(t, "github", Options{}, NewReport(Input{Findings: manyFindings(10)})))
	if n := count(cmds); n["error"] != 10 || n["warning"] != 10 || n["notice"] != 10 {
		t.Errorf("ten of each: %v", n)
	}
	for _, c := range cmds {
		if strings.Contains(c.props["title"], "more") {
			t.Errorf("summary annotation with ten of a kind: %+v", c)
		}
	}
	// Twenty-five of each, and an incomplete scan: ten per type at most, the last says how many
	// more there are.
	r := NewReport(Input{Findings: manyFindings(25), Counts: Counts{ZonesFailed: 1}})
	cmds, _ = parseGitHub(t, render(t, "github", Options{}, r))
	if n := count(cmds); n["error"] != 10 || n["warning"] != 10 || n["notice"] != 10 {
		t.Errorf("25 of each: %v", n)
	}
	summaries := map[string]string{}
	for _, c := range cmds {
		if strings.Contains(c.props["title"], "more") {
			summaries[c.level] = c.props["title"]
		}
	}
	want := map[string]string{"error": "sunset: 16 more errors", "warning": "sunset: 17 more warnings", "notice": "sunset: 16 more notices"}
	if !equalMaps(summaries, want) {
		t.Errorf("summaries = %v, want %v", summaries, want)
	}
	// Eleven warnings and an incomplete scan: eight annotated, one summary, the incomplete one.
	r = NewReport(Input{Findings: manyFindings(11)[11:22], Counts: Counts{FilesFailed: 1}})
	cmds, _ = parseGitHub(t, render(t, "github", Options{}, r))
	if n := count(cmds); n["warning"] != 10 || len(cmds) != 10 || cmds[8].props["title"] != "sunset: 3 more warnings" {
		t.Errorf("eleven warnings, incomplete: %v", cmds)
	}
}

func TestGitHubStepSummary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "step_summary.md")
	if err := os.WriteFile(path, []byte("from an earlier step\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := ciReport()
	out := render(t, "github", Options{StepSummary: path}, r)
	if !strings.Contains(out, "::error ") {
		t.Errorf("no annotations with a step summary:\n%s", out)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	md := render(t, "markdown", Options{}, r)
	if string(got) != "from an earlier step\n"+md {
		t.Errorf("step summary file:\n%s\nwant the earlier content then the Markdown report", got)
	}
	// Appended again, not overwritten.
	render(t, "github", Options{StepSummary: path}, r)
	if got2, _ := os.ReadFile(path); !bytes.Equal(got2, append(got, md...)) {
		t.Error("a second write did not append")
	}
	// An unwritable summary is an error that names it.
	rep, _ := New("github", Options{StepSummary: t.TempDir()}) // a directory
	if err := rep.Write(&bytes.Buffer{}, r); err == nil || !strings.Contains(err.Error(), "job summary") {
		t.Errorf("writing the summary to a directory: %v", err)
	}
}

func TestGitHubEmpty(t *testing.T) {
	out := render(t, "github", Options{}, NewReport(Input{Counts: Counts{ZonesScanned: 2}}))
	if out != "sunset: 2 zones scanned, 0 errors, 0 warnings, 0 notices, 0 zones failed\n" {
		t.Errorf("empty report: %q", out)
	}
}

// TestGitHubSaysTheReplacementOnce: a file finding's message says what to use instead, so the
// annotation does not repeat it as "Replacement:", nor an end of life the message dates.
func TestGitHubSaysTheReplacementOnce(t *testing.T) {
	rep := `WAF custom rules: rules of the zone's entry-point ruleset of phase http_request_firewall_custom`
	f := ciFindings()[0]
	f.Location = &scanner.Location{Path: "rules.json", StartLine: 1, StartColumn: 2}
	f.Replacement, f.EndOfLife = rep, "2025-01-15"
	f.Message = "firewall rule /0 (id r1) (action block); past its end of life (2025-01-15). Use instead: " + rep
	cmds, _ := parseGitHub(t, render(t, "github", Options{}, NewReport(Input{Findings: []scanner.Finding{f}})))
	if got := strings.Count(cmds[0].data, rep); got != 1 {
		t.Errorf("the replacement is said %d times:\n%s", got, cmds[0].data)
	}
	if strings.Count(cmds[0].data, "2025-01-15") != 1 || !strings.Contains(cmds[0].data, "Documentation: ") {
		t.Errorf("the end of life twice, or no link:\n%s", cmds[0].data)
	}
}

// TestGitHubLinesStayShort: however long a finding's message, title or replacement, no
// annotation line passes GitHubLineLimit: the message is cut at a word, says where the whole
// is, and keeps its documentation link.
func TestGitHubLinesStayShort(t *testing.T) {
	f := ciFindings()[0]
	f.Message = strings.Repeat("the rule does a thing, ", 150) + "end"
	f.Title = strings.Repeat("title ", 100)
	f.Replacement = strings.Repeat("replacement ", 100)
	f.ZoneName = strings.Repeat("z", 400) + ".example"
	r := NewReport(Input{Findings: []scanner.Finding{f}, Errors: []scanner.RunError{{ZoneName: "a.example", What: "firewall rules", Message: strings.Repeat("HTTP 500 ", 200)}}})
	for _, summary := range []string{"", filepath.Join(t.TempDir(), "summary.md")} {
		out := render(t, "github", Options{StepSummary: summary}, r)
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if n := utf8.RuneCountInString(line); n > GitHubLineLimit {
				t.Errorf("a line of %d characters, more than %d: %.120s…", n, GitHubLineLimit, line)
			}
		}
		cmds, _ := parseGitHub(t, out)
		where := "the JSON or Markdown report"
		if summary != "" {
			where = "the job summary"
		}
		msg := cmds[0].data
		if !strings.Contains(msg, "… (cut: the whole message is in "+where+")") || !strings.HasSuffix(msg, "\nDocumentation: "+f.DocURL) ||
			strings.Contains(msg, "does a thi…") || utf8.RuneCountInString(cmds[0].props["title"]) > GitHubTitleLimit {
			t.Errorf("cut message (summary %q): %q", summary, msg)
		}
	}
}
