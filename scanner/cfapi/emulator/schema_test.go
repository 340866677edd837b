package emulator

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/cfapi/openapi"
	"github.com/sunsetscan/sunset/scanner/cfapi/openapi/openapitest"
)

// planOpsDoc returns the description of the operations sunset reads and writes, or skips.
func planOpsDoc(t *testing.T) *openapi.Doc {
	t.Helper()
	return openapitest.Require(t, openapitest.PlanOpsFile)
}

// schemaCase is one write and the pointer of the member its body breaks ("" for a valid body).
type schemaCase struct {
	name, method, path string
	body               any
	pointer            string
}

// TestSchemaRefusesBodiesTheAPIRefuses: with Options.OpenAPI, a body that breaks its
// operation's schema (wrong enum, missing required member, wrong type) is answered 400 with
// the API's error envelope naming the member, and nothing changes; the valid twin passes.
func TestSchemaRefusesBodiesTheAPIRefuses(t *testing.T) {
	doc := planOpsDoc(t)
	h := newHarness(t, Options{OpenAPI: doc})
	custom := "/zones/" + proZone + "/rulesets/phases/http_request_firewall_custom/entrypoint"
	cases := []schemaCase{
		{"DNS record TTL of the wrong type", "POST", "/zones/" + freeZone + "/dns_records",
			map[string]any{"type": "A", "name": "api", "content": "192.0.2.10", "ttl": "auto"}, "/ttl"},
		{"DNS record without a name", "POST", "/zones/" + freeZone + "/dns_records",
			map[string]any{"type": "A", "content": "192.0.2.10"}, "/name"},
		{"valid DNS record", "POST", "/zones/" + freeZone + "/dns_records",
			map[string]any{"type": "A", "name": "api", "content": "192.0.2.10", "ttl": 1}, ""},
		{"custom rule with an unknown action", "PUT", custom,
			map[string]any{"rules": []any{map[string]any{"action": "blok", "expression": "ip.src eq 192.0.2.1"}}}, "/rules/0/action"},
		{"custom rule with a blank expression", "PUT", custom,
			map[string]any{"rules": []any{map[string]any{"action": "managed_challenge", "expression": ""}}}, "/rules/0/expression"},
		{"valid custom rules (managed_challenge, js_challenge)", "PUT", custom,
			map[string]any{"rules": []any{
				map[string]any{"action": "managed_challenge", "expression": "ip.src eq 192.0.2.1"},
				map[string]any{"action": "js_challenge", "expression": "ip.src eq 192.0.2.2"}}}, ""},
		{"firewall rule without an action", "POST", "/zones/" + proZone + "/firewall/rules",
			[]any{map[string]any{"filter": map[string]any{"expression": "ip.src eq 198.51.100.1"}}}, "/0/action"},
		{"valid combined create", "POST", "/zones/" + proZone + "/firewall/rules",
			[]any{map[string]any{"action": "block", "filter": map[string]any{"expression": "ip.src eq 198.51.100.1"}}}, ""},
		{"WAF package sensitivity out of its enum", "PATCH", "/zones/" + bizZone + "/firewall/waf/packages/" + id(0x71),
			map[string]any{"sensitivity": "extreme"}, "/sensitivity"},
		{"valid WAF package change", "PATCH", "/zones/" + bizZone + "/firewall/waf/packages/" + id(0x71),
			map[string]any{"sensitivity": "low", "action_mode": "block"}, ""},
		{"rate limit threshold of the wrong type", "POST", "/zones/" + proZone + "/rate_limits",
			map[string]any{"match": map[string]any{"request": map[string]any{"url": "*.pro.example/login*"}}, "threshold": "many", "period": 60,
				"action": map[string]any{"mode": "challenge"}}, "/threshold"},
		{"nameserver type out of its enum", "PATCH", "/zones/" + proZone + "/dns_settings",
			map[string]any{"nameservers": map[string]any{"type": "cloudflare.fancy"}}, "/nameservers/type"},
		{"valid DNS settings", "PATCH", "/zones/" + proZone + "/dns_settings",
			map[string]any{"flatten_all_cnames": true, "nameservers": map[string]any{"type": "cloudflare.standard.random"}}, ""},
	}
	for _, c := range cases {
		before := h.srv.Snapshot()
		r := h.do(c.method, c.path, c.body)
		if c.pointer == "" {
			if r.status != http.StatusOK {
				t.Errorf("%s: a valid body was refused: %d %+v", c.name, r.status, r.env.Errors)
			}
			continue
		}
		checkSchemaRefusal(t, c, r)
		if after := h.srv.Snapshot(); !sameJSON(t, before, after) {
			t.Errorf("%s: a refused write changed the state", c.name)
		}
		raw, _ := json.Marshal(map[string]any{"result": nil, "success": false, "errors": r.env.Errors, "messages": r.env.Messages})
		if _, others, err := staleViolations(doc.ValidateResponse(c.method, c.path, r.status, raw), r.status); err != nil || len(others) > 0 {
			t.Errorf("%s: the refusal does not fit the API's failure schema: %v%s", c.name, err, describe(others))
		}
	}
	checkEvidence(t, doc)
	if st := h.srv.Stats(); st.SchemaRefused != 8 {
		t.Errorf("Stats.SchemaRefused = %d, want 8", st.SchemaRefused)
	}
}

// checkSchemaRefusal checks the envelope of a refused body: 400, success false, result null,
// an error with the schema code whose message and source name the member's pointer.
func checkSchemaRefusal(t *testing.T, c schemaCase, r result) {
	t.Helper()
	if r.status != http.StatusBadRequest || r.env.Success || string(r.env.Result) != "null" || len(r.env.Errors) == 0 {
		t.Errorf("%s: want 400 with the error envelope, got %d %s %+v", c.name, r.status, r.env.Result, r.env.Errors)
		return
	}
	for _, e := range r.env.Errors {
		if e.Code == CodeSchema && e.Source != nil && e.Source.Pointer == c.pointer && strings.Contains(e.Message, c.pointer+":") {
			return
		}
	}
	t.Errorf("%s: no error names %s: %+v", c.name, c.pointer, r.env.Errors)
}

func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	return string(x) == string(y)
}

// TestSchemaLeavesOtherWritesAlone: writes the description does not cover, and DELETEs
// without a body, are served as without it; so is every read.
func TestSchemaLeavesOtherWritesAlone(t *testing.T) {
	h := newHarness(t, Options{OpenAPI: planOpsDoc(t)})
	h.mustOK("POST", "/zones/"+freeZone+"/filters/validate-expr", map[string]any{"expression": "ip.src eq 192.0.2.1"})
	h.mustOK("PUT", "/zones/"+freeZone+"/page_shield", map[string]any{"enabled": true})
	h.mustOK("DELETE", "/zones/"+freeZone+"/dns_records/"+id(0xd1), nil)
	h.mustOK("GET", "/zones/"+freeZone+"/dns_records", nil)
	if st := h.srv.Stats(); st.SchemaRefused != 0 {
		t.Errorf("Stats.SchemaRefused = %d, want 0", st.SchemaRefused)
	}
}

// TestSchemaCapsErrors: a body with many violations gets a bounded list of errors.
func TestSchemaCapsErrors(t *testing.T) {
	h := newHarness(t, Options{OpenAPI: planOpsDoc(t)})
	var rules []any
	for range maxSchemaErrors + 5 {
		rules = append(rules, map[string]any{"action": "block", "expression": ""})
	}
	r := h.do("PUT", "/zones/"+proZone+"/rulesets/phases/http_request_firewall_custom/entrypoint", map[string]any{"rules": rules})
	if r.status != http.StatusBadRequest || len(r.env.Errors) != maxSchemaErrors+1 {
		t.Fatalf("want 400 with %d errors, got %d with %d", maxSchemaErrors+1, r.status, len(r.env.Errors))
	}
	if last := r.env.Errors[maxSchemaErrors]; !strings.Contains(last.Message, "more violations") {
		t.Errorf("the last error should say more were left out: %+v", last)
	}
}

// TestBulkSettingsAsTheDescriptionWritesThem: the bulk settings PATCH takes the bare array
// the description writes as well as the {"items": [...]} SDKs send; with the description,
// the array passes its check.
func TestBulkSettingsAsTheDescriptionWritesThem(t *testing.T) {
	for _, opts := range []func(t *testing.T) Options{
		func(*testing.T) Options { return Options{} },
		func(t *testing.T) Options { return Options{OpenAPI: planOpsDoc(t)} },
	} {
		h := newHarness(t, opts(t))
		var out []map[string]any
		h.mustOK("PATCH", "/zones/"+freeZone+"/settings", []map[string]any{{"id": "brotli", "value": "off"}}).into(t, &out)
		if len(out) != 1 || out[0]["value"] != "off" {
			t.Errorf("bulk PATCH with an array: %v", out)
		}
	}
}
