package repo

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sunsetscan/sunset/scanner/repo/code"
)

// kindFake reads files through fakeFiles: the detector's tests hand it code.File values
// directly, so they test the matching, not a language reader.
const kindFake Kind = "fake-code"

var (
	fakeOnce  sync.Once
	fakeMu    sync.Mutex
	fakeFiles = map[string]*code.File{}
)

// checkFake checks a code.File as the file whose text is src (the text matcher sees src).
func checkFake(t *testing.T, src string, f *code.File) []string {
	t.Helper()
	fakeOnce.Do(func() {
		codeReaders[kindFake] = func(b []byte) *code.File {
			fakeMu.Lock()
			defer fakeMu.Unlock()
			return fakeFiles[string(b)]
		}
	})
	fakeMu.Lock()
	fakeFiles[src] = f
	fakeMu.Unlock()
	var out []string
	for _, fd := range NewChecker(nil, asOf).CheckFile("x", kindFake, []byte(src)).Findings {
		out = append(out, fmt.Sprintf("%d %s", fd.Location.StartLine, fd.RuleID))
	}
	sort.SliceStable(out, func(i, j int) bool { return lineOf(out[i]) < lineOf(out[j]) })
	return out
}

func lineOf(s string) int {
	n, _ := strconv.Atoi(s[:strings.IndexByte(s, ' ')])
	return n
}

func str(line int, v string) code.Str {
	return code.Str{Value: v, Pos: code.Pos{Line: line, Col: 1}, End: code.Pos{Line: line, Col: 2}, Call: -1, Arg: -1}
}

func inCall(s code.Str, call, arg int) code.Str { s.Call, s.Arg = call, arg; return s }

func call(line int, callee ...string) code.Call {
	return code.Call{Callee: callee, Pos: code.Pos{Line: line, Col: 1}}
}

func TestCodeDetector(t *testing.T) {
	H := code.HoleString
	for _, tc := range []struct {
		name string
		src  string // the text (needles, host evidence)
		f    code.File
		want string
	}{
		{"a whole path built by concatenation needs no evidence", "firewall",
			code.File{Strings: []code.Str{inCall(str(3, "zones/"+H+"/firewall/rules"), 0, 0)}, Calls: []code.Call{call(3, "requests", "post")}},
			"3 firewall-rules"},
		{"a fragment without evidence is a word", "filters",
			code.File{Strings: []code.Str{inCall(str(2, "/filters"), 0, 0)}, Calls: []code.Call{call(2, "self", "get")}},
			""},
		{"a fragment in a file naming the API's host", "filters api.cloudflare.com",
			code.File{Strings: []code.Str{inCall(str(2, H+"/filters"), 0, 0)}, Calls: []code.Call{call(2, "self", "client", "get")}},
			"2 filters"},
		{"a fragment passed with a zone id", "rate_limits",
			code.File{Strings: []code.Str{inCall(str(4, "/rate_limits"), 0, 1)}, Calls: []code.Call{{Callee: []string{"do"}, Pos: code.Pos{Line: 4, Col: 1}, ArgIdents: []string{"zoneID", ""}}}},
			"4 rate-limiting-v1"},
		{"a bare endpoint word under a provider namespace", "organizations",
			code.File{Imports: []string{"Cloudflare.Organization"}, Strings: []code.Str{{Value: "organizations", Key: "endpoint", Pos: code.Pos{Line: 9, Col: 3}, Call: 0, Arg: -1}}, Calls: []code.Call{call(8, "use")}},
			"9 organizations-api"},
		{"a bare word that is a dictionary key", "organizations cloudflare",
			code.File{Imports: []string{"CloudFlare"}, Strings: []code.Str{inCall(str(5, "organizations"), 0, 0)}, Calls: []code.Call{call(5, "result", "get")}},
			""},
		{"a nested resource of the same name", "organizations",
			code.File{Imports: []string{"Cloudflare.X"}, Strings: []code.Str{str(5, "accounts/"+H+"/access/organizations/revoke_user")}},
			""},
		{"a read of a write-only route is not its call", "direct_upload",
			code.File{Strings: []code.Str{inCall(str(7, "accounts/"+H+"/images/v1/direct_upload"), 0, 0)}, Calls: []code.Call{call(7, "client", "get")}},
			""},
		{"an update with the other verb is still the deprecated route", "rate_limits",
			code.File{Strings: []code.Str{inCall(str(7, "zones/"+H+"/rate_limits/"+H), 0, 0)}, Calls: []code.Call{call(7, "this", "client", "patch")}},
			"7 rate-limiting-v1"},
		{"cloudflare-go calls, and the file's own function of the same name", "filters firewallrules",
			code.File{Lang: "go", Imports: []string{"github.com/cloudflare/cloudflare-go"}, Decls: []string{"Filters"},
				Calls: []code.Call{call(3, "api", "FirewallRules"), call(4, "Filters"), call(5, "c", "client", "DeleteFilter")}},
			"3 firewall-rules; 5 filters"},
		{"cloudflare-go v4 is not v0", "firewallrules",
			code.File{Lang: "go", Imports: []string{"github.com/cloudflare/cloudflare-go/v4"}, Calls: []code.Call{call(3, "api", "FirewallRules"), call(4, "client", "Firewall", "Rules", "New")}},
			"4 firewall-rules"},
		{"python-cloudflare spells the path", "firewall settings",
			code.File{Lang: "python", Imports: []string{"CloudFlare"}, Calls: []code.Call{
				call(2, "cf", "zones", "firewall", "rules", "post"), call(3, "cf", "zones", "settings", "get"),
				call(4, "cf", "zones", "dns_records", "get"), call(5, "cf", "zones", "settings", "minify", "patch")}},
			"2 firewall-rules; 3 zone-settings-bulk; 5 zone-setting-minify"},
		{"a new SDK's services, from the client only", "filters ratelimits",
			code.File{Lang: "javascript", Imports: []string{"cloudflare"}, Calls: []code.Call{
				call(2, "client", "rateLimits", "list"), call(3, "client", "zeroTrust", "gateway", "filters", "list")}},
			"2 rate-limiting-v1"},
		{"Pulumi types and the settings of an override", "firewallrule settings",
			code.File{Lang: "javascript", Imports: []string{"@pulumi/cloudflare"}, Calls: []code.Call{
				{Callee: []string{"cloudflare", "FirewallRule"}, New: true, Pos: code.Pos{Line: 2, Col: 5}},
				{Callee: []string{"cloudflare", "ZoneSettingsOverride"}, New: true, Pos: code.Pos{Line: 6, Col: 5},
					Keys: []code.Key{{Name: "settings", Pos: code.Pos{Line: 7, Col: 3}}, {Name: "brotli", Pos: code.Pos{Line: 8, Col: 5}, Depth: 1}, {Name: "mobileRedirect", Pos: code.Pos{Line: 9, Col: 5}, Depth: 1}}}}},
			"2 firewall-rules; 6 zone-settings-bulk; 8 zone-setting-brotli; 9 zone-setting-mobile-redirect"},
		{"setting ids of a file that hands settings to the SDK", "zonesettings",
			code.File{Lang: "go", Imports: []string{"github.com/cloudflare/cloudflare-go"},
				Strings: []code.Str{{Value: "brotli", Assigned: "cfsBrotli", Pos: code.Pos{Line: 4, Col: 2}, Call: -1, Arg: -1}, {Value: "always_online", Pos: code.Pos{Line: 5, Col: 2}, Call: -1, Arg: -1}},
				Calls:   []code.Call{call(9, "client", "ZoneSettings")}},
			"4 zone-setting-brotli; 9 zone-settings-bulk"},
		{"setting ids mean nothing without a setting call", "settings",
			code.File{Lang: "go", Imports: []string{"github.com/cloudflare/cloudflare-go"}, Strings: []code.Str{str(4, "brotli")}},
			""},
		{"expressions in strings, at the line of each field", "ip.geoip.country",
			code.File{Strings: []code.Str{
				{Value: "(ip.geoip.country in {\"CN\"})", Key: "expression", Pos: code.Pos{Line: 3, Col: 7}, End: code.Pos{Line: 3, Col: 40}, Call: -1, Arg: -1},
				{Value: "http.host eq \"x\"\nand ip.geoip.asnum eq 1\nor cf.threat_score gt 3 or ip.geoip.asnum eq 2", Pos: code.Pos{Line: 10, Col: 7}, End: code.Pos{Line: 12, Col: 40}, Call: -1, Arg: -1}}},
			"3 geoip-field-names; 11 geoip-field-names; 12 geoip-field-names; 12 threat-score-field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(checkFake(t, tc.src, &tc.f), "; "); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestCodeHitsGiveWayToTextHits: a path the text matcher finds keeps the finding (and the
// fingerprint) it had before code was read; the code detector adds nothing on its line.
func TestCodeHitsGiveWayToTextHits(t *testing.T) {
	src := `requests.get("https://api.cloudflare.com/client/v4/zones/" + z + "/filters/abc")` + "\n" + `x = "/zones/abc/filters"` + "\n"
	f := &code.File{Strings: []code.Str{
		inCall(code.Str{Value: "https://api.cloudflare.com/client/v4/zones/" + code.HoleString + "/filters/abc", Pos: code.Pos{Line: 1, Col: 14}, End: code.Pos{Line: 1, Col: 80}}, 0, 0),
		{Value: "/zones/abc/filters", Assigned: "x", Pos: code.Pos{Line: 2, Col: 5}, End: code.Pos{Line: 2, Col: 25}, Call: -1, Arg: -1},
	}, Calls: []code.Call{call(1, "requests", "get")}}
	fakeOnce.Do(func() {})
	got := checkFake(t, src, f)
	if strings.Join(got, "; ") != "1 filters; 2 filters" {
		t.Fatalf("%v", got)
	}
	fs := NewChecker(nil, asOf).CheckFile("x", kindFake, []byte(src)).Findings
	if !strings.HasPrefix(fs[0].Message, "calls GET /zones/:zone_id/filters/:filter_id (built as") || strings.HasPrefix(fs[1].Message, "calls GET /zones/:zone_id/filters (built") {
		t.Errorf("line 1 is the code detector's (the text matcher cannot read it), line 2 the text matcher's: %q / %q", fs[0].Message, fs[1].Message)
	}
}
