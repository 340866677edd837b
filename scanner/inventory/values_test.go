package inventory

import (
	"encoding/json"
	"testing"
)

func TestFlattenAllCNAMEs(t *testing.T) {
	for v, want := range map[string]bool{"off": false, "apex": false, "flatten_at_root": false, "on": true, "flatten_all": true, "FLATTEN_ALL": true} {
		if got, known := FlattenAllCNAMEs(v); !known || got != want {
			t.Errorf("%s -> %v %v, want %v", v, got, known, want)
		}
	}
	if _, known := FlattenAllCNAMEs("sometimes"); known {
		t.Error("an unknown value must not map")
	}
}

func TestSettingOnAndNameserverType(t *testing.T) {
	for raw, want := range map[string]bool{`true`: true, `"on"`: true, `"enabled"`: true, `1`: true, `false`: false, `"off"`: false, `0`: false} {
		if got, known := SettingOn(json.RawMessage(raw)); !known || got != want {
			t.Errorf("%s -> %v %v", raw, got, known)
		}
	}
	if _, known := SettingOn(json.RawMessage(`{"css":"on"}`)); known {
		t.Error("an object is not on/off")
	}
	if NameserverType("platform.standard") != "cloudflare.standard" || NameserverType("custom.tenant") != "custom.tenant" || NameserverType("other") != "" {
		t.Error("nameserver spellings")
	}
}
