package catalog

import (
	"slices"
	"strings"
	"testing"
)

// domainFields is the fields table of domain-facts.md, expanded name by name, with the type
// and minimum plan it states (types in this catalogue's spelling: Int, Bool).
var domainFields = []struct{ name, typ, plan string }{
	{"http.host", "String", ""}, {"http.referer", "String", ""}, {"http.user_agent", "String", ""},
	{"http.cookie", "String", ""}, {"http.x_forwarded_for", "String", ""},
	{"http.request.uri", "String", ""}, {"http.request.uri.path", "String", ""},
	{"http.request.uri.query", "String", ""}, {"http.request.full_uri", "String", ""},
	{"http.request.method", "String", ""}, {"http.request.version", "String", ""},
	{"http.request.uri.path.extension", "String", ""},
	{"http.request.headers", "Map<Array<String>>", ""}, {"http.request.uri.args", "Map<Array<String>>", ""},
	{"http.request.cookies", "Map<Array<String>>", "pro"},
	{"http.request.headers.names", "Array<String>", ""}, {"http.request.headers.values", "Array<String>", ""},
	{"http.request.uri.args.names", "Array<String>", ""}, {"http.request.uri.args.values", "Array<String>", ""},
	{"http.request.headers.truncated", "Bool", ""},
	{"http.request.timestamp.sec", "Int", ""}, {"http.request.timestamp.msec", "Int", ""},
	{"ip.src", "IP", ""},
	{"ip.src.country", "String", ""}, {"ip.src.continent", "String", ""}, {"ip.src.city", "String", ""},
	{"ip.src.region", "String", ""}, {"ip.src.region_code", "String", ""}, {"ip.src.postal_code", "String", ""},
	{"ip.src.metro_code", "String", ""},
	{"ip.src.asnum", "Int", ""},
	{"ip.src.lat", "String", ""}, {"ip.src.lon", "String", ""},
	{"ip.src.subdivision_1_iso_code", "String", "business"}, {"ip.src.subdivision_2_iso_code", "String", "business"},
	{"ip.src.is_in_european_union", "Bool", "business"},
	{"ip.geoip.country", "String", ""}, {"ip.geoip.continent", "String", ""}, {"ip.geoip.asnum", "Int", ""},
	{"ip.geoip.is_in_european_union", "Bool", "business"},
	{"ip.geoip.subdivision_1_iso_code", "String", "business"}, {"ip.geoip.subdivision_2_iso_code", "String", "business"},
	{"ssl", "Bool", ""}, {"cf.client.bot", "Bool", ""},
	{"cf.threat_score", "Int", ""},
	{"cf.verified_bot_category", "String", ""},
	{"cf.edge.server_port", "Int", ""}, {"cf.edge.server_ip", "IP", ""},
	{"cf.bot_management.score", "Int", "enterprise"},
	{"cf.bot_management.verified_bot", "Bool", "enterprise"}, {"cf.bot_management.static_resource", "Bool", "enterprise"},
	{"cf.bot_management.js_detection.passed", "Bool", "enterprise"}, {"cf.bot_management.corporate_proxy", "Bool", "enterprise"},
	{"cf.bot_management.ja3_hash", "String", "enterprise"}, {"cf.bot_management.ja4", "String", "enterprise"},
	{"cf.waf.score", "Int", "enterprise"}, {"cf.waf.score.sqli", "Int", "enterprise"},
	{"cf.waf.score.xss", "Int", "enterprise"}, {"cf.waf.score.rce", "Int", "enterprise"},
	{"cf.waf.score.class", "String", "business"},
	{"http.request.body.raw", "String", "enterprise"}, {"http.request.body.size", "Int", "enterprise"},
	{"http.request.body.truncated", "Bool", "enterprise"}, {"http.request.body.form", "Map<Array<String>>", "enterprise"},
	{"http.request.body.mime", "String", "enterprise"},
	{"raw.http.request.uri", "String", ""}, {"raw.http.request.uri.path", "String", ""},
	{"raw.http.request.uri.query", "String", ""}, {"raw.http.request.full_uri", "String", ""},
	{"cf.tls_client_auth.cert_verified", "Bool", ""}, {"cf.tls_client_auth.cert_presented", "Bool", ""},
	{"cf.tls_client_auth.cert_revoked", "Bool", ""},
	{"cf.colo.id", "Int", ""},
	{"http.response.code", "Int", ""}, {"http.response.headers", "Map<Array<String>>", ""},
}

func TestEmbeddedFieldsAreValid(t *testing.T) {
	fc, err := defaultFields()
	if err != nil {
		t.Fatalf("embedded fields.yaml: %v", err)
	}
	if len(fc.All()) == 0 || len(fc.Functions()) == 0 || len(fc.Operators()) == 0 {
		t.Fatal("empty field catalogue")
	}
	all := fc.All()
	if !slices.IsSortedFunc(all, func(a, b FieldDef) int { return strings.Compare(a.Name, b.Name) }) {
		t.Error("All() not sorted")
	}
	fns := fc.Functions()
	if !slices.IsSortedFunc(fns, func(a, b FuncDef) int { return strings.Compare(a.Name, b.Name) }) {
		t.Error("Functions() not sorted")
	}
}

func TestDomainFieldsPresent(t *testing.T) {
	fc := Fields()
	for _, want := range domainFields {
		f, ok := fc.Field(want.name)
		if !ok {
			t.Errorf("field %s missing", want.name)
			continue
		}
		if f.Type != want.typ || f.Plan != want.plan {
			t.Errorf("field %s: type %s plan %q, want %s %q", want.name, f.Type, f.Plan, want.typ, want.plan)
		}
	}
	if _, ok := fc.Field("http.request.headers[\"x\"]"); ok {
		t.Error("Field matched a map access; it takes exact names only")
	}
}

func TestDeprecatedAndRestrictedFields(t *testing.T) {
	fc := Fields()
	for _, suffix := range []string{"country", "continent", "asnum", "is_in_european_union", "subdivision_1_iso_code", "subdivision_2_iso_code"} {
		old, _ := fc.Field("ip.geoip." + suffix)
		if !old.Deprecated || old.RenamedTo != "ip.src."+suffix {
			t.Errorf("ip.geoip.%s: deprecated %v renamed_to %q, want ip.src.%s", suffix, old.Deprecated, old.RenamedTo, suffix)
		}
	}
	ts, _ := fc.Field("cf.threat_score")
	if !ts.Deprecated || !strings.Contains(ts.Note, "always 0") || ts.RenamedTo != "" {
		t.Errorf("cf.threat_score = %+v", ts)
	}
	var deprecated []string
	for _, f := range fc.All() {
		if f.Deprecated {
			deprecated = append(deprecated, f.Name)
		}
		if strings.HasPrefix(f.Name, "http.response.") {
			if f.AllowedInPhase("http_request_firewall_custom") || !f.AllowedInPhase("http_response_headers_transform") || !f.AllowedInPhase("http_ratelimit") {
				t.Errorf("%s: phases %v, want response phases and rate-limit counting only", f.Name, f.Phases)
			}
		} else if len(f.Phases) != 0 {
			t.Errorf("%s: restricted to %v", f.Name, f.Phases)
		}
	}
	if len(deprecated) != 7 {
		t.Errorf("deprecated fields = %v, want the 6 ip.geoip.* names and cf.threat_score", deprecated)
	}
	path, _ := fc.Field("http.request.uri.path")
	if !path.AllowedInPhase("http_request_firewall_custom") {
		t.Error("http.request.uri.path not allowed in custom rules")
	}
}

func TestFunctions(t *testing.T) {
	fc := Fields()
	custom := []string{"any", "all", "lower", "upper", "len", "starts_with", "ends_with", "concat", "url_decode",
		"lookup_json_string", "lookup_json_integer", "substring", "remove_bytes", "decode_base64", "cidr", "cidr6",
		"is_timed_hmac_valid_v0"}
	notCustom := []string{"regex_replace", "to_string", "wildcard_replace", "uuidv4"}
	for _, n := range custom {
		f, ok := fc.Function(n)
		if !ok || !f.CustomRules {
			t.Errorf("function %s: present %v, custom rules %v; want usable in custom rules", n, ok, f.CustomRules)
		}
	}
	for _, n := range notCustom {
		f, ok := fc.Function(n)
		if !ok || f.CustomRules {
			t.Errorf("function %s: present %v, custom rules %v; want not usable in custom rules", n, ok, f.CustomRules)
		}
	}
	if got := len(fc.Functions()); got != len(custom)+len(notCustom) {
		t.Errorf("%d functions, want %d", got, len(custom)+len(notCustom))
	}
	for _, tc := range []struct {
		name     string
		params   []string
		returns  string
		min, max int
		plan     string
	}{
		{"lower", []string{"String"}, "String", 1, 1, ""},
		{"any", []string{"Array<Bool>"}, "Bool", 1, 1, ""},
		{"starts_with", []string{"String", "String"}, "Bool", 2, 2, ""},
		{"len", []string{"String|Bytes|Array<Any>"}, "Int", 1, 1, ""},
		{"lookup_json_integer", []string{"String", "String|Int"}, "Int", 2, -1, ""},
		{"url_decode", []string{"String", "String"}, "String", 1, 2, ""},
		{"substring", []string{"String|Bytes", "Int", "Int"}, "String", 2, 3, ""},
		{"cidr", []string{"IP", "Int", "Int"}, "IP", 3, 3, ""},
		{"cidr6", []string{"IP", "Int"}, "IP", 2, 2, ""},
		{"is_timed_hmac_valid_v0", []string{"String", "String|Bytes", "Int", "Int", "Int", "String"}, "Bool", 4, 6, "pro"},
		{"uuidv4", []string{"Bytes"}, "String", 1, 1, ""},
	} {
		f, _ := fc.Function(tc.name)
		if !slices.Equal(f.Params, tc.params) || f.Returns != tc.returns || f.MinArgs() != tc.min || f.MaxArgs() != tc.max || f.Plan != tc.plan {
			t.Errorf("%s = %+v (min %d max %d), want %v -> %s, %d..%d, plan %q", tc.name, f, f.MinArgs(), f.MaxArgs(), tc.params, tc.returns, tc.min, tc.max, tc.plan)
		}
	}
	if _, ok := fc.Function("echo"); ok {
		t.Error("the engine's test function echo is not a real function")
	}
}

func TestOperators(t *testing.T) {
	fc := Fields()
	for name, sym := range map[string]string{"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
		"matches": "~", "bitwise_and": "&", "not": "!", "and": "&&", "xor": "^^", "or": "||"} {
		byName, ok1 := fc.Operator(name)
		bySym, ok2 := fc.Operator(sym)
		if !ok1 || !ok2 || byName.Name != bySym.Name || byName.Symbol != sym {
			t.Errorf("operator %s/%s: %+v %+v", name, sym, byName, bySym)
		}
	}
	for _, n := range []string{"contains", "wildcard", "strict wildcard", "in"} {
		if o, ok := fc.Operator(n); !ok || o.Kind != "comparison" || o.Symbol != "" {
			t.Errorf("operator %s = %+v, %v", n, o, ok)
		}
	}
	if m, _ := fc.Operator("~"); m.Plan != "business" {
		t.Errorf("matches plan %q, want business", m.Plan)
	}
	if len(fc.Operators()) != 16 {
		t.Errorf("%d operators, want 16", len(fc.Operators()))
	}
	if _, ok := fc.Operator("starts_with"); ok {
		t.Error("starts_with is a function, never an operator")
	}
}

func TestPlanAtLeast(t *testing.T) {
	for _, tc := range []struct {
		plan, min string
		want      bool
	}{
		{"free", "", true}, {"free", "pro", false}, {"pro", "pro", true}, {"business", "pro", true},
		{"enterprise", "business", true}, {"business", "enterprise", false}, {"Enterprise", "enterprise", true},
		{"unknown", "", true}, {"unknown", "pro", false}, {"", "business", false},
	} {
		if got := PlanAtLeast(tc.plan, tc.min); got != tc.want {
			t.Errorf("PlanAtLeast(%q, %q) = %v, want %v", tc.plan, tc.min, got, tc.want)
		}
	}
}

func TestParseFieldsErrors(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"fields:\n  - {name: a.b, typ: String}\n", `fields.yaml:2: unknown key "typ"`},
		{"fields:\n  - {name: a.b, type: Float}\n", `type "Float"`},
		{"fields:\n  - {name: a.b, type: String}\n  - {name: a.b, type: Int}\n", "listed twice"},
		{"fields:\n  - {name: a.b, type: String, deprecated: true, renamed_to: c.d}\n", "not a field"},
		{"fields:\n  - {name: a.b, type: String, renamed_to: c.d}\n  - {name: c.d, type: String}\n", "needs deprecated"},
		{"fields:\n  - {name: a.b, type: String, plan: gold}\n", `plan "gold"`},
		{"functions:\n  - {name: f, params: [Strng], returns: String}\n", `parameter type "Strng"`},
		{"functions:\n  - {name: f, params: [String], returns: String, optional: 2}\n", "optional 2"},
		{"operators:\n  - {name: eq, kind: compare}\n", `kind "compare"`},
		{"fields: [\n", "fields.yaml:"},
	} {
		_, err := ParseFields([]byte(tc.yaml), "fields.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseFields(%q) error %v, want %q", tc.yaml, err, tc.want)
		}
	}
}
