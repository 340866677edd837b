package emulator

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckExpression covers the structural check: valid expressions pass, each known-invalid
// pattern is refused with a position.
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
	}
	for _, e := range valid {
		if err := CheckExpression(e); err != nil {
			t.Errorf("CheckExpression(%q) = %v", e, err)
		}
	}
	invalid := []struct{ expr, reason string }{
		{``, "empty"},
		{`(http.request.uri.path ~ "^.*/xmlrpc.php$"`, "unclosed"},
		{`ip.src in {198.51.100.1} ~ "^.*/login.php$")`, "unmatched"},
		{`http.host eq "unterminated`, "unterminated string"},
		{`http.host eq r#"raw"`, "unterminated raw string"},
		{`http.request.uri.path ends_with ".html"`, "ends_with"},
		{`http.host eq "www.cloudflare.com" or ip.src in 203.0.113.0/24`, "`in` expects"},
		{`http.request.headers.names[*] == "Content-Type"`, "[*]"},
		{`ip.src in {192.0.2.1, 192.0.2.2}`, "not commas"},
		{`http.host eq "a" AND ssl`, "lowercase"},
		{`http.host eq "a" or`, "right operand"},
		{`and http.host eq "a"`, "left operand"},
		{`http.host eq "a" and or ssl`, "operand"},
		{`http.host eq`, "right operand"},
		{`str in {}`, "empty set"},
		{`x.y.z;`, "unexpected character"},
		{`not`, "operand"},
		{`http.user_agent contains "${jndi" or "%{other}"`, "not a condition"},
		{strings.Repeat("a", 4097), "longer than"},
	}
	for _, tc := range invalid {
		err := CheckExpression(tc.expr)
		var ee *ExpressionError
		if !errors.As(err, &ee) || !strings.Contains(ee.Reason, tc.reason) || ee.Column < 1 || !strings.HasPrefix(err.Error(), "Filter parsing error (") {
			t.Errorf("CheckExpression(%.60q) = %v, want a parse error about %q", tc.expr, err, tc.reason)
		}
	}
	if !usesRegex(`http.host matches "x"`) || !usesRegex(`http.host ~ "x"`) || usesRegex(`http.host contains "~ matches"`) {
		t.Errorf("usesRegex")
	}
}

// TestCheckExpressionCorpus runs the check over the real-world expressions: every expression
// believed valid must pass (no false positives); the invalid ones it catches are counted.
func TestCheckExpressionCorpus(t *testing.T) {
	dir := os.Getenv("SUNSET_CORPUS")
	if dir == "" {
		t.Skip("SUNSET_CORPUS is not set; the real-world corpus test needs it (e.g. SUNSET_CORPUS=/work/shared/realworld)")
	}
	f, err := os.Open(filepath.Join(dir, "expressions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	valid, invalid, caught := 0, 0, 0
	for sc.Scan() {
		var rec struct {
			Expr     string `json:"expr"`
			Category string `json:"category"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		switch rec.Category {
		case "filter":
			valid++
			if err := CheckExpression(rec.Expr); err != nil {
				t.Errorf("valid expression refused: %v", err)
			}
		case "invalid":
			invalid++
			if CheckExpression(rec.Expr) != nil {
				caught++
			}
		}
	}
	if valid == 0 || invalid == 0 {
		t.Fatalf("corpus has %d valid and %d invalid expressions", valid, invalid)
	}
	// The structural check cannot see type errors (ip.src==34, a /2000 mask): it must catch
	// the syntactic ones.
	if caught < 7 {
		t.Errorf("caught %d of %d invalid real-world expressions, want at least 7", caught, invalid)
	}
	t.Logf("%d valid expressions pass; %d of %d invalid ones refused", valid, caught, invalid)
}
