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
	if err := json.Unmarshal([]byte(in), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &b); err != nil {
		t.Fatal(err)
	}
	if ja, jb := mustJSON(a), mustJSON(b); ja != jb {
		t.Fatalf("round trip changed the object:\n in %s\nout %s", ja, jb)
	}
}

func TestKnownFieldWinsOverExtra(t *testing.T) {
	z := Zone{ID: "z", Name: "example.com", Extra: Extra{"name": json.RawMessage(`"stale"`), "x": json.RawMessage(`1`)}}
	out, _ := json.Marshal(z)
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	if m["name"] != "example.com" || m["x"] != float64(1) {
		t.Fatalf("got %s", out)
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// slowUnknown is the reference: decode every member and look each key up.
func slowUnknown(data []byte, keys map[string]bool) bool {
	var all map[string]json.RawMessage
	if json.Unmarshal(data, &all) != nil {
		return false
	}
	for k := range all {
		if !keys[k] {
			return true
		}
	}
	return false
}

func TestHasUnknownKey(t *testing.T) {
	keys := map[string]bool{"id": true, "filter": true, "action": true}
	for _, tc := range []struct {
		json string
		want bool
	}{
		{`{}`, false},
		{`{"id":"a","action":"block"}`, false},
		{`{"id":"a","extra":1}`, true},
		{`{"filter":{"expression":"x","unknown":[1,{"y":2}]},"id":"b"}`, false},
		{`{"filter":{"a":{"b":{"c":"}"}}},"zzz":null}`, true},
		{`{"id":"with \"quotes\", and , commas: {[","action":"x"}`, false},
		{` { "id" : "a" , "action" : [ "x" , "y" ] } `, false},
		{`{"i\u0064":"escaped key counts as unknown"}`, true},
		{`{"id":"a","action":"b","ref":""}`, true},
	} {
		if got := hasUnknownKey([]byte(tc.json), keys); got != tc.want {
			t.Errorf("hasUnknownKey(%s) = %v, want %v", tc.json, got, tc.want)
		}
	}
}

// FuzzHasUnknownKey checks the fast key scan against the full decode on valid objects: it
// may only err towards "unknown" (which takes the exact path), never miss a member.
func FuzzHasUnknownKey(f *testing.F) {
	for _, s := range []string{`{"id":"a"}`, `{"id":{"x":"}\""},"q":1}`, `{"a":[1,2,{"b":"c"}]}`} {
		f.Add(s)
	}
	keys := map[string]bool{"id": true, "a": true, "filter": true}
	f.Fuzz(func(t *testing.T, s string) {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(s), &m) != nil {
			return
		}
		if slowUnknown([]byte(s), keys) && !hasUnknownKey([]byte(s), keys) {
			t.Fatalf("missed an unknown member in %s", s)
		}
	})
}

func BenchmarkDecodeFirewallRule(b *testing.B) {
	data := []byte(`{"id":"772bf1026a72c400ea576db1ffa16407","filter":{"id":"6f58318e7fa2477a23112e8118c66f61","expression":"http.request.uri.path ~ \"^.*/wp-login.php$\"","paused":false,"description":"","ref":""},"action":"challenge","priority":1000,"paused":false,"description":"Protect login","ref":"","products":["waf"]}`)
	b.ReportAllocs()
	for b.Loop() {
		var r FirewallRule
		if err := json.Unmarshal(data, &r); err != nil {
			b.Fatal(err)
		}
	}
}
