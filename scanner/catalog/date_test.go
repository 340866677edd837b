package catalog

import (
	"encoding/json"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestDateEncoding(t *testing.T) {
	d := NewDate(2025, 1, 15)
	if d.String() != "2025-01-15" || (Date{}).String() != "" {
		t.Fatalf("String: %q %q", d, Date{})
	}
	type doc struct {
		A Date `json:"a" yaml:"a"`
		B Date `json:"b,omitzero" yaml:"b,omitempty"`
	}
	j, err := json.Marshal(doc{A: d})
	if err != nil || string(j) != `{"a":"2025-01-15"}` {
		t.Errorf("JSON = %s, %v", j, err)
	}
	var back doc
	if err := json.Unmarshal([]byte(`{"a":"2025-01-15","b":null}`), &back); err != nil || !back.A.Equal(d.Time) || !back.B.IsZero() {
		t.Errorf("JSON back = %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"a":"15/01/2025"}`), &back); err == nil || !strings.Contains(err.Error(), "YYYY-MM-DD") {
		t.Errorf("bad JSON date: %v", err)
	}
	if err := json.Unmarshal([]byte(`{"a":20250115}`), &back); err == nil {
		t.Error("a JSON number was accepted as a date")
	}
	y, err := yaml.Marshal(doc{A: d})
	if err != nil || string(y) != "a: \"2025-01-15\"\n" {
		t.Errorf("YAML = %q, %v", y, err)
	}
	var yb doc
	if err := yaml.Unmarshal([]byte("a: 2025-01-15\nb: '2024-02-29'\n"), &yb); err != nil || yb.A.String() != "2025-01-15" || yb.B.String() != "2024-02-29" {
		t.Errorf("YAML back = %+v, %v", yb, err)
	}
	if err := yaml.Unmarshal([]byte("a: 2023-02-29\n"), &yb); err == nil {
		t.Error("2023-02-29 accepted")
	}
	if err := yaml.Unmarshal([]byte("a: [2023]\n"), &yb); err == nil {
		t.Error("a YAML list accepted as a date")
	}
	txt, _ := d.MarshalText()
	if string(txt) != "2025-01-15" {
		t.Errorf("MarshalText = %s", txt)
	}
	// An entry renders its dates the same way in JSON.
	e := mustLookup(t, Default(), "zone-settings-bulk")
	ej, _ := json.Marshal(e)
	if !strings.Contains(string(ej), `"deprecated_on":"2025-04-23","end_of_life":"2026-09-15"`) {
		t.Errorf("entry JSON: %s", ej)
	}
	fj, _ := json.Marshal(mustLookup(t, Default(), "threat-score-field"))
	if strings.Contains(string(fj), "end_of_life") || strings.Contains(string(fj), "override") {
		t.Errorf("zero dates or override in JSON: %s", fj)
	}
}

func TestParseDate(t *testing.T) {
	if d, err := ParseDate(" 2024-05-31 "); err != nil || d.String() != "2024-05-31" {
		t.Errorf("ParseDate = %v, %v", d, err)
	}
	if d, err := ParseDate(""); err != nil || !d.IsZero() {
		t.Errorf("ParseDate(\"\") = %v, %v", d, err)
	}
	for _, bad := range []string{"2024-5-31", "31.05.2024", "2024-05-31T00:00:00Z", "tomorrow"} {
		if _, err := ParseDate(bad); err == nil {
			t.Errorf("ParseDate(%q) accepted", bad)
		}
	}
}
