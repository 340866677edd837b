package inventory

import (
	"encoding/json"
	"testing"
)

func TestFirewallRuleKeepsUnknownMembers(t *testing.T) {
	in := `{"id":"a","filter":{"id":"f","expression":"ssl","paused":false,"x_new":{"k":1}},"action":"block","priority":null,"paused":true,"created_on":"2020-01-01T00:00:00Z"}`
	var r FirewallRule
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	if r.ID != "a" || r.Filter.Expression != "ssl" || !r.Paused || r.Priority != nil {
		t.Fatalf("decoded %+v", r)
	}
	if string(r.Extra["created_on"]) != `"2020-01-01T00:00:00Z"` || string(r.Filter.Extra["x_new"]) != `{"k":1}` {
		t.Fatalf("extra lost: %v / %v", r.Extra, r.Filter.Extra)
	}
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	json.Unmarshal([]byte(in), &a)
	json.Unmarshal(out, &b)
	if ja, jb := mustJSON(a), mustJSON(b); ja != jb {
		t.Fatalf("round trip changed the object:\n in %s\nout %s", ja, jb)
	}
}

func TestKnownFieldWinsOverExtra(t *testing.T) {
	z := Zone{ID: "z", Name: "example.com", Extra: Extra{"name": json.RawMessage(`"stale"`), "x": json.RawMessage(`1`)}}
	out, _ := json.Marshal(z)
	var m map[string]any
	json.Unmarshal(out, &m)
	if m["name"] != "example.com" || m["x"] != float64(1) {
		t.Fatalf("got %s", out)
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }
