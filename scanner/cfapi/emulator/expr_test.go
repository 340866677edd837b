package emulator

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/vocab"
)

// TestCheckExpression: the default validator is the Rules language parser; valid expressions
// pass, invalid ones are refused in the service's wording with the parser's first error and
// its position.
func TestCheckExpression(t *testing.T) {
	valid := []string{
		`http.request.uri.path contains "/wp-login.php"`,
		`(http.request.uri.path ~ "^.*/wp-login.php$" or http.request.uri.path ~ "^.*/xmlrpc.php$") and not ip.src in {192.0.2.0/24 2001:db8::/32}`,
		`http.host eq "a" && !ssl || ip.src.country in {"FR" "DE"}`,
		`any(http.request.headers["accept"][*] contains "json")`,
		`starts_with(http.request.uri.path, "/api/") and len(http.request.uri.query) > 5`,
		`ip.src in $office_net or ip.src in $cf.open_proxies`,
		`http.host strict wildcard "*.example.com"`,
		`http.request.uri.path matches r#"^/a"b$"#`,
		`tcp.port in {80 443 8000..8999}`,
		`cf.bot_management.score lt 30 and not cf.bot_management.verified_bot`,
		`http.request.uri.path contains "(" and http.user_agent contains "AND"`,
		"http.host eq \"a\"\nor http.host eq \"b\"",
		`true`,
		// Template look-alikes are text to the service: %s in a string is a string.
		`http.host eq "%s" and http.request.uri.query contains "%3C"`,
		// The parser accepts an empty set (the old structural check refused it).
		`http.host in {}`,
	}
	for _, e := range valid {
		if err := CheckExpression(e); err != nil {
			t.Errorf("CheckExpression(%q) = %v", e, err)
		}
	}
	invalid := []struct {
		expr, reason string
		line, col    int
	}{
		{``, "empty expression", 1, 1},
		{`(http.request.uri.path ~ "^.*/xmlrpc.php$"`, `expected ")" to close the "(" at 1:1`, 1, 43},
		{`ip.src in {198.51.100.1} ~ "^.*/login.php$")`, `expected a logical operator`, 1, 26},
		{`http.host eq "unterminated`, "missing its closing quote", 1, 14},
		{`http.host eq r#"raw"`, `raw string is missing its closing "#`, 1, 14},
		{`http.request.uri.path ends_with ".html"`, "ends_with is a function, not an operator", 1, 23},
		{`http.host eq "www.cloudflare.com" or ip.src in 203.0.113.0/24`, `expected a set {...} or a list $name after "in"`, 1, 48},
		{`http.request.headers.names[*] == "Content-Type"`, "[*] is only allowed inside a function argument", 1, 28},
		{`ip.src in {192.0.2.1, 192.0.2.2}`, "not commas", 1, 21},
		{`http.host eq "a" AND ssl`, "operators are lowercase", 1, 18},
		{`http.host eq "a" or`, "found end of expression", 1, 20},
		{`and http.host eq "a"`, `found "and"`, 1, 1},
		{`http.host eq "a" and or ssl`, `found "or"`, 1, 22},
		{`http.host eq`, `expected a value`, 1, 13},
		{`x.y.z;`, "unexpected character ';'", 1, 6},
		{`not`, "found end of expression", 1, 4},
		{`http.user_agent contains "${jndi" or "%{other}"`, `found string "%{other}"`, 1, 38},
		{"ssl and\n  (http.host eq \"x\"]", `found "]"`, 2, 20},
		{strings.Repeat("a", 4097), "the limit is 4096", 1, 4097},
		// Refused by the parser, accepted by the old structural check: values the service
		// cannot read.
		{`ip.src in {2400:cb00::/32 2405:8100::/2000}`, "prefix length 2000 is more than 128", 1, 39},
		{`ip.src in {192.0.2.1 159 198.51.100.2}`, "does not match the set's other elements", 1, 22},
		{`ip.src eq 192.0.2.300`, "192.0.2.300", 1, 11},
		{`http.host eq "a" "b"`, `expected a logical operator`, 1, 18},
	}
	for _, tc := range invalid {
		err := CheckExpression(tc.expr)
		var ee *ExpressionError
		if !errors.As(err, &ee) || !strings.Contains(ee.Reason, tc.reason) || ee.Line != tc.line || ee.Column != tc.col ||
			ee.Expression != tc.expr || !strings.HasPrefix(err.Error(), "Filter parsing error (") {
			t.Errorf("CheckExpression(%.60q) = %v, want a parse error at %d:%d about %q", tc.expr, err, tc.line, tc.col, tc.reason)
		}
	}
	if !usesRegex(`http.host matches "x"`) || !usesRegex(`http.host ~ "x"`) || usesRegex(`http.host contains "~ matches"`) {
		t.Errorf("usesRegex")
	}
	if !usesRegex(`(http.host ~ "x"`) {
		t.Errorf("usesRegex: an unclosed expression's regex not seen")
	}
}

// corpusTypos picks out the corpus filters labelled valid that the service rejects as written
// (a published IP list that lost dots and spaces: `159 223.166.150`; see scanner/expr's corpus
// test).
const corpusTypos = "159 223.166.150"

// TestCheckExpressionCorpus runs the check over the real-world expressions: every expression
// believed valid must pass (no false positives); the invalid ones it catches are counted.
func TestCheckExpressionCorpus(t *testing.T) {
	dir := os.Getenv("SUNSET_CORPUS")
	if dir == "" {
		t.Skip("SUNSET_CORPUS is not set; the real-world corpus test needs it (e.g. SUNSET_CORPUS=/work/shared/realworld)")
	}
	data, err := os.ReadFile(filepath.Join(dir, "expressions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	valid, invalid, caught, typos := 0, 0, 0, 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct {
			Expr     string `json:"expr"`
			Category string `json:"category"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		switch rec.Category {
		case "filter":
			valid++
			err := CheckExpression(rec.Expr)
			switch {
			case strings.Contains(rec.Expr, corpusTypos):
				typos++
				if err == nil {
					t.Errorf("the corpus line with typos in its IP list was accepted")
				}
			case err != nil:
				t.Errorf("valid expression refused: %v", err)
			}
		case "invalid":
			invalid++
			if CheckExpression(rec.Expr) != nil {
				caught++
			}
		}
	}
	if valid == 0 || invalid == 0 || typos != 1 {
		t.Fatalf("corpus has %d valid (%d with typos) and %d invalid expressions", valid, typos, invalid)
	}
	// The parser cannot see type errors (ip.src==34): it must catch the syntactic ones and the
	// malformed values (a /2000 mask).
	if caught < 8 {
		t.Errorf("caught %d of %d invalid real-world expressions, want at least 8", caught, invalid)
	}
	t.Logf("%d valid expressions pass; %d of %d invalid ones refused", valid-typos, caught, invalid)
}

// TestExpressionRefusedThroughTheAPI: filters, firewall rules and ruleset rules whose
// expression the parser refuses are answered 400 with CodeInvalidExpression, in the
// service's wording, and nothing is created.
func TestExpressionRefusedThroughTheAPI(t *testing.T) {
	h := newHarness(t, Options{})
	bad := `ip.src in {2400:cb00::/32 2405:8100::/2000}`
	want := "Filter parsing error (1:39): " + bad + ` ^^ invalid CIDR "2405:8100::/2000"`
	f0, r0 := h.counts(freeZone)
	checks := []struct {
		method, path string
		body         any
	}{
		{"POST", "/zones/" + freeZone + "/filters", []map[string]any{{"expression": bad}}},
		{"POST", "/zones/" + freeZone + "/firewall/rules", []map[string]any{{"filter": map[string]any{"expression": bad}, "action": "block"}}},
		{"POST", "/zones/" + freeZone + "/filters/validate-expr", map[string]any{"expression": bad}},
		{"PUT", "/zones/" + proZone + "/rulesets/phases/" + string(vocab.PhaseCustomRules) + "/entrypoint",
			map[string]any{"rules": []any{map[string]any{"expression": bad, "action": "block"}}}},
	}
	for _, c := range checks {
		r := h.do(c.method, c.path, c.body)
		if r.status != 400 || r.code() != CodeInvalidExpression || !strings.HasPrefix(r.env.Errors[0].Message, want) {
			t.Errorf("%s %s: %d %+v, want 400/%d %q", c.method, c.path, r.status, r.env.Errors, CodeInvalidExpression, want)
		}
	}
	if f, r := h.counts(freeZone); f != f0 || r != r0 {
		t.Errorf("refused writes created objects: filters %d -> %d, rules %d -> %d", f0, f, r0, r)
	}
}
