package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestJSONGolden(t *testing.T) {
	golden(t, "report.json", []byte(render(t, "json", Options{}, sampleReport())))
}

func TestJSONDeterministic(t *testing.T) {
	first := render(t, "json", Options{}, sampleReport())
	for i := 0; i < 20; i++ {
		// A freshly built report each time: nothing may depend on map order or pointers.
		if got := render(t, "json", Options{Color: true, Width: 40}, sampleReport()); got != first {
			t.Fatalf("run %d differs:\n%s\n---\n%s", i, got, first)
		}
	}
}

func TestJSONShape(t *testing.T) {
	empty := &Report{SchemaVersion: SchemaVersion, Tool: Tool{Name: ToolName}} // nil lists
	out := render(t, "json", Options{}, empty)
	for _, want := range []string{`"findings": []`, `"errors": []`, `"catalog": []`, `"by_rule": []`} {
		if !strings.Contains(out, want) {
			t.Errorf("empty report lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "null") {
		t.Errorf("empty report has null:\n%s", out)
	}
	if empty.Findings != nil || empty.Summary.ByRule != nil {
		t.Error("Write modified the caller's report")
	}
	if !strings.HasSuffix(out, "}\n") || strings.HasSuffix(out, "\n\n") {
		t.Errorf("want exactly one trailing newline, got %q", out[len(out)-5:])
	}
	// Top-level members in the documented order.
	var keys []string
	dec := json.NewDecoder(strings.NewReader(render(t, "json", Options{}, sampleReport())))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("want a JSON object, got %v (%v)", tok, err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	want := "schema_version tool as_of source summary findings errors retired catalog"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("top-level keys = %s, want %s", got, want)
	}
	// Expressions stay readable: no \u0026 for &.
	r := sampleReport()
	r.Findings.Slice()[0].Message = `expression (a && b) <x>`
	if out := render(t, "json", Options{}, r); !strings.Contains(out, `"expression (a && b) <x>"`) {
		t.Error("HTML characters were escaped")
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteErrors(t *testing.T) {
	for _, name := range Formats() {
		rep, _ := New(name, Options{})
		if err := rep.Write(failWriter{}, sampleReport()); err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("%s: Write to a failing writer = %v, want the write error", name, err)
		}
	}
	var b bytes.Buffer
	if err := (JSON{}).Write(&b, sampleReport()); err != nil || b.Len() == 0 {
		t.Errorf("JSON write: %v", err)
	}
}

func BenchmarkJSON(b *testing.B) {
	r := largeReport(10000)
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := (JSON{}).Write(&buf, r); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}
