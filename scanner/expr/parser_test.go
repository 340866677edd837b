package expr

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// validCases maps source to its canonical print. Each is also a fuzz seed
// and a round-trip case.
var validCases = []struct{ src, want string }{
	// comparison operators, both spellings
	{`http.host eq "a"`, `http.host eq "a"`},
	{`http.host == "a"`, `http.host eq "a"`},
	{`http.host ne "a"`, `http.host ne "a"`},
	{`http.host != "a"`, `http.host ne "a"`},
	{`cf.threat_score lt 10`, `cf.threat_score lt 10`},
	{`cf.threat_score < 10`, `cf.threat_score lt 10`},
	{`cf.threat_score le 10`, `cf.threat_score le 10`},
	{`cf.threat_score <= 10`, `cf.threat_score le 10`},
	{`cf.threat_score gt 10`, `cf.threat_score gt 10`},
	{`cf.threat_score > 10`, `cf.threat_score gt 10`},
	{`cf.threat_score ge 10`, `cf.threat_score ge 10`},
	{`cf.threat_score >= 10`, `cf.threat_score ge 10`},
	{`http.request.uri.path contains "/a"`, `http.request.uri.path contains "/a"`},
	{`http.cookie contains"() {"`, `http.cookie contains "() {"`},
	{`http.request.uri.path matches "^/a$"`, `http.request.uri.path matches "^/a$"`},
	{`http.request.uri.path ~ "^/a$"`, `http.request.uri.path matches "^/a$"`},
	{`http.request.full_uri wildcard "*.example.com/*"`, `http.request.full_uri wildcard "*.example.com/*"`},
	{`http.host strict wildcard "Foo*"`, `http.host strict wildcard "Foo*"`},
	{"http.host strict\n  wildcard r\"a*\"", `http.host strict wildcard "a*"`},
	{`ip.src in {1.2.3.4}`, `ip.src in {1.2.3.4}`},
	{`tcp.flags bitwise_and 0x02`, `tcp.flags bitwise_and 2`},
	{`tcp.flags & 2`, `tcp.flags bitwise_and 2`},
	// logic and precedence
	{`not ssl`, `not ssl`},
	{`!ssl`, `not ssl`},
	{`!!ssl`, `not not ssl`},
	{`a and b`, `a and b`},
	{`a && b`, `a and b`},
	{`a xor b`, `a xor b`},
	{`a ^^ b`, `a xor b`},
	{`a or b`, `a or b`},
	{`a || b`, `a or b`},
	{`a or b and c`, `a or b and c`},
	{`(a or b) and c`, `(a or b) and c`},
	{`a and b xor c or d`, `a and b xor c or d`},
	{`a and (b xor (c or d))`, `a and (b xor (c or d))`},
	{`a or (b or c)`, `a or (b or c)`},
	{`(a or b) or c`, `a or b or c`},
	{`not (a and b)`, `not (a and b)`},
	{`not a and b`, `not a and b`},
	{`(not a) and b`, `not a and b`},
	{`not http.host eq "x"`, `not http.host eq "x"`},
	{`not (http.host eq "x")`, `not http.host eq "x"`},
	{`((((ssl))))`, `ssl`},
	{`t or t && t and t or t ^^ t and t || t`, `t or t and t and t or t xor t and t or t`},
	{`true`, `true`},
	{`false or ssl`, `false or ssl`},
	{`not true`, `not true`},
	// strings
	{`x eq "a\"b\\c"`, `x eq "a\"b\\c"`},
	{`x eq "\x41\101\x0a"`, `x eq "AA\x0A"`},
	{`x eq "\xff"`, `x eq "\xFF"`},
	{`x eq "é😍"`, `x eq "é😍"`},
	{"x eq \"tab\there\"", `x eq "tab\x09here"`},
	{`x eq r"a\b"`, `x eq "a\\b"`},
	{`x eq r#"a"b"#`, `x eq "a\"b"`},
	{`x eq r##"a"#b"##`, `x eq "a\"#b"`},
	{`x eq ""`, `x eq ""`},
	{`x eq r""`, `x eq ""`},
	// regex literals keep escapes for the regex engine
	{`x matches "a\.b"`, `x matches "a\.b"`},
	{`x matches "a\"b"`, `x matches "a\"b"`},
	{`x matches "[a-z"\]]+\d"`, `x matches "[a-z"\]]+\d"`},
	{`x matches r"/api/login\.aspx$"`, `x matches "/api/login\.aspx$"`},
	{`x matches r#"a\"b"#`, `x matches r#"a\"b"#`},
	{`x matches r#"[a"#`, `x matches r"[a"`},
	{`x ~ r"^(www|store)\.example\.com"`, `x matches "^(www|store)\.example\.com"`},
	// integers
	{`x eq 0`, `x eq 0`},
	{`x eq -12`, `x eq -12`},
	{`x eq 0x1F`, `x eq 31`},
	{`x eq 017`, `x eq 15`},
	{`x eq 9223372036854775807`, `x eq 9223372036854775807`},
	{`x eq -9223372036854775808`, `x eq -9223372036854775808`},
	// addresses, byte strings
	{`ip.src eq 203.0.113.0`, `ip.src eq 203.0.113.0`},
	{`ip.src eq 2001:0db8::1`, `ip.src eq 2001:db8::1`},
	{`ip.src eq ::1`, `ip.src eq ::1`},
	{`ip.src eq fe80::1`, `ip.src eq fe80::1`},
	{`ip.src eq ::ffff:1.2.3.4`, `ip.src eq ::ffff:1.2.3.4`},
	{`ip.addr <= 10:20:30:40:50:60:70:80`, `ip.addr le 10:20:30:40:50:60:70:80`},
	{`http.host contains 6F:72:67`, `http.host contains 6F:72:67`},
	{`http.host contains de:ad-be.ef`, `http.host contains DE:AD:BE:EF`},
	{`http.host < 12:13`, `http.host lt 12:13`},
	// sets, ranges, lists
	{`ip.src in { 203.0.113.0 203.0.113.1 }`, `ip.src in {203.0.113.0 203.0.113.1}`},
	{"ip.src in {\n\t1.2.3.4\n\t5.6.7.8\n}", `ip.src in {1.2.3.4 5.6.7.8}`},
	{`ip.src in {198.51.100.3..198.51.100.7 192.0.2.0/24 2001:0db8::/32 ::1..::2}`, `ip.src in {198.51.100.3..198.51.100.7 192.0.2.0/24 2001:db8::/32 ::1..::2}`},
	{`tcp.dstport in {8000..8009 80 0x10..0x20}`, `tcp.dstport in {8000..8009 80 16..32}`},
	{`tcp.dstport in {-5..-1}`, `tcp.dstport in {-5..-1}`},
	{`http.host in {"a" r"b" 61:62}`, `http.host in {"a" "b" 61:62}`},
	{`http.host in {}`, `http.host in {}`},
	{`ip.src in $office_net`, `ip.src in $office_net`},
	{`ip.src in $cf.open_proxies`, `ip.src in $cf.open_proxies`},
	// maps, arrays, unpack, functions
	{`http.request.headers["x-a"][0] eq "b"`, `http.request.headers["x-a"][0] eq "b"`},
	{`http.request.headers.names[0] == "Content-Type"`, `http.request.headers.names[0] eq "Content-Type"`},
	{`any(http.request.headers["accept"][*] contains "json")`, `any(http.request.headers["accept"][*] contains "json")`},
	{`any(lower(http.request.headers.names[*])[*] == "x")`, `any(lower(http.request.headers.names[*])[*] eq "x")`},
	{`all(not len(http.request.uri.args["f"][*])[*] in {3 4})`, `all(not len(http.request.uri.args["f"][*])[*] in {3 4})`},
	{`any(!(x[*] in {"a" "b"}))`, `any(not x[*] in {"a" "b"})`},
	{`any ( ( a or b ) )`, `any(a or b)`},
	{`echo(echo(http.headers[*])[*])[0] == "t"`, `echo(echo(http.headers[*])[*])[0] eq "t"`},
	{`ends_with(http.request.uri.path, ".html")`, `ends_with(http.request.uri.path, ".html")`},
	{`starts_with(http.request.uri.path, "/a") and ssl`, `starts_with(http.request.uri.path, "/a") and ssl`},
	{`lookup_json_string(http.request.body.raw, "a", 1) == "c"`, `lookup_json_string(http.request.body.raw, "a", 1) eq "c"`},
	{`f()`, `f()`},
	{`substring(http.host, -5) eq "x"`, `substring(http.host, -5) eq "x"`},
	{`cidr(ip.src, 24) eq 10.0.0.0`, `cidr(ip.src, 24) eq 10.0.0.0`},
	{`f(fe80::1, de:ad)`, `f(fe80::1, DE:AD)`},
	{`f(true, x or y)`, `f(true, x or y)`},
	{`f(aa:bb-cc-dd-ee-ff-00-11)`, `f(AA:BB-CC-DD-EE-FF-00-11)`},
	{`is_timed_hmac_valid_v0("secret", http.request.uri, 10800, http.request.timestamp.sec, 8)`, `is_timed_hmac_valid_v0("secret", http.request.uri, 10800, http.request.timestamp.sec, 8)`},
	{`map["😍"]`, `map["😍"]`},
	{`is_TCP`, `is_TCP`},
	{"(\n (a eq 1) or\r\n b\n)", `a eq 1 or b`},
}

func TestParseValid(t *testing.T) {
	for _, c := range validCases {
		e, err := Parse(c.src)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.src, err)
			continue
		}
		if got := Print(e); got != c.want {
			t.Errorf("Print(Parse(%q)) = %q, want %q", c.src, got, c.want)
		}
		checkRoundTrip(t, c.src, e, false)
	}
}

// checkRoundTrip asserts parse(print(ast)) == ast and that print is a fixpoint.
func checkRoundTrip(t *testing.T, src string, e *Expr, value bool) {
	t.Helper()
	printed := Print(e)
	again, err := parse(printed, value)
	if err != nil {
		t.Errorf("reparse of %q (from %q): %v", printed, src, err)
		return
	}
	if !Equal(e, again) {
		t.Errorf("parse(print(ast)) differs for %q: printed %q, reprinted %q", src, printed, Print(again))
	}
	if p2 := Print(again); p2 != printed {
		t.Errorf("print not a fixpoint for %q: %q then %q", src, printed, p2)
	}
}

func TestTree(t *testing.T) {
	e, err := Parse(`not a eq 1 and b or c xor d`)
	if err != nil {
		t.Fatal(err)
	}
	or, ok := e.Root.(*BinaryExpr)
	if !ok || or.Op != OpOr {
		t.Fatalf("root = %#v, want or", e.Root)
	}
	and, ok := or.X.(*BinaryExpr)
	if !ok || and.Op != OpAnd {
		t.Fatalf("left of or = %#v, want and", or.X)
	}
	not, ok := and.X.(*NotExpr)
	if !ok {
		t.Fatalf("left of and = %#v, want not", and.X)
	}
	if cmp, ok := not.X.(*Comparison); !ok || cmp.Op != OpEq {
		t.Fatalf("operand of not = %#v, want a eq 1", not.X)
	}
	if xor, ok := or.Y.(*BinaryExpr); !ok || xor.Op != OpXor {
		t.Fatalf("right of or = %#v, want xor", or.Y)
	}
}

func TestPositions(t *testing.T) {
	src := `any(lower(h["k"][*])[*] in {1..3 "x"}) and ip.src in $l and s eq r#"q"#`
	e, err := Parse(src)
	if err != nil {
		// The set mixes kinds on purpose below; parse a clean one here.
		t.Logf("expected error: %v", err)
	}
	_ = e
	src = `any(lower(h["k"][*])[*] in {1..3 7}) and ip.src in $l and s eq r#"q"#`
	e, err = Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	var spans []string
	Inspect(e, func(n Node) bool {
		if n == nil {
			return false
		}
		if _, ok := n.(*Expr); !ok {
			spans = append(spans, src[n.Pos():n.End()])
		}
		return true
	})
	want := []string{
		src,
		`any(lower(h["k"][*])[*] in {1..3 7}) and ip.src in $l`,
		`any(lower(h["k"][*])[*] in {1..3 7})`,
		`lower(h["k"][*])[*] in {1..3 7}`,
		`lower(h["k"][*])[*]`,
		`lower(h["k"][*])`,
		`h["k"][*]`,
		`h["k"]`,
		`h`,
		`"k"`,
		`{1..3 7}`,
		`1..3`,
		`1`,
		`3`,
		`7`,
		`ip.src in $l`,
		`ip.src`,
		`$l`,
		`s eq r#"q"#`,
		`s`,
		`r#"q"#`,
	}
	if strings.Join(spans, "\n") != strings.Join(want, "\n") {
		t.Errorf("spans:\n%s\nwant:\n%s", strings.Join(spans, "\n"), strings.Join(want, "\n"))
	}
	cmp := e.Root.(*BinaryExpr).Y.(*Comparison)
	if cmp.OpPos != Pos(strings.Index(src, "eq r#")) || cmp.OpText != "eq" {
		t.Errorf("OpPos = %d %q", cmp.OpPos, cmp.OpText)
	}
	s := cmp.Y.(*StringLit)
	if !s.Raw || s.Hashes != 1 || s.Value != "q" {
		t.Errorf("raw string = %+v", s)
	}
}

func TestLiteralValues(t *testing.T) {
	e, err := Parse(`ip.src in {10.0.0.0/8 ::1 1.2.3.4..1.2.3.9} and x in {0x10 010 -3} and b contains 0a:0B and y eq "\x00\101"`)
	if err != nil {
		t.Fatal(err)
	}
	var ips []*IPLit
	var ints []int64
	var bytesLit *BytesLit
	var str *StringLit
	Inspect(e, func(n Node) bool {
		switch n := n.(type) {
		case *IPLit:
			ips = append(ips, n)
		case *IntLit:
			ints = append(ints, n.Value)
		case *BytesLit:
			bytesLit = n
		case *StringLit:
			str = n
		}
		return true
	})
	if len(ips) != 4 || !ips[0].IsCIDR() || ips[0].Prefix() != netip.MustParsePrefix("10.0.0.0/8") ||
		ips[1].IsCIDR() || ips[1].Addr != netip.MustParseAddr("::1") || ips[1].Prefix().Bits() != 128 {
		t.Errorf("ips = %+v", ips)
	}
	if len(ints) != 3 || ints[0] != 16 || ints[1] != 8 || ints[2] != -3 {
		t.Errorf("ints = %v", ints)
	}
	if bytesLit == nil || string(bytesLit.Value) != "\x0a\x0b" {
		t.Errorf("bytes = %+v", bytesLit)
	}
	if str == nil || str.Value != "\x00A" {
		t.Errorf("string = %+v", str)
	}
}

// errorCases lists invalid sources and every error expected, as line:col: msg.
var errorCases = []struct {
	src  string
	want []string
}{
	{`ip.src in {1.2.3.4, 5.6.7.8}`, []string{`1:19: expected a set element, found ",": set elements are separated by spaces, not commas`}},
	{`x in {1, 2, 3}`, []string{
		`1:8: expected a set element, found ",": set elements are separated by spaces, not commas`,
		`1:11: expected a set element, found ",": set elements are separated by spaces, not commas`}},
	{`http.host eq "a" AND ssl`, []string{`1:18: expected a logical operator (and, or, xor) or the end of the expression, found name "AND" (operators are lowercase: write and)`}},
	{`http.host EQ "a"`, []string{`1:11: expected a comparison operator or a logical operator, found name "EQ" (operators are lowercase: write eq)`}},
	{`http.request.uri.path ends_with ".html"`, []string{`1:23: expected a comparison operator or a logical operator, found name "ends_with" (ends_with is a function, not an operator: write ends_with(field, "value"))`}},
	{`x starts_with "a"`, []string{`1:3: expected a comparison operator or a logical operator, found name "starts_with" (starts_with is a function, not an operator: write starts_with(field, "value"))`}},
	{`(ssl`, []string{`1:5: expected ")" to close the "(" at 1:1, found end of expression`}},
	{`ssl)`, []string{`1:4: expected a logical operator (and, or, xor) or the end of the expression, found ")"`}},
	{`ip.src in 1.2.3.0/24`, []string{`1:11: expected a set {...} or a list $name after "in", found "1.2.3.0/24"`}},
	{`ip.src eq 1.2.3.0/24`, []string{`1:11: a CIDR is only allowed inside a set: write in {1.2.3.0/24}`}},
	{`x eq 1..2`, []string{`1:6: a range is only allowed inside a set: write x in {1..2}`}},
	{`x[*] == 1`, []string{`1:3: [*] is only allowed inside a function argument, such as any(x[*] ...)`}},
	{`len(x[*])[*] > 3`, []string{`1:11: [*] is only allowed inside a function argument, such as any(len(x[*])[*] ...)`}},
	{`num == true`, []string{`1:8: true is a boolean literal and cannot be compared`}},
	{`true == x`, []string{`1:6: true is a boolean literal and cannot be compared`}},
	{`x eq "a\qb"`, []string{`1:8: invalid escape "\q": use \", \\, \xHH or \OOO`}},
	{`x eq "a\nb" or y eq "\t"`, []string{`1:8: invalid escape "\n": use \", \\, \xHH or \OOO`, `1:22: invalid escape "\t": use \", \\, \xHH or \OOO`}},
	{`x eq "\x4"`, []string{`1:7: invalid escape: \x needs two hex digits`}},
	{`x eq "\01"`, []string{`1:7: invalid escape: an octal escape needs three digits (\OOO)`}},
	{`x eq "\777"`, []string{`1:7: invalid escape: \777 is more than 255`}},
	{`x eq "abc`, []string{`1:6: string is missing its closing quote`}},
	{`x eq "abcd\`, []string{`1:6: string is missing its closing quote`}},
	{`x matches "a\`, []string{`1:11: string is missing its closing quote`}},
	{`x matches "[a"`, []string{`1:11: string is missing its closing quote`}},
	{`x eq r#"abc"`, []string{`1:6: raw string is missing its closing "#`}},
	{`x eq r#abc`, []string{`1:8: expected " to open the raw string`}},
	{`x eq r` + strings.Repeat("#", 256) + `"a"` + strings.Repeat("#", 256), []string{`1:6: a raw string takes at most 255 #, found 256`}},
	{`x eq`, []string{`1:5: expected a value (string, number, IP address) after "eq", found end of expression`}},
	{`x eq y`, []string{`1:6: expected a value (string, number, IP address) after "eq", found name "y": a field cannot be compared with another field`}},
	{``, []string{`1:1: empty expression`}},
	{" \n ", []string{`2:2: empty expression`}},
	{`tcp.port in {1..}`, []string{`1:17: expected a value`}},
	{`tcp.port in {10..1}`, []string{`1:14: range 10..1 ends before it starts`}},
	{`ip.src in {10.0.0.9..10.0.0.1}`, []string{`1:12: range 10.0.0.9..10.0.0.1 ends before it starts`}},
	{`ip.src in {10.0.0.1..::1}`, []string{`1:12: a range needs two integers or two IP addresses of the same family`}},
	{`ip.src in {10.0.0.0/8..10.0.0.0/9}`, []string{`1:12: a range is written between two addresses, not CIDRs`}},
	{`x in {1 "a"}`, []string{`1:9: set element string "a" does not match the set's other elements (integers)`}},
	{`ip.src in {1.2.3.4 159 223.166.150}`, []string{
		`1:20: set element integer 159 does not match the set's other elements (IP addresses)`,
		`1:24: invalid IP address "223.166.150"`}},
	{`ip.src in {2400:cb00::/32 2405:8100::/2000}`, []string{`1:39: invalid CIDR "2405:8100::/2000": prefix length 2000 is more than 128`}},
	{`ip.src in {1.2.3.4/a}`, []string{`1:20: invalid CIDR "1.2.3.4/a": prefix length "a" is not a number`}},
	{`ip.src in {1.2.3/8}`, []string{`1:12: invalid CIDR "1.2.3/8": "1.2.3" is not an IP address`}},
	{`x eq 1:2:3`, []string{`1:6: invalid IPv6 address or byte string "1:2:3"`}},
	{`x eq 12-34-5`, []string{`1:6: invalid value "12-34-5": not an integer, IP address, CIDR or byte string`}},
	{`ssl and`, []string{`1:8: expected a field, a function call or a parenthesized expression, found end of expression`}},
	{`and ssl`, []string{`1:1: expected a field, a function call or a parenthesized expression, found "and"`}},
	{`not`, []string{`1:4: expected a field, a function call or a parenthesized expression, found end of expression`}},
	{`f(`, []string{`1:3: expected a field, a function call or a parenthesized expression, found end of expression`}},
	{`f(a b)`, []string{`1:5: expected a comparison operator or a logical operator, found name "b"`}},
	{`f(a; b)`, []string{`1:4: unexpected character ';'`}},
	{`x[`, []string{`1:3: an index is a non-negative integer, a "key" string or *, found end of expression`}},
	{`x[0`, []string{`1:4: expected "]", found end of expression`}},
	{`x[-1]`, []string{`1:3: an index is a non-negative integer, a "key" string or *, found "-1"`}},
	{`x[a]`, []string{`1:3: an index is a non-negative integer, a "key" string or *, found name "a"`}},
	{`"a" == x`, []string{`1:1: a comparison must start with a field or a function call, found string "a"`, `1:5: expected a logical operator (and, or, xor) or the end of the expression, found "=="`}},
	{`x or "%{other}"`, []string{`1:6: expected a field, a function call or a parenthesized expression, found string "%{other}"`}},
	{`61:20:71`, []string{`1:1: expected a field, a function call or a parenthesized expression, found byte string 61:20:71`}},
	{`$list`, []string{`1:1: a list can only follow "in": write <field> in $list`}},
	{`{1}`, []string{`1:1: a set can only follow "in"`}},
	{`x in $Bad`, []string{`1:7: list names use lowercase letters, digits, _ and . only`}},
	{`x in $redirect_%[1]s`, []string{`1:16: unexpected character '%'`}},
	{`x in $`, []string{`1:6: expected a list name after $`}},
	{`x in $a.`, []string{`1:6: a list name cannot start or end with "."`}},
	{`x & "a"`, []string{`1:5: "&" takes an integer, found string "a"`}},
	{`x contains 1`, []string{`1:12: "contains" takes a string, found integer 1`}},
	{`x matches 1`, []string{`1:11: expected a regular expression string after "matches", found "1"`}},
	{`x wildcard 1`, []string{`1:12: expected a wildcard pattern string after "wildcard", found "1"`}},
	{`x strict "a"`, []string{`1:10: expected "wildcard" after "strict", found string "a"`}},
	{`x eq 0x`, []string{`1:6: invalid integer "0x": no digits after 0x`}},
	{`x eq 09`, []string{`1:6: invalid octal integer "09": a leading 0 means octal`}},
	{`x eq 99999999999999999999`, []string{`1:6: integer 99999999999999999999 does not fit in 64 bits`}},
	{`(a) == 1`, []string{`1:5: a parenthesized expression cannot be compared: put the comparison inside the parentheses`}},
	{`x = 1`, []string{`1:3: unexpected "=": use == or eq to compare`}},
	{`x | y`, []string{`1:3: unexpected "|": use || or or`}},
	{`x ^ y`, []string{`1:3: unexpected "^": use ^^ or xor`}},
	{`x..y`, []string{`1:2: unexpected "..": a range a..b is only allowed between two values inside a set`}},
	{`x.y. eq 1`, []string{`1:4: unexpected character '.'`}},
	{"x eq \"a\"\n and y eq 1.2.3", []string{`2:11: invalid IP address "1.2.3"`}},
	{"é eq 1", []string{`1:1: unexpected character 'é'`}},
	{`x eq "é" and é`, []string{`1:14: unexpected character 'é'`}},
	{"x eq \xff", []string{`1:6: invalid UTF-8 byte`}},
	{`http.host in {"a" "b"`, []string{`1:22: expected "}" to close the set opened at 1:14, found end of expression`}},
	{`ip.src in {1.2.3.4 {}`, []string{`1:20: expected a set element, found "{"`}},
	{`a b c`, []string{`1:3: expected a comparison operator or a logical operator, found name "b"`}},
	{`a eq 1 b eq 2 or c eq`, []string{
		`1:8: expected a logical operator (and, or, xor) or the end of the expression, found name "b"`,
		`1:22: expected a value (string, number, IP address) after "eq", found end of expression`}},
	{`x in {1 2}[0]`, []string{`1:11: expected a logical operator (and, or, xor) or the end of the expression, found "["`}},
}

func TestParseErrors(t *testing.T) {
	for _, c := range errorCases {
		e, err := Parse(c.src)
		Inspect(e, func(n Node) bool {
			if n != nil && (n.Pos() < 0 || n.End() < n.Pos() || int(n.End()) > len(c.src)) {
				t.Errorf("Parse(%q): partial tree node %T spans %d..%d", c.src, n, n.Pos(), n.End())
			}
			return true
		})
		if err == nil {
			t.Errorf("Parse(%q): no error, want %q", c.src, c.want)
			continue
		}
		var list ErrorList
		if !errors.As(err, &list) {
			t.Fatalf("Parse(%q) error is %T, want ErrorList", c.src, err)
		}
		var got []string
		for _, e := range list {
			got = append(got, e.Error())
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("Parse(%q) errors:\n  %s\nwant:\n  %s", c.src, strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
		}
	}
}

// errorList is err as the ErrorList the parser returns; the test stops when
// err is nil or another kind of error.
func errorList(tb testing.TB, err error) ErrorList {
	tb.Helper()
	var list ErrorList
	if !errors.As(err, &list) {
		tb.Fatalf("error %v (%T) is not an ErrorList", err, err)
	}
	return list
}

func TestErrorRender(t *testing.T) {
	src := "ip.src in {1.2.3.4,\n\t\t5.6.7.8} and\n\tx eq \"a\\q\""
	_, err := Parse(src)
	list := errorList(t, err)
	want := "1:19: expected a set element, found \",\": set elements are separated by spaces, not commas\n" +
		"ip.src in {1.2.3.4,\n" +
		"                  ^\n" +
		"3:9: invalid escape \"\\q\": use \\\", \\\\, \\xHH or \\OOO\n" +
		"\tx eq \"a\\q\"\n" +
		"\t       ^"
	if got := list.Render(src); got != want {
		t.Errorf("Render:\n%s\nwant:\n%s", got, want)
	}
	if got := list.Error(); got != `1:19: expected a set element, found ",": set elements are separated by spaces, not commas (and 1 more errors)` {
		t.Errorf("Error() = %q", got)
	}
	if ErrorList(nil).Err() != nil || ErrorList(nil).Error() != "no errors" {
		t.Error("empty ErrorList")
	}
	// Columns count runes, not bytes.
	_, err = Parse(`x eq "ééé" and y eq "\q"`)
	if e := errorList(t, err)[0]; e.Col != 22 || e.Pos != 24 {
		t.Errorf("col/pos = %d/%d, want 22/24", e.Col, e.Pos)
	}
}

func TestMaxLength(t *testing.T) {
	elems := strings.Repeat(`"aaaaaaaa" `, 400)
	src := `http.host in {` + elems + `}`
	e, err := Parse(src)
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 1 {
		t.Fatalf("err = %v", err)
	}
	want := "1:4097: expression is 4415 characters long; the limit is 4096"
	if list[0].Error() != want {
		t.Errorf("got %q, want %q", list[0].Error(), want)
	}
	set := e.Root.(*Comparison).Y.(*SetLit)
	if len(set.Elems) != 400 {
		t.Errorf("still parsed: %d elements", len(set.Elems))
	}
	// Exactly at the limit is fine, counted in characters.
	ok4096 := `x eq "` + strings.Repeat("é", 4096-8) + `"`
	if _, err := Parse(ok4096); err != nil {
		t.Errorf("4096 characters: %v", err)
	}
}

func TestMaxDepth(t *testing.T) {
	for _, src := range []string{
		strings.Repeat("(", 100000) + "ssl" + strings.Repeat(")", 100000),
		strings.Repeat("not ", 100000) + "ssl",
		strings.Repeat("!", 100000) + "ssl",
		strings.Repeat("f(", 100000) + "x" + strings.Repeat(")", 100000),
		strings.Repeat("any(", 200) + "x" + strings.Repeat(")", 200),
	} {
		_, err := Parse(src)
		var list ErrorList
		if !errors.As(err, &list) || len(list) == 0 || !strings.Contains(list[0].Msg, "too deeply nested: more than 128 levels") {
			t.Errorf("Parse(%.20q...): %v", src, err)
		}
	}
	// Deep but within the limit.
	src := strings.Repeat("lower(", 120) + "http.host" + strings.Repeat(")", 120) + ` eq "a"`
	if _, err := Parse(src); err != nil {
		t.Errorf("120 nested calls: %v", err)
	}
}

func TestTooManyErrors(t *testing.T) {
	_, err := Parse(strings.Repeat(`x eq "\q" or `, 50) + "ssl")
	if list := errorList(t, err); len(list) != maxErrors {
		t.Errorf("%d errors, want %d", len(list), maxErrors)
	}
}

func TestParseValue(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`regex_replace(http.host, "a", "\\")`, `regex_replace(http.host, "a", "\\")`},
		{`regex_replace(http.host, r"\\", "a")`, `regex_replace(http.host, "\\\\", "a")`},
		{`concat("https://m.example.com", http.request.uri.path)`, `concat("https://m.example.com", http.request.uri.path)`},
		{`http.host`, `http.host`},
		{`"a quoted \xaa\x22 string"`, `"a quoted \xAA\" string"`},
		{`42`, `42`},
		{`split(http.response.headers["cache-tag-ext"][0], ",", 1)`, `split(http.response.headers["cache-tag-ext"][0], ",", 1)`},
		{`to_string(x) == "1"`, `to_string(x) eq "1"`},
	} {
		e, err := ParseValue(c.src)
		if err != nil {
			t.Errorf("ParseValue(%q): %v", c.src, err)
			continue
		}
		if !e.Value || Print(e) != c.want {
			t.Errorf("ParseValue(%q) printed %q, want %q", c.src, Print(e), c.want)
		}
		checkRoundTrip(t, c.src, e, true)
	}
	if _, err := ParseValue(`"a" == x`); err == nil {
		t.Error(`ParseValue("a" == x): no error`)
	}
	if _, err := Parse(`"a"`); err == nil {
		t.Error(`Parse("a"): a string is not a filter`)
	}
}

func TestOpStrings(t *testing.T) {
	for op := OpEq; op <= OpOr; op++ {
		if op.String() == "" || op.String() == "invalid" {
			t.Errorf("op %d has no name", op)
		}
		if op.IsComparison() == op.IsLogical() {
			t.Errorf("%s: comparison=%v logical=%v", op, op.IsComparison(), op.IsLogical())
		}
	}
	if OpMatches.Symbol() != "~" || OpContains.Symbol() != "" || Op(200).String() != "invalid" || Op(200).Symbol() != "" {
		t.Error("symbols")
	}
}
