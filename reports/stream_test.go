package reports

import (
	"reflect"
	"testing"
)

// TestJSONReportMirrorsReport keeps the streamed JSON report in step with Report: the
// same fields, names and order, the findings aside (streamed).
func TestJSONReportMirrorsReport(t *testing.T) {
	a, b := reflect.TypeFor[Report](), reflect.TypeFor[jsonReport]()
	if a.NumField() != b.NumField() {
		t.Fatalf("Report has %d fields, jsonReport %d", a.NumField(), b.NumField())
	}
	for i := range a.NumField() {
		fa, fb := a.Field(i), b.Field(i)
		if fa.Name != fb.Name || fa.Tag != fb.Tag {
			t.Errorf("field %d: Report %s %q, jsonReport %s %q", i, fa.Name, fa.Tag, fb.Name, fb.Tag)
		}
		if fa.Name != "Findings" && fa.Type != fb.Type {
			t.Errorf("field %s: Report %v, jsonReport %v", fa.Name, fa.Type, fb.Type)
		}
	}
}
