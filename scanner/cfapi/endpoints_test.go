package cfapi

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
)

// TestTypedReads checks the route and the decoding of the single-object reads.
func TestTypedReads(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		path   string
		result string
		call   func(*Client) (any, error)
		check  func(t *testing.T, got any)
	}{
		{name: "zone keeps unknown members of its account", path: "/zones/z1",
			result: `{"id":"z1","name":"example.com","paused":false,"account":{"id":"a1","name":"Acme","created_on":"2020-01-01T00:00:00Z"},"plan":{"legacy_id":"pro"},"name_servers":["a.ns","b.ns"]}`,
			call:   func(c *Client) (any, error) { return c.GetZone(ctx, "z1") },
			check: func(t *testing.T, got any) {
				b, _ := json.Marshal(got)
				want := `{"account":{"created_on":"2020-01-01T00:00:00Z","id":"a1","name":"Acme"},"id":"z1","name":"example.com","name_servers":["a.ns","b.ns"],"paused":false,"plan":{"legacy_id":"pro"}}`
				if string(b) != want {
					t.Errorf("re-encoded\n %s\nwant\n %s", b, want)
				}
			}},
		{name: "setting without id gets its name", path: "/zones/z1/settings/brotli",
			result: `{"value":"on","editable":true}`,
			call:   func(c *Client) (any, error) { return c.GetZoneSetting(ctx, "z1", "brotli") },
			check: func(t *testing.T, got any) {
				s := got.(interface{ StringValue() string })
				if s.StringValue() != "on" || !IsDeprecatedZoneSetting("brotli") || IsDeprecatedZoneSetting("ssl") {
					t.Errorf("setting %+v", got)
				}
			}},
		{name: "account dns settings", path: "/accounts/a1/dns_settings",
			result: `{"zone_defaults":{"flatten_all_cnames":false,"nameservers":{"type":"cloudflare.standard"}}}`,
			call:   func(c *Client) (any, error) { return c.GetAccountDNSSettings(ctx, "a1") },
			check: func(t *testing.T, got any) {
				if b, _ := json.Marshal(got); string(b) != `{"zone_defaults":{"flatten_all_cnames":false,"nameservers":{"type":"cloudflare.standard"}}}` {
					t.Errorf("settings %s", b)
				}
			}},
		{name: "load balancer pools", path: "/accounts/a1/load_balancers/pools",
			result: `[{"id":"p1","name":"primary","notification_email":"ops@example.com","origins":[]}]`,
			call:   func(c *Client) (any, error) { return c.ListLoadBalancerPools(ctx, "a1") },
			check: func(t *testing.T, got any) {
				if b, _ := json.Marshal(got); string(b) != `[{"id":"p1","name":"primary","notification_email":"ops@example.com","origins":[]}]` {
					t.Errorf("pools %s", b)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := server(t, func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodGet || r.URL.Path != tc.path {
					t.Errorf("got %s %s, want GET %s", r.Method, r.URL.Path, tc.path)
				}
				writeJSON(w, 200, `{"result":`+tc.result+`,"success":true,"errors":[],"messages":[]}`)
			})
			c, _ := testClient(t, srv.URL)
			got, err := tc.call(c)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, got)
		})
	}
}
