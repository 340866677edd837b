package terraform

import (
	"encoding/json"
	"testing"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/sunsetscan/sunset/migrate"
)

// TestRulesRoundTrip: the rules written to HCL evaluate back to the plan's rules, whatever
// the expression holds (quotes, backslashes, ${ and %{ sequences, HTML, non-ASCII).
func TestRulesRoundTrip(t *testing.T) {
	tricky := []string{
		`http.request.uri.path eq "/a\"b\\c"`,
		`http.request.uri.query contains "${var.x}" or http.request.uri.query contains "%{if}"`,
		`http.user_agent contains "<script>alert(1)</script>"`,
		`http.host eq "bücher.example" and ip.src in {192.0.2.0/24}`,
	}
	var rules []json.RawMessage
	for i, e := range tricky {
		rules = append(rules, json.RawMessage(`{"action":"block","expression":`+quoteJSON(e)+`,"description":"rule `+string(rune('a'+i))+` | `+"`x`"+`","enabled":true,"id":"x","version":"2","last_updated":"t","ratelimit":{"period":60,"characteristics":["cf.colo.id","ip.src"]}}`))
	}
	p := &migrate.Plan{SchemaVersion: 1, Zones: []migrate.ZonePlan{{
		ZoneID: "z1", ZoneName: "a-b.example",
		Targets: []migrate.Target{{Phase: vocab.PhaseCustomRules, Name: "default", Rules: rules}},
	}}}
	files, err := Files(p)
	if err != nil {
		t.Fatal(err)
	}
	src := files["zone_a-b_example.tf"]
	f, diags := hclsyntax.ParseConfig(src, "z.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("does not parse: %s\n%s", diags.Error(), src)
	}
	var got cty.Value
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		if b.Type == "resource" {
			v, d := b.Body.Attributes["rules"].Expr.Value(nil)
			if d.HasErrors() {
				t.Fatal(d.Error())
			}
			got = v
		}
	}
	if got.LengthInt() != len(tricky) {
		t.Fatalf("%d rules back, want %d", got.LengthInt(), len(tricky))
	}
	for i, e := range tricky {
		r := got.Index(cty.NumberIntVal(int64(i)))
		if s := r.GetAttr("expression").AsString(); s != e {
			t.Errorf("rule %d expression %q, want %q", i, s, e)
		}
		for _, computed := range []string{"id", "version", "last_updated"} {
			if r.Type().HasAttribute(computed) {
				t.Errorf("rule %d carries the computed member %s", i, computed)
			}
		}
		if n, _ := r.GetAttr("ratelimit").GetAttr("period").AsBigFloat().Int64(); n != 60 {
			t.Errorf("rule %d period %d", i, n)
		}
	}
}

func quoteJSON(s string) string { b, _ := json.Marshal(s); return string(b) }
