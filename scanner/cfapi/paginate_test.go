package cfapi

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// page describes one page a test server answers: the ids of its rules and its result_info
// (nil: no result_info member at all).
type page struct {
	ids  []string
	info map[string]any
}

func rules(ids ...string) []map[string]any {
	out := make([]map[string]any, len(ids))
	for i, id := range ids {
		out[i] = map[string]any{"id": id, "action": "block", "paused": false, "priority": nil,
			"filter": map[string]any{"id": "f" + id, "expression": "ip.src eq 192.0.2.1", "paused": false}}
	}
	return out
}

func info(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func TestPaginationShapes(t *testing.T) {
	tests := []struct {
		name  string
		pages []page // index 0 answers page=1; pages past the end answer an empty list
		want  []string
		asked int // requests the client must send
	}{
		{
			name: "total_pages present",
			pages: []page{
				{[]string{"a", "b"}, info("page", 1, "per_page", 2, "count", 2, "total_count", 5, "total_pages", 3)},
				{[]string{"c", "d"}, info("page", 2, "per_page", 2, "count", 2, "total_count", 5, "total_pages", 3)},
				{[]string{"e"}, info("page", 3, "per_page", 2, "count", 1, "total_count", 5, "total_pages", 3)},
			},
			want: []string{"a", "b", "c", "d", "e"}, asked: 3,
		},
		{
			name: "total_pages wins over a short count",
			pages: []page{
				{[]string{"a"}, info("page", 1, "per_page", 2, "count", 1, "total_pages", 2)},
				{[]string{"b"}, info("page", 2, "per_page", 2, "count", 1, "total_pages", 2)},
			},
			want: []string{"a", "b"}, asked: 2,
		},
		{
			name: "total_pages missing, computed from total_count",
			pages: []page{
				{[]string{"a", "b"}, info("page", 1, "per_page", 2, "count", 2, "total_count", 4)},
				{[]string{"c", "d"}, info("page", 2, "per_page", 2, "count", 2, "total_count", 4)},
			},
			want: []string{"a", "b", "c", "d"}, asked: 2,
		},
		{
			name: "total_pages and total_count missing, stop when count < per_page",
			pages: []page{
				{[]string{"a", "b"}, info("page", 1, "per_page", 2, "count", 2)},
				{[]string{"c"}, info("page", 2, "per_page", 2, "count", 1)},
			},
			want: []string{"a", "b", "c"}, asked: 2,
		},
		{
			name: "only full pages and no totals: an empty page ends the list",
			pages: []page{
				{[]string{"a", "b"}, info("page", 1, "per_page", 2, "count", 2)},
				{[]string{"c", "d"}, info("page", 2, "per_page", 2, "count", 2)},
			},
			want: []string{"a", "b", "c", "d"}, asked: 3,
		},
		{
			name: "count < reported per_page although total_count is larger (php fixture shape)",
			pages: []page{
				{[]string{"a"}, info("page", 1, "per_page", 20, "count", 1, "total_count", 2000)},
			},
			want: []string{"a"}, asked: 1,
		},
		{
			name: "result_info missing entirely: one page",
			pages: []page{
				{[]string{"a", "b", "c"}, nil},
				{[]string{"x"}, nil},
			},
			want: []string{"a", "b", "c"}, asked: 1,
		},
		{
			name:  "empty list",
			pages: []page{{[]string{}, info("page", 1, "per_page", 100, "count", 0, "total_count", 0, "total_pages", 0)}},
			want:  nil, asked: 1,
		},
		{
			name: "server ignores page: the repeated page is dropped",
			pages: []page{
				{[]string{"a", "b"}, info("page", 1, "per_page", 2, "count", 2, "total_count", 9)},
				{[]string{"a", "b"}, info("page", 1, "per_page", 2, "count", 2, "total_count", 9)},
			},
			want: []string{"a", "b"}, asked: 2,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var asked []string
			srv := server(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/zones/z1/firewall/rules" {
					t.Errorf("path %s", r.URL.Path)
				}
				mu.Lock()
				asked = append(asked, r.URL.RawQuery)
				mu.Unlock()
				if got := r.URL.Query().Get("per_page"); got != "100" {
					t.Errorf("per_page = %q, want 100", got)
				}
				n, _ := strconv.Atoi(r.URL.Query().Get("page"))
				if n < 1 || n > len(tc.pages) {
					okEnvelope(w, []any{}, info("page", n, "per_page", 2, "count", 0))
					return
				}
				p := tc.pages[n-1]
				var inf any
				if p.info != nil {
					inf = p.info
				}
				okEnvelope(w, rules(p.ids...), inf)
			})
			c, _ := testClient(t, srv.URL)
			got, err := c.ListFirewallRules(context.Background(), "z1")
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range got {
				ids = append(ids, r.ID)
			}
			if !reflect.DeepEqual(ids, tc.want) {
				t.Errorf("ids %v, want %v", ids, tc.want)
			}
			if len(asked) != tc.asked {
				t.Errorf("%d requests (%v), want %d", len(asked), asked, tc.asked)
			}
			for i, q := range asked {
				if !strings.Contains(q, fmt.Sprintf("page=%d", i+1)) {
					t.Errorf("request %d query %q lacks page=%d", i, q, i+1)
				}
			}
		})
	}
}

func TestMorePages(t *testing.T) {
	ip := func(n int) *int { return &n }
	tests := []struct {
		name      string
		page, per int
		got       int
		info      *ResultInfo
		want      bool
	}{
		{"no info", 1, 50, 50, nil, false},
		{"empty page", 1, 50, 0, &ResultInfo{Page: 1, PerPage: 50, TotalPages: ip(3)}, false},
		{"total_pages ahead", 1, 50, 50, &ResultInfo{Page: 1, PerPage: 50, TotalPages: ip(2)}, true},
		{"total_pages reached", 2, 50, 50, &ResultInfo{Page: 2, PerPage: 50, TotalPages: ip(2)}, false},
		{"total_count ahead", 1, 100, 100, &ResultInfo{Page: 1, PerPage: 100, Count: ip(100), TotalCount: ip(101)}, true},
		{"total_count reached", 2, 100, 100, &ResultInfo{Page: 2, PerPage: 100, Count: ip(100), TotalCount: ip(200)}, false},
		{"short count", 1, 100, 7, &ResultInfo{Page: 1, PerPage: 100, Count: ip(7)}, false},
		{"server per_page used", 1, 5000, 10, &ResultInfo{Page: 1, PerPage: 10, Count: ip(10), TotalCount: ip(27)}, true},
		{"no per_page anywhere", 1, 0, 10, &ResultInfo{Page: 1, Count: ip(10)}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := morePages(tc.page, tc.per, tc.got, tc.info); got != tc.want {
				t.Errorf("morePages = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestPerPageByEndpoint checks the page size each list method asks for, and that unpaged
// endpoints send neither page nor per_page on their first request.
func TestPerPageByEndpoint(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		path    string
		perPage string // "" = no per_page member
		call    func(*Client) error
	}{
		{"/accounts", "50", func(c *Client) error { _, err := c.ListAccounts(ctx); return err }},
		{"/zones", "50", func(c *Client) error { _, err := c.ListZones(ctx, ZoneFilter{}); return err }},
		{"/zones/z1/firewall/rules", "100", func(c *Client) error { _, err := c.ListFirewallRules(ctx, "z1"); return err }},
		{"/zones/z1/filters", "100", func(c *Client) error { _, err := c.ListFilters(ctx, "z1"); return err }},
		{"/zones/z1/firewall/waf/packages", "100", func(c *Client) error { _, err := c.ListWAFPackages(ctx, "z1"); return err }},
		{"/zones/z1/firewall/waf/packages/p1/groups", "100", func(c *Client) error { _, err := c.ListWAFGroups(ctx, "z1", "p1"); return err }},
		{"/zones/z1/firewall/waf/packages/p1/rules", "100", func(c *Client) error { _, err := c.ListWAFRules(ctx, "z1", "p1"); return err }},
		{"/zones/z1/firewall/waf/overrides", "100", func(c *Client) error { _, err := c.ListWAFOverrides(ctx, "z1"); return err }},
		{"/zones/z1/rate_limits", "1000", func(c *Client) error { _, err := c.ListRateLimits(ctx, "z1"); return err }},
		{"/zones/z1/dns_records", "5000", func(c *Client) error { _, err := c.ListDNSRecords(ctx, "z1", ""); return err }},
		{"/zones/z1/settings", "", func(c *Client) error { _, err := c.ListZoneSettings(ctx, "z1"); return err }},
		{"/zones/z1/healthchecks", "", func(c *Client) error { _, err := c.ListHealthChecks(ctx, "z1"); return err }},
		{"/zones/z1/rulesets", "", func(c *Client) error { _, err := c.ListRulesets(ctx, "z1"); return err }},
		{"/accounts/a1/load_balancers/pools", "", func(c *Client) error { _, err := c.ListLoadBalancerPools(ctx, "a1"); return err }},
		{"/accounts/a1/tunnels", "", func(c *Client) error { _, err := c.ListTunnels(ctx, "a1"); return err }},
		{"/accounts/a1/access/bookmarks", "", func(c *Client) error { _, err := c.ListAccessBookmarks(ctx, "a1"); return err }},
		{"/accounts/a1/access/apps", "", func(c *Client) error { _, err := c.ListAccessApps(ctx, "a1"); return err }},
		{"/accounts/a1/alerting/v3/policies", "", func(c *Client) error { _, err := c.ListNotificationPolicies(ctx, "a1"); return err }},
	}
	// A plan's lookup before it creates an application or a policy (ListAt) asks for the
	// pages the scan's read asks for.
	for _, path := range []string{"/accounts/a1/access/apps", "/accounts/a1/alerting/v3/policies"} {
		if n := PerPage(path); n != perPageUnspecified {
			t.Errorf("PerPage(%s) = %d, want none, as the scan's read", path, n)
		}
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			n := 0
			srv := server(t, func(w http.ResponseWriter, r *http.Request) {
				n++
				if r.Method != http.MethodGet || r.URL.Path != tc.path {
					t.Errorf("got %s %s, want GET %s", r.Method, r.URL.Path, tc.path)
				}
				q := r.URL.Query()
				if got := q.Get("per_page"); got != tc.perPage {
					t.Errorf("per_page = %q, want %q", got, tc.perPage)
				}
				if tc.perPage == "" && q.Has("page") {
					t.Errorf("unpaged endpoint got page=%s", q.Get("page"))
				}
				okEnvelope(w, []any{}, nil)
			})
			c, _ := testClient(t, srv.URL)
			if err := tc.call(c); err != nil {
				t.Fatal(err)
			}
			if n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
}

func TestListZonesFilter(t *testing.T) {
	var got []string
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.URL.RawQuery)
		okEnvelope(w, []any{map[string]any{"id": "z9", "name": "example.com", "paused": false, "account": map[string]any{"id": "a1"}, "plan": map[string]any{}}},
			info("page", 2, "per_page", 10, "count", 1, "total_pages", 7))
	})
	c, _ := testClient(t, srv.URL)
	zones, err := c.ListZones(context.Background(), ZoneFilter{AccountID: "a1", Name: "example.com", Status: "active", Page: 2, PerPage: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(zones) != 1 || zones[0].ID != "z9" {
		t.Fatalf("zones %+v", zones)
	}
	// Page > 0 fetches that page only, although total_pages announces more.
	want := []string{"account.id=a1&name=example.com&page=2&per_page=10&status=active"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("queries %v, want %v", got, want)
	}
}

func TestListDNSRecordsTypeFilter(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("type") != "SRV" {
			t.Errorf("type = %q", r.URL.Query().Get("type"))
		}
		okEnvelope(w, []any{}, nil)
	})
	c, _ := testClient(t, srv.URL)
	if _, err := c.ListDNSRecords(context.Background(), "z1", "SRV"); err != nil {
		t.Fatal(err)
	}
}

// TestRepeatedPagesStop: a server that numbers its pages but sends the same one forever
// (total_pages 1e9) was followed to the 100,000-page cap, about 7 hours at the real budget
// (issue 12, item 9). The listing now fails at the first repeated page, saying why; so does
// a server cycling through two pages.
func TestRepeatedPagesStop(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ids    func(page int) []string
		asked  int
		repeat int
	}{
		{"same page forever", func(int) []string { return []string{"a", "b"} }, 2, 2},
		{"two pages in turn", func(p int) []string { return []string{fmt.Sprint("x", p%2), "y"} }, 3, 3},
	} {
		var asked int
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			asked++
			p, _ := strconv.Atoi(r.URL.Query().Get("page"))
			okEnvelope(w, rules(tc.ids(p)...), info("page", p, "per_page", 2, "count", 2, "total_count", 2e9, "total_pages", 1e9))
		})
		c, _ := testClient(t, srv.URL)
		got, err := c.ListFirewallRules(context.Background(), "z1")
		if err == nil || got != nil {
			t.Fatalf("%s: got %d rules, err %v; want a failure", tc.name, len(got), err)
		}
		want := fmt.Sprintf("page %d repeats an earlier page (the server repeats itself, announcing 1000000000 pages)", tc.repeat)
		if !strings.Contains(err.Error(), want) || asked != tc.asked {
			t.Errorf("%s: %d requests, err %v; want %d requests and %q", tc.name, asked, err, tc.asked, want)
		}
	}
}

// TestNullListIsAFailedRead: `success: true, result: null` on the zone list read as "0
// zones, complete" (issue 12, item 10). A list page whose result is null, missing, or whose
// body is empty read nothing: every list fails with an error saying so. An empty array is
// still an empty list.
func TestNullListIsAFailedRead(t *testing.T) {
	for _, body := range []string{
		`{"success":true,"errors":[],"messages":[],"result":null}`,
		`{"success":true,"errors":[],"messages":[],"result":null,"result_info":{"page":1,"per_page":50,"count":0,"total_count":0}}`,
		`{"success":true,"errors":[],"messages":[]}`,
		``,
	} {
		srv := server(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, body) })
		c, _ := testClient(t, srv.URL)
		zones, err := c.ListZones(context.Background(), ZoneFilter{})
		if err == nil || !strings.Contains(err.Error(), "result is null or missing: nothing was read") {
			t.Errorf("%q: %d zones, err %v; want a failed read", body, len(zones), err)
		}
		if _, err := c.ListDNSRecords(context.Background(), "z1", ""); err == nil {
			t.Errorf("%q: DNS records listed", body)
		}
		if _, err := c.ListZones(context.Background(), ZoneFilter{Page: 2}); err == nil {
			t.Errorf("%q: one page of zones listed", body)
		}
	}
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"success":true,"errors":[],"messages":[],"result":[],"result_info":{"page":1,"per_page":50,"count":0,"total_count":0}}`)
	})
	c, _ := testClient(t, srv.URL)
	if zones, err := c.ListZones(context.Background(), ZoneFilter{}); err != nil || len(zones) != 0 {
		t.Errorf("empty array: %v %v", zones, err)
	}
}
