package emulator

import (
	"strings"
	"testing"
)

// specEndpoints are the endpoints the spec lists, plus those the scanner and a migration
// need (domain-facts), in the spec's notation.
var specEndpoints = []string{
	"GET POST PATCH PUT DELETE /zones/:zone_id/firewall/rules",
	"GET PATCH PUT DELETE /zones/:zone_id/firewall/rules/:rule_id",
	"GET POST PUT DELETE /zones/:zone_id/filters",
	"GET PUT DELETE /zones/:zone_id/filters/:filter_id",
	"POST /zones/:zone_id/filters/validate-expr",
	"GET /zones/:zone_id/firewall/waf/packages",
	"GET PATCH /zones/:zone_id/firewall/waf/packages/:package_id",
	"GET /zones/:zone_id/firewall/waf/packages/:package_id/groups",
	"GET PATCH /zones/:zone_id/firewall/waf/packages/:package_id/groups/:group_id",
	"GET /zones/:zone_id/firewall/waf/packages/:package_id/rules",
	"GET PATCH /zones/:zone_id/firewall/waf/packages/:package_id/rules/:rule_id",
	"GET POST /zones/:zone_id/firewall/waf/overrides",
	"GET PUT DELETE /zones/:zone_id/firewall/waf/overrides/:override_id",
	"GET POST /zones/:zone_id/rate_limits",
	"GET PUT DELETE /zones/:zone_id/rate_limits/:rate_limit_id",
	"GET PATCH /zones/:zone_id/settings/cname_flattening",
	"GET PATCH /zones/:zone_id/settings",
	"GET POST /accounts",
	"GET PUT /accounts/:account_id",
	"GET POST /zones/:zone_id/dns_records",
	"GET PATCH PUT DELETE /zones/:zone_id/dns_records/:dns_record_id",
	"GET PATCH /zones/:zone_id/dns_settings/use_apex_ns",
	"GET PATCH /zones/:zone_id/dns_settings/secondary_overrides",
	"GET PATCH /zones/:zone_id/settings/brotli",
	"GET PATCH /zones/:zone_id/settings/minify",
	"GET PATCH /zones/:zone_identifier/settings/mobile_redirect",
	"GET PATCH /zones/:zone_id/settings/server_side_exclude",
	"GET POST /zones/:zone_identifier/settings/privacy_pass",
	"GET POST /accounts/:account_identifier/tunnels",
	"GET DELETE /accounts/:account_identifier/tunnels/:tunnel_id",
	"GET /accounts/:account_identifier/billing/profile",
	"GET /user/billing/profile",
	"GET /user/billing/history",
	"GET /accounts/:identifier/access/bookmarks",
	"GET POST PUT DELETE /accounts/:identifier/access/bookmarks/:uuid",
	"POST /accounts/:account_identifier/images/v1/direct_upload",
	"GET /zones/:zone_identifier/analytics/dashboard",
	"GET /zones/:zone_identifier/analytics/colos",
	"GET PATCH /organizations/:identifier",
	"GET POST /organizations/:organization_identifier/invites",
	"GET PATCH DELETE /organizations/:organization_identifier/invites/:identifier",
	"GET /organizations/:organization_identifier/members",
	"GET PATCH DELETE /organizations/:organization_identifier/members/:identifier",
	"GET /organizations/:organization_identifier/roles",
	"GET /organizations/:organization_identifier/roles/:identifier",
	"GET /organizations/:organization_identifier/audit_logs",
	"GET POST /organizations/:organization_identifier/relays",
	"GET PATCH DELETE /organizations/:organization_identifier/relays/:identifier",
	"GET /organizations/:organization_identifier/relays/:identifier/zones",
	// Needed by the scanner and a migration.
	"GET /zones",
	"GET /zones/:zone_id",
	"GET PATCH /zones/:zone_id/dns_settings",
	"GET PATCH /accounts/:account_id/dns_settings",
	"GET PUT /zones/:zone_id/rulesets/phases/:phase/entrypoint",
	"POST /zones/:zone_id/rulesets/:ruleset_id/rules",
	"GET /zones/:zone_id/rulesets",
	"GET POST /zones/:zone_id/healthchecks",
	"GET /accounts/:account_id/load_balancers/pools",
}

// TestSpecEndpointsServed checks that every listed endpoint has a route (and is not answered
// by a catch-all), and that every route is reachable.
func TestSpecEndpointsServed(t *testing.T) {
	h := newHarness(t, Options{})
	for _, line := range specEndpoints {
		f := strings.Fields(line)
		path := f[len(f)-1]
		segs := strings.Split(path, "/")
		for i, s := range segs {
			if strings.HasPrefix(s, ":") {
				segs[i] = "x" + s[1:]
			}
		}
		concrete := strings.Join(segs, "/")
		for _, m := range f[:len(f)-1] {
			rt, _, _ := h.srv.match(m, concrete)
			if rt == nil {
				t.Errorf("%s %s: no route", m, path)
				continue
			}
			if strings.Count(rt.pattern, ":") != strings.Count(path, ":") {
				t.Errorf("%s %s: served by %s", m, path, rt.pattern)
			}
		}
	}
	routes := h.srv.Routes()
	t.Logf("%d routes served", len(routes))
	seen := map[string]bool{}
	for _, r := range routes {
		if seen[r] {
			t.Errorf("route %s registered twice", r)
		}
		seen[r] = true
	}
}
