package repo

import (
	"slices"
	"testing"
)

// TestCurlDataReadsAsTheSameTextInAJSONFile checks that the rules in a request body written
// out in a shell script (curl --data '...') and in a Python string are read as the same text
// is in a .json file: the same deprecated fields, on the same lines of the body.
func TestCurlDataReadsAsTheSameTextInAJSONFile(t *testing.T) {
	body := `[
  {"expression": "(cf.threat_score gt 14)", "action": "managed_challenge"},
  {"expression": "(ip.geoip.asnum eq 64496) or (ip.geoip.country eq \"T1\")", "action": "block"}
]`
	c := NewChecker(nil, asOf)
	fields := func(name, src string, shift int) []string {
		var out []string
		for _, f := range c.CheckFile(name, KindOf(name), []byte(src)).Findings {
			if f.RuleID == "threat-score-field" || f.RuleID == "geoip-field-names" {
				out = append(out, string(f.RuleID)+"@"+string(rune('0'+f.Location.StartLine-shift)))
			}
		}
		slices.Sort(out)
		return out
	}
	want := fields("rules.json", body, 0)
	if len(want) != 2 {
		t.Fatalf("the JSON file gives %v, want a field finding on each of lines 2 and 3", want)
	}
	sh := "#!/bin/sh\ncurl -X POST \"https://api.cloudflare.com/client/v4/zones/$ZONE/rulesets\" --data '" + body + "'\n"
	if got := fields("apply.sh", sh, 1); !slices.Equal(got, want) {
		t.Errorf("curl --data: %v, want %v", got, want)
	}
	py := "import requests\nrequests.post(URL, data=r'''" + body + "''')\n"
	if got := fields("apply.py", py, 1); !slices.Equal(got, want) {
		t.Errorf("Python string: %v, want %v", got, want)
	}
}
