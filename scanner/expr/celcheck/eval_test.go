package celcheck

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/netip"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/ext"
)

func TestEval(t *testing.T) {
	lists := map[string][]string{
		"office": {"192.0.2.0/24", "2001:db8::/32", "198.51.100.1..198.51.100.9"},
		"asns":   {"13335", "15169"},
		"hosts":  {"a.example.com"},
	}
	tests := []struct {
		src  string
		req  string // JSON
		want bool
	}{
		// wildcard: whole value, case-insensitive; strict: case-sensitive
		{`http.host wildcard "*.example.com"`, `{"http.host":"www.EXAMPLE.com"}`, true},
		{`http.host wildcard "*.example.com"`, `{"http.host":"example.com"}`, false},
		{`http.host wildcard "*.example.com"`, `{"http.host":"www.example.com.evil"}`, false},
		{`http.host strict wildcard "*.example.com"`, `{"http.host":"www.EXAMPLE.com"}`, false},
		{`http.host strict wildcard "*.example.com"`, `{"http.host":"www.example.com"}`, true},
		{`http.request.uri.path wildcard "/a/*/c*"`, `{"http.request.uri.path":"/A/b/c/d"}`, true},
		{`http.request.uri.path wildcard "/a\\*"`, `{"http.request.uri.path":"/a*"}`, true},
		{`http.request.uri.path wildcard "/a\\*"`, `{"http.request.uri.path":"/ab"}`, false},
		{`http.request.uri.path wildcard "*"`, `{}`, true},
		// comparisons, case-sensitive eq, contains, matches
		{`http.host eq "a"`, `{"http.host":"A"}`, false},
		{`lower(http.host) eq "a"`, `{"http.host":"A"}`, true},
		{`upper(http.host) == "ABC-1"`, `{"http.host":"abc-1"}`, true},
		{`http.request.uri.path contains "/wp-"`, `{"http.request.uri.path":"/x/wp-login.php"}`, true},
		{`http.request.uri.path matches "^/wp-(login|admin)"`, `{"http.request.uri.path":"/wp-admin/x"}`, true},
		{`http.request.uri.path ~ "^/wp-(login|admin)$"`, `{"http.request.uri.path":"/wp-admin/x"}`, false},
		{`http.host lt "b"`, `{"http.host":"a"}`, true},
		// integers, ranges, bitwise_and
		{`cf.edge.server_port in {80 443 8000..8009}`, `{"cf.edge.server_port":8005}`, true},
		{`cf.edge.server_port in {80 443 8000..8009}`, `{"cf.edge.server_port":8010}`, false},
		{`cf.edge.server_port ge 1024 and cf.edge.server_port lt 2048`, `{"cf.edge.server_port":1024}`, true},
		{`cf.edge.server_port & 1`, `{"cf.edge.server_port":3}`, true},
		{`cf.edge.server_port bitwise_and 4`, `{"cf.edge.server_port":3}`, false},
		// IPs: CIDRs v4 and v6, ranges, order, equality
		{`ip.src in {192.0.2.0/24 2001:db8::/32}`, `{"ip.src":"192.0.2.77"}`, true},
		{`ip.src in {192.0.2.0/24 2001:db8::/32}`, `{"ip.src":"2001:db8:1::5"}`, true},
		{`ip.src in {192.0.2.0/24 2001:db8::/32}`, `{"ip.src":"2001:db9::1"}`, false},
		{`ip.src in {192.0.2.0/24 2001:db8::/32}`, `{"ip.src":"192.0.3.1"}`, false},
		{`ip.src in {10.0.0.1..10.0.0.9}`, `{"ip.src":"10.0.0.9"}`, true},
		{`ip.src in {10.0.0.1..10.0.0.9}`, `{"ip.src":"10.0.0.10"}`, false},
		{`ip.src in {10.0.0.1/8}`, `{"ip.src":"10.200.0.1"}`, true},
		{`ip.src eq 2001:db8::1`, `{"ip.src":"2001:0db8:0:0::1"}`, true},
		{`ip.src ne 1.2.3.4`, `{"ip.src":"1.2.3.4"}`, false},
		{`ip.src lt 10.0.0.1`, `{"ip.src":"9.255.255.255"}`, true},
		{`ip.src ge 10.0.0.1`, `{"ip.src":"9.255.255.255"}`, false},
		{`cidr(ip.src, 24, 64) eq 192.0.2.0`, `{"ip.src":"192.0.2.200"}`, true},
		{`cidr(ip.src, 24, 64) eq 2001:db8:1:2::`, `{"ip.src":"2001:db8:1:2:3:4:5:6"}`, true},
		{`cidr6(ip.src, 32) eq 192.0.2.200`, `{"ip.src":"192.0.2.200"}`, true},
		// named lists
		{`ip.src in $office`, `{"ip.src":"2001:db8::9"}`, true},
		{`ip.src in $office`, `{"ip.src":"198.51.100.5"}`, true},
		{`ip.src in $office`, `{"ip.src":"203.0.113.1"}`, false},
		{`ip.src.asnum in $asns`, `{"ip.src.asnum":13335}`, true},
		{`http.host in $hosts`, `{"http.host":"a.example.com"}`, true},
		{`not http.host in $hosts`, `{"http.host":"b.example.com"}`, true},
		// sets of strings
		{`http.request.method in {"GET" "HEAD"}`, `{"http.request.method":"HEAD"}`, true},
		{`http.request.method in {"GET" "HEAD"}`, `{"http.request.method":"get"}`, false},
		// any/all over headers, unpack, map values
		{`any(http.request.headers["accept"][*] contains "json")`, `{"http.request.headers":{"accept":["text/html","application/json"]}}`, true},
		{`any(http.request.headers["accept"][*] contains "json")`, `{"http.request.headers":{"accept":"text/html"}}`, false},
		{`any(http.request.headers["accept"][*] contains "json")`, `{}`, false},
		{`all(http.request.headers["accept"][*] eq "x")`, `{}`, true},
		{`all(http.request.headers["accept"][*] eq "x")`, `{"http.request.headers":{"accept":["x","y"]}}`, false},
		{`any(lower(http.request.headers.names[*])[*] == "content-type")`, `{"http.request.headers.names":["Host","Content-Type"]}`, true},
		{`all(not len(http.request.uri.args["filter"][*])[*] in {3 4})`, `{"http.request.uri.args":{"filter":["ab","abcde"]}}`, true},
		{`all(not len(http.request.uri.args["filter"][*])[*] in {3 4})`, `{"http.request.uri.args":{"filter":["ab","abc"]}}`, false},
		{`any(http.request.headers[*][0] eq "x")`, `{"http.request.headers":{"a":["y"],"b":["x"]}}`, true},
		{`any(http.request.headers[*][*] eq "x")`, `{"http.request.headers":{"a":["y","x"]}}`, true},
		{`any(concat(http.request.headers.names[*], "-x")[*] eq "b-x")`, `{"http.request.headers.names":["a","b"]}`, true},
		{`concat(http.request.headers.names[*], "-x")[1] eq "b-x"`, `{"http.request.headers.names":["a","b"]}`, true},
		{`len(lower(http.request.headers.names[*])) eq 2`, `{"http.request.headers.names":["a","b"]}`, true},
		{`http.request.headers["x"][0] eq "a"`, `{"http.request.headers":{"x":["a","b"]}}`, true},
		{`http.request.headers.names[1] eq "b"`, `{"http.request.headers.names":["a","b"]}`, true},
		// missing fields take their zero value
		{`http.host eq ""`, `{}`, true},
		{`not ssl`, `{}`, true},
		{`cf.edge.server_port eq 0`, `{}`, true},
		{`ip.src eq 0.0.0.0`, `{}`, true},
		{`len(http.request.headers.names) eq 0`, `{}`, true},
		// functions
		{`starts_with(http.request.uri.path, "/api")`, `{"http.request.uri.path":"/api/v1"}`, true},
		{`ends_with(http.request.uri.path, ".php")`, `{"http.request.uri.path":"/x.PHP"}`, false},
		{`concat(http.host, "/", http.request.uri.path) eq "a/b"`, `{"http.host":"a","http.request.uri.path":"b"}`, true},
		{`url_decode(http.request.uri.query) contains "<script"`, `{"http.request.uri.query":"q=%3Cscript%3E"}`, true},
		{`url_decode(http.request.uri.query) eq "a b"`, `{"http.request.uri.query":"a+b"}`, true},
		{`url_decode(http.request.uri.query, "r") eq "<"`, `{"http.request.uri.query":"%253C"}`, true},
		{`url_decode(http.request.uri.query) eq "%3C"`, `{"http.request.uri.query":"%253C"}`, true},
		{`url_decode(http.request.uri.query, "u") eq "é"`, `{"http.request.uri.query":"%u00e9"}`, true},
		{`lookup_json_string(http.request.body.raw, "a", 1, "b") eq "x"`, `{"http.request.body.raw":"{\"a\":[0,{\"b\":\"x\"}]}"}`, true},
		{`lookup_json_integer(http.request.body.raw, "n") eq 42`, `{"http.request.body.raw":"{\"n\":42}"}`, true},
		{`lookup_json_integer(http.request.body.raw, "n") eq 42`, `{"http.request.body.raw":"not json"}`, false},
		{`substring(http.host, 0, 3) eq "www"`, `{"http.host":"www.example.com"}`, true},
		{`substring(http.host, -4) eq ".com"`, `{"http.host":"www.example.com"}`, true},
		{`substring(http.host, 5, 2) eq ""`, `{"http.host":"www.example.com"}`, true},
		{`remove_bytes(http.host, "-.") eq "abc"`, `{"http.host":"a-b.c"}`, true},
		{`decode_base64(http.request.headers["x"][0]) eq "hello"`, `{"http.request.headers":{"x":["aGVsbG8="]}}`, true},
		{`len(http.host) eq 3`, `{"http.host":"abc"}`, true},
		// logic
		{`ssl xor cf.client.bot`, `{"ssl":true,"cf.client.bot":true}`, false},
		{`ssl ^^ cf.client.bot`, `{"ssl":true}`, true},
		{`ssl or cf.client.bot and false`, `{"ssl":true}`, true},
		{`(ssl or cf.client.bot) and false`, `{"ssl":true}`, false},
		{`ip.geoip.country eq "GB"`, `{"ip.geoip.country":"GB"}`, true},
	}
	for _, tt := range tests {
		c := Check(tt.src, Options{})
		if !c.Valid {
			t.Errorf("%s: %v", tt.src, c.Diagnostics)
			continue
		}
		req, err := DecodeRequest([]byte(tt.req))
		if err != nil {
			t.Errorf("%s: %v", tt.req, err)
			continue
		}
		got, err := c.Program.Eval(req, lists)
		if err != nil || got != tt.want {
			t.Errorf("%s on %s = %v, %v; want %v", tt.src, tt.req, got, err, tt.want)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	c := Check(`ip.src in $missing`, Options{})
	if _, err := c.Program.Eval(Request{"ip.src": "1.2.3.4"}, nil); err == nil || !strings.Contains(err.Error(), "list $missing is not defined") {
		t.Errorf("unknown list: %v", err)
	}
	c = Check(`http.host eq "a"`, Options{})
	if _, err := c.Program.Eval(Request{"http.host": 3}, nil); err == nil || !strings.Contains(err.Error(), "http.host is String") {
		t.Errorf("wrong value type: %v", err)
	}
	c = Check(`ip.src in $l`, Options{})
	if _, err := c.Program.Eval(Request{"ip.src": "1.2.3.4"}, map[string][]string{"l": {"nonsense"}}); err == nil {
		t.Error("a list member that is not an address is not an error")
	}
}

func TestDecodeRequest(t *testing.T) {
	req, err := DecodeRequest([]byte(`{"http.host":"a","cf.edge.server_port":443,"ssl":true,"ip.src":"::1",
		"http.request.headers.names":["a"],"http.request.headers":{"a":"x","b":["y","z"]},"cf.bot_management.detection_ids":[1,2]}`))
	if err != nil {
		t.Fatal(err)
	}
	if req["cf.edge.server_port"] != int64(443) || req["ip.src"] != "::1" || len(req["http.request.headers"].(map[string][]string)["b"]) != 2 {
		t.Errorf("decoded %#v", req)
	}
	for _, bad := range []string{`{"nope":1}`, `{"http.host":1}`, `{"ip.src":"x"}`, `{"cf.edge.server_port":1.5}`,
		`{"http.request.headers":{"a":1}}`, `{"http.request.headers.names":[1]}`, `[1]`} {
		if _, err := DecodeRequest([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestRequestValues covers the value shapes toCEL and decodeValue take
// beyond what the catalogue's fields use: nested arrays, maps of other
// values, typed and untyped slices, and values that do not fit.
func TestRequestValues(t *testing.T) {
	strs := types.NewListType(types.StringType)
	ints := types.NewListType(types.IntType)
	intMap := types.NewMapType(types.StringType, types.IntType)
	headers := types.NewMapType(types.StringType, strs)
	for _, tt := range []struct {
		v    any
		t    *types.Type
		want ref.Val // nil: a CEL error
	}{
		{[]int64{1, 2}, ints, types.NewDynamicList(types.DefaultTypeAdapter, []int64{1, 2})},
		{[]any{json.Number("1"), 2.0}, ints, types.NewDynamicList(types.DefaultTypeAdapter, []int64{1, 2})},
		{[]any{[]string{"a"}}, types.NewListType(strs), types.NewDynamicList(types.DefaultTypeAdapter, [][]string{{"a"}})},
		{map[string]any{"k": 4}, intMap, types.NewDynamicMap(types.DefaultTypeAdapter, map[string]int64{"k": 4})},
		{map[string][]string{"k": {"v"}}, headers, types.NewDynamicMap(types.DefaultTypeAdapter, map[string][]string{"k": {"v"}})},
		{netip.MustParseAddr("::1"), types.NewOpaqueType("net.IP"), ext.IP{Addr: netip.MustParseAddr("::1")}},
		{[]string{"a"}, ints, nil},
		{[]int64{1}, strs, nil},
		{[]any{"a"}, ints, nil},
		{map[string]any{"k": "v"}, intMap, nil},
		{"zz", types.NewOpaqueType("net.IP"), nil},
	} {
		got := toCEL("f", tt.v, tt.t)
		if tt.want == nil {
			if !types.IsError(got) {
				t.Errorf("toCEL(%#v, %v) = %v, want an error", tt.v, tt.t, got)
			}
			continue
		}
		if types.IsError(got) || got.Equal(tt.want) != types.True {
			t.Errorf("toCEL(%#v, %v) = %v, want %v", tt.v, tt.t, got, tt.want)
		}
	}
	for _, tt := range []struct {
		v    any
		t    *types.Type
		want any // nil: an error
	}{
		{[]any{json.Number("1")}, ints, []int64{1}},
		{[]any{[]any{"a"}}, types.NewListType(strs), []any{[]string{"a"}}},
		{map[string]any{"k": json.Number("4")}, intMap, map[string]any{"k": int64(4)}},
		{map[string]any{"a": "x", "b": []any{"y"}}, headers, map[string][]string{"a": {"x"}, "b": {"y"}}},
		{[]any{"a"}, ints, nil},
		{[]any{[]any{1}}, types.NewListType(strs), nil},
		{map[string]any{"k": "v"}, intMap, nil},
		{map[string]any{"k": []any{1}}, headers, nil},
		{"a", ints, nil},
	} {
		got, err := decodeValue(tt.v, tt.t)
		if tt.want == nil {
			if err == nil || got != nil {
				t.Errorf("decodeValue(%#v, %v) = %#v, %v; want an error", tt.v, tt.t, got, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("decodeValue(%#v, %v) = %#v, %v; want %#v", tt.v, tt.t, got, err, tt.want)
		}
	}
}

func TestTimedHMAC(t *testing.T) {
	key, message, ts := "secret", "/download/cat.jpg", "1484063787"
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(message + ts))
	mac := url.QueryEscape(base64.StdEncoding.EncodeToString(m.Sum(nil)))
	token := message + "?verify=" + ts + "-" + mac
	c := Check(`is_timed_hmac_valid_v0("secret", http.request.uri, 10800, http.request.timestamp.sec, 8)`, Options{})
	for _, tt := range []struct {
		uri  string
		now  int64
		want bool
	}{
		{token, 1484063787 + 100, true},
		{token, 1484063787 + 10801, false},
		{token, 1484063787 - 1, false},
		{strings.Replace(token, "cat", "dog", 1), 1484063787 + 100, false},
		{"/x", 1484063787, false},
	} {
		got, err := c.Program.Eval(Request{"http.request.uri": tt.uri, "http.request.timestamp.sec": tt.now}, nil)
		if err != nil || got != tt.want {
			t.Errorf("%s at %d = %v, %v; want %v", tt.uri, tt.now, got, err, tt.want)
		}
	}
}

func TestTransformFunctions(t *testing.T) {
	opts := Options{Phase: "http_request_transform"}
	for _, tt := range []struct {
		src string
		req Request
	}{
		{`regex_replace(http.request.uri.path, "^/foo/([^/]*)/(.*)$", "/bar/${2}/${1}") eq "/bar/path/a"`, Request{"http.request.uri.path": "/foo/a/path"}},
		{`to_string(cf.edge.server_port) eq "443"`, Request{"cf.edge.server_port": 443}},
		{`to_string(ip.src) eq "::1"`, Request{"ip.src": "::1"}},
		{`wildcard_replace(http.host, "*.example.com", "${1}.example.net") eq "WWW.example.net"`, Request{"http.host": "WWW.example.com"}},
		{`wildcard_replace(http.host, "*.example.com", "x", "s") eq "WWW.Example.com"`, Request{"http.host": "WWW.Example.com"}},
		{`len(uuidv4(cf.random_seed)) eq 36`, Request{"cf.random_seed": "0123456789abcdef"}},
	} {
		c := Check(tt.src, opts)
		if !c.Valid {
			t.Errorf("%s: %v", tt.src, c.Diagnostics)
			continue
		}
		if got, err := c.Program.Eval(tt.req, nil); err != nil || !got {
			t.Errorf("%s = %v, %v", tt.src, got, err)
		}
	}
}

func TestCost(t *testing.T) {
	c := Check(`any(http.request.headers["a"][*] contains "x") or http.host eq "a"`, Options{})
	lo, hi, err := c.Program.Cost()
	if err != nil || lo == 0 || hi < lo {
		t.Errorf("cost %d..%d, %v", lo, hi, err)
	}
}
