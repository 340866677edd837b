package emulator

import (
	"strings"
	"testing"
)

// TestRetire checks that with Retire on, endpoints past their end of life answer 404 "no
// longer available", routes that only carry a deprecated field keep working, and that with
// Retire off nothing is retired.
func TestRetire(t *testing.T) {
	tests := []struct {
		asOf    string
		retire  bool
		method  string
		path    string
		retired bool
	}{
		{"2025-01-14", true, "GET", "/zones/" + freeZone + "/firewall/rules", false},
		{"2025-01-15", true, "GET", "/zones/" + freeZone + "/firewall/rules", true},
		{"2025-01-15", false, "GET", "/zones/" + freeZone + "/firewall/rules", false},
		{"2025-01-15", true, "POST", "/zones/" + freeZone + "/filters", true},
		{"2025-01-15", true, "GET", "/zones/" + bizZone + "/firewall/waf/packages", true},
		{"2025-01-15", true, "GET", "/zones/" + freeZone + "/rate_limits", true},
		{"2025-03-20", true, "GET", "/zones/" + freeZone + "/settings/cname_flattening", false},
		{"2025-03-21", true, "GET", "/zones/" + freeZone + "/settings/cname_flattening", true},
		{"2025-03-21", true, "GET", "/zones/" + freeZone + "/settings", false},
		{"2025-03-21", true, "GET", "/zones/" + freeZone + "/dns_settings", false},
		{"2025-03-21", true, "GET", "/zones/" + freeZone + "/dns_records", false},
		{"2025-03-21", true, "GET", "/accounts/" + accountID, false},
		{"2024-09-13", true, "GET", "/zones/" + freeZone + "/dns_settings/use_apex_ns", true},
		{"2024-09-12", true, "PATCH", "/zones/" + freeZone + "/dns_settings/secondary_overrides", false},
		{"2024-03-31", true, "POST", "/zones/" + freeZone + "/settings/privacy_pass", true},
		{"2024-03-31", true, "GET", "/accounts/" + accountID + "/tunnels", true},
		{"2024-03-31", true, "GET", "/organizations/" + accountID + "/roles", true},
		{"2024-03-31", true, "GET", "/zones/" + freeZone + "/script_monitor", true},
		{"2024-03-31", true, "GET", "/zones/" + freeZone + "/page_shield", false},
		{"2024-03-31", false, "GET", "/organizations/" + accountID + "/roles", false},
	}
	for _, tc := range tests {
		h := newHarness(t, Options{AsOf: day(tc.asOf), Retire: tc.retire})
		var body any
		switch {
		case tc.method == "POST" && strings.HasSuffix(tc.path, "/filters"):
			body = []map[string]any{{"expression": "ip.src eq 192.0.2.99"}}
		case tc.method != "GET":
			body = map[string]any{"value": "on"}
		}
		r := h.do(tc.method, tc.path, body)
		gotRetired := r.status == 404 && r.code() == CodeNoRoute && len(r.env.Errors) == 1 && strings.Contains(r.env.Errors[0].Message, "no longer available")
		if gotRetired != tc.retired {
			t.Errorf("%s retire=%v %s %s: status %d %+v, want retired=%v", tc.asOf, tc.retire, tc.method, tc.path, r.status, r.env.Errors, tc.retired)
		}
		if !tc.retired && r.status != 200 {
			t.Errorf("%s %s %s: status %d %+v", tc.asOf, tc.method, tc.path, r.status, r.env.Errors)
		}
		if st := h.srv.Stats(); (st.Retired == 1) != tc.retired {
			t.Errorf("%s %s: Stats.Retired = %d", tc.method, tc.path, st.Retired)
		}
	}
}
