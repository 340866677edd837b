package cfapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

func ruleForTest() inventory.RulesetRule {
	enabled := true
	return inventory.RulesetRule{Action: "block", Expression: `ip.src eq 192.0.2.1`, Description: "from firewall rule 1", Enabled: &enabled}
}

// TestWrites checks method, path and body of every write a migration sends, and that the
// answer is decoded.
func TestWrites(t *testing.T) {
	ctx := context.Background()
	rule := ruleForTest()
	tests := []struct {
		name     string
		method   string
		path     string
		wantBody string // JSON, compared after normalising; "" = no body
		result   string
		call     func(*Client) (any, error)
		check    func(t *testing.T, got any)
	}{
		{
			name: "put entrypoint", method: "PUT", path: "/zones/z1/rulesets/phases/http_request_firewall_custom/entrypoint",
			wantBody: `{"rules":[{"action":"block","expression":"ip.src eq 192.0.2.1","description":"from firewall rule 1","enabled":true}]}`,
			result:   `{"id":"rs1","phase":"http_request_firewall_custom","rules":[{"id":"n1","action":"block","expression":"ip.src eq 192.0.2.1"}]}`,
			call: func(c *Client) (any, error) {
				return c.PutEntrypointRuleset(ctx, "z1", vocab.PhaseCustomRules, []inventory.RulesetRule{rule})
			},
			check: func(t *testing.T, got any) {
				if rs := got.(*inventory.Ruleset); rs.ID != "rs1" || len(rs.Rules) != 1 {
					t.Errorf("ruleset %+v", rs)
				}
			},
		},
		{
			name: "put entrypoint with no rules sends an empty array", method: "PUT", path: "/zones/z1/rulesets/phases/http_ratelimit/entrypoint",
			wantBody: `{"rules":[]}`, result: `{"id":"rs2","rules":[]}`,
			call: func(c *Client) (any, error) { return c.PutEntrypointRuleset(ctx, "z1", vocab.PhaseRateLimiting, nil) },
		},
		{
			name: "create rule at the end", method: "POST", path: "/zones/z1/rulesets/rs1/rules",
			wantBody: `{"action":"block","expression":"ip.src eq 192.0.2.1","description":"from firewall rule 1","enabled":true}`,
			result:   `{"id":"rs1","rules":[]}`,
			call:     func(c *Client) (any, error) { return c.CreateRulesetRule(ctx, "z1", "rs1", rule, nil) },
		},
		{
			name: "create rule before another", method: "POST", path: "/zones/z1/rulesets/rs1/rules",
			wantBody: `{"action":"block","expression":"ip.src eq 192.0.2.1","description":"from firewall rule 1","enabled":true,"position":{"before":"r9"}}`,
			result:   `{"id":"rs1","rules":[]}`,
			call: func(c *Client) (any, error) {
				return c.CreateRulesetRule(ctx, "z1", "rs1", rule, &RulePosition{Before: "r9"})
			},
		},
		{
			name: "create rule at an index", method: "POST", path: "/zones/z1/rulesets/rs1/rules",
			wantBody: `{"action":"block","expression":"ip.src eq 192.0.2.1","description":"from firewall rule 1","enabled":true,"position":{"index":2}}`,
			result:   `{"id":"rs1","rules":[]}`,
			call: func(c *Client) (any, error) {
				return c.CreateRulesetRule(ctx, "z1", "rs1", rule, &RulePosition{Index: 2})
			},
		},
		{
			name: "patch dns settings", method: "PATCH", path: "/zones/z1/dns_settings",
			wantBody: `{"flatten_all_cnames":true}`, result: `{"flatten_all_cnames":true,"multi_provider":false}`,
			call: func(c *Client) (any, error) {
				return c.PatchDNSSettings(ctx, "z1", map[string]any{"flatten_all_cnames": true})
			},
			check: func(t *testing.T, got any) {
				if s := got.(*inventory.DNSSettings); s.FlattenAllCNAMEs == nil || !*s.FlattenAllCNAMEs {
					t.Errorf("settings %+v", s)
				}
			},
		},
		{
			name: "patch account dns settings", method: "PATCH", path: "/accounts/a1/dns_settings",
			wantBody: `{"zone_defaults":{"nameservers":{"type":"custom.account"}}}`,
			result:   `{"zone_defaults":{"nameservers":{"type":"custom.account"}}}`,
			call: func(c *Client) (any, error) {
				return c.PatchAccountDNSSettings(ctx, "a1", map[string]any{"zone_defaults": map[string]any{"nameservers": map[string]any{"type": "custom.account"}}})
			},
			check: func(t *testing.T, got any) {
				if s := got.(*inventory.AccountDNSSettings); s.ZoneDefaults.Nameservers == nil || s.ZoneDefaults.Nameservers.Type != "custom.account" {
					t.Errorf("settings %+v", s)
				}
			},
		},
		{
			name: "patch dns record", method: "PATCH", path: "/zones/z1/dns_records/r1",
			wantBody: `{"data":{"priority":10,"weight":5,"port":443,"target":"t.example.com"}}`,
			result:   `{"id":"r1","type":"SRV","name":"_sip._tcp.example.com"}`,
			call: func(c *Client) (any, error) {
				return c.PatchDNSRecord(ctx, "z1", "r1", map[string]any{"data": map[string]any{"priority": 10, "weight": 5, "port": 443, "target": "t.example.com"}})
			},
			check: func(t *testing.T, got any) {
				if r := got.(*inventory.DNSRecord); r.ID != "r1" || r.Type != "SRV" {
					t.Errorf("record %+v", r)
				}
			},
		},
		{
			name: "patch zone setting", method: "PATCH", path: "/zones/z1/settings/cname_flattening",
			wantBody: `{"value":"flatten_at_root"}`, result: `{"id":"cname_flattening","value":"flatten_at_root","editable":true}`,
			call: func(c *Client) (any, error) {
				return c.PatchZoneSetting(ctx, "z1", "cname_flattening", "flatten_at_root")
			},
			check: func(t *testing.T, got any) {
				if s := got.(*inventory.Setting); s.StringValue() != "flatten_at_root" {
					t.Errorf("setting %+v", s)
				}
			},
		},
		{
			name: "pause firewall rule (object answer)", method: "PUT", path: "/zones/z1/firewall/rules/fr1",
			wantBody: `{"action":"block","filter":{"id":"f1"},"id":"fr1","paused":true}`,
			result:   `{"id":"fr1","paused":true,"action":"block","priority":null,"filter":{"id":"f1","expression":"ssl","paused":false}}`,
			call: func(c *Client) (any, error) {
				return c.PutFirewallRule(ctx, "z1", "fr1", pausedRule("fr1", "block", true))
			},
			check: func(t *testing.T, got any) {
				if r := got.(*inventory.FirewallRule); r == nil || r.ID != "fr1" || !r.Paused {
					t.Errorf("rule %+v", r)
				}
			},
		},
		{
			name: "resume firewall rule (array answer)", method: "PUT", path: "/zones/z1/firewall/rules/fr2",
			wantBody: `{"action":"log","filter":{"id":"f1"},"id":"fr2","paused":false}`,
			result:   `[{"id":"fr1","paused":true,"action":"block","filter":{"expression":"ssl"}},{"id":"fr2","paused":false,"action":"log","filter":{"expression":"ssl"}}]`,
			call: func(c *Client) (any, error) {
				return c.PutFirewallRule(ctx, "z1", "fr2", pausedRule("fr2", "log", false))
			},
			check: func(t *testing.T, got any) {
				if r := got.(*inventory.FirewallRule); r == nil || r.ID != "fr2" || r.Action != "log" {
					t.Errorf("rule %+v", r)
				}
			},
		},
		{name: "delete firewall rule", method: "DELETE", path: "/zones/z1/firewall/rules/fr1", result: `{"id":"fr1"}`,
			call: func(c *Client) (any, error) { return nil, c.DeleteFirewallRule(ctx, "z1", "fr1") }},
		{name: "delete filter", method: "DELETE", path: "/zones/z1/filters/f1", result: `{"id":"f1"}`,
			call: func(c *Client) (any, error) { return nil, c.DeleteFilter(ctx, "z1", "f1") }},
		{name: "delete rate limit", method: "DELETE", path: "/zones/z1/rate_limits/rl1", result: `{"id":"rl1"}`,
			call: func(c *Client) (any, error) { return nil, c.DeleteRateLimit(ctx, "z1", "rl1") }},
		{name: "delete waf override", method: "DELETE", path: "/zones/z1/firewall/waf/overrides/o1", result: `{"id":"o1"}`,
			call: func(c *Client) (any, error) { return nil, c.DeleteWAFOverride(ctx, "z1", "o1") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := server(t, func(w http.ResponseWriter, r *http.Request) {
				if r.Method != tc.method || r.URL.Path != tc.path {
					t.Errorf("got %s %s, want %s %s", r.Method, r.URL.Path, tc.method, tc.path)
				}
				b, _ := io.ReadAll(r.Body)
				if tc.wantBody == "" {
					if len(b) != 0 {
						t.Errorf("unexpected body %s", b)
					}
				} else {
					if ct := r.Header.Get("Content-Type"); ct != "application/json" {
						t.Errorf("Content-Type %q", ct)
					}
					if normJSON(t, string(b)) != normJSON(t, tc.wantBody) {
						t.Errorf("body %s\nwant %s", b, tc.wantBody)
					}
				}
				writeJSON(w, 200, `{"result":`+tc.result+`,"success":true,"errors":[],"messages":[]}`)
			})
			c, _ := testClient(t, srv.URL)
			got, err := tc.call(c)
			if err != nil {
				t.Fatal(err)
			}
			if tc.check != nil {
				tc.check(t, got)
			}
		})
	}
}

func TestDeleteAcceptsEmptyBody(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	c, _ := testClient(t, srv.URL)
	if err := c.DeleteFilter(context.Background(), "z1", "f1"); err != nil {
		t.Fatal(err)
	}
}

func TestRulePositionValidation(t *testing.T) {
	c, _ := testClient(t, "https://api.example")
	for _, p := range []RulePosition{{}, {Before: "a", After: "b"}, {Index: -1}, {After: "a", Index: 1}} {
		if _, err := c.CreateRulesetRule(context.Background(), "z1", "rs1", ruleForTest(), &p); err == nil || !strings.Contains(err.Error(), "position") {
			t.Errorf("position %+v accepted (%v)", p, err)
		}
	}
	if st := c.Stats(); st.Requests != 0 {
		t.Errorf("invalid positions sent %d requests", st.Requests)
	}
}

func normJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %s: %v", s, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// pausedRule is a whole-rule PUT body as the plan writes it.
func pausedRule(id, action string, paused bool) map[string]any {
	return map[string]any{"id": id, "action": action, "paused": paused, "filter": map[string]string{"id": "f1"}}
}
