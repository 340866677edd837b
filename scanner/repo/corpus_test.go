package repo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner"
)

// corpus returns the real-world corpus folder, skipping when SUNSET_CORPUS is unset.
func corpus(t testing.TB) string {
	dir := os.Getenv("SUNSET_CORPUS")
	if dir == "" {
		t.Skip("SUNSET_CORPUS is not set: the real-world corpus tests need the shared/realworld folder")
	}
	return dir
}

// TestCorpusFixtures checks the recorded API bodies and the rule exports: no crash, and the
// deprecated objects each holds are found.
func TestCorpusFixtures(t *testing.T) {
	dir := corpus(t)
	res, err := Check(context.Background(), Options{Paths: []string{filepath.Join(dir, "api"), filepath.Join(dir, "exports")}, AsOf: asOf})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 0 {
		t.Errorf("errors: %+v", res.Errors)
	}
	byFile := map[string]map[string]int{}
	for _, f := range res.Findings {
		name := filepath.Base(f.Location.Path)
		if byFile[name] == nil {
			byFile[name] = map[string]int{}
		}
		byFile[name][string(f.RuleID)]++
	}
	// What the fixture names promise (rule and at least that many findings).
	want := map[string]map[string]int{
		"firewall_rules.list.cloudflare-go.json":                                  {"firewall-rules": 5, RuleExpression: 2},
		"firewall_rules.list.cf-terraforming.json":                                {"firewall-rules": 1},
		"firewall_rules.create_multiple.cloudflare-go.request.json":               {"firewall-rules": 2},
		"filters.list.cloudflare-go.json":                                         {"filters": 5},
		"filters.create_multiple.cloudflare-go.request.json":                      {"filters": 2},
		"rate_limits.list.cloudflare-go.json":                                     {"rate-limiting-v1": 1},
		"rate_limits.list.page2of2.cloudflare-go.json":                            {"rate-limiting-v1": 1},
		"waf_packages.list.cloudflare-go.json":                                    {"waf-managed-rules-v1": 1},
		"waf_groups.list.cloudflare-go.json":                                      {"waf-managed-rules-v1": 1},
		"waf_rules.list.cloudflare-go.json":                                       {"waf-managed-rules-v1": 1},
		"waf_overrides.list.cloudflare-go.json":                                   {"waf-managed-rules-v1": 1},
		"dns_records.list.page2of3.with_SRV_data_service_proto_name.octodns.json": {"srv-data-fields": 1},
		"zone_settings.list.with_cname_flattening.cf-terraforming.json":           {"cname-flattening-setting": 1},
		"mwp-rules-v1.json":                                                       {"firewall-rules": 1},
	}
	for file, rules := range want {
		if _, err := os.Stat(filepath.Join(dir, "api", file)); err != nil && !strings.HasPrefix(file, "mwp-") {
			t.Errorf("fixture %s is gone from the corpus: update the test", file)
			continue
		}
		for rule, n := range rules {
			if got := byFile[file][rule]; got < n {
				t.Errorf("%s: %d findings of %s, want at least %d (all: %v)", file, got, rule, n, byFile[file])
			}
		}
	}
	// The API bodies that hold nothing deprecated by shape produce no shape finding.
	for _, clean := range []string{"rulesets.zone_http_request_firewall_custom.cf-terraforming.json", "tunnels.list.cfd_tunnel.cf-terraforming.json"} {
		for rule := range byFile[clean] {
			if rule != "dns-error-chain" {
				t.Errorf("%s: unexpected %s findings", clean, rule)
			}
		}
	}
	t.Logf("%d files, %d findings, %d skipped", res.FilesScanned, len(res.Findings), res.FilesSkipped)
}

// TestCorpusTemplatedExpressions places each templated expression in a Terraform filter:
// it must be a "not checked" notice, never a syntax error.
func TestCorpusTemplatedExpressions(t *testing.T) {
	dir := corpus(t)
	data, err := os.ReadFile(filepath.Join(dir, "expressions_templated.txt"))
	if err != nil {
		t.Fatal(err)
	}
	c := NewChecker(nil, asOf)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) < 10 {
		t.Fatalf("only %d templated expressions", len(lines))
	}
	for i, line := range lines {
		src := strings.ReplaceAll(line, `\n`, "\n")
		for _, form := range []string{"heredoc", "quoted"} {
			var tf string
			if form == "heredoc" {
				tf = "resource \"cloudflare_filter\" \"t\" {\n  expression = <<-EOT\n" + src + "\nEOT\n}\n"
			} else {
				tf = "resource \"cloudflare_filter\" \"t\" {\n  expression = \"" + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(src) + "\"\n}\n"
			}
			fs := c.CheckFile("t.tf", KindTerraform, []byte(tf)).Findings
			notice := false
			for _, f := range fs {
				switch {
				case f.RuleID == RuleParse:
					// A Terraform template the HCL parser rejects (e.g. a nested quote) is not an
					// expression error either; it is reported as a parse notice.
				case f.RuleID == RuleExpression && strings.Contains(f.Message, "invalid"):
					t.Errorf("line %d (%s): templated expression reported as invalid: %s", i+1, form, f.Message)
				case f.RuleID == RuleExpression:
					notice = true
				}
			}
			if !notice && !hasRule(fs, RuleParse) {
				t.Errorf("line %d (%s): no templated notice: %+v", i+1, form, fs)
			}
		}
	}
}

func hasRule(fs []scanner.Finding, rule string) bool {
	for _, f := range fs {
		if f.RuleID == vocab.RuleID(rule) {
			return true
		}
	}
	return false
}
