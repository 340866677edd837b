package scanner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestInspectExpression: the scanner's answers come from the Rules language parser, including
// for expressions that do not parse (the partial tree's names) and templated ones (not judged).
func TestInspectExpression(t *testing.T) {
	cases := []struct {
		expr      string
		valid     bool
		line, col int
		errPart   string
		fields    []string
		funcs     []string
		regex     bool
		templated bool
	}{
		{expr: `http.request.uri.path eq "/login"`, valid: true, fields: []string{"http.request.uri.path"}},
		{expr: `(http.request.uri.path ~ "^.*/wp-login.php$" or http.request.uri.path ~ "^.*/xmlrpc.php$") and not ip.src in {192.0.2.0/24 2001:db8::/32}`,
			valid: true, fields: []string{"http.request.uri.path", "ip.src"}, regex: true},
		{expr: `http.host matches "(a|b)\.example"`, valid: true, fields: []string{"http.host"}, regex: true},
		{expr: `http.request.uri.path contains "matches ~ (("`, valid: true, fields: []string{"http.request.uri.path"}},
		{expr: `ssl and not cf.client.bot`, valid: true, fields: []string{"cf.client.bot", "ssl"}},
		{expr: `any(lower(http.request.headers.names[*])[*] == "x-a") and http.request.headers["accept"][0] contains "json"`, valid: true,
			fields: []string{"http.request.headers", "http.request.headers.names"}, funcs: []string{"any", "lower"}},
		{expr: `ip.src in $office_net or ip.src in $cf.open_proxies`, valid: true, fields: []string{"ip.src"}},
		{expr: `http.request.uri.path eq r#"a "quoted" (path"#`, valid: true, fields: []string{"http.request.uri.path"}},
		{expr: `ip.geoip.country in {"T1" "XX"} and ip.src.asnum eq 13335`, valid: true, fields: []string{"ip.geoip.country", "ip.src.asnum"}},
		{expr: `lookup_json_string(http.request.body.raw, "a") eq "b" and starts_with(http.request.uri.path, "/api")`, valid: true,
			fields: []string{"http.request.body.raw", "http.request.uri.path"}, funcs: []string{"lookup_json_string", "starts_with"}},
		// Not parsed: the first error's position (1-based, columns in characters), and the names
		// of the partial tree.
		{expr: "(http.host eq \"a\"\n and ssl", line: 2, col: 9, errPart: `expected ")" to close the "(" at 1:1`, fields: []string{"http.host", "ssl"}},
		{expr: `ip.src in {198.51.100.1} ~ "^.*/login.php$")`, line: 1, col: 26, errPart: `found "~"`, fields: []string{"ip.src"}},
		{expr: "ssl and\n  (http.host eq \"x\"]", line: 2, col: 20, errPart: `expected ")" to close the "(" at 2:3, found "]"`, fields: []string{"http.host", "ssl"}},
		{expr: `http.host eq "unterminated`, line: 1, col: 14, errPart: "missing its closing quote", fields: []string{"http.host"}},
		{expr: `http.host eq r#"raw"`, line: 1, col: 14, errPart: "raw string is missing its closing", fields: []string{"http.host"}},
		{expr: "   ", line: 1, col: 4, errPart: "empty expression"},
		{expr: `http.request.uri.path eq "/é" and ssl)`, line: 1, col: 38, errPart: `found ")"`, fields: []string{"http.request.uri.path", "ssl"}},
		{expr: `http.host eq "a" AND ssl`, line: 1, col: 18, errPart: "operators are lowercase", fields: []string{"http.host"}},
		// Templated: valid (not judged) whatever the placeholders do to the syntax, with the
		// names the parser finds around them, so deprecated fields are still seen.
		{expr: `http.host eq "%[4]s" and ip.src ne ${var.ip}`, valid: true, templated: true, fields: []string{"http.host", "ip.src"}},
		{expr: `not ip.geoip.country in {${"${join(" ", x)}"}}`, valid: true, templated: true, fields: []string{"ip.geoip.country"}},
		{expr: `http.request.full_uri in $redirect_list_%[1]s`, valid: true, templated: true, fields: []string{"http.request.full_uri"}},
		// Not templated: a regex replacement group and a URL escape are the text's own.
		{expr: `regex_replace(http.request.uri.path, "^/foo/(.*)$", "/bar/${1}") eq "/bar/x"`, valid: true,
			fields: []string{"http.request.uri.path"}, funcs: []string{"regex_replace"}},
		{expr: `http.request.uri contains "%d0%b0"`, valid: true, fields: []string{"http.request.uri"}},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			got := inspectExpression(tc.expr)
			if got.Valid != tc.valid {
				t.Fatalf("Valid = %v (%s at %d:%d), want %v", got.Valid, got.Error, got.Line, got.Column, tc.valid)
			}
			if !tc.valid {
				if got.Line != tc.line || got.Column != tc.col || !strings.Contains(got.Error, tc.errPart) {
					t.Errorf("error %d:%d %q, want %d:%d containing %q", got.Line, got.Column, got.Error, tc.line, tc.col, tc.errPart)
				}
			} else if got.Error != "" || got.Line != 0 {
				t.Errorf("valid expression with error %q at %d", got.Error, got.Line)
			}
			if !reflect.DeepEqual(got.Fields, tc.fields) {
				t.Errorf("Fields = %q, want %q", got.Fields, tc.fields)
			}
			if !reflect.DeepEqual(got.Functions, tc.funcs) {
				t.Errorf("Functions = %q, want %q", got.Functions, tc.funcs)
			}
			if got.UsesRegex != tc.regex {
				t.Errorf("UsesRegex = %v", got.UsesRegex)
			}
			if got.Templated != tc.templated {
				t.Errorf("Templated = %v", got.Templated)
			}
		})
	}
}

// TestThreatScoreEffects: each comparison of cf.threat_score with a literal is evaluated at 0 on
// the syntax tree, quoted as written; text inside strings, other fields, functions of the score
// and comparisons 0 does not decide are left out.
func TestThreatScoreEffects(t *testing.T) {
	cases := []struct {
		expr string
		want []string
	}{
		{`cf.threat_score gt 10`, []string{`"cf.threat_score gt 10" is always false (never matches)`}},
		{`cf.threat_score>10 or cf.threat_score  <=  0x0a`, []string{
			`"cf.threat_score>10" is always false (never matches)`,
			`"cf.threat_score  <=  0x0a" is always true (always matches)`}},
		{`http.host eq "cf.threat_score lt 3" and x eq r#"cf.threat_score ge 0"#`, nil},
		{`cf.threat_score in {0 1 2} and not cf.threat_score in {5..10}`, []string{
			`"cf.threat_score in {0 1 2}" is always true (always matches)`,
			`"cf.threat_score in {5..10}" is always false (never matches)`}},
		{`cf.threat_score & 4`, []string{`"cf.threat_score & 4" is always false (never matches)`}},
		{`cf.threat_score eq 0 or cf.threat_score eq 0`, []string{`"cf.threat_score eq 0" is always true (always matches)`}},
		{`cf.threat_score in $scores or len(cf.threat_score) gt 1 or cf.threat_score_x eq 1`, nil},
		// A broken expression: the comparisons the partial tree holds.
		{`(cf.threat_score ge 5 and`, []string{`"cf.threat_score ge 5" is always false (never matches)`}},
		// A placeholder is not a value: it decides nothing.
		{`cf.threat_score gt %d or cf.threat_score gt ${var.limit}`, nil},
	}
	for _, tc := range cases {
		got := threatScoreEffects(inspectExpression(tc.expr).tree)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("threatScoreEffects(%q) =\n  %q\nwant\n  %q", tc.expr, got, tc.want)
		}
	}
}

// corpusDir returns the real-world corpus folder, or skips.
func corpusDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SUNSET_CORPUS")
	if dir == "" {
		t.Skip("SUNSET_CORPUS is not set: skipping the real-world corpus test (set it to the shared realworld folder)")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("SUNSET_CORPUS=%s is not readable: %v", dir, err)
	}
	return dir
}

// corpusTypos picks out the corpus filters labelled valid that the service rejects as written
// (see scanner/expr's corpus test: a published IP list that lost dots and spaces).
const corpusTypos = "159 223.166.150"

// TestInspectExpressionOnCorpus: the real-world filters parse, templated expressions are
// flagged as such (and so not called invalid), and the unbalanced invalid ones are caught.
func TestInspectExpressionOnCorpus(t *testing.T) {
	dir := corpusDir(t)
	data, err := os.ReadFile(filepath.Join(dir, "expressions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	unbalancedCaught := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct {
			Expr     string `json:"expr"`
			Category string `json:"category"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		counts[rec.Category]++
		info := inspectExpression(rec.Expr)
		switch rec.Category {
		case "filter":
			if !info.Valid && !strings.Contains(rec.Expr, corpusTypos) {
				t.Errorf("filter judged invalid (%s at %d:%d): %s", info.Error, info.Line, info.Column, rec.Expr)
			}
		case "templated":
			if !info.Templated || !info.Valid {
				t.Errorf("templated expression not recognised (templated %v valid %v): %s", info.Templated, info.Valid, rec.Expr)
			}
		case "invalid":
			if strings.Count(rec.Expr, "(") != strings.Count(rec.Expr, ")") && !info.Templated {
				if info.Valid {
					t.Errorf("unbalanced expression judged valid: %s", rec.Expr)
				} else {
					unbalancedCaught++
				}
			}
		}
	}
	if counts["filter"] < 100 || counts["templated"] < 10 || unbalancedCaught < 3 {
		t.Errorf("corpus smaller than expected: %v, unbalanced caught %d", counts, unbalancedCaught)
	}
}
