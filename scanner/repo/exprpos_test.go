package repo

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner"
)

// fileCase is one file checked on its own and the findings it must give, each written
// "rule@line:col", sorted by rule, line and column.
type fileCase struct {
	name, file, body string
	want             []string
}

// positions renders findings as "rule@line:col", sorted by rule, line and column.
func positions(fs []scanner.Finding) []string {
	fs = slices.Clone(fs)
	slices.SortStableFunc(fs, func(a, b scanner.Finding) int {
		return cmp.Or(cmp.Compare(a.RuleID, b.RuleID), cmp.Compare(a.Location.StartLine, b.Location.StartLine), cmp.Compare(a.Location.StartColumn, b.Location.StartColumn))
	})
	out := []string{}
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s@%d:%d", f.RuleID, f.Location.StartLine, f.Location.StartColumn))
	}
	return out
}

func runFileCases(t *testing.T, cases []fileCase) {
	t.Helper()
	c := NewChecker(nil, asOf)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := c.CheckFile(tc.file, KindOf(tc.file), []byte(tc.body)).Findings
			got, want := strings.Join(positions(fs), " "), strings.Join(tc.want, " ")
			if got != want {
				t.Errorf("findings\n got  %s\n want %s", got, want)
				for _, f := range fs {
					t.Logf("%s@%d: %s", f.RuleID, f.Location.StartLine, f.Message)
				}
			}
		})
	}
}

// TestFieldsAtTheirLines: a deprecated field of an expression written over several lines
// (a heredoc, with or without interpolation; a YAML block, plain or quoted scalar) is
// reported at the line that holds it, once per line and rule; one on a single line (and a
// JSON string with \n escapes) at the expression.
func TestFieldsAtTheirLines(t *testing.T) {
	runFileCases(t, []fileCase{
		{"heredoc with interpolation", "f.tf", `resource "cloudflare_filter" "f" {
  expression = <<-EOT
    (http.host eq "${var.host}")
    and ip.geoip.country in {"CN"}
    and not ip.geoip.asnum in {${join(" ", var.asns)}} and ip.geoip.country ne "x"
    or cf.threat_score gt 10
  EOT
}
`, []string{"filters@1:1", "geoip-field-names@4:9", "geoip-field-names@5:13", "sunset-expression@2:3", "threat-score-field@6:8"}},
		{"ruleset heredoc without interpolation", "r.tf", `resource "cloudflare_ruleset" "r" {
  phase = "http_request_firewall_custom"
  rules {
    action     = "block"
    expression = <<EOT
(ip.geoip.country eq "T1")
or (ip.src.asnum eq 1)
or (cf.threat_score gt 1 and cf.threat_score lt 5)
EOT
  }
}
`, []string{"geoip-field-names@6:2", "threat-score-field@8:5"}},
		{"fields inside template directives", "d.tf", `resource "cloudflare_ruleset" "r" {
  rules {
    action     = "block"
    expression = <<-EOT
      (ip.src eq 1.1.1.1)
      %{ for c in var.cs }or ip.geoip.asnum eq ${c} %{ endfor }
      %{ if var.x }or cf.threat_score gt 1%{ else }or ip.geoip.country eq "T1"%{ endif }
    EOT
  }
}
`, []string{"geoip-field-names@6:30", "geoip-field-names@7:55", "threat-score-field@7:23"}},
		{"quoted string with \\n escapes stays at the attribute", "q.tf", `resource "cloudflare_ruleset" "r" {
  rules = [{
    action     = "block"
    expression = "ip.src eq 1.1.1.1\nor ip.geoip.country eq \"T1\""
  }]
}
`, []string{"geoip-field-names@4:5"}},
		{"yaml folded", "rules.yml", `rules:
  - action: block
    # ip.geoip.continent in a comment is not an expression
    expression: >-
      (ip.geoip.asnum eq 7224) or
      (ip.geoip.asnum eq 14618) or (ip.geoip.country eq "T1")

      or (cf.threat_score gt 10)
`, []string{"geoip-field-names@5:8", "geoip-field-names@6:8", "threat-score-field@8:11"}},
		{"yaml literal", "rules.yaml", "rules:\n- action: block\n  expression: |\n    ip.geoip.country eq \"T1\"\n    or ip.src.country eq \"T1\"\n    or ip.geoip.asnum eq 1\n",
			[]string{"geoip-field-names@4:5", "geoip-field-names@6:8"}},
		{"yaml plain over several lines", "p.yaml", "- action: block\n  expression: ip.src.country eq \"T1\"\n    or ip.geoip.country eq \"T1\"\n    or ip.geoip.asnum eq 1 # comment\n",
			[]string{"geoip-field-names@3:8", "geoip-field-names@4:8"}},
		{"yaml plain on the key line", "p.yaml", "- action: block\n  expression: ip.geoip.country eq \"T1\" and ip.geoip.asnum eq 1\n",
			[]string{"geoip-field-names@2:15"}},
		{"yaml double quoted over lines", "d.yaml", "- action: block\n  expression: \"ip.src.country eq 1\n    or ip.geoip.asnum eq 1\"\n",
			[]string{"geoip-field-names@3:8"}},
		{"json with \\n escapes stays at the member", "r.json", `{"rules": [{"action": "block",
  "expression": "ip.src eq 1.1.1.1\nor ip.geoip.country eq \"T1\"\nor cf.threat_score gt 1"}]}`,
			[]string{"geoip-field-names@2:17", "threat-score-field@2:17"}},
	})
}

// TestFieldFingerprints: the finding of a line keeps the address fields had when they were
// reported once per expression (rule, path, address "... field NAME"): the first line's
// finding names its first field; a later line names a field no earlier line named, and a
// line naming only fields already named takes an occurrence number.
func TestFieldFingerprints(t *testing.T) {
	body := `resource "cloudflare_ruleset" "r" {
  rules {
    action     = "block"
    expression = <<EOT
ip.geoip.country eq "T1" and ip.geoip.asnum eq 1
or ip.geoip.asnum eq 2
or ip.geoip.country eq "T2" or ip.geoip.asnum eq 3
EOT
  }
}
`
	c := NewChecker(nil, asOf)
	fs := c.CheckFile("r.tf", KindTerraform, []byte(body)).Findings
	prefix := "cloudflare_ruleset.r.rules[0].expression field "
	// Line 5 uses asnum and country: asnum sorts first. Line 6 uses asnum only, already named:
	// asnum#2. Line 7 uses both: country is not named yet.
	want := map[int]string{5: prefix + "ip.geoip.asnum", 6: prefix + "ip.geoip.asnum#2", 7: prefix + "ip.geoip.country"}
	if len(fs) != len(want) {
		t.Fatalf("%d findings, want %d: %v", len(fs), len(want), positions(fs))
	}
	for _, f := range fs {
		addr, ok := want[f.Location.StartLine]
		if !ok {
			t.Errorf("finding at line %d", f.Location.StartLine)
			continue
		}
		if fp := scanner.Fingerprint(scanner.SourceFile, "geoip-field-names", "r.tf", addr); f.Fingerprint != fp {
			t.Errorf("line %d: fingerprint is not that of %q", f.Location.StartLine, addr)
		}
	}
}
