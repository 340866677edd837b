package repo

import (
	"sort"
	"strings"
	"testing"
)

// TestTemplatedExpressionFields: a templated expression is never called invalid, and the
// deprecated fields on either side of a placeholder are still found: the placeholders, whether
// an HCL interpolation or a Go fmt verb, are neutralised the way
// expr.ParseTemplated does it, and nothing inside a string literal counts as a field.
func TestTemplatedExpressionFields(t *testing.T) {
	cases := []struct {
		name, body string
		want       []string // the deprecated fields' rules, and a templated notice
	}{
		{"hcl interpolation", "resource \"cloudflare_filter\" \"t\" {\n  expression = \"ip.src ne ${var.ip} and cf.threat_score gt 10\"\n}\n",
			[]string{RuleExpression + " templated", "threat-score-field"}},
		{"hcl interpolation in a set", "resource \"cloudflare_filter\" \"t\" {\n  expression = \"not ip.geoip.country in {${join(\" \", var.c)}} and http.host eq \\\"ip.geoip.asnum\\\"\"\n}\n",
			[]string{RuleExpression + " templated", "geoip-field-names"}},
		{"fmt verb", "resource \"cloudflare_filter\" \"t\" {\n  expression = \"http.host eq \\\"%[1]s\\\" and ip.geoip.country eq \\\"T1\\\"\"\n}\n",
			[]string{RuleExpression + " templated", "geoip-field-names"}},
		{"literal", "resource \"cloudflare_filter\" \"t\" {\n  expression = \"cf.threat_score gt 10\"\n}\n",
			[]string{"threat-score-field"}},
	}
	c := NewChecker(nil, asOf)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range c.CheckFile("t.tf", KindTerraform, []byte(tc.body)).Findings {
				switch {
				case string(f.RuleID) == RuleExpression && strings.Contains(f.Message, "invalid"):
					t.Errorf("templated expression called invalid: %s", f.Message)
				case string(f.RuleID) == RuleExpression:
					got = append(got, RuleExpression+" templated")
				case f.RuleID == "threat-score-field" || f.RuleID == "geoip-field-names":
					got = append(got, string(f.RuleID))
				}
			}
			sort.Strings(got)
			sort.Strings(tc.want)
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
		})
	}
}
