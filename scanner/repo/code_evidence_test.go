package repo

import (
	"slices"
	"testing"
)

func TestNameWordsSplitsEveryConvention(t *testing.T) {
	for name, want := range map[string][]string{
		"getZoneSetting": {"get", "zone", "setting"},
		"zone_request":   {"zone", "request"},
		"cf-api":         {"cf", "api"},
		"HTTPClient":     {"http", "client"},
		"getTimezone":    {"get", "timezone"},
		"CFRequest":      {"cf", "request"},
		"$zoneApi":       {"zone", "api"},
	} {
		if got := nameWords(name); !slices.Equal(got, want) {
			t.Errorf("nameWords(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestScopedHelperNeedsTheWordItself(t *testing.T) {
	for _, name := range []string{"getZoneSetting", "listAccountRules", "cf_api", "cloudflareFetch", "ZoneAPI"} {
		if !scopedHelper([]string{name}) {
			t.Errorf("%s: not taken for a helper of the API", name)
		}
	}
	for _, name := range []string{"getTimezone", "dropzoneUpload", "cfgFetch", "accountingReport", "sendPostRequest"} {
		if scopedHelper([]string{name}) {
			t.Errorf("%s: taken for a helper of the API", name)
		}
	}
}
