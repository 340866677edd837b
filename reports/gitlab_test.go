package reports

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

func TestGitLabGolden(t *testing.T) {
	golden(t, "gitlab.golden", []byte(render(t, "gitlab", Options{}, ciReport())))
}

func parseGitLab(t *testing.T, out string) []gitlabIssue {
	t.Helper()
	var issues []gitlabIssue
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&issues); err != nil {
		t.Fatalf("Code Quality report does not parse: %v\n%s", err, out)
	}
	if issues == nil {
		t.Fatalf("report is null, want an array:\n%s", out)
	}
	return issues
}

func TestGitLabIssues(t *testing.T) {
	r := ciReport()
	issues := parseGitLab(t, render(t, "gitlab", Options{}, r))
	if len(issues) != r.Summary.FindingsTotal {
		t.Fatalf("%d issues for %d active findings", len(issues), r.Summary.FindingsTotal)
	}
	severities := map[string]bool{"info": true, "minor": true, "major": true, "critical": true, "blocker": true}
	fingerprints := map[string]bool{}
	k := 0
	for _, f := range r.Findings.All() {
		if f.Suppressed {
			continue
		}
		is := issues[k]
		k++
		if is.Type != "issue" || is.CheckName != textsafe.Sanitize(string(f.RuleID)) || !severities[is.Severity] || is.Description == "" ||
			len(is.Categories) != 1 || is.Location.Path == "" || is.Location.Lines.Begin < 1 {
			t.Errorf("issue for %s: %+v", f.Fingerprint, is)
		}
		if fingerprints[is.Fingerprint] {
			t.Errorf("fingerprint %q repeated", is.Fingerprint)
		}
		fingerprints[is.Fingerprint] = true
	}
	want := []gitlabLocation{
		{"zone:example.com", gitlabLines{1}},
		{"zone:example.com", gitlabLines{1}},
		{"zone:example.org", gitlabLines{1}},
		{"account:a1", gitlabLines{1}},
		{"infra/waf.tf", gitlabLines{12}},
		{"envs/prod, eu:west/zone settings%.tf", gitlabLines{7}},
		{"zone:evil|zone`<b>.example", gitlabLines{1}},
	}
	for i, w := range want {
		if issues[i].Location != w {
			t.Errorf("issue %d location = %+v, want %+v", i, issues[i].Location, w)
		}
	}
	if is := issues[0]; is.Severity != "critical" || is.Fingerprint != "fp1" ||
		is.Description != `Firewall rule "block bots" uses the retired firewall rules API; migrate it to a custom rule. (end of life 2025-06-15)` {
		t.Errorf("first issue = %+v", is)
	}
	if issues[1].Severity != "major" || issues[3].Severity != "info" {
		t.Errorf("severities: warning -> %s, notice -> %s", issues[1].Severity, issues[3].Severity)
	}
}

func TestGitLabSeverity(t *testing.T) {
	for sev, want := range map[scanner.Severity]string{
		scanner.SeverityError: "critical", scanner.SeverityWarning: "major", scanner.SeverityNotice: "info", scanner.SeverityNone: "info",
	} {
		if got := gitlabSeverity(sev); got != want {
			t.Errorf("%s -> %s, want %s", sev, got, want)
		}
	}
}

func TestGitLabFingerprints(t *testing.T) {
	fs := sampleFindings()
	// Two findings with one fingerprint (one object, two messages) and two without one.
	fs[1].Fingerprint = fs[0].Fingerprint
	fs[3].Fingerprint, fs[5].Fingerprint = "", ""
	issues := parseGitLab(t, render(t, "gitlab", Options{}, NewReport(Input{Findings: fs})))
	if issues[0].Fingerprint != "fp1" || issues[1].Fingerprint != "fp1#2" {
		t.Errorf("repeated fingerprint: %q, %q", issues[0].Fingerprint, issues[1].Fingerprint)
	}
	derived := issues[2].Fingerprint
	if len(derived) != 32 || derived == issues[4].Fingerprint {
		t.Errorf("derived fingerprints %q, %q", derived, issues[4].Fingerprint)
	}
	// Derived fingerprints do not move with the line.
	moved := append([]scanner.Finding(nil), fs...)
	loc := *moved[5].Location
	loc.StartLine, loc.EndLine = 40, 46
	moved[5].Location = &loc
	again := parseGitLab(t, render(t, "gitlab", Options{}, NewReport(Input{Findings: moved})))
	if again[4].Fingerprint != issues[4].Fingerprint || again[4].Location.Lines.Begin != 40 {
		t.Errorf("fingerprint moved with the line: %q -> %q", issues[4].Fingerprint, again[4].Fingerprint)
	}
}

func TestGitLabEmpty(t *testing.T) {
	if out := render(t, "gitlab", Options{}, NewReport(Input{})); out != "[]\n" {
		t.Errorf("empty report = %q, want []", out)
	}
	// Only suppressed findings: still an empty array.
	fs := sampleFindings()[2:3]
	if out := render(t, "gitlab", Options{}, NewReport(Input{Findings: fs})); out != "[]\n" {
		t.Errorf("suppressed only = %q, want []", out)
	}
}
