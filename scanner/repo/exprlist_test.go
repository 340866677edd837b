package repo

import "testing"

// TestExpressionLists: in a text file of expressions every line is an expression position;
// a field is reported once per line and rule. Markdown, code and scripts are not lists.
func TestExpressionLists(t *testing.T) {
	list := "ip.geoip.country eq \"T1\"\nhttp.host eq \"ip.geoip.asnum\"\n" +
		"# block by threat: cf.threat_score gt 10\n\n" +
		"(ip.src.country eq \"T1\"\n  and ip.geoip.asnum in {1 2}) or ip.geoip.country eq \"T2\" or ip.geoip.asnum eq 3\n"
	want := []string{"geoip-field-names@1:1", "geoip-field-names@6:7", "threat-score-field@3:20"}
	runFileCases(t, []fileCase{
		{"txt", "expressions.txt", list, want},
		{"rules", "waf/block.rules", list, want},
		{"no extension", "lists/blocked", list, want},
		{"unknown extension", "export.cfexpr", list, want},
		{"markdown prose", "README.md", "We still use `ip.geoip.country eq \"T1\"` in rules.\n", nil},
		{"readme without extension", "README", list, nil},
		{"script: a string of program source that is an expression", "deploy", "#!/bin/sh\necho 'ip.geoip.country eq \"T1\"'\n", []string{"geoip-field-names@2:6"}},
		{"go", "main.go", "var e = `ip.geoip.country eq \"T1\"`\n", nil},
		{"crlf", "e.txt", "ip.src eq 1.1.1.1\r\n\r\ncf.threat_score lt 5\r\n", []string{"threat-score-field@3:1"}},
	})
}

// TestRuleProfiles: objects with an expression and an action at any depth, or in a list under
// a key ending in "rules" or "filters", in any JSON or YAML (other tools' rule profiles, Ansible
// variables, Pulumi YAML), have their deprecated fields reported; a field name in a YAML
// comment or in another member is not.
func TestRuleProfiles(t *testing.T) {
	runFileCases(t, []fileCase{
		{"json profile", "profile.json", `{"profiles": {"strict": {"waf": {"items": [
  {"name": "geo", "expression": "ip.geoip.country in {\"T1\"}", "action": "block"},
  {"name": "note", "expression": "ip.geoip.asnum eq 1"},
  {"name": "desc", "description": "cf.threat_score was used here", "action": "log", "expression": "true"}
]}}}}`, []string{"geoip-field-names@2:33"}},
		{"ansible variables", "group_vars/all.yml", `cloudflare_firewall_rules:
  # cf.threat_score gt 10 was the old rule
  - description: geo
    expression: '(ip.geoip.country in {"T1"})'
zones:
  - name: example.com
    note: ip.geoip.asnum is deprecated
`, []string{"geoip-field-names@4:17"}},
		{"filters list", "filters.yaml", "filters:\n  - expression: ip.geoip.asnum eq 1\n    paused: false\n  - expression: ip.src.asnum eq 1\n", []string{"filters@2:5", "geoip-field-names@2:17"}},
		{"pulumi yaml", "Pulumi.yaml", `resources:
  ruleset:
    type: cloudflare:index:Ruleset
    properties:
      phase: http_request_firewall_custom
      rules:
        - action: block
          expression: >
            (ip.src.country eq "T1")
            or (ip.geoip.continent eq "AN")
`, []string{"geoip-field-names@10:17"}},
	})
}
