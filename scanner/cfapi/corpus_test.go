package cfapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// corpusCall says where a recorded response is served and which client method reads it.
type corpusCall struct {
	method string // HTTP method the client sends
	path   string // where the server answers
	call   func(ctx context.Context, c *Client) (any, error)
	note   string // why the route differs from the recording, if it does
}

// corpusCallFor maps a fixture name to its call; reason is set for fixtures the client
// does not read.
func corpusCallFor(name string) (cc corpusCall, reason string) {
	parts := strings.Split(name, ".")
	key := parts[0] + "." + parts[1]
	get := func(path string, call func(ctx context.Context, c *Client) (any, error)) corpusCall {
		return corpusCall{method: http.MethodGet, path: path, call: call}
	}
	switch {
	case key == "accounts.list":
		return get("/accounts", func(ctx context.Context, c *Client) (any, error) { return c.ListAccounts(ctx) }), ""
	case key == "accounts.get":
		return get("/accounts/a1", func(ctx context.Context, c *Client) (any, error) { return c.GetAccount(ctx, "a1") }), ""
	case strings.HasPrefix(name, "zones.list.by_name."):
		return get("/zones", func(ctx context.Context, c *Client) (any, error) {
			return c.ListZones(ctx, ZoneFilter{Name: "example.com"})
		}), ""
	case key == "zones.list":
		return get("/zones", func(ctx context.Context, c *Client) (any, error) { return c.ListZones(ctx, ZoneFilter{}) }), ""
	case key == "zones.get":
		return get("/zones/z1", func(ctx context.Context, c *Client) (any, error) { return c.GetZone(ctx, "z1") }), ""
	case key == "firewall_rules.list":
		return get("/zones/z1/firewall/rules", func(ctx context.Context, c *Client) (any, error) { return c.ListFirewallRules(ctx, "z1") }), ""
	case key == "firewall_rules.create_multiple":
		cc := get("/zones/z1/firewall/rules", func(ctx context.Context, c *Client) (any, error) { return c.ListFirewallRules(ctx, "z1") })
		cc.note = "POST answer (an array of rules) read through ListFirewallRules"
		return cc, ""
	case key == "firewall_rules.get":
		return get("/zones/z1/firewall/rules/x1", func(ctx context.Context, c *Client) (any, error) { return c.GetFirewallRule(ctx, "z1", "x1") }), ""
	case key == "firewall_rules.update", key == "firewall_rules.update_single":
		return corpusCall{method: http.MethodPut, path: "/zones/z1/firewall/rules/x1",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.PutFirewallRule(ctx, "z1", "x1", map[string]any{"id": "x1", "paused": true})
			},
			note: "update answer read through PutFirewallRule (PUT)"}, ""
	case key == "firewall_rules.delete_single":
		return corpusCall{method: http.MethodDelete, path: "/zones/z1/firewall/rules/x1",
			call: func(ctx context.Context, c *Client) (any, error) { return nil, c.DeleteFirewallRule(ctx, "z1", "x1") }}, ""
	case key == "filters.list":
		return get("/zones/z1/filters", func(ctx context.Context, c *Client) (any, error) { return c.ListFilters(ctx, "z1") }), ""
	case key == "filters.create_multiple":
		cc := get("/zones/z1/filters", func(ctx context.Context, c *Client) (any, error) { return c.ListFilters(ctx, "z1") })
		cc.note = "POST answer (an array of filters) read through ListFilters"
		return cc, ""
	case key == "filters.get":
		return get("/zones/z1/filters/x1", func(ctx context.Context, c *Client) (any, error) { return c.GetFilter(ctx, "z1", "x1") }), ""
	case key == "waf_packages.list":
		return get("/zones/z1/firewall/waf/packages", func(ctx context.Context, c *Client) (any, error) { return c.ListWAFPackages(ctx, "z1") }), ""
	case key == "waf_packages.get", key == "waf_packages.update":
		return get("/zones/z1/firewall/waf/packages/p1", func(ctx context.Context, c *Client) (any, error) { return c.GetWAFPackage(ctx, "z1", "p1") }), ""
	case key == "waf_groups.list":
		return get("/zones/z1/firewall/waf/packages/p1/groups", func(ctx context.Context, c *Client) (any, error) { return c.ListWAFGroups(ctx, "z1", "p1") }), ""
	case key == "waf_groups.get", key == "waf_groups.update":
		return get("/zones/z1/firewall/waf/packages/p1/groups/x1", func(ctx context.Context, c *Client) (any, error) { return c.GetWAFGroup(ctx, "z1", "p1", "x1") }), ""
	case key == "waf_rules.list":
		return get("/zones/z1/firewall/waf/packages/p1/rules", func(ctx context.Context, c *Client) (any, error) { return c.ListWAFRules(ctx, "z1", "p1") }), ""
	case key == "waf_rules.get", key == "waf_rules.update":
		return get("/zones/z1/firewall/waf/packages/p1/rules/x1", func(ctx context.Context, c *Client) (any, error) { return c.GetWAFRule(ctx, "z1", "p1", "x1") }), ""
	case key == "waf_overrides.list":
		return get("/zones/z1/firewall/waf/overrides", func(ctx context.Context, c *Client) (any, error) { return c.ListWAFOverrides(ctx, "z1") }), ""
	case key == "waf_overrides.get", key == "waf_overrides.create":
		return get("/zones/z1/firewall/waf/overrides/x1", func(ctx context.Context, c *Client) (any, error) { return c.GetWAFOverride(ctx, "z1", "x1") }), ""
	case key == "rate_limits.list":
		return get("/zones/z1/rate_limits", func(ctx context.Context, c *Client) (any, error) { return c.ListRateLimits(ctx, "z1") }), ""
	case key == "rate_limits.create":
		cc := get("/zones/z1/rate_limits/x1", func(ctx context.Context, c *Client) (any, error) { return c.GetRateLimit(ctx, "z1", "x1") })
		cc.note = "recorded error answer of a POST, served as a 400 to GetRateLimit"
		return cc, ""
	case key == "rate_limits.get":
		return get("/zones/z1/rate_limits/x1", func(ctx context.Context, c *Client) (any, error) { return c.GetRateLimit(ctx, "z1", "x1") }), ""
	case key == "dns_records.list":
		return get("/zones/z1/dns_records", func(ctx context.Context, c *Client) (any, error) { return c.ListDNSRecords(ctx, "z1", "") }), ""
	case key == "dns_records.get":
		return get("/zones/z1/dns_records/x1", func(ctx context.Context, c *Client) (any, error) { return c.GetDNSRecord(ctx, "z1", "x1") }), ""
	case key == "dns_settings.zone":
		return get("/zones/z1/dns_settings", func(ctx context.Context, c *Client) (any, error) { return c.GetDNSSettings(ctx, "z1") }), ""
	case key == "zone_settings.list":
		return get("/zones/z1/settings", func(ctx context.Context, c *Client) (any, error) { return c.ListZoneSettings(ctx, "z1") }), ""
	case key == "zone_settings.get_single":
		setting := parts[2]
		return get("/zones/z1/settings/"+setting, func(ctx context.Context, c *Client) (any, error) { return c.GetZoneSetting(ctx, "z1", setting) }), ""
	case key == "healthchecks.list":
		return get("/zones/z1/healthchecks", func(ctx context.Context, c *Client) (any, error) { return c.ListHealthChecks(ctx, "z1") }), ""
	case key == "tunnels.list", key == "argo_tunnels.list":
		cc := get("/accounts/a1/tunnels", func(ctx context.Context, c *Client) (any, error) { return c.ListTunnels(ctx, "a1") })
		cc.note = "recorded from /cfd_tunnel, served at the legacy /tunnels route ListTunnels reads"
		return cc, ""
	case key == "access_bookmarks.list":
		cc := get("/accounts/a1/access/bookmarks", func(ctx context.Context, c *Client) (any, error) { return c.ListAccessBookmarks(ctx, "a1") })
		if parts[2] == "zone" {
			cc.note = "zone-scoped recording served at the account route"
		}
		return cc, ""
	case strings.HasPrefix(key, "rulesets."):
		return get("/zones/z1/rulesets", func(ctx context.Context, c *Client) (any, error) { return c.ListRulesets(ctx, "z1") }), ""
	case key == "user_agent_rules_lockdown.get":
		return corpusCall{}, "zone lockdown rules are not read by the scan and have no inventory type"
	}
	return corpusCall{}, "no client method maps to this file name"
}

var pageRe = regexp.MustCompile(`^(.*)\.page(\d+)of(\d+)\.(.*)$`)

// corpusGroup is one fixture, or the pages of one multi-page recording.
type corpusGroup struct {
	name  string   // the file name, or the page-1 name for a group
	files []string // in page order
	total int      // pages announced by the file names (0: not paged)
}

func groupCorpus(names []string) []corpusGroup {
	byKey := map[string]*corpusGroup{}
	var order []string
	for _, n := range names {
		key, page, total := n, 0, 0
		if m := pageRe.FindStringSubmatch(n); m != nil {
			page, _ = strconv.Atoi(m[2])
			total, _ = strconv.Atoi(m[3])
			src := strings.Split(strings.TrimSuffix(m[4], ".json"), ".")
			key = m[1] + "|" + src[len(src)-1] + "|" + m[3]
		}
		g, ok := byKey[key]
		if !ok {
			g = &corpusGroup{name: n, total: total}
			byKey[key] = g
			order = append(order, key)
		}
		if total > 0 {
			for len(g.files) < page {
				g.files = append(g.files, "")
			}
			g.files[page-1] = n
			if page == 1 {
				g.name = n
			}
		} else {
			g.files = append(g.files, n)
		}
	}
	out := make([]corpusGroup, 0, len(order))
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	return out
}

// isEmptyJSON: null, "", [] and {} say nothing a missing member would not say; a Go field
// with omitempty drops them on encoding.
func isEmptyJSON(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// isZeroJSON: values a Go field without omitempty adds when the member was absent (false, 0,
// "", [], {}, null, or an object of such).
func isZeroJSON(v any) bool {
	switch x := v.(type) {
	case bool:
		return !x
	case float64:
		return x == 0
	case map[string]any:
		for _, e := range x {
			if !isZeroJSON(e) {
				return false
			}
		}
		return true
	}
	return isEmptyJSON(v)
}

// lossless compares a recorded object with its re-encoding and lists, by JSON pointer, what
// was lost, changed or invented. Equivalent spellings are accepted: null vs absent, an
// empty "", [] or {} vs absent (omitempty), and a zero value added for an absent member.
func lossless(path string, fix, got any) []string {
	fm, fok := fix.(map[string]any)
	gm, gok := got.(map[string]any)
	if fok && gok {
		names := map[string]bool{}
		for k := range fm {
			names[k] = true
		}
		for k := range gm {
			names[k] = true
		}
		keys := make([]string, 0, len(names))
		for k := range names {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var out []string
		for _, k := range keys {
			f, inF := fm[k]
			g, inG := gm[k]
			p := path + "/" + k
			switch {
			case !inG && isEmptyJSON(f), !inF && isZeroJSON(g), inF && inG && f == nil && isZeroJSON(g):
			case !inG:
				out = append(out, fmt.Sprintf("%s: lost %s", p, jsonText(f)))
			case !inF:
				out = append(out, fmt.Sprintf("%s: invented %s", p, jsonText(g)))
			default:
				out = append(out, lossless(p, f, g)...)
			}
		}
		return out
	}
	fa, fok := fix.([]any)
	ga, gok := got.([]any)
	if fok && gok && len(fa) == len(ga) {
		var out []string
		for i := range fa {
			out = append(out, lossless(fmt.Sprintf("%s/%d", path, i), fa[i], ga[i])...)
		}
		return out
	}
	if reflect.DeepEqual(fix, got) {
		return nil
	}
	return []string{fmt.Sprintf("%s: recorded %s, re-encoded %s", path, jsonText(fix), jsonText(got))}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// objectsOf turns what a client method returned (a slice or a pointer) into JSON values.
func objectsOf(t *testing.T, v any) []any {
	t.Helper()
	if v == nil {
		return nil
	}
	rv := reflect.ValueOf(v)
	var items []reflect.Value
	switch rv.Kind() {
	case reflect.Slice:
		for i := 0; i < rv.Len(); i++ {
			items = append(items, rv.Index(i))
		}
	case reflect.Pointer:
		if rv.IsNil() {
			return nil
		}
		items = append(items, rv.Elem())
	default:
		t.Fatalf("unexpected result kind %s", rv.Kind())
	}
	out := make([]any, len(items))
	for i, it := range items {
		b, err := json.Marshal(it.Interface())
		if err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		var x any
		if err := json.Unmarshal(b, &x); err != nil {
			t.Fatal(err)
		}
		out[i] = x
	}
	return out
}

// TestCorpus serves every recorded response of $SUNSET_CORPUS/api at the endpoint its name
// says, reads it through the client into inventory types, and checks that re-encoding each
// object gives back the recorded object: nothing lost, changed or invented (see lossless for
// the equivalent spellings accepted).
func TestCorpus(t *testing.T) {
	root := os.Getenv("SUNSET_CORPUS")
	if root == "" {
		t.Skip("SUNSET_CORPUS is not set; the real-world corpus tests need it (e.g. SUNSET_CORPUS=../shared/realworld)")
	}
	dir := filepath.Join(root, "api")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("reading the corpus: %v", err)
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".request.json") || n == "SOURCES.json" {
			continue
		}
		names = append(names, n)
	}
	sort.Strings(names)
	decodedFiles, objects := 0, 0
	var notCovered []string
	for _, g := range groupCorpus(names) {
		cc, reason := corpusCallFor(g.name)
		complete := true
		for _, f := range g.files {
			complete = complete && f != ""
		}
		if g.total > 0 && (!complete || len(g.files) != g.total) {
			// Only some pages were recorded: read the first as a single page.
			if strings.HasPrefix(g.name, "zones.list.") && g.files[0] != "" {
				cc = corpusCall{method: http.MethodGet, path: "/zones", call: func(ctx context.Context, c *Client) (any, error) {
					return c.ListZones(ctx, ZoneFilter{Page: 1})
				}, note: fmt.Sprintf("only page 1 of %d recorded: read with ZoneFilter{Page: 1}", g.total)}
				g.files, g.total = g.files[:1], 0
			} else {
				reason = fmt.Sprintf("only some of %d pages recorded", g.total)
			}
		}
		if reason != "" {
			for _, f := range g.files {
				notCovered = append(notCovered, f+": "+reason)
			}
			continue
		}
		t.Run(g.name, func(t *testing.T) {
			bodies := make([][]byte, len(g.files))
			var want []any
			var status = http.StatusOK
			for i, f := range g.files {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				bodies[i] = b
				var env struct {
					Result  json.RawMessage `json:"result"`
					Success *bool           `json:"success"`
				}
				if err := json.Unmarshal(b, &env); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				if env.Success != nil && !*env.Success {
					status = http.StatusBadRequest // the recorded error answers were 400s
				}
				var r any
				_ = json.Unmarshal(env.Result, &r)
				switch x := r.(type) {
				case []any:
					want = append(want, x...)
				case map[string]any:
					want = append(want, x)
				}
			}
			var asked []int
			srv := server(t, func(w http.ResponseWriter, r *http.Request) {
				if r.Method != cc.method || r.URL.Path != cc.path {
					t.Errorf("client sent %s %s, fixture served at %s %s", r.Method, r.URL.Path, cc.method, cc.path)
				}
				p := 1
				if v := r.URL.Query().Get("page"); v != "" {
					p, _ = strconv.Atoi(v)
				}
				asked = append(asked, p)
				if p < 1 || p > len(bodies) {
					t.Errorf("client asked for page %d of %d", p, len(bodies))
					writeJSON(w, 404, "no such page")
					return
				}
				writeJSON(w, status, string(bodies[p-1]))
			})
			c, _ := testClient(t, srv.URL, func(c *Config) { c.MaxRetries = -1 })
			got, err := cc.call(context.Background(), c)
			if status != http.StatusOK {
				var e *Error
				if !errors.As(err, &e) || e.Status != status || len(e.Errors) == 0 || e.Errors[0].Message == "" {
					t.Fatalf("recorded error answer: got %v", err)
				}
				t.Logf("%s; decoded as %v", cc.note, err)
				decodedFiles += len(g.files)
				return
			}
			if err != nil {
				t.Fatalf("%v", err)
			}
			if len(asked) != len(bodies) {
				t.Errorf("client asked for pages %v, %d recorded", asked, len(bodies))
			}
			if cc.note != "" {
				t.Log(cc.note)
			}
			gotObjs := objectsOf(t, got)
			if len(gotObjs) != len(want) {
				t.Fatalf("decoded %d objects, fixture has %d", len(gotObjs), len(want))
			}
			for i := range want {
				if d := lossless("", want[i], gotObjs[i]); len(d) > 0 {
					t.Errorf("object %d lost or changed members:\n  %s", i, strings.Join(d, "\n  "))
				}
			}
			if !t.Failed() {
				decodedFiles += len(g.files)
				objects += len(want)
			}
		})
	}
	t.Logf("corpus: %d of %d response files decoded and round-tripped (%d objects)", decodedFiles, len(names), objects)
	for _, n := range notCovered {
		t.Logf("not covered: %s", n)
	}
	t.Run("waf_packages.get.404_not_json.cloudflare-go.txt", func(t *testing.T) {
		body, err := os.ReadFile(filepath.Join(dir, "waf_packages.get.404_not_json.cloudflare-go.txt"))
		if err != nil {
			t.Skipf("fixture missing: %v", err)
		}
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(404)
			_, _ = w.Write(body)
		})
		c, _ := testClient(t, srv.URL)
		_, err = c.GetWAFPackage(context.Background(), "z1", "p1")
		var e *Error
		if !errors.As(err, &e) || e.Status != 404 || e.Body != strings.TrimSpace(string(body)) || !e.Retired() || len(e.Errors) != 0 {
			t.Fatalf("plain text 404: got %#v", err)
		}
		if e.Attempts != 1 {
			t.Errorf("a 404 was retried (%d attempts)", e.Attempts)
		}
	})
}
