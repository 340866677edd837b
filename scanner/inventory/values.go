package inventory

import (
	"encoding/json"
	"strings"
)

// The mappings below are the ones both the scanner (to say what a value maps to) and the
// plan (to write the new value) apply; they live here so the two cannot disagree.

// FlattenAllCNAMEs maps an old cname_flattening value, in the wire vocabulary
// (flatten_at_root, flatten_all) or the spec's (off, apex, on), to the DNS settings field
// flatten_all_cnames: off, apex, flatten_at_root -> false; on, flatten_all -> true. known is
// false for any other value.
func FlattenAllCNAMEs(value string) (flatten, known bool) {
	switch strings.ToLower(strings.TrimSpace(value)) {
	case "off", "apex", "flatten_at_root":
		return false, true
	case "on", "flatten_all":
		return true, true
	}
	return false, false
}

// SettingOn reads an on/off-like setting value: true, "on", "true", "enabled", 1 and their
// opposites. known is false for anything else (an object, an unknown word).
func SettingOn(v json.RawMessage) (on, known bool) {
	var b bool
	if json.Unmarshal(v, &b) == nil {
		return b, true
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		switch strings.ToLower(s) {
		case "on", "true", "enabled", "1":
			return true, true
		case "off", "false", "disabled", "0", "":
			return false, true
		}
		return false, false
	}
	var n float64
	if json.Unmarshal(v, &n) == nil {
		return n != 0, true
	}
	return false, false
}

// nameserverTypes normalises default_nameservers / zone_defaults.nameservers.type values:
// the cloudflare.* and platform.* spellings are the same choice.
var nameserverTypes = map[string]string{
	"cloudflare.standard":        "cloudflare.standard",
	"platform.standard":          "cloudflare.standard",
	"cloudflare.standard.random": "cloudflare.standard.random",
	"platform.standard.random":   "cloudflare.standard.random",
	"custom.account":             "custom.account",
	"custom.tenant":              "custom.tenant",
}

// NameserverType returns the canonical spelling of a nameserver type (cloudflare.* for the
// platform.* spellings), or "" for a value outside the documented set.
func NameserverType(v string) string { return nameserverTypes[v] }
