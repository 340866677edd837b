package emulator

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"testing"

	"github.com/sunsetscan/sunset/scanner/cfapi/openapi"
)

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// raw sends a request and returns the status and the body as sent.
func (h *harness) raw(method, path string, body any) (int, []byte) {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, h.ts.URL+BasePath+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := h.ts.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp.StatusCode, data
}

// step is one request of a flow, the status it must get, and a check of its result.
type step struct {
	method, path string
	body         any
	status       int
	check        func(t *testing.T, result json.RawMessage)
}

// runFlow sends the steps in order; with a description, every answer must fit its schema
// (but for the stale points the recordings show).
func runFlow(t *testing.T, h *harness, doc *openapi.Doc, steps []step) {
	t.Helper()
	for _, s := range steps {
		status, body := h.raw(s.method, s.path, s.body)
		if status != s.status {
			t.Errorf("%s %s: status %d, want %d: %s", s.method, s.path, status, s.status, body)
			continue
		}
		var env Envelope
		if err := json.Unmarshal(body, &env); err != nil {
			t.Fatalf("%s %s: %v", s.method, s.path, err)
		}
		if s.check != nil {
			s.check(t, env.Result)
		}
		if doc == nil {
			continue
		}
		explained, others, err := staleViolations(doc.ValidateResponse(s.method, s.path, status, body), status)
		if err != nil || len(others) > 0 {
			t.Errorf("%s %s: the answer does not fit the description: %v%s", s.method, s.path, err, describe(others))
		}
		for _, e := range explained {
			t.Logf("%s %s: stale point: %s", s.method, s.path, e)
		}
	}
}

// member decodes one member of a result object.
func member(t *testing.T, result json.RawMessage, key string) any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(result, &m); err != nil {
		t.Fatalf("result %s: %v", result, err)
	}
	return m[key]
}

func want(key string, value any) func(*testing.T, json.RawMessage) {
	return func(t *testing.T, r json.RawMessage) {
		t.Helper()
		if got := member(t, r, key); !sameJSON(t, got, value) {
			t.Errorf("%s = %v, want %v in %s", key, got, value, r)
		}
	}
}

// accessFlow creates, reads, replaces and deletes a bookmark application; the app id is
// deterministic (Options.Rand and the creation order).
func accessFlow() []step {
	apps := "/accounts/" + accountID + "/access/apps"
	var appID string
	return []step{
		{"POST", apps, map[string]any{"type": "bookmark", "name": "Team wiki", "domain": "wiki.example", "app_launcher_visible": true}, http.StatusCreated,
			func(t *testing.T, r json.RawMessage) {
				appID, _ = member(t, r, "id").(string)
				if !uuidRE.MatchString(appID) {
					t.Errorf("application id %q is not a UUID", appID)
				}
				for _, k := range []string{"aud", "created_at", "updated_at"} {
					if member(t, r, k) == nil {
						t.Errorf("the created application lacks %s: %s", k, r)
					}
				}
			}},
		{"POST", apps, map[string]any{"type": "bookmark", "name": "No domain"}, http.StatusBadRequest, nil},
		{"POST", apps, map[string]any{"type": "teleport", "name": "x", "domain": "x.example"}, http.StatusBadRequest, nil},
		{"GET", apps, nil, http.StatusOK, func(t *testing.T, r json.RawMessage) {
			var list []map[string]any
			_ = json.Unmarshal(r, &list)
			if len(list) != 1 || list[0]["id"] != appID || list[0]["type"] != "bookmark" {
				t.Errorf("list: %s", r)
			}
		}},
	}
}

func TestAccessApplications(t *testing.T) {
	h := newHarness(t, Options{})
	runFlow(t, h, nil, accessFlow())
	var list []map[string]any
	h.mustOK("GET", "/accounts/"+accountID+"/access/apps", nil).into(t, &list)
	item := "/accounts/" + accountID + "/access/apps/" + list[0]["id"].(string)
	runFlow(t, h, nil, itemFlow(item, list[0]))
}

// itemFlow reads, replaces and deletes one application.
func itemFlow(item string, created map[string]any) []step {
	return []step{
		{"GET", item, nil, http.StatusOK, want("name", "Team wiki")},
		{"PUT", item, map[string]any{"type": "bookmark", "name": "Wiki", "domain": "wiki.example", "app_launcher_visible": false}, http.StatusOK,
			func(t *testing.T, r json.RawMessage) {
				want("name", "Wiki")(t, r)
				want("aud", created["aud"])(t, r)
				want("created_at", created["created_at"])(t, r)
			}},
		{"DELETE", item, nil, http.StatusAccepted, want("id", created["id"])},
		{"GET", item, nil, http.StatusNotFound, nil},
	}
}

// policyFlow creates, reads, replaces and deletes a notification policy.
func policyFlow() []step {
	policies := "/accounts/" + accountID + "/alerting/v3/policies"
	body := map[string]any{"name": "Pool primary", "alert_type": "load_balancing_health_alert", "enabled": true,
		"mechanisms": map[string]any{"email": []any{map[string]any{"id": "noc@acme.example"}}}, "filters": map[string]any{"pool_id": []any{id(0x33)}}}
	return []step{
		{"POST", policies, body, http.StatusOK, func(t *testing.T, r json.RawMessage) {
			var m map[string]any
			_ = json.Unmarshal(r, &m)
			if len(m) != 1 || !uuidRE.MatchString(m["id"].(string)) {
				t.Errorf("a policy write answers {\"id\": UUID}, got %s", r)
			}
		}},
		{"POST", policies, map[string]any{"name": "no mechanisms", "alert_type": "load_balancing_health_alert", "enabled": true}, http.StatusBadRequest, nil},
		{"GET", policies, nil, http.StatusOK, func(t *testing.T, r json.RawMessage) {
			var list []map[string]any
			_ = json.Unmarshal(r, &list)
			if len(list) != 1 || list[0]["name"] != "Pool primary" || list[0]["created"] == nil || list[0]["modified"] == nil {
				t.Errorf("list: %s", r)
			}
		}},
	}
}

func TestNotificationPolicies(t *testing.T) {
	h := newHarness(t, Options{})
	runFlow(t, h, nil, policyFlow())
	var list []map[string]any
	h.mustOK("GET", "/accounts/"+accountID+"/alerting/v3/policies", nil).into(t, &list)
	item := "/accounts/" + accountID + "/alerting/v3/policies/" + list[0]["id"].(string)
	changed := map[string]any{"name": "Pool primary (ops)", "alert_type": "load_balancing_health_alert", "enabled": false,
		"mechanisms": map[string]any{"email": []any{map[string]any{"id": "ops@acme.example"}}}}
	runFlow(t, h, nil, []step{
		{"GET", item, nil, http.StatusOK, want("alert_type", "load_balancing_health_alert")},
		{"PUT", item, changed, http.StatusOK, want("id", list[0]["id"])},
		{"GET", item, nil, http.StatusOK, func(t *testing.T, r json.RawMessage) {
			want("enabled", false)(t, r)
			want("created", list[0]["created"])(t, r)
		}},
		{"DELETE", item, nil, http.StatusOK, nil},
		{"GET", item, nil, http.StatusNotFound, nil},
	})
}

// tunnelFlow reads the seed's legacy tunnel through both APIs.
func tunnelFlow() []step {
	base := "/accounts/" + accountID
	return []step{
		{"GET", base + "/cfd_tunnel?is_deleted=false", nil, http.StatusOK, func(t *testing.T, r json.RawMessage) {
			var list []map[string]any
			_ = json.Unmarshal(r, &list)
			if len(list) != 1 || list[0]["id"] != id(0x31) || list[0]["tun_type"] != "cfd_tunnel" || list[0]["status"] != "inactive" {
				t.Errorf("cfd_tunnel list: %s", r)
			}
		}},
		{"GET", base + "/cfd_tunnel?is_deleted=true", nil, http.StatusOK, func(t *testing.T, r json.RawMessage) {
			if string(r) != "[]" {
				t.Errorf("no tunnel is deleted: %s", r)
			}
		}},
		{"GET", base + "/cfd_tunnel/" + id(0x31), nil, http.StatusOK, func(t *testing.T, r json.RawMessage) {
			want("connections", []any{})(t, r)
			want("account_tag", accountID)(t, r)
		}},
		{"GET", base + "/cfd_tunnel/" + id(0x39), nil, http.StatusNotFound, nil},
		{"GET", base + "/tunnels", nil, http.StatusOK, func(t *testing.T, r json.RawMessage) {
			var list []map[string]any
			_ = json.Unmarshal(r, &list)
			if len(list) != 1 || list[0]["connections"] == nil || list[0]["created_at"] != "2025-01-01T00:00:00Z" {
				t.Errorf("legacy tunnels carry connections and a creation time: %s", r)
			}
		}},
	}
}

func TestCfdTunnels(t *testing.T) { runFlow(t, newHarness(t, Options{}), nil, tunnelFlow()) }

// wafSettingFlow switches the previous WAF off on a zone that has packages.
func wafSettingFlow() []step {
	biz, free := "/zones/"+bizZone, "/zones/"+freeZone
	return []step{
		{"GET", biz + "/settings/waf", nil, http.StatusOK, want("value", "on")},
		{"GET", free + "/settings/waf", nil, http.StatusOK, want("value", "off")},
		{"PATCH", biz + "/settings/waf", map[string]any{"id": "waf", "value": "off"}, http.StatusOK, want("value", "off")},
		{"GET", biz + "/settings/waf", nil, http.StatusOK, want("value", "off")},
		{"PATCH", biz + "/settings/waf", map[string]any{"value": "sometimes"}, http.StatusBadRequest, nil},
		{"GET", biz + "/firewall/waf/packages", nil, http.StatusOK, func(t *testing.T, r json.RawMessage) {
			var list []any
			_ = json.Unmarshal(r, &list)
			if len(list) != 1 {
				t.Errorf("the packages stay listed when the setting is off: %s", r)
			}
		}},
	}
}

func TestWAFSetting(t *testing.T) { runFlow(t, newHarness(t, Options{}), nil, wafSettingFlow()) }

// poolAndRedirectFlow clears a pool's notification_email and writes a redirect entry point.
func poolAndRedirectFlow() []step {
	pool := "/accounts/" + accountID + "/load_balancers/pools/" + id(0x33)
	entry := "/zones/" + proZone + "/rulesets/phases/http_request_dynamic_redirect/entrypoint"
	redirect := func(host string) map[string]any {
		return map[string]any{"action": "redirect", "expression": `http.host eq "` + host + `"`,
			"action_parameters": map[string]any{"from_value": map[string]any{"status_code": 301, "preserve_query_string": true,
				"target_url": map[string]any{"value": "https://pro.example"}}}}
	}
	return []step{
		{"PATCH", pool, map[string]any{"notification_email": ""}, http.StatusOK, want("notification_email", nil)},
		{"GET", pool, nil, http.StatusOK, want("name", "primary")},
		{"GET", entry, nil, http.StatusNotFound, nil},
		{"PUT", entry, map[string]any{"rules": []any{redirect("m.pro.example")}}, http.StatusOK, want("phase", "http_request_dynamic_redirect")},
		{"GET", entry, nil, http.StatusOK, func(t *testing.T, r json.RawMessage) {
			rules, _ := member(t, r, "rules").([]any)
			if len(rules) != 1 {
				t.Errorf("entry point rules: %s", r)
			}
		}},
	}
}

func TestPoolEmailAndRedirectEntrypoint(t *testing.T) {
	h := newHarness(t, Options{})
	runFlow(t, h, nil, poolAndRedirectFlow())
	var rs struct{ ID string }
	h.mustOK("GET", "/zones/"+proZone+"/rulesets/phases/http_request_dynamic_redirect/entrypoint", nil).into(t, &rs)
	r := h.mustOK("POST", "/zones/"+proZone+"/rulesets/"+rs.ID+"/rules", map[string]any{"action": "redirect", "expression": `http.host eq "w.pro.example"`,
		"action_parameters": map[string]any{"from_value": map[string]any{"status_code": 302, "target_url": map[string]any{"expression": `concat("https://pro.example", http.request.uri.path)`}}},
		"position":          map[string]any{"index": 1}})
	var got struct{ Rules []struct{ Expression string } }
	r.into(t, &got)
	if len(got.Rules) != 2 || got.Rules[0].Expression != `http.host eq "w.pro.example"` {
		t.Errorf("the rule POSTed at index 1 should come first: %+v", got.Rules)
	}
}

// TestNewRoutesFitTheDescription runs the flows above with every write checked against the
// API's description and every answer validated against its response schema.
func TestNewRoutesFitTheDescription(t *testing.T) {
	doc := planOpsDoc(t)
	h := newHarness(t, Options{OpenAPI: doc})
	runFlow(t, h, doc, accessFlow())
	var apps []map[string]any
	h.mustOK("GET", "/accounts/"+accountID+"/access/apps", nil).into(t, &apps)
	runFlow(t, h, doc, itemFlow("/accounts/"+accountID+"/access/apps/"+apps[0]["id"].(string), apps[0]))
	runFlow(t, h, doc, policyFlow())
	var policies []map[string]any
	h.mustOK("GET", "/accounts/"+accountID+"/alerting/v3/policies", nil).into(t, &policies)
	item := "/accounts/" + accountID + "/alerting/v3/policies/" + policies[0]["id"].(string)
	runFlow(t, h, doc, []step{{"GET", item, nil, http.StatusOK, nil}, {"DELETE", item, nil, http.StatusOK, nil}})
	runFlow(t, h, doc, tunnelFlow())
	runFlow(t, h, doc, wafSettingFlow())
	runFlow(t, h, doc, poolAndRedirectFlow())
	// Of the flows' bad bodies, only the policy without mechanisms breaks the description (it
	// requires them); the others break rules of the emulator the description does not hold.
	if st := h.srv.Stats(); st.SchemaRefused != 1 {
		t.Errorf("Stats.SchemaRefused = %d, want 1", st.SchemaRefused)
	}
}
