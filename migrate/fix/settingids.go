package fix

import (
	_ "embed"
	"encoding/json"
	"sync"
)

// The zone settings API's setting ids: a cloudflare_zone_setting is written only for one of
// them, else `terraform validate` passes (setting_id is any string) and the apply fails.
//
// settingids.json is generated from the API's public OpenAPI description (the corpus's
// openapi_plan_ops.json, snapshot 2024-08-06: the id enum and value type of each schema of
// components.schemas.zones_setting.oneOf, which /zones/{zone_id}/settings/{setting_id}
// reads and writes) by
//
//	SUNSET_CORPUS=../shared/realworld SUNSET_UPDATE=1 go test ./migrate/fix -run TestSettingIDsAreTheAPIs
//
// which, without SUNSET_UPDATE, checks that the file still says what the description says.
// Its "later" list holds the ids that provider v4's override sets and the API gained after
// the snapshot, each with where it is documented; the test checks that the snapshot lacks
// them (so a newer snapshot makes the entry redundant, and the test says so).

//go:embed settingids.json
var settingIDsJSON []byte

// apiSetting is one setting of the zone settings API.
type apiSetting struct {
	ID string `json:"id"`
	// Value is the JSON type of its value: string, number, object, array, or none (a
	// setting set through another attribute, such as ssl_recommender's enabled).
	Value string `json:"value"`
	// Source says where an id the snapshot lacks is documented.
	Source string `json:"source,omitempty"`
}

// settingIDFile is settingids.json.
type settingIDFile struct {
	Source      string       `json:"source"`
	GeneratedBy string       `json:"generated_by"`
	Settings    []apiSetting `json:"settings"`
	Later       []apiSetting `json:"later"`
}

// apiSettings are the API's settings by id (the snapshot's and the later ones).
var apiSettings = sync.OnceValue(func() map[string]apiSetting {
	var f settingIDFile
	if err := json.Unmarshal(settingIDsJSON, &f); err != nil {
		panic("fix: settingids.json: " + err.Error()) // embedded, checked by the tests
	}
	out := map[string]apiSetting{}
	for _, s := range append(f.Settings, f.Later...) {
		out[s.ID] = s
	}
	return out
})

// settingAliases are provider v4's names of the settings the API names otherwise.
var settingAliases = map[string]string{"zero_rtt": "0rtt"}

// apiSettingOf is the API's setting for a settings attribute or block of provider v4's
// cloudflare_zone_settings_override (or a v5 setting_id); false when the API has none.
func apiSettingOf(name string) (apiSetting, bool) {
	if id, ok := settingAliases[name]; ok {
		name = id
	}
	s, ok := apiSettings()[name]
	return s, ok
}
