package catalog

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/vocab"
)

const (
	zoneID    = "023e105f4ecef8ad9ca31a8372d0c353"
	accountID = "01a7362d577a6c3019a474fd6f485823"
	objID     = "372e67954025e0ba6aaa6d586b9e0b59"
	subID     = "de677e5818985db1285d0e80225f06e5"
)

// specRoute is one endpoint line of the spec, with a concrete path standing for its pattern.
type specRoute struct {
	id      string
	methods []string
	pattern string // as the catalog writes it
	path    string // a concrete request path
}

func m(ms ...string) []string { return ms }

var (
	z  = "/zones/" + zoneID
	a  = "/accounts/" + accountID
	o  = "/organizations/" + objID
	pk = z + "/firewall/waf/packages/" + objID
)

// specRoutes transcribes every endpoint the spec lists (plus the few the catalog adds from
// other sources, marked), each with a concrete path.
var specRoutes = []specRoute{
	{"firewall-rules", m("GET", "POST", "PATCH", "PUT", "DELETE"), "/zones/:zone_id/firewall/rules", z + "/firewall/rules"},
	{"firewall-rules", m("GET", "PATCH", "PUT", "DELETE"), "/zones/:zone_id/firewall/rules/:rule_id", z + "/firewall/rules/" + objID},
	{"filters", m("GET", "POST", "PUT", "DELETE"), "/zones/:zone_id/filters", z + "/filters"},
	{"filters", m("GET", "PUT", "DELETE"), "/zones/:zone_id/filters/:filter_id", z + "/filters/" + objID},
	{"filters", m("POST"), "/zones/:zone_id/filters/validate-expr", z + "/filters/validate-expr"}, // domain facts
	{"waf-managed-rules-v1", m("GET"), "/zones/:zone_id/firewall/waf/packages", z + "/firewall/waf/packages"},
	{"waf-managed-rules-v1", m("GET", "PATCH"), "/zones/:zone_id/firewall/waf/packages/:package_id", pk},
	{"waf-managed-rules-v1", m("GET"), "/zones/:zone_id/firewall/waf/packages/:package_id/groups", pk + "/groups"},
	{"waf-managed-rules-v1", m("GET", "PATCH"), "/zones/:zone_id/firewall/waf/packages/:package_id/groups/:group_id", pk + "/groups/" + subID},
	{"waf-managed-rules-v1", m("GET"), "/zones/:zone_id/firewall/waf/packages/:package_id/rules", pk + "/rules"},
	{"waf-managed-rules-v1", m("GET", "PATCH"), "/zones/:zone_id/firewall/waf/packages/:package_id/rules/:rule_id", pk + "/rules/100000"},
	{"waf-managed-rules-v1", m("GET", "POST"), "/zones/:zone_id/firewall/waf/overrides", z + "/firewall/waf/overrides"},
	{"waf-managed-rules-v1", m("GET", "PUT", "DELETE"), "/zones/:zone_id/firewall/waf/overrides/:override_id", z + "/firewall/waf/overrides/" + objID},
	{"waf-managed-rules-v1", m("GET", "PATCH"), "/zones/:zone_id/settings/waf", z + "/settings/waf"}, // domain facts: the previous version's switch
	{"rate-limiting-v1", m("GET", "POST"), "/zones/:zone_id/rate_limits", z + "/rate_limits"},
	{"rate-limiting-v1", m("GET", "PUT", "DELETE"), "/zones/:zone_id/rate_limits/:rate_limit_id", z + "/rate_limits/" + objID},
	{"cname-flattening-setting", m("GET", "PATCH"), "/zones/:zone_id/settings/cname_flattening", z + "/settings/cname_flattening"},
	{"cname-flattening-setting", m("GET", "PATCH"), "/zones/:zone_id/settings", z + "/settings"},
	{"zone-settings-bulk", m("GET", "PATCH"), "/zones/:zone_id/settings", z + "/settings"},
	{"account-nameserver-settings", m("GET", "POST"), "/accounts", "/accounts"},
	{"account-nameserver-settings", m("GET", "PUT"), "/accounts/:account_id", a},
	{"dns-record-zone-fields", m("GET", "POST"), "/zones/:zone_id/dns_records", z + "/dns_records"},
	{"dns-record-zone-fields", m("GET", "PATCH", "PUT"), "/zones/:zone_id/dns_records/:dns_record_id", z + "/dns_records/" + objID},
	{"dns-record-locked", m("GET", "POST"), "/zones/:zone_id/dns_records", z + "/dns_records"},
	{"dns-record-locked", m("GET", "PATCH", "PUT"), "/zones/:zone_id/dns_records/:dns_record_id", z + "/dns_records/" + objID},
	{"srv-data-fields", m("GET", "POST"), "/zones/:zone_id/dns_records", z + "/dns_records"},
	{"srv-data-fields", m("GET", "PATCH", "PUT"), "/zones/:zone_id/dns_records/:dns_record_id", z + "/dns_records/" + objID},
	{"dns-error-chain", m("POST"), "/zones/:zone_id/dns_records", z + "/dns_records"},
	{"dns-settings-use-apex-ns", m("GET", "PATCH"), "/zones/:zone_id/dns_settings/use_apex_ns", z + "/dns_settings/use_apex_ns"},
	{"dns-settings-secondary-overrides", m("GET", "PATCH"), "/zones/:zone_id/dns_settings/secondary_overrides", z + "/dns_settings/secondary_overrides"},
	{"zone-setting-brotli", m("GET", "PATCH"), "/zones/:zone_id/settings/brotli", z + "/settings/brotli"},
	{"zone-setting-minify", m("GET", "PATCH"), "/zones/:zone_id/settings/minify", z + "/settings/minify"},
	{"zone-setting-mobile-redirect", m("GET", "PATCH"), "/zones/:zone_identifier/settings/mobile_redirect", z + "/settings/mobile_redirect"},
	{"zone-setting-server-side-exclude", m("GET", "PATCH"), "/zones/:zone_id/settings/server_side_exclude", z + "/settings/server_side_exclude"},
	{"zone-setting-privacy-pass", m("GET", "POST"), "/zones/:zone_identifier/settings/privacy_pass", z + "/settings/privacy_pass"},
	{"argo-tunnels-api", m("GET", "POST"), "/accounts/:account_identifier/tunnels", a + "/tunnels"},
	{"argo-tunnels-api", m("GET", "DELETE"), "/accounts/:account_identifier/tunnels/:tunnel_id", a + "/tunnels/" + subID},
	{"argo-tunnels-api", m("DELETE"), "/accounts/:account_identifier/tunnels/:tunnel_id/connections", a + "/tunnels/" + subID + "/connections"}, // OpenAPI
	{"billing-profile-api", m("GET"), "/accounts/{account_identifier}/billing/profile", a + "/billing/profile"},
	{"billing-profile-api", m("GET"), "/user/billing/profile", "/user/billing/profile"},
	{"billing-profile-api", m("GET"), "/user/billing/history", "/user/billing/history"},
	{"access-bookmarks-api", m("GET"), "/accounts/:identifier/access/bookmarks", a + "/access/bookmarks"},
	{"access-bookmarks-api", m("GET", "POST", "PUT", "DELETE"), "/accounts/:identifier/access/bookmarks/:uuid", a + "/access/bookmarks/f174e90a-fafe-4643-bbbc-4a0ed4fc8415"},
	{"images-v1-direct-upload", m("POST"), "/accounts/:account_identifier/images/v1/direct_upload", a + "/images/v1/direct_upload"},
	{"analytics-dashboard-api", m("GET"), "/zones/:zone_identifier/analytics/dashboard", z + "/analytics/dashboard"},
	{"analytics-dashboard-api", m("GET"), "/zones/:zone_identifier/analytics/colos", z + "/analytics/colos"},
	{"organizations-api", m("GET", "PATCH"), "/organizations/:identifier", o},
	{"organizations-api", m("GET", "POST"), "/organizations/:organization_identifier/invites", o + "/invites"},
	{"organizations-api", m("GET", "PATCH", "DELETE"), "/organizations/:organization_identifier/invites/:identifier", o + "/invites/" + subID},
	{"organizations-api", m("GET"), "/organizations/:organization_identifier/members", o + "/members"},
	{"organizations-api", m("GET", "PATCH", "DELETE"), "/organizations/:organization_identifier/members/:identifier", o + "/members/" + subID},
	{"organizations-api", m("GET"), "/organizations/:organization_identifier/roles", o + "/roles"},
	{"organizations-api", m("GET"), "/organizations/:organization_identifier/roles/:identifier", o + "/roles/" + subID},
	{"organizations-api", m("GET"), "/organizations/:organization_identifier/audit_logs", o + "/audit_logs"},
	{"organizations-api", m("GET", "POST"), "/organizations/:organization_identifier/relays", o + "/relays"},
	{"organizations-api", m("GET", "PATCH", "DELETE"), "/organizations/:organization_identifier/relays/:identifier", o + "/relays/" + subID},
	{"organizations-api", m("GET"), "/organizations/:organization_identifier/relays/:identifier/zones", o + "/relays/" + subID + "/zones"},
	{"page-shield-script-monitor", m("GET", "PUT"), "/zones/:zone_id/script_monitor", z + "/script_monitor"},
	{"page-shield-script-monitor", m("GET"), "/zones/:zone_id/script_monitor/scripts", z + "/script_monitor/scripts"},
	{"page-shield-script-monitor", m("GET"), "/zones/:zone_id/script_monitor/scripts/:script_id", z + "/script_monitor/scripts/" + subID},
	{"page-shield-script-monitor", m("GET"), "/zones/:zone_id/script_monitor/connections", z + "/script_monitor/connections"},
	{"page-shield-script-monitor", m("GET"), "/zones/:zone_id/script_monitor/connections/:connection_id", z + "/script_monitor/connections/" + subID},
}

// patternCovers is the test's own, independent reading of a spec pattern: ":x" and "{x}"
// stand for any one segment.
func patternCovers(pattern, path string) bool {
	ps, xs := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(ps) != len(xs) {
		return false
	}
	for i := range ps {
		if !strings.HasPrefix(ps[i], ":") && !strings.HasPrefix(ps[i], "{") && ps[i] != xs[i] {
			return false
		}
	}
	return true
}

func ids(es []Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = string(e.ID)
	}
	return out
}

func TestMatchEndpointSpecRoutes(t *testing.T) {
	c := Default()
	for _, r := range specRoutes {
		// The methods under which r.id must match r.path: those of every row of the same
		// entry whose pattern covers the path (/filters/:filter_id covers /filters/validate-expr).
		var allowed []string
		for _, o := range specRoutes {
			if o.id == r.id && patternCovers(o.pattern, r.path) {
				allowed = append(allowed, o.methods...)
			}
		}
		for _, meth := range httpMethods {
			got := ids(c.MatchEndpoint(meth, r.path))
			want := slices.Contains(allowed, meth)
			if slices.Contains(got, r.id) != want {
				t.Errorf("MatchEndpoint(%s, %s) = %v; want %s included: %v", meth, r.path, got, r.id, want)
			}
		}
		// Every spelling a script or log may use.
		for _, p := range []string{
			r.path + "/",
			r.path + "?page=1&per_page=50",
			"/client/v4" + r.path,
			"https://api.cloudflare.com/client/v4" + r.path + "/?a=b#frag",
			strings.TrimPrefix(r.path, "/"),
		} {
			if got := ids(c.MatchEndpoint(strings.ToLower(r.methods[0]), p)); !slices.Contains(got, r.id) {
				t.Errorf("MatchEndpoint(%s, %s) = %v, want %s", r.methods[0], p, got, r.id)
			}
		}
		if got := ids(c.MatchEndpoint("", r.path)); !slices.Contains(got, r.id) {
			t.Errorf("MatchEndpoint(\"\", %s) = %v, want %s", r.path, got, r.id)
		}
	}
}

// TestCatalogRoutesAreTheSpecRoutes checks the other direction: the catalog has no endpoint
// the table above does not know, with the same methods.
func TestCatalogRoutesAreTheSpecRoutes(t *testing.T) {
	want := map[string][]string{}
	for _, r := range specRoutes {
		want[r.id+" "+r.pattern] = r.methods
	}
	seen := 0
	for _, e := range Default().Entries() {
		for _, ep := range e.Match.Endpoints {
			key := e.ID + vocab.RuleID(" "+ep.Path)
			ms, ok := want[string(key)]
			if !ok {
				t.Errorf("catalog endpoint %s %v is not in the spec table", key, ep.Methods)
				continue
			}
			seen++
			if !slices.Equal(slices.Sorted(slices.Values(ep.Methods)), slices.Sorted(slices.Values(ms))) {
				t.Errorf("%s: methods %v, spec %v", key, ep.Methods, ms)
			}
		}
	}
	if seen != len(specRoutes) {
		t.Errorf("catalog has %d of the %d spec routes", seen, len(specRoutes))
	}
}

func TestMatchEndpointNegativesAndDetails(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		method, path string
		want         []string
	}{
		{"GET", z + "/rulesets", nil},
		{"GET", z + "/firewall/rules/" + objID + "/extra", nil},
		{"GET", "/zones", nil},
		{"GET", "", nil},
		{"GET", "/", nil},
		{"GET", z + "/settings/ssl", nil},
		{"GET", z + "/page_shield/scripts", nil},
		{"POST", a + "/images/v2/direct_upload", nil},
		{"GET", z + "/dns_settings", nil},
		{"GET", z + "/settings", []string{"cname-flattening-setting", "zone-settings-bulk"}},
		{"POST", z + "/dns_records", []string{"dns-error-chain", "dns-record-locked", "dns-record-zone-fields", "srv-data-fields"}},
		{"GET", "//zones//" + zoneID + "//filters", []string{"filters"}},
		{"GET", "/zones/{zone_id}/firewall/rules", []string{"firewall-rules"}},
		{"GET", "/zones/$ZONE_ID/firewall/rules", []string{"firewall-rules"}},
		{"GET", "/client/v4", nil},
		{"GET", "/ZONES/" + zoneID + "/filters", nil},
	} {
		if got := ids(c.MatchEndpoint(tc.method, tc.path)); !slices.Equal(got, tc.want) {
			t.Errorf("MatchEndpoint(%s, %q) = %v, want %v", tc.method, tc.path, got, tc.want)
		}
	}
	rm := c.MatchRoute("PATCH", z+"/settings")
	if len(rm) != 2 || rm[0].Entry.ID != "cname-flattening-setting" || !rm[0].Endpoint.Affected || rm[1].Endpoint.Affected {
		t.Errorf("MatchRoute(PATCH, settings) = %+v: want cname flattening (affected) then the bulk entry (deprecated)", rm)
	}
}

func TestNormalizePath(t *testing.T) {
	for in, want := range map[string]string{
		"https://api.cloudflare.com/client/v4/zones/1/settings/?a=b": "/zones/1/settings",
		"/client/v4/zones":  "/zones",
		"zones/1/":          "/zones/1",
		"http://localhost":  "/",
		"  /user#x ":        "/user",
		"/client/v4x/zones": "/client/v4x/zones",
		"/client/v4/":       "/",
		"":                  "/",
		"/a//b///c":         "/a/b/c",
	} {
		if got := NormalizePath(in); got != want {
			t.Errorf("NormalizePath(%q) = %q, want %q", in, got, want)
		}
	}
}

func BenchmarkMatchEndpoint(b *testing.B) {
	c := Default()
	paths := make([]string, 0, len(specRoutes)+2)
	for _, r := range specRoutes {
		paths = append(paths, "/client/v4"+r.path+"?page=2")
	}
	paths = append(paths, z+"/rulesets", fmt.Sprintf("%s/dns_records/%s", z, objID))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.MatchEndpoint("GET", paths[i%len(paths)])
	}
}
