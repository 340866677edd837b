package catalog

import (
	"strings"
	"testing"
)

func TestDefaultSDKsAreValid(t *testing.T) {
	table := DefaultCode()
	sdks := table.SDKs
	if len(table.API.Hosts) == 0 || table.API.BasePath == "" || table.API.NamespaceWord == "" {
		t.Errorf("api marks: %+v", table.API)
	}
	if len(sdks) < 5 {
		t.Fatalf("%d SDKs", len(sdks))
	}
	for _, s := range sdks {
		if s.Title == "" {
			t.Errorf("%s: no title", s.ID)
		}
		if len(s.Calls)+len(s.Services)+len(s.Types) == 0 && !s.PathChains {
			t.Errorf("%s: maps nothing", s.ID)
		}
	}
}

func TestValidateSDKsRefuses(t *testing.T) {
	cases := map[string]string{
		"unknown rule":     "sdks:\n- {id: a, languages: [go], imports: [x], calls: {no-such-rule: [F]}}\n",
		"unknown language": "sdks:\n- {id: a, languages: [cobol], imports: [x], calls: {filters: [F]}}\n",
		"repeated id":      "sdks:\n- {id: a, languages: [go], imports: [x]}\n- {id: a, languages: [go], imports: [y]}\n",
		"empty name":       "sdks:\n- {id: a, languages: [go], imports: [x], calls: {filters: [\" \"]}}\n",
		"bad verb":         "sdks:\n- {id: a, languages: [go], imports: [x], verbs: {get: FETCH}}\n",
		"no imports":       "sdks:\n- {id: a, languages: [go]}\n",
	}
	for name, src := range cases {
		table, err := ParseCodeTable([]byte(src), "t.yaml")
		if err == nil {
			err = ValidateSDKs(table.SDKs, Default())
		}
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := ParseCodeTable([]byte("sdks:\n- {id: a, language: [go]}\n"), "t.yaml"); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("unknown field: %v", err)
	}
}

func TestImportMatchPrefersTheLongest(t *testing.T) {
	v0 := SDK{Imports: []string{"github.com/cloudflare/cloudflare-go"}}
	v4 := SDK{Imports: []string{"github.com/cloudflare/cloudflare-go/v4"}}
	for _, c := range []struct {
		imp    string
		v0, v4 int
	}{
		{"github.com/cloudflare/cloudflare-go", 35, 0},
		{"github.com/cloudflare/cloudflare-go/v4/firewall", 35, 38},
		{"github.com/cloudflare/cloudflare-gox", 0, 0},
		{"github.com/cloudflare", 0, 0},
	} {
		if a, b := v0.ImportMatch(c.imp), v4.ImportMatch(c.imp); a != c.v0 || b != c.v4 {
			t.Errorf("%s: %d %d, want %d %d", c.imp, a, b, c.v0, c.v4)
		}
	}
	py := SDK{Imports: []string{"CloudFlare"}}
	if py.ImportMatch("CloudFlare.exceptions") == 0 || py.ImportMatch("cloudflare") != 0 {
		t.Error("python module matching")
	}
}

func TestMatchBuilt(t *testing.T) {
	c := Default()
	ids := func(ms []RouteMatch) string {
		var out []string
		for _, m := range ms {
			out = append(out, string(m.Entry.ID)+" "+m.Endpoint.Path)
		}
		return strings.Join(out, "; ")
	}
	for _, tc := range []struct {
		segs []string
		tail bool
		want string
	}{
		{[]string{"zones", Unknown, "filters"}, false, "filters /zones/:zone_id/filters"},
		{[]string{"zones", Unknown, Unknown}, false, ""},
		{[]string{"zones", "abc", "rate_limits", Unknown}, false, "rate-limiting-v1 /zones/:zone_id/rate_limits/:rate_limit_id"},
		{[]string{"filters"}, true, "filters /zones/:zone_id/filters; filters /zones/:zone_id/filters/:filter_id"},
		{[]string{"filters"}, false, ""},
		{[]string{"firewall", "rules", Unknown}, true, "firewall-rules /zones/:zone_id/firewall/rules/:rule_id"},
		{[]string{"settings", "cname_flattening"}, true, "cname-flattening-setting /zones/:zone_id/settings/cname_flattening"},
		{[]string{"organizations"}, true, "organizations-api /organizations/:identifier"},
		{[]string{Unknown, "filters"}, true, ""},
		{[]string{"access", "organizations"}, true, ""},
		{[]string{"settings", Unknown}, true, ""},
	} {
		if got := ids(c.MatchBuilt(tc.segs, tc.tail)); got != tc.want {
			t.Errorf("%q tail=%v:\n got %s\nwant %s", tc.segs, tc.tail, got, tc.want)
		}
	}
	if got := ids(c.MatchLiterals([]string{"zones", "firewall", "rules"})); got != "firewall-rules /zones/:zone_id/firewall/rules; firewall-rules /zones/:zone_id/firewall/rules/:rule_id" {
		t.Errorf("literals: %s", got)
	}
	if got := ids(c.MatchLiterals([]string{"zones", "settings"})); !strings.Contains(got, "zone-settings-bulk /zones/:zone_id/settings") {
		t.Errorf("literals settings: %s", got)
	}
}

func TestImportMatchAcrossLanguages(t *testing.T) {
	php := SDK{Imports: []string{`Cloudflare\API`}}
	if php.ImportMatch(`Cloudflare\API\Endpoints\Firewall`) == 0 || php.ImportMatch(`Plients\CloudFlare\API`) != 0 {
		t.Error("PHP namespaces")
	}
	rb := SDK{Imports: []string{"Cloudflare"}}
	if rb.ImportMatch("Cloudflare::Zones") == 0 || rb.ImportMatch("CloudflareX") != 0 {
		t.Error("Ruby modules")
	}
}
