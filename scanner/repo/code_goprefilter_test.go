package repo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// codeDetectorOf returns the checker's code detector.
func codeDetectorOf(t *testing.T, c *Checker) *codeDetector {
	t.Helper()
	for _, d := range c.detectors {
		if cd, ok := d.(*codeDetector); ok {
			return cd
		}
	}
	t.Fatal("no code detector")
	return nil
}

// TestPrefilterReadsEveryFileCodeFindsIn reads every program of the fixtures, of every
// language, as code with the prefilter bypassed: each one in which the code detector finds
// anything must pass the prefilter (the Go one for Go), or a reader or matcher that learnt a
// new kind of finding needs its words in needleWords or sdkWords.
func TestPrefilterReadsEveryFileCodeFindsIn(t *testing.T) {
	c := NewChecker(nil, asOf)
	d := codeDetectorOf(t, c)
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "code", "*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	read := 0
	for _, p := range paths {
		kind := KindOf(p)
		if !d.reads(kind) {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		in := &input{path: p, kind: kind, data: data, lower: toLower(nil, data), li: newLineIndex(data)}
		found := 0
		d.read(c, in, func(hit) { found++ })
		if found > 0 && !d.worthReading(in) {
			t.Errorf("%s: %d hits, but the prefilter skips it", filepath.Base(p), found)
		}
		read++
	}
	if read < 20 {
		t.Errorf("only %d fixtures read as code", read)
	}
}

// TestGoPrefilterSkipsNamesOutsideLiterals: in Go, routes and fields count only in string
// literals, and SDK names only in a file importing the SDK.
func TestGoPrefilterSkipsNamesOutsideLiterals(t *testing.T) {
	d := codeDetectorOf(t, NewChecker(nil, asOf))
	for _, tc := range []struct {
		name, src string
		want      bool
	}{
		{"route words in identifiers and comments", "package p\n// firewall rules\ntype Settings struct{ Firewall, Rules string }\n", false},
		{"route words in a comment with quotes", "package p\n/* \"firewall/rules\" */\nvar r = '\"'\n", false},
		{"one word of a route in a literal", "package p\nvar s = \"firewall\"\n", false},
		{"every word of a route over literals", "package p\nvar s = \"firewall\" + `/rules`\n", true},
		{"a bulk settings path", "package p\nvar s = \"zones/%s/settings\"\n", true},
		{"a route word in a struct tag", "package p\ntype T struct{ S string `json:\"settings\"` }\n", false},
		{"a route word after a format verb", "package p\nvar s = fmt.Sprintf(\"%ssettings\", b)\n", false},
		{"a route word in a longer segment", "package p\nvar s = \"zones/%s/zone_settings/x\"\n", false},
		{"a route word ending a literal", "package p\nvar s = base + \"/settings\"\n", true},
		{"a route's last word before another segment", "package p\nvar s = \"zones/%s/settings/ssl\"\n", false},
		{"a route's last word before a query", "package p\nvar s = \"zones/%s/settings?x=1\"\n", true},
		{"a route word before a parameter", "package p\nvar s = \"zones/%s/filters/%s\"\n", true},
		{"a deprecated setting id in a list", "package p\nvar retired = []string{\"always_online\", \"mobile_redirect\"}\n", true},
		{"a deprecated setting id handed to a helper", "package p\nfunc f() { setZoneSetting(zone, `brotli`) }\n", true},
		{"a deprecated setting id inside a longer literal", "package p\nvar s = \"the waf blocked it\"\n", false},
		{"a deprecated setting id in another case", "package p\nconst ProductWAF Product = \"WAF\"\n", false},
		{"SRV without a member named type", "package p\nconst QueryTypeSRV QueryType = \"SRV\"\nvar q = Query{QueryType: QueryTypeSRV}\n", false},
		{"SRV given to a member named Type", "package p\nvar r = Record{Type: \"SRV\", Data: D{Service: \"_sip\"}}\n", true},
		{"SRV given to a map key type", "package p\nvar r = map[string]any{\"type\" /* kind */ : \"srv\"}\n", true},
		{"an expression field", "package p\nvar e = `ip.geoip.country eq \"XX\"`\n", true},
		{"SDK names without the SDK", "package p\nfunc f(api A) { api.FirewallRules(); c.Firewall.Rules.List() }\n", false},
		{"an SDK call of the imported SDK", "package p\nimport \"github.com/cloudflare/cloudflare-go\"\nfunc f(api A) { api.FirewallRules() }\n", true},
		{"a v4 service of the imported SDK", "package p\nimport \"github.com/cloudflare/cloudflare-go/v4/option\"\nfunc f() { c.Firewall.Rules.List() }\n", true},
		{"v4's settings service without a deprecated setting", "package p\nimport \"github.com/cloudflare/cloudflare-go/v4\"\nfunc f() { c.Zones.Settings.Get(ctx, \"always_online\") }\n", false},
		{"v4's settings service with a deprecated setting", "package p\nimport \"github.com/cloudflare/cloudflare-go/v4\"\nfunc f() { c.Zones.Settings.Get(ctx, \"brotli\") }\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.src)
			in := &input{kind: KindGo, data: data, lower: toLower(nil, data)}
			if got := d.worthReading(in); got != tc.want {
				t.Errorf("worthReading = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSetFinder(t *testing.T) {
	f := newSetFinder([][]string{{"firewall", "rules"}, {"filters"}, {}, {"waf", "overrides", "firewall"}}, nil)
	for data, want := range map[string]bool{
		"":                            false,
		"firewall":                    false,
		"rules firewall":              true,
		"x filters":                   true,
		"firewall waf":                false,
		"overrides\nwaf\nfirewall":    true,
		strings.Repeat("firewal", 50): false,
	} {
		if got := f.anyIn([]byte(data)); got != want {
			t.Errorf("anyIn(%q) = %v, want %v", data, got, want)
		}
	}
}
