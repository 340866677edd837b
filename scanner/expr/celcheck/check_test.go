package celcheck

import (
	"container/list"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sunsetscan/sunset/scanner/catalog"
)

// Every field of the catalogue is declared, and an expression using it with
// an operator its type supports type-checks.
func TestEveryFieldTypeChecks(t *testing.T) {
	for _, f := range catalog.Fields().All() {
		var src string
		switch f.Type {
		case "String", "Bytes":
			src = f.Name + ` eq "x"`
		case "Int":
			src = f.Name + ` gt 1`
		case "Bool":
			src = f.Name
		case "IP":
			src = f.Name + ` in {10.0.0.0/8}`
		case "Array<String>":
			src = `any(` + f.Name + `[*] eq "x")`
		case "Array<Int>":
			src = `any(` + f.Name + `[*] eq 1)`
		case "Map<Array<String>>":
			src = f.Name + `["k"][0] eq "x"`
		default:
			t.Fatalf("field %s: no test for type %s", f.Name, f.Type)
		}
		c := Check(src, Options{})
		if errs := c.Errors(); len(errs) > 0 {
			t.Errorf("%s: %v", src, errs)
		}
	}
}

func TestValidExpressions(t *testing.T) {
	valid := []string{
		// every comparison operator in both spellings
		`http.host eq "a"`, `http.host == "a"`,
		`http.host ne "a"`, `http.host != "a"`,
		`cf.edge.server_port lt 80`, `cf.edge.server_port < 80`,
		`cf.edge.server_port le 80`, `cf.edge.server_port <= 80`,
		`cf.edge.server_port gt 80`, `cf.edge.server_port > 80`,
		`cf.edge.server_port ge 80`, `cf.edge.server_port >= 80`,
		`http.host lt "m"`,
		`ip.src lt 10.0.0.1`, `ip.src ge 2001:db8::1`, `ip.src eq 1.2.3.4`, `ip.src != ::1`,
		`http.request.uri.path contains "/wp-"`,
		`http.request.uri.path matches "^/a.*$"`, `http.request.uri.path ~ "^/a"`,
		`http.host wildcard "*.example.com"`, `http.host strict wildcard "*.Example.com"`,
		`cf.edge.server_port bitwise_and 1`, `cf.edge.server_port & 1`,
		// logic in both spellings
		`ssl and not cf.client.bot`, `ssl && !cf.client.bot`,
		`ssl or ssl`, `ssl || ssl`, `ssl xor ssl`, `ssl ^^ ssl`,
		`true`, `not false`, `(ssl)`,
		// sets, ranges, CIDRs, lists
		`http.request.method in {"GET" "HEAD"}`,
		`cf.edge.server_port in {80 443 8000..8009}`,
		`ip.src in {192.0.2.0/24 2001:db8::/32 198.51.100.1..198.51.100.9 203.0.113.7}`,
		`ip.src in $office`, `ip.src in $cf.open_proxies`, `http.host in $hosts`, `ip.src.asnum in $asns`,
		`cf.bot_management.ja3_hash in {6F:72:67}`,
		// functions
		`lower(http.host) eq "a"`, `upper(http.host) eq "A"`, `len(http.host) gt 3`,
		`len(http.request.headers.names) gt 3`,
		`starts_with(http.request.uri.path, "/a")`, `ends_with(http.request.uri.path, ".php")`,
		`concat(http.host, "/", http.request.uri.path) eq "a/b"`,
		`concat(http.request.headers.names, http.request.uri.args.names)[0] eq "a"`,
		`url_decode(http.request.uri.query) contains "<script"`, `url_decode(http.request.uri.query, "r") contains "x"`,
		`lookup_json_string(http.request.body.raw, "a", 0, "b") eq "x"`,
		`lookup_json_integer(http.request.body.raw, "n") gt 2`,
		`substring(http.host, 0, 3) eq "www"`, `substring(http.host, -4) eq ".com"`,
		`remove_bytes(http.host, "-.") eq "ab"`, `decode_base64(http.request.headers["x"][0]) eq "a"`,
		`cidr(ip.src, 24, 64) eq 192.0.2.0`, `cidr6(ip.src, 64) eq 2001:db8::`,
		`is_timed_hmac_valid_v0("k", http.request.uri, 100, http.request.timestamp.sec, 8)`,
		`is_timed_hmac_valid_v0("k", http.request.uri, 100, http.request.timestamp.sec, 8, "s")`,
		// maps, arrays, unpack
		`http.request.headers["accept"][0] eq "a"`,
		`any(http.request.headers["accept"][*] contains "json")`,
		`all(http.request.headers["accept"][*] eq "x")`,
		`any(lower(http.request.headers.names[*])[*] == "x")`,
		`all(not len(http.request.uri.args["filter"][*])[*] in {3 4})`,
		`any(url_decode(http.request.body.form.values[*])[*] contains "x")`,
		`any(http.request.headers[*][0] eq "x")`,
		`any(http.request.headers[*][*] eq "x")`,
		`any(concat(http.request.headers.names[*], "-x")[*] eq "a-x")`,
		`concat(http.request.headers.names[*], "-x")[0] eq "a-x"`,
		`len(lower(http.request.headers.names[*])) gt 2`,
		"http.host eq \"a\"\nand ssl",
	}
	for _, src := range valid {
		c := Check(src, Options{})
		if !c.Valid || c.Program == nil {
			t.Errorf("%s: want valid, got %v", src, c.Diagnostics)
		}
	}
}

func TestErrorsAtOriginalToken(t *testing.T) {
	tests := []struct {
		src, code string
		line, col int
		msg       string
	}{
		{`ip.src contains "x"`, CodeTypeMismatch, 1, 8, "operator contains does not apply to IP"},
		{`http.request.uri.path eq 1`, CodeTypeMismatch, 1, 26, "cannot be compared with Int 1"},
		{`http.host eq 1.2.3.4`, CodeTypeMismatch, 1, 14, "cannot be compared with IP"},
		{`ip.src == 34`, CodeTypeMismatch, 1, 11, "IP and cannot be compared with Int"},
		{`http.host in {1 2}`, CodeTypeMismatch, 1, 14, "a set of integers"},
		{`ip.src in {"a"}`, CodeTypeMismatch, 1, 11, "a set of strings"},
		{`ssl eq 1`, CodeTypeMismatch, 1, 8, "ssl is Bool and cannot be compared with Int 1 using eq"},
		{`http.request.headers.names == "x"`, CodeTypeMismatch, 1, 28, "any(http.request.headers.names[*] == ...)"},
		{`cf.edge.server_port contains "1"`, CodeTypeMismatch, 1, 21, "does not apply to Int"},
		{`ssl and\n  http.host eq "a" and xyz eq 1`, CodeUnknownField, 2, 24, "unknown field xyz"},
		{`ip.addr ne 1.2.3.4`, CodeUnknownField, 1, 1, "did you mean ip.src?"},
		{`http.hots eq "a"`, CodeUnknownField, 1, 1, "did you mean http.host?"},
		{`echo(http.host) eq "a"`, CodeUnknownFunction, 1, 1, "unknown function echo()"},
		{`lowr(http.host) eq "a"`, CodeUnknownFunction, 1, 1, "did you mean lower()?"},
		{`lower(http.host, 1) eq "a"`, CodeArity, 1, 1, "lower() takes 1 argument, found 2"},
		{`substring(http.host) eq "a"`, CodeArity, 1, 1, "2 to 3 arguments"},
		{`lower(1) eq "a"`, CodeArgumentType, 1, 7, "argument 1 of lower() must be String"},
		{`starts_with(http.host, 1)`, CodeArgumentType, 1, 24, "argument 2 of starts_with()"},
		{`cidr(http.host, 1, 2) eq 1.2.3.4`, CodeArgumentType, 1, 6, "must be IP"},
		{`lookup_json_string(http.host, ssl) eq "a"`, CodeArgumentType, 1, 31, "String (object member) or an Int"},
		{`concat(http.host, http.request.headers.names) eq "a"`, CodeArgumentType, 1, 1, "all strings, or all arrays"},
		{`http.request.uri.path matches "(a"`, CodeBadRegex, 1, 31, "missing closing )"},
		{`http.request.uri.path ~ "a(?=b)"`, CodeBadRegex, 1, 25, "invalid or unsupported Perl syntax"},
		{`http.host wildcard "a\\b"`, CodeBadWildcard, 1, 20, "only \\* and \\\\"},
		{`regex_replace(http.host, "a", "b") eq "c"`, CodeFunctionNotAllow, 1, 1, "not allowed in custom rules"},
		{`to_string(cf.edge.server_port) eq "80"`, CodeFunctionNotAllow, 1, 1, "not allowed"},
		{`wildcard_replace(http.host, "*", "x") eq "c"`, CodeFunctionNotAllow, 1, 1, "not allowed"},
		{`uuidv4(cf.random_seed) eq "c"`, CodeFunctionNotAllow, 1, 1, "not allowed"},
		{`http.host`, CodeNotBoolean, 1, 1, "String, not a condition"},
		{`lower(http.host)`, CodeNotBoolean, 1, 1, "String, not a condition"},
		{`ssl and http.host`, CodeNotBoolean, 1, 9, "and needs a condition (Bool); http.host is String"},
		{`not http.host`, CodeNotBoolean, 1, 5, "not needs a condition"},
		{`ssl xor cf.edge.server_port`, CodeNotBoolean, 1, 9, "xor needs conditions"},
		{`any(http.host[*] eq "a")`, CodeUnpack, 1, 5, "[*] unpacks an array or a map; http.host is String"},
		{`any(http.host)`, CodeArgumentType, 1, 5, "argument 1 of any() must be Array<Bool>"},
		{`ssl and any(lower(http.request.headers.names[*]))`, CodeNotBoolean, 1, 13, "the argument of any() needs a condition"},
		{`any(ssl and lower(http.request.headers.names[*])[*] eq "a")`, CodeUnpack, 1, 13, "reduce it with any(...) or all(...) before and"},
		{`http.host[0] eq "a"`, CodeTypeMismatch, 1, 1, "only arrays and maps take"},
		{`http.request.headers[0][0] eq "a"`, CodeTypeMismatch, 1, 22, "index it with a \"key\" string"},
		{`http.request.headers.names["a"] eq "a"`, CodeTypeMismatch, 1, 28, "index it with an integer"},
		{`http.host eq "a" and`, CodeSyntax, 1, 21, ""},
		{"ip.src in {1.2.3.4, 5.6.7.8}", CodeSyntax, 1, 19, "not commas"},
	}
	for _, tt := range tests {
		src := strings.ReplaceAll(tt.src, `\n`, "\n")
		c := Check(src, Options{})
		if c.Valid || c.Program != nil {
			t.Errorf("%s: want invalid", src)
			continue
		}
		var found bool
		for _, d := range c.Diagnostics {
			if d.Code == tt.code && d.Line == tt.line && d.Column == tt.col && strings.Contains(d.Message, tt.msg) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: want %s at %d:%d containing %q, got %v", src, tt.code, tt.line, tt.col, tt.msg, c.Diagnostics)
		}
	}
}

func TestPlanPhaseAndDeprecations(t *testing.T) {
	tests := []struct {
		src  string
		opts Options
		// want lists "severity code line:col" of every diagnostic.
		want  []string
		valid bool
	}{
		{`http.request.uri.path matches "^/a"`, Options{Plan: "pro"}, []string{"error plan 1:23"}, false},
		{`http.request.uri.path matches "^/a"`, Options{Plan: "business"}, nil, true},
		{`http.request.uri.path matches "^/a"`, Options{}, nil, true},
		{`cf.bot_management.score lt 30`, Options{Plan: "business"}, []string{"error plan 1:1"}, false},
		{`cf.bot_management.score lt 30`, Options{Plan: "enterprise"}, nil, true},
		{`ip.src.is_in_european_union`, Options{Plan: "free"}, []string{"error plan 1:1"}, false},
		{`http.request.cookies["a"][0] eq "b"`, Options{Plan: "pro"}, nil, true},
		{`is_timed_hmac_valid_v0("k", http.request.uri, 1, http.request.timestamp.sec)`, Options{Plan: "free"}, []string{"error plan 1:1"}, false},
		{`http.response.code eq 403`, Options{Phase: "http_request_firewall_custom"}, []string{"error phase 1:1"}, false},
		{`http.response.code eq 403`, Options{Phase: "http_ratelimit"}, nil, true},
		{`ssl and ip.geoip.country eq "GB"`, Options{}, []string{"warning deprecated-field 1:9"}, true},
		{`cf.threat_score gt 10`, Options{}, []string{"warning threat-score 1:1"}, true},
		{`ip.src in $office or ip.src in $cf.open_proxies`, Options{Lists: []string{"home"}}, []string{"warning unknown-list 1:11"}, true},
		{`ip.src in $office`, Options{Lists: []string{"office"}}, nil, true},
		{`regex_replace(http.host, "a", "b") eq "c"`, Options{Phase: "http_request_transform"}, nil, true},
	}
	for _, tt := range tests {
		c := Check(tt.src, tt.opts)
		var got []string
		for _, d := range c.Diagnostics {
			got = append(got, d.Severity+" "+d.Code+" "+strconv.Itoa(d.Line)+":"+strconv.Itoa(d.Column))
		}
		if strings.Join(got, ";") != strings.Join(tt.want, ";") || c.Valid != tt.valid {
			t.Errorf("%s %+v: got %v valid=%v, want %v valid=%v (%v)", tt.src, tt.opts, got, c.Valid, tt.want, tt.valid, c.Diagnostics)
		}
		if (c.Program != nil) != tt.valid {
			t.Errorf("%s: Program set %v, want %v", tt.src, c.Program != nil, tt.valid)
		}
	}
	// The replacement is named.
	c := Check(`ip.geoip.asnum eq 1`, Options{})
	if len(c.Diagnostics) != 1 || !strings.Contains(c.Diagnostics[0].Message, "use ip.src.asnum") {
		t.Errorf("deprecated field: %v", c.Diagnostics)
	}
}

func TestColumnsCountCharacters(t *testing.T) {
	c := Check(`http.host eq "é" and xyz eq 1`, Options{})
	d := c.Errors()
	if len(d) != 1 || d[0].Column != 22 || d[0].Offset != 22 {
		t.Fatalf("got %v", d)
	}
}

func TestCheckASTAndCache(t *testing.T) {
	before := programCache.len()
	a := Check(`ssl and http.host eq "cache-test"`, Options{Plan: "pro"})
	b := Check(`ssl and http.host eq "cache-test"`, Options{Plan: "pro"})
	if a != b {
		t.Error("the second Check of the same expression and options is not served from the cache")
	}
	if programCache.len() != before+1 {
		t.Errorf("cache grew by %d, want 1", programCache.len()-before)
	}
	if c := Check(`ssl and http.host eq "cache-test"`, Options{Plan: "free"}); c == a {
		t.Error("options are not part of the cache key")
	}
	small := &lru{max: 2, ll: list.New(), m: map[string]*list.Element{}}
	small.put("a", a)
	small.put("b", a)
	small.put("c", a)
	if _, ok := small.get("a"); ok || small.len() != 2 {
		t.Error("the LRU does not evict its oldest entry")
	}
}

// Check and evaluation are safe for concurrent use (run with -race).
func TestConcurrentUse(t *testing.T) {
	srcs := []string{
		`any(http.request.headers["accept"][*] contains "json")`,
		`ip.src in {10.0.0.0/8} and http.host wildcard "*.example.com"`,
		`http.request.uri.path matches "^/wp-(login|admin)"`,
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				src := srcs[(i+j)%len(srcs)]
				c := checkSource(src, Options{})
				if !c.Valid {
					t.Errorf("%s: %v", src, c.Diagnostics)
					return
				}
				shared := Check(src, Options{})
				if _, err := shared.Program.Eval(Request{"ip.src": "10.1.2.3", "http.host": "a.example.com"}, nil); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
