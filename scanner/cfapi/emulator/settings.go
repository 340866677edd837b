package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// settingDef is a zone setting the emulator knows: its default and how to check a value.
type settingDef struct {
	def   string // default value as JSON
	check func(json.RawMessage) error
}

func onOff(raw json.RawMessage) error {
	var s string
	if json.Unmarshal(raw, &s) != nil || (s != "on" && s != "off") {
		return fmt.Errorf(`value must be "on" or "off"`)
	}
	return nil
}

// knownSettings are the deprecated single settings with their endpoints, plus their
// documented shapes (domain-facts "Zones, accounts and other objects").
var knownSettings = map[string]settingDef{
	"brotli":              {`"on"`, onOff},
	"server_side_exclude": {`"on"`, onOff},
	"privacy_pass":        {`"on"`, onOff},
	// waf is the previous-version WAF's switch; its default depends on the zone (see setting).
	"waf": {`"off"`, onOff},
	"minify": {`{"css":"off","html":"off","js":"off"}`, func(raw json.RawMessage) error {
		var m map[string]string
		if json.Unmarshal(raw, &m) != nil {
			return fmt.Errorf(`value must be an object {"css","html","js"} of "on"/"off"`)
		}
		for k, v := range m {
			if (k != "css" && k != "html" && k != "js") || (v != "on" && v != "off") {
				return fmt.Errorf(`value must be an object {"css","html","js"} of "on"/"off"`)
			}
		}
		return nil
	}},
	"mobile_redirect": {`{"status":"off","mobile_subdomain":null,"strip_uri":false}`, func(raw json.RawMessage) error {
		var m struct {
			Status          *string `json:"status"`
			MobileSubdomain *string `json:"mobile_subdomain"`
			StripURI        *bool   `json:"strip_uri"`
		}
		if json.Unmarshal(raw, &m) != nil || (m.Status != nil && *m.Status != "on" && *m.Status != "off") {
			return fmt.Errorf(`value must be {"status":"on"|"off","mobile_subdomain":STRING,"strip_uri":BOOL}`)
		}
		return nil
	}},
}

// setting returns a zone setting: cname_flattening derived from DNS settings, a seeded or
// written one, or a known setting's default (waf: on for a zone with WAF packages, else off).
func (z *zoneState) setting(id string) (inventory.Setting, bool) {
	if id == "cname_flattening" {
		return z.cnameSetting(), true
	}
	if s, found := z.settings[id]; found {
		return deepCopy(*s), true
	}
	if id == "waf" && len(z.waf) > 0 {
		// A zone with previous-version WAF packages runs them unless switched off; the
		// packages stay listed whatever the value, as in the real API.
		return inventory.Setting{ID: id, Value: json.RawMessage(`"on"`), Editable: boolPtr(true)}, true
	}
	if d, found := knownSettings[id]; found {
		return inventory.Setting{ID: id, Value: json.RawMessage(d.def), Editable: boolPtr(true)}, true
	}
	return inventory.Setting{}, false
}

// allSettings is the bulk list: seeded or written settings, known defaults and
// cname_flattening, sorted by id.
func (z *zoneState) allSettings() []inventory.Setting {
	ids := map[string]bool{"cname_flattening": true}
	for id := range z.settings {
		ids[id] = true
	}
	for id := range knownSettings {
		ids[id] = true
	}
	names := make([]string, 0, len(ids))
	for id := range ids {
		names = append(names, id)
	}
	sort.Strings(names)
	out := make([]inventory.Setting, 0, len(names))
	for _, id := range names {
		s, _ := z.setting(id)
		out = append(out, s)
	}
	return out
}

// checkSetting validates a new value for a setting; an error is the API error to send.
func (z *zoneState) checkSetting(id string, raw json.RawMessage) *APIError {
	cur, found := z.setting(id)
	if !found {
		return &APIError{Code: CodeUnknownSetting, Message: fmt.Sprintf("Invalid or missing zone setting %q", id)}
	}
	if cur.Editable != nil && !*cur.Editable {
		return &APIError{Code: CodeInvalidSettingValue, Message: fmt.Sprintf("zone setting %s is not editable", id)}
	}
	if len(raw) == 0 || string(raw) == "null" {
		return &APIError{Code: CodeInvalidSettingValue, Message: fmt.Sprintf("zone setting %s: value is required", id)}
	}
	if id == "cname_flattening" {
		var v string
		_ = json.Unmarshal(raw, &v) // a non-string value leaves v empty, which is refused below
		if _, okv := cnameToFlattenAll(v); !okv {
			return &APIError{Code: CodeInvalidSettingValue, Message: `cname_flattening: value must be "flatten_at_root" or "flatten_all" ("off", "apex" and "on" are accepted too)`}
		}
		return nil
	}
	if d, known := knownSettings[id]; known {
		if err := d.check(raw); err != nil {
			return &APIError{Code: CodeInvalidSettingValue, Message: fmt.Sprintf("zone setting %s: %v", id, err)}
		}
	}
	return nil
}

// writeSetting stores a checked value: cname_flattening goes to flatten_all_cnames.
func (c *call) writeSetting(id string, raw json.RawMessage) inventory.Setting {
	z := c.zone
	if id == "cname_flattening" {
		var v string
		_ = json.Unmarshal(raw, &v)
		flat, _ := cnameToFlattenAll(v)
		z.dnsSettings.FlattenAllCNAMEs = boolPtr(flat)
		z.modified[id] = c.stamp()
		return z.cnameSetting()
	}
	cur, _ := z.setting(id)
	cur.Value = append(json.RawMessage(nil), raw...)
	cur.ModifiedOn = c.stamp()
	z.settings[id] = &cur
	return deepCopy(cur)
}

// settingItem is one setting of a bulk PATCH.
type settingItem struct {
	ID    string          `json:"id"`
	Value json.RawMessage `json:"value"`
}

// settingsRoutes registers the bulk and single zone settings endpoints.
func (s *Server) settingsRoutes() {
	s.handle("GET", "/zones/:zone_id/settings", func(c *call) *reply { return ok(c.zone.allSettings()) })
	s.handle("PATCH", "/zones/:zone_id/settings", func(c *call) *reply {
		var in struct {
			Items []settingItem `json:"items"`
		}
		// SDKs send {"items": [...]}; the API's description writes the body as the bare array.
		if b := bytes.TrimSpace(c.body); len(b) > 0 && b[0] == '[' {
			if rep := c.decode(&in.Items); rep != nil {
				return rep
			}
		} else if rep := c.decode(&in); rep != nil {
			return rep
		}
		if len(in.Items) == 0 {
			return invalid(`items is required: [{"id": SETTING, "value": VALUE}, ...]`)
		}
		var errs []APIError
		for _, it := range in.Items {
			if e := c.zone.checkSetting(it.ID, it.Value); e != nil {
				errs = append(errs, *e)
			}
		}
		if len(errs) > 0 {
			return failErrors(http.StatusBadRequest, errs...)
		}
		out := make([]inventory.Setting, 0, len(in.Items))
		for _, it := range in.Items {
			out = append(out, c.writeSetting(it.ID, it.Value))
		}
		return ok(out)
	})
	single := func(c *call, id string) *reply {
		st, found := c.zone.setting(id)
		if !found {
			return fail(http.StatusNotFound, CodeUnknownSetting, "Invalid or missing zone setting %q", id)
		}
		return ok(st)
	}
	update := func(c *call, id string) *reply {
		var in struct {
			Value json.RawMessage `json:"value"`
		}
		if rep := c.decode(&in); rep != nil {
			return rep
		}
		if e := c.zone.checkSetting(id, in.Value); e != nil {
			status := http.StatusBadRequest
			if e.Code == CodeUnknownSetting {
				status = http.StatusNotFound
			}
			return failErrors(status, *e)
		}
		return ok(c.writeSetting(id, in.Value))
	}
	for _, id := range []string{"cname_flattening", "brotli", "minify", "mobile_redirect", "server_side_exclude"} {
		id := id
		s.handle("GET", "/zones/:zone_id/settings/"+id, func(c *call) *reply { return single(c, id) })
		s.handle("PATCH", "/zones/:zone_id/settings/"+id, func(c *call) *reply { return update(c, id) })
	}
	s.handle("GET", "/zones/:zone_id/settings/privacy_pass", func(c *call) *reply { return single(c, "privacy_pass") })
	s.handle("POST", "/zones/:zone_id/settings/privacy_pass", func(c *call) *reply { return update(c, "privacy_pass") })
	// Any other setting the zone holds (from the seed) reads and writes generically.
	s.handle("GET", "/zones/:zone_id/settings/:setting_id", func(c *call) *reply { return single(c, c.params["setting_id"]) })
	s.handle("PATCH", "/zones/:zone_id/settings/:setting_id", func(c *call) *reply { return update(c, c.params["setting_id"]) })
}
