package emulator

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// TestAuth covers both credential schemes and the 403/10000 answer.
func TestAuth(t *testing.T) {
	h := newHarness(t, Options{Token: testToken, Email: "ops@acme.example", Key: "k3y"})
	tests := []struct {
		name string
		set  func(*http.Request)
		ok   bool
	}{
		{"bearer token", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+testToken) }, true},
		{"email and key", func(r *http.Request) {
			r.Header.Set("X-Auth-Email", "ops@acme.example")
			r.Header.Set("X-Auth-Key", "k3y")
		}, true},
		{"email in another case", func(r *http.Request) {
			r.Header.Set("X-Auth-Email", "OPS@acme.example")
			r.Header.Set("X-Auth-Key", "k3y")
		}, true},
		{"no credentials", func(r *http.Request) {}, false},
		{"wrong token", func(r *http.Request) { r.Header.Set("Authorization", "Bearer nope") }, false},
		{"token without Bearer", func(r *http.Request) { r.Header.Set("Authorization", testToken) }, false},
		{"wrong key", func(r *http.Request) {
			r.Header.Set("X-Auth-Email", "ops@acme.example")
			r.Header.Set("X-Auth-Key", "bad")
		}, false},
		{"key without email", func(r *http.Request) { r.Header.Set("X-Auth-Key", "k3y") }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := h.doWith("GET", "/zones", nil, tc.set)
			if tc.ok && r.status != 200 {
				t.Errorf("status %d %+v", r.status, r.env.Errors)
			}
			if !tc.ok && (r.status != 403 || r.code() != CodeAuth || string(r.env.Result) != "null") {
				t.Errorf("status %d code %d result %s", r.status, r.code(), r.env.Result)
			}
		})
	}
	if _, err := New(Options{}); err == nil {
		t.Errorf("New without credentials must fail")
	}
	if _, err := New(Options{Email: "a@b"}); err == nil {
		t.Errorf("New with an e-mail but no key must fail")
	}
}

// manyZones is a seed with n free zones of one account.
func manyZones(n int) *inventory.Snapshot {
	s := &inventory.Snapshot{SchemaVersion: 1, Accounts: []inventory.AccountInventory{{Account: inventory.Account{ID: accountID, Name: "Acme"}}}}
	for i := 0; i < n; i++ {
		s.Zones = append(s.Zones, inventory.ZoneInventory{Zone: inventory.Zone{ID: id(0x1000 + i), Name: fmt.Sprintf("z%02d.example", i),
			Account: inventory.Ref{ID: accountID}, Plan: inventory.ZonePlan{LegacyID: "free"}}})
	}
	return s
}

// TestPagination covers result_info with total_pages, the last partial page, a page past the
// end, the per_page maximum, and the zone filters.
func TestPagination(t *testing.T) {
	h := newHarness(t, Options{Seed: manyZones(7)})
	tests := []struct {
		query             string
		status            int
		page, per, count  int
		total, totalPages int
		firstName         string
	}{
		{"", 200, 1, 20, 7, 7, 1, "z00.example"},
		{"?per_page=3", 200, 1, 3, 3, 7, 3, "z00.example"},
		{"?per_page=3&page=3", 200, 3, 3, 1, 7, 3, "z06.example"},
		{"?per_page=3&page=4", 200, 4, 3, 0, 7, 3, ""},
		{"?per_page=50", 200, 1, 50, 7, 7, 1, "z00.example"},
		{"?per_page=51", 400, 0, 0, 0, 0, 0, ""},
		{"?page=0", 400, 0, 0, 0, 0, 0, ""},
		{"?per_page=x", 400, 0, 0, 0, 0, 0, ""},
		{"?name=z03.example", 200, 1, 20, 1, 1, 1, "z03.example"},
		{"?account.id=" + accountID + "&per_page=5&page=2", 200, 2, 5, 2, 7, 2, "z05.example"},
		{"?account.id=" + id(1), 200, 1, 20, 0, 0, 0, ""},
	}
	for _, tc := range tests {
		r := h.do("GET", "/zones"+tc.query, nil)
		if r.status != tc.status {
			t.Errorf("%s: status %d, want %d", tc.query, r.status, tc.status)
			continue
		}
		if tc.status != 200 {
			if r.code() != CodeBadQuery || r.env.ResultInfo != nil {
				t.Errorf("%s: %+v", tc.query, r.env)
			}
			continue
		}
		ri := r.env.ResultInfo
		if ri == nil || ri.Page != tc.page || ri.PerPage != tc.per || ri.Count != tc.count || ri.TotalCount != tc.total || ri.TotalPages != tc.totalPages {
			t.Errorf("%s: result_info %+v", tc.query, ri)
		}
		var zones []inventory.Zone
		r.into(t, &zones)
		if len(zones) != tc.count || (tc.count > 0 && zones[0].Name != tc.firstName) {
			t.Errorf("%s: %d zones, first %+v", tc.query, len(zones), zones)
		}
	}
	// Other endpoints have their own maximum.
	if r := h.do("GET", "/zones/"+id(0x1000)+"/dns_records?per_page=5000", nil); r.status != 200 {
		t.Errorf("dns_records per_page 5000: %d", r.status)
	}
	if r := h.do("GET", "/zones/"+id(0x1000)+"/firewall/rules?per_page=101", nil); r.status != 400 {
		t.Errorf("firewall/rules per_page 101: %d", r.status)
	}
}

// TestUnknownRoutesAndIDs covers the envelopes of unknown paths, methods and identifiers.
func TestUnknownRoutesAndIDs(t *testing.T) {
	h := newHarness(t, Options{})
	tests := []struct {
		method, path string
		status, code int
	}{
		{"GET", "/nothing/here", 404, CodeNoRoute},
		{"DELETE", "/zones", 405, CodeMethodNotAllowed},
		{"GET", "/zones/" + id(0x77), 404, CodeBadIdentifier},
		{"GET", "/accounts/" + id(0x77) + "/tunnels", 404, CodeBadIdentifier},
		{"GET", "/zones/" + freeZone + "/rate_limits/" + id(0x77), 404, CodeNotFound},
		{"GET", "/zones/" + freeZone + "/settings/not_a_setting", 404, CodeUnknownSetting},
		{"POST", "/zones/" + freeZone + "/filters", 400, CodeMalformedJSON},
	}
	for _, tc := range tests {
		if r := h.do(tc.method, tc.path, nil); r.status != tc.status || r.code() != tc.code {
			t.Errorf("%s %s: %d %+v, want %d/%d", tc.method, tc.path, r.status, r.env.Errors, tc.status, tc.code)
		}
	}
}

// TestRulesets covers entry points per phase: 404/10003 when none, PUT replacing all rules
// and creating the ruleset, POST of a rule with a position, and the plan quotas.
func TestRulesets(t *testing.T) {
	h := newHarness(t, Options{})
	ep := "/zones/" + proZone + "/rulesets/phases/" + string(vocab.PhaseCustomRules) + "/entrypoint"
	if r := h.do("GET", string(ep), nil); r.status != 404 || r.code() != CodeNoEntrypoint {
		t.Fatalf("missing entry point: %d %+v", r.status, r.env.Errors)
	}
	rule := func(desc string) map[string]any {
		return map[string]any{"expression": `http.host eq "` + desc + `.pro.example"`, "action": "block", "description": desc}
	}
	var rs inventory.Ruleset
	h.mustOK("PUT", string(ep), map[string]any{"rules": []any{rule("a"), rule("b")}}).into(t, &rs)
	if rs.Phase != vocab.PhaseCustomRules || len(rs.ID) != 32 || len(rs.Rules) != 2 || rs.Version != "1" || *rs.Rules[0].Enabled != true {
		t.Fatalf("created ruleset %+v", rs)
	}
	a, b := rs.Rules[0].ID, rs.Rules[1].ID
	add := func(desc string, pos any) result {
		body := rule(desc)
		if pos != nil {
			body["position"] = pos
		}
		return h.do("POST", "/zones/"+proZone+"/rulesets/"+rs.ID+"/rules", body)
	}
	order := func(r result) string {
		var got inventory.Ruleset
		r.into(t, &got)
		var ds []string
		for _, x := range got.Rules {
			ds = append(ds, x.Description)
		}
		return strings.Join(ds, ",")
	}
	steps := []struct {
		desc string
		pos  any
		want string
	}{
		{"c", nil, "a,b,c"},
		{"d", map[string]any{"before": a}, "d,a,b,c"},
		{"e", map[string]any{"after": b}, "d,a,b,e,c"},
		{"f", map[string]any{"index": 2}, "d,f,a,b,e,c"},
		{"g", map[string]any{"before": ""}, "g,d,f,a,b,e,c"},
	}
	for _, st := range steps {
		r := add(st.desc, st.pos)
		if r.status != 200 {
			t.Fatalf("add %s: %d %+v", st.desc, r.status, r.env.Errors)
		}
		if got := order(r); got != st.want {
			t.Errorf("add %s at %v: order %s, want %s", st.desc, st.pos, got, st.want)
		}
	}
	for _, bad := range []any{map[string]any{"before": id(0x5)}, map[string]any{"index": 99}, map[string]any{"index": 1, "after": a}} {
		if r := add("x", bad); r.status != 400 {
			t.Errorf("position %v: %d", bad, r.status)
		}
	}
	// PUT replaces every rule; a rule id that exists is kept.
	h.mustOK("PUT", string(ep), map[string]any{"rules": []any{map[string]any{"id": a, "expression": "ip.src eq 192.0.2.1", "action": "skip", "action_parameters": map[string]any{"ruleset": "current"}}}}).into(t, &rs)
	if len(rs.Rules) != 1 || rs.Rules[0].ID != a || rs.Version == "1" {
		t.Errorf("PUT replaced to %+v", rs)
	}

	quota := []struct {
		zone, phase string
		rules       int
		ok          bool
	}{
		{freeZone, string(vocab.PhaseCustomRules), 5, true},
		{freeZone, string(vocab.PhaseCustomRules), 6, false},
		{proZone, string(vocab.PhaseCustomRules), 20, true},
		{proZone, string(vocab.PhaseCustomRules), 21, false},
		{freeZone, string(vocab.PhaseRateLimiting), 1, true},
		{freeZone, string(vocab.PhaseRateLimiting), 2, false},
		{proZone, string(vocab.PhaseRateLimiting), 2, true},
		{proZone, string(vocab.PhaseRateLimiting), 3, false},
		{entZone, string(vocab.PhaseRateLimiting), 5, true},
		{entZone, string(vocab.PhaseRateLimiting), 6, false},
	}
	for _, q := range quota {
		var rules []any
		for i := 0; i < q.rules; i++ {
			r := map[string]any{"expression": fmt.Sprintf("ip.src eq 192.0.2.%d", i+1), "action": "block"}
			if vocab.Phase(q.phase) == vocab.PhaseRateLimiting {
				r["ratelimit"] = map[string]any{"characteristics": []string{"cf.colo.id", "ip.src"}, "period": 60, "requests_per_period": 100, "mitigation_timeout": 600}
			}
			rules = append(rules, r)
		}
		r := h.do("PUT", "/zones/"+q.zone+"/rulesets/phases/"+q.phase+"/entrypoint", map[string]any{"rules": rules})
		if (r.status == 200) != q.ok || (!q.ok && r.code() != CodeQuotaExceeded) {
			t.Errorf("%s %s %d rules: %d %+v", q.zone, q.phase, q.rules, r.status, r.env.Errors)
		}
	}
	// The quota counts every rule of the phase for POST too.
	freeEP := "/zones/" + freeZone + "/rulesets/phases/" + string(vocab.PhaseCustomRules) + "/entrypoint"
	var full inventory.Ruleset
	h.mustOK("GET", string(freeEP), nil).into(t, &full)
	if r := h.do("POST", "/zones/"+freeZone+"/rulesets/"+full.ID+"/rules", rule("over")); r.code() != CodeQuotaExceeded {
		t.Errorf("POST over quota: %+v", r.env.Errors)
	}
	// Rule checks: plan features, rate limit parameters, skip parameters.
	checks := []struct {
		zone, phase string
		rule        map[string]any
		status      int
	}{
		{proZone, string(vocab.PhaseCustomRules), map[string]any{"expression": "ip.src eq 192.0.2.1", "action": "log"}, 403},
		{proZone, string(vocab.PhaseCustomRules), map[string]any{"expression": `http.host matches "x"`, "action": "block"}, 403},
		{bizZone, string(vocab.PhaseCustomRules), map[string]any{"expression": `http.host matches "x"`, "action": "block"}, 200},
		{bizZone, string(vocab.PhaseCustomRules), map[string]any{"expression": "ip.src eq 192.0.2.1", "action": "skip"}, 400},
		{bizZone, string(vocab.PhaseCustomRules), map[string]any{"expression": "ip.src eq 192.0.2.1", "action": "execute"}, 400},
		{bizZone, string(vocab.PhaseCustomRules), map[string]any{"expression": "(ip.src eq 192.0.2.1", "action": "block"}, 400},
		{bizZone, string(vocab.PhaseRateLimiting), map[string]any{"expression": "true", "action": "block", "ratelimit": map[string]any{"characteristics": []string{"ip.src"}, "period": 60, "requests_per_period": 5}}, 400},
		{bizZone, string(vocab.PhaseRateLimiting), map[string]any{"expression": "true", "action": "block", "ratelimit": map[string]any{"characteristics": []string{"cf.colo.id"}, "period": 45, "requests_per_period": 5}}, 400},
		{bizZone, string(vocab.PhaseManaged), map[string]any{"expression": "true", "action": "execute", "action_parameters": map[string]any{"id": "efb7b8c949ac4650a09736fc376e9aee"}}, 200},
	}
	for _, c := range checks {
		r := h.do("PUT", "/zones/"+c.zone+"/rulesets/phases/"+c.phase+"/entrypoint", map[string]any{"rules": []any{c.rule}})
		if r.status != c.status {
			t.Errorf("%s %v: %d %+v, want %d", c.phase, c.rule, r.status, r.env.Errors, c.status)
		}
	}
	var list []inventory.Ruleset
	h.mustOK("GET", "/zones/"+bizZone+"/rulesets", nil).into(t, &list)
	phases := map[string]int{}
	for _, r := range list {
		phases[r.Kind+"/"+string(r.Phase)]++
		if len(r.Rules) != 0 {
			t.Errorf("list carries rules of %s", r.ID)
		}
	}
	if phases["zone/"+string(vocab.PhaseCustomRules)] != 1 || phases["zone/"+string(vocab.PhaseManaged)] != 1 || phases["managed/"+string(vocab.PhaseManaged)] != 3 {
		t.Errorf("rulesets listed: %v", phases)
	}
}

// TestStatsAndLog checks that a read-only sequence shows no write, the counters, and that
// the log keeps no headers.
func TestStatsAndLog(t *testing.T) {
	h := newHarness(t, Options{})
	h.mustOK("GET", "/zones", nil)
	h.mustOK("GET", "/zones/"+freeZone+"/firewall/rules", nil)
	h.mustOK("GET", "/zones/"+freeZone+"/firewall/rules?page=1", nil)
	h.doWith("GET", "/zones", nil, nil)
	st := h.srv.Stats()
	if st.Total != 4 || st.Writes != 0 || st.ByMethod["GET"] != 4 || st.ByPattern["/zones/:zone_id/firewall/rules"] != 2 ||
		st.ByRoute["GET /zones"] != 2 || st.ByStatus[403] != 1 {
		t.Errorf("stats %+v", st)
	}
	h.mustOK("POST", "/zones/"+freeZone+"/filters", []map[string]any{{"expression": "ip.src eq 192.0.2.200"}})
	if st := h.srv.Stats(); st.Writes != 1 || st.ByMethod["POST"] != 1 {
		t.Errorf("after a write: %+v", st)
	}
	log := h.srv.Requests()
	if len(log) != 5 || log[2].Query != "page=1" || log[2].Pattern != "/zones/:zone_id/firewall/rules" || log[3].Status != 403 || log[0].Time.IsZero() {
		t.Errorf("log %+v", log)
	}
	for _, e := range log {
		if strings.Contains(fmt.Sprintf("%+v", e), testToken) {
			t.Errorf("the log holds the token: %+v", e)
		}
	}
}

// TestSnapshotReflectsWrites checks that Snapshot is sorted and shows writes, with the
// reflected settings derived.
func TestSnapshotReflectsWrites(t *testing.T) {
	h := newHarness(t, Options{})
	h.mustOK("PATCH", "/zones/"+proZone+"/settings/cname_flattening", map[string]any{"value": "on"})
	h.mustOK("PATCH", "/zones/"+proZone+"/settings/minify", map[string]any{"value": map[string]string{"css": "on", "html": "off", "js": "off"}})
	h.mustOK("POST", "/accounts/"+accountID+"/tunnels", map[string]any{"name": "t2", "tunnel_secret": "c2VjcmV0"})
	snap := h.srv.Snapshot()
	names := []string{}
	for _, z := range snap.Zones {
		names = append(names, z.Zone.Name)
	}
	if strings.Join(names, ",") != "biz.example,ent.example,free.example,full.example,pro.example" {
		t.Errorf("zones not sorted: %v", names)
	}
	for _, z := range snap.Zones {
		if z.Zone.ID != proZone {
			continue
		}
		if s, _ := z.Setting("cname_flattening"); s.StringValue() != "flatten_all" || !*z.DNSSettings.FlattenAllCNAMEs {
			t.Errorf("cname_flattening %+v, dns settings %+v", s, z.DNSSettings)
		}
		if s, found := z.Setting("minify"); !found || !strings.Contains(string(s.Value), `"css":"on"`) {
			t.Errorf("minify %+v", s)
		}
	}
	tunnels := snap.Accounts[0].Tunnels
	if len(tunnels) != 2 {
		t.Fatalf("tunnels %+v", tunnels)
	}
	for _, tu := range tunnels {
		if _, has := tu.Extra["tunnel_secret"]; has {
			t.Errorf("tunnel secret stored: %+v", tu)
		}
	}
}

// TestDeterministicIDs checks that two emulators with the same seed give the same ids.
func TestDeterministicIDs(t *testing.T) {
	create := func(rnd int64) string {
		h := newHarness(t, Options{Rand: rnd})
		var fs []inventory.Filter
		h.mustOK("POST", "/zones/"+freeZone+"/filters", []map[string]any{{"expression": "ip.src eq 192.0.2.201"}}).into(t, &fs)
		return fs[0].ID
	}
	a, b, c := create(1), create(1), create(2)
	if a != b || a == c || len(a) != 32 || strings.Trim(a, "0123456789abcdef") != "" {
		t.Errorf("ids %s %s %s", a, b, c)
	}
}

// TestConcurrentRequests runs reads and writes in parallel (meaningful under -race).
func TestConcurrentRequests(t *testing.T) {
	h := newHarness(t, Options{})
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 10; j++ {
				h.do("POST", "/zones/"+entZone+"/filters", []map[string]any{{"expression": fmt.Sprintf("ip.src eq 198.51.100.%d", i*10+j)}})
				h.do("GET", "/zones/"+entZone+"/filters", nil)
				_ = h.srv.Stats()
			}
		}(i)
	}
	wg.Wait()
	if f, _ := h.counts(entZone); f != 80 {
		t.Errorf("%d filters, want 80", f)
	}
}

// TestOtherEndpoints checks that the remaining deprecated endpoints answer with envelopes.
func TestOtherEndpoints(t *testing.T) {
	h := newHarness(t, Options{})
	for _, p := range []string{
		"/accounts/" + accountID + "/tunnels", "/accounts/" + accountID + "/access/bookmarks",
		"/accounts/" + accountID + "/billing/profile", "/user/billing/profile", "/user/billing/history",
		"/zones/" + freeZone + "/analytics/dashboard", "/zones/" + freeZone + "/analytics/colos",
		"/organizations/" + accountID, "/organizations/" + accountID + "/members", "/organizations/" + accountID + "/roles",
		"/organizations/" + accountID + "/audit_logs", "/organizations/" + accountID + "/invites", "/organizations/" + accountID + "/relays",
		"/zones/" + freeZone + "/healthchecks", "/accounts/" + accountID + "/load_balancers/pools", "/user/load_balancers/pools",
		"/zones/" + bizZone + "/firewall/waf/packages", "/zones/" + bizZone + "/firewall/waf/packages/" + id(0x71) + "/groups",
		"/zones/" + bizZone + "/firewall/waf/packages/" + id(0x71) + "/rules", "/zones/" + bizZone + "/firewall/waf/overrides",
		"/zones/" + freeZone + "/settings/brotli", "/zones/" + freeZone + "/settings/privacy_pass", "/zones/" + freeZone + "/settings/ssl",
	} {
		h.mustOK("GET", p, nil)
	}
	var up map[string]string
	h.mustOK("POST", "/accounts/"+accountID+"/images/v1/direct_upload", nil).into(t, &up)
	if len(up["id"]) != 32 || !strings.HasSuffix(up["uploadURL"], up["id"]) {
		t.Errorf("direct upload %+v", up)
	}
	h.mustOK("POST", "/accounts/"+accountID+"/access/bookmarks/"+id(0x34), map[string]any{"name": "docs", "domain": "docs.example"})
	if r := h.do("POST", "/accounts/"+accountID+"/access/bookmarks/"+id(0x34), map[string]any{"name": "docs", "domain": "docs.example"}); r.status != 409 {
		t.Errorf("bookmark created twice: %d", r.status)
	}
	h.mustOK("PATCH", "/zones/"+bizZone+"/firewall/waf/packages/"+id(0x71), map[string]any{"sensitivity": "low"})
	if r := h.do("PATCH", "/zones/"+bizZone+"/firewall/waf/packages/"+id(0x71)+"/groups/"+id(0x72), map[string]any{"mode": "sideways"}); r.status != 400 {
		t.Errorf("bad group mode: %d", r.status)
	}
	h.mustOK("PATCH", "/zones/"+bizZone+"/firewall/waf/packages/"+id(0x71)+"/rules/"+id(0x73), map[string]any{"mode": "off"})
	var ov map[string]any
	h.mustOK("POST", "/zones/"+bizZone+"/firewall/waf/overrides", map[string]any{"urls": []string{"biz.example/api/*"}, "rules": map[string]string{id(0x73): "disable"}}).into(t, &ov)
	h.mustOK("DELETE", "/zones/"+bizZone+"/firewall/waf/overrides/"+ov["id"].(string), nil)
	// Rate limits: the free plan holds one, which the seed already uses.
	rl := map[string]any{"match": map[string]any{"request": map[string]any{"url": "*.free.example/api*"}}, "threshold": 5, "period": 60, "action": map[string]any{"mode": "ban", "timeout": 600}}
	if r := h.do("POST", "/zones/"+freeZone+"/rate_limits", rl); r.code() != CodeQuotaExceeded {
		t.Errorf("rate limit over quota: %+v", r.env.Errors)
	}
	h.mustOK("POST", "/zones/"+proZone+"/rate_limits", rl)
	rl["period"] = 5
	if r := h.do("POST", "/zones/"+proZone+"/rate_limits", rl); r.status != 400 {
		t.Errorf("bad period: %d", r.status)
	}
	var hc map[string]any
	h.mustOK("PATCH", "/zones/"+freeZone+"/healthchecks/"+id(0xe1), map[string]any{"description": "changed"}).into(t, &hc)
	// Health checks have no notification_email in the real API (it is a pool field): the
	// seed's addresses are answered as notification.email_addresses.
	notif, _ := hc["notification"].(map[string]any)
	if _, has := hc["notification_email"]; has || notif == nil || !sameJSON(t, notif["email_addresses"], []string{"ops@free.example"}) || hc["description"] != "changed" {
		t.Errorf("patched health check %+v", hc)
	}
}
