package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner"
)

// fileLine is a line of `--format line` for a file finding: path:line[:col]: severity rule: message.
var fileLine = regexp.MustCompile(`^([^:]+):(\d+)(:\d+)?: (error|warning|notice) ([a-z0-9-]+): \S.*$`)

// TestCheckFormatLine: `sunset check --format line` prints one compiler-style line per
// finding, the same findings as the JSON report, to stdout or to the file after the colon.
func TestCheckFormatLine(t *testing.T) {
	dir := checkRepo(t, map[string]string{
		"a.sh":         "curl \"$API/zones/$Z/filters\"\ncurl \"$API/zones/$Z/firewall/rules\"\n",
		"infra/b.sh":   "# nothing here\n  curl \"$API/zones/$Z/filters\"\n",
		".sunset.yaml": "rules:\n  severity:\n    filters: notice\n",
	})
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	r := runSunset(t, nil, "check", "--as-of", "2025-07-01", "--fail-on", "none", "--format", "line", "--format", "json:"+jsonPath, dir)
	if r.code != ExitOK {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	rep := readReportFile(t, jsonPath)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != len(rep.Findings.Slice()) || len(lines) < 3 {
		t.Fatalf("%d lines for %d findings:\n%s", len(lines), len(rep.Findings.Slice()), r.stdout)
	}
	for _, f := range rep.Findings.Slice() {
		want := f.Location.Path + ":" + strconv.Itoa(f.Location.StartLine)
		if f.Location.StartColumn > 0 {
			want += ":" + strconv.Itoa(f.Location.StartColumn)
		}
		want += ": " + f.Severity.String() + " " + string(f.RuleID) + ": " + f.Message
		if !containsLine(lines, want) {
			t.Errorf("no line %q in:\n%s", want, r.stdout)
		}
	}
	for _, line := range lines {
		if !fileLine.MatchString(line) {
			t.Errorf("line not in the compiler's shape: %q", line)
		}
	}

	out := filepath.Join(t.TempDir(), "out.txt")
	r2 := runSunset(t, nil, "check", "--as-of", "2025-07-01", "--fail-on", "none", "--format", "line:"+out, dir)
	written, err := os.ReadFile(out)
	if err != nil || r2.code != ExitOK {
		t.Fatalf("line:%s: exit %d, %v; stderr %s", out, r2.code, err, r2.stderr)
	}
	if string(written) != r.stdout || strings.Contains(r2.stdout, "a.sh") {
		t.Errorf("line:PATH wrote %q (stdout %q), want what --format line printed", written, r2.stdout)
	}
}

// TestScanFormatLine: `sunset scan --format line` on the demo account prints one line per
// finding, "zone: severity rule object: message", with "account:ID" in the zone's place for
// account-level findings, and exits as the gate says.
func TestScanFormatLine(t *testing.T) {
	_, base := sharedEmulator(t)
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	r := runSunset(t, demoEnv(), "scan", "--api-url", base, "--rps", "0", "--as-of", "2025-02-01", "--fail-on", "error",
		"--format", "line", "--format", "json:"+jsonPath)
	if r.code != ExitFindings {
		t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
	}
	rep := readReportFile(t, jsonPath)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != len(rep.Findings.Slice()) {
		t.Fatalf("%d lines for %d findings:\n%s", len(lines), len(rep.Findings.Slice()), r.stdout)
	}
	accounts := 0
	for _, f := range rep.Findings.Slice() {
		place := f.ZoneName
		if place == "" {
			place, accounts = "account:"+f.AccountID, accounts+1
		}
		prefix := place + ": " + f.Severity.String() + " " + string(f.RuleID) + " "
		if !hasLine(lines, func(l string) bool { return strings.HasPrefix(l, prefix) && strings.HasSuffix(l, ": "+f.Message) }) {
			t.Errorf("no line %q...%q", prefix, f.Message)
		}
	}
	if accounts == 0 {
		t.Error("the demo has account-level findings; none was checked")
	}
	if rep.Summary.BySeverity.Error == 0 || !strings.Contains(r.stdout, ": "+scanner.SeverityError.String()+" firewall-rules firewall_rule ") {
		t.Errorf("firewall rule findings missing:\n%s", r.stdout)
	}
}

// containsLine reports whether want is one of lines.
func containsLine(lines []string, want string) bool {
	return hasLine(lines, func(l string) bool { return l == want })
}

// hasLine reports whether one of lines satisfies ok.
func hasLine(lines []string, ok func(string) bool) bool {
	for _, l := range lines {
		if ok(l) {
			return true
		}
	}
	return false
}
