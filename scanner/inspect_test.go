package scanner

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestFallbackInspector(t *testing.T) {
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
		{expr: "(http.host eq \"a\"\n and ssl", valid: false, line: 1, col: 1, errPart: `"(" is never closed`, fields: []string{"http.host", "ssl"}},
		{expr: `ip.src in {198.51.100.1} ~ "^.*/login.php$")`, valid: false, line: 1, col: 44, errPart: "nothing to close", fields: []string{"ip.src"}, regex: true},
		{expr: "ssl and\n  (http.host eq \"x\"]", valid: false, line: 2, col: 20, errPart: `"(" opened at 2:3 is not closed`},
		{expr: `http.host eq "unterminated`, valid: false, line: 1, col: 14, errPart: "unterminated string"},
		{expr: `http.host eq r#"raw"`, valid: false, line: 1, col: 14, errPart: "unterminated raw string"},
		{expr: "   ", valid: false, line: 1, col: 1, errPart: "empty expression"},
		{expr: `http.host eq "%[4]s" and ip.src ne ${var.ip}`, valid: true, templated: true, fields: []string{"http.host", "ip.src", "var.ip"}},
		{expr: `not ip.geoip.country in {${"${join(" ", x)}"}}`, valid: true, templated: true},
		{expr: `lookup_json_string(http.request.body.raw, "a") eq "b" and starts_with(http.request.uri.path, "/api")`, valid: true,
			fields: []string{"http.request.body.raw", "http.request.uri.path"}, funcs: []string{"lookup_json_string", "starts_with"}},
		{expr: `http.request.uri.path eq "/é" and ssl)`, valid: false, line: 1, col: 38, errPart: "nothing to close"},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			got := FallbackInspector{}.Inspect(tc.expr)
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
			if tc.fields != nil && !reflect.DeepEqual(got.Fields, tc.fields) {
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

func TestStripStringsKeepsOffsets(t *testing.T) {
	in := `cf.threat_score gt 1 and http.host eq "cf.threat_score lt 5" and x eq r#"cf.threat_score ge 0"#`
	out := stripStrings(in)
	if len(out) != len(in) || strings.Count(out, "cf.threat_score") != 1 {
		t.Errorf("stripStrings(%q) = %q", in, out)
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

// TestFallbackInspectorOnCorpus checks the fallback is conservative: every expression the
// sources call valid passes, templated ones are flagged as such, and the real-world
// expressions with unbalanced parentheses are caught.
func TestFallbackInspectorOnCorpus(t *testing.T) {
	dir := corpusDir(t)
	f, err := os.Open(filepath.Join(dir, "expressions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counts := map[string]int{}
	unbalancedCaught := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var rec struct {
			Expr     string `json:"expr"`
			Category string `json:"category"`
			Notes    string `json:"notes"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		counts[rec.Category]++
		info := FallbackInspector{}.Inspect(rec.Expr)
		switch rec.Category {
		case "filter", "wirefilter-scheme", "value":
			if strings.Contains(rec.Notes, "not a whole filter") {
				continue // a lexer unit test's fragment, not an expression
			}
			if !info.Valid {
				t.Errorf("%s expression judged invalid (%s at %d:%d): %s", rec.Category, info.Error, info.Line, info.Column, rec.Expr)
			}
		case "templated":
			if !info.Templated || !info.Valid {
				t.Errorf("templated expression not recognised (templated %v valid %v): %s", info.Templated, info.Valid, rec.Expr)
			}
		case "invalid":
			if strings.Count(rec.Expr, "(") != strings.Count(rec.Expr, ")") {
				if info.Valid {
					t.Errorf("unbalanced expression judged valid: %s", rec.Expr)
				} else {
					unbalancedCaught++
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if counts["filter"] < 100 || unbalancedCaught < 3 {
		t.Errorf("corpus smaller than expected: %v, unbalanced caught %d", counts, unbalancedCaught)
	}
}
