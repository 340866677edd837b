package repo

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner"
)

func TestConfig(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ConfigFileName)
	if err := os.WriteFile(p, []byte("paths: [infra, /abs]\nexclude: [\"legacy/**\"]\nfail_on: error\nmax_file_size: 1MiB\nbaseline: base.json\nrules:\n  disable: [dns-error-chain]\n  severity: {zone-setting-brotli: notice}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Paths[0] != filepath.Join(dir, "infra") || cfg.Paths[1] != "/abs" || cfg.Baseline != filepath.Join(dir, "base.json") || cfg.Source != p {
		t.Errorf("paths not resolved against the file: %+v", cfg)
	}
	c := NewChecker(nil, asOf)
	if err := cfg.Validate(c.KnownRule); err != nil {
		t.Error(err)
	}
	if !strings.Contains(string(cfg.YAML()), "zone-setting-brotli: notice") {
		t.Errorf("YAML: %s", cfg.YAML())
	}
	for _, bad := range []string{"fail_on: sometimes\n", "max_file_size: lots\n", "unknown: 1\n", "rules:\n  severity: {x: loud}\n", "paths: 3\n"} {
		if _, err := ParseConfig([]byte(bad), "bad.yaml"); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	cfg2, _ := ParseConfig([]byte("rules:\n  disable: [no-such-rule]\n"), "x.yaml")
	if err := cfg2.Validate(c.KnownRule); err == nil || !strings.Contains(err.Error(), "no-such-rule") {
		t.Errorf("unknown rule id not reported: %v", err)
	}
	if _, err := LoadConfig(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("missing file accepted")
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"5MiB": 5 << 20, "500KB": 500000, "1048576": 1 << 20, "2 GiB": 2 << 30, "10b": 10} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1", "0", "5XB", "1e3"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

func TestBaselineAndPolicy(t *testing.T) {
	c := NewChecker(nil, asOf)
	src := []byte("curl \"$API/zones/$Z/filters\"\ncurl \"$API/zones/$Z/rate_limits\"\n# sunset:ignore firewall-rules later\ncurl \"$API/zones/$Z/firewall/rules\"\n")
	fs := c.CheckFile("a.sh", KindText, src).Findings
	if len(fs) != 3 {
		t.Fatalf("%d findings", len(fs))
	}
	b := NewBaseline(fs)
	if len(b.Entries) != 2 {
		t.Fatalf("baseline must skip inline-suppressed findings: %+v", b.Entries)
	}
	var buf bytes.Buffer
	if err := b.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadBaseline(&buf)
	if err != nil || len(back.Entries) != 2 {
		t.Fatalf("%v %+v", err, back)
	}
	// Lines move and one call is fixed: nothing new, one stale entry.
	moved := []byte("\n\ncurl \"$API/zones/$Z/filters\"\n")
	got, stale := Policy{Baseline: back}.Apply(c.CheckFile("a.sh", KindText, moved).Findings)
	if len(got) != 1 || !got[0].Suppressed || got[0].SuppressedBy != SuppressedByBaseline {
		t.Errorf("moved finding not baselined: %+v", got)
	}
	if len(stale) != 1 || stale[0].RuleID != "rate-limiting-v1" {
		t.Errorf("stale %+v", stale)
	}
	// A new finding is not baselined; disabled rules and overrides apply.
	added := append(moved, []byte("curl \"$API/organizations/$O/members\"\n")...)
	got, _ = Policy{Baseline: back, Disabled: []string{"filters"}, Severity: map[string]scanner.Severity{"organizations-api": scanner.SeverityNotice}}.Apply(c.CheckFile("a.sh", KindText, added).Findings)
	if len(got) != 2 || got[0].SuppressedBy != SuppressedByConfig || got[1].Suppressed || got[1].Severity != scanner.SeverityNotice {
		t.Errorf("%+v", got)
	}
	got, _ = Policy{Severity: map[string]scanner.Severity{"organizations-api": scanner.SeverityNone}}.Apply(got)
	if len(got) != 1 {
		t.Errorf("severity none must drop the rule's findings: %+v", got)
	}
	for _, bad := range []string{`{"version": 2, "entries": []}`, `{"version": 1, "entries": [{"rule_id": "x"}]}`, `[]`, `{"version":1,"entries":[],"extra":1}`} {
		if _, err := ReadBaseline(strings.NewReader(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

// TestConfigUnknownKey: a misspelt key names itself with its line and every known key,
// not yaml's "field sevrity_typo not found in type repo.RulesConfig".
func TestConfigUnknownKey(t *testing.T) {
	known := "known keys: paths, include, exclude, fail_on, max_file_size, baseline, rules.disable, rules.severity"
	for in, want := range map[string]string{
		"fail_on: error\nrules:\n  sevrity_typo: {}\n": `unknown key "rules.sevrity_typo" in repo/.sunset.yaml (line 3); ` + known,
		"# settings\nfailon: error\n":                  `unknown key "failon" in repo/.sunset.yaml (line 2); ` + known,
	} {
		_, err := ParseConfig([]byte(in), "repo/.sunset.yaml")
		if err == nil || err.Error() != want {
			t.Errorf("%q: err %v\nwant %s", in, err, want)
		}
	}
	// Rule ids under severity are the file's own keys; a file of comments is empty.
	if _, err := ParseConfig([]byte("rules:\n  severity:\n    anything-goes: notice\n"), "c"); err != nil {
		t.Error(err)
	}
	if cfg, err := ParseConfig([]byte("# nothing yet\n"), "c"); err != nil || len(cfg.Paths) != 0 {
		t.Errorf("comments only: %+v, %v", cfg, err)
	}
}

// TestConfigYAMLShowsEveryKey: --print-config writes every key, the empty ones too, and a
// size in bytes in its exact unit.
func TestConfigYAMLShowsEveryKey(t *testing.T) {
	cfg := Config{Paths: []string{"."}, FailOn: "warning", MaxFileSize: "5242880"}
	out := string(cfg.YAML())
	for _, key := range []string{"paths:", "include: []", "exclude: []", "fail_on: warning", "max_file_size: 5MiB", `baseline: ""`, "rules:", "disable: []", "severity: {}"} {
		if !strings.Contains(out, key) {
			t.Errorf("YAML lacks %q:\n%s", key, out)
		}
	}
	if _, err := ParseConfig([]byte(out), "c"); err != nil {
		t.Errorf("own YAML does not read back: %v", err)
	}
	for n, want := range map[int64]string{5 << 20: "5MiB", 1 << 30: "1GiB", 2048: "2KiB", 1536: "1536", 1000: "1000"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %s, want %s", n, got, want)
		}
	}
}
