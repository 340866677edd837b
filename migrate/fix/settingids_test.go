package fix

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSettingIDsAreTheAPIs: settingids.json lists exactly the setting ids (and value types)
// of the API's OpenAPI description in the corpus, both files of which agree; its later ids
// are ones the snapshot lacks. With SUNSET_UPDATE=1 it writes the file from the description
// instead (see settingids.go).
func TestSettingIDsAreTheAPIs(t *testing.T) {
	dir := os.Getenv("SUNSET_CORPUS")
	if dir == "" {
		t.Skip("SUNSET_CORPUS is not set: the API's OpenAPI description is read from the corpus at test time only")
	}
	want := settingsOfDescription(t, filepath.Join(dir, "openapi_plan_ops.json"))
	if other := settingsOfDescription(t, filepath.Join(dir, "openapi_excerpt.json")); !slices.Equal(want, other) {
		t.Fatalf("the two descriptions disagree on the settings:\n%v\n%v", want, other)
	}
	var file settingIDFile
	if err := json.Unmarshal(settingIDsJSON, &file); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("SUNSET_UPDATE") != "" {
		file.Settings = want
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(file); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("settingids.json", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !slices.Equal(file.Settings, want) {
		t.Errorf("settingids.json is not the description's list (run the command in settingids.go):\nhave %v\nwant %v", file.Settings, want)
	}
	for _, s := range file.Later {
		if slices.ContainsFunc(want, func(w apiSetting) bool { return w.ID == s.ID }) {
			t.Errorf("later id %s is in the description now: drop it from the later list", s.ID)
		}
		if s.Source == "" {
			t.Errorf("later id %s says not where it is documented", s.ID)
		}
	}
}

// settingsOfDescription reads the settings of /zones/{zone_id}/settings/{setting_id} from an
// OpenAPI description: each schema of zones_setting's oneOf names its id (an enum of one)
// and its value's type, in its own properties or those of its allOf.
func settingsOfDescription(t *testing.T, path string) []apiSetting {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]*oaSchema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	schemas := doc.Components.Schemas
	setting := schemas["zones_setting"]
	if setting == nil || len(setting.OneOf) == 0 {
		t.Fatalf("%s: no components.schemas.zones_setting.oneOf", path)
	}
	var out []apiSetting
	for _, ref := range setting.OneOf {
		var s apiSetting
		for _, part := range resolved(schemas, ref).parts(schemas) {
			if id := part.Properties["id"]; id != nil && len(resolved(schemas, id).Enum) == 1 {
				s.ID = strings.Trim(string(resolved(schemas, id).Enum[0]), `"`)
			}
			if v := part.Properties["value"]; v != nil {
				s.Value = resolved(schemas, v).Type
			}
		}
		if s.ID == "" {
			t.Fatalf("%s: a schema of zones_setting.oneOf (%s) names no id", path, ref.Ref)
		}
		if s.Value == "" {
			s.Value = "none"
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b apiSetting) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// oaSchema is the part of an OpenAPI schema the settings are read from.
type oaSchema struct {
	Ref        string               `json:"$ref"`
	Type       string               `json:"type"`
	Enum       []json.RawMessage    `json:"enum"`
	OneOf      []*oaSchema          `json:"oneOf"`
	AllOf      []*oaSchema          `json:"allOf"`
	Properties map[string]*oaSchema `json:"properties"`
}

// resolved follows $ref to the component schema.
func resolved(schemas map[string]*oaSchema, s *oaSchema) *oaSchema {
	for i := 0; s.Ref != "" && i < 16; i++ {
		next := schemas[strings.TrimPrefix(s.Ref, "#/components/schemas/")]
		if next == nil {
			return &oaSchema{}
		}
		s = next
	}
	return s
}

// parts are the schema and its allOf members, resolved.
func (s *oaSchema) parts(schemas map[string]*oaSchema) []*oaSchema {
	out := []*oaSchema{s}
	for _, p := range s.AllOf {
		out = append(out, resolved(schemas, p))
	}
	return out
}
