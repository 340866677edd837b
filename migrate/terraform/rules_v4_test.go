package terraform

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/sunsetscan/sunset/migrate/internal/tfschema"
)

// ruleShapes are rules of every shape plan writes, as the API's wire JSON (with the
// computed members a stored rule carries).
var ruleShapes = []string{
	// custom rules: block with a custom response, skip the rest of the ruleset, skip
	// products and phases, and a managed challenge with logging off
	`{"id":"r1","version":"1","last_updated":"2024-01-01T00:00:00Z","action":"block","expression":"ip.src eq 192.0.2.1","description":"block \"x\" ${y}","enabled":true,
	  "action_parameters":{"response":{"status_code":403,"content":"<h1>no</h1>","content_type":"text/html"}}}`,
	`{"action":"skip","expression":"http.host eq \"a.example\"","enabled":true,"ref":"fw-1","action_parameters":{"ruleset":"current"},"logging":{"enabled":true}}`,
	`{"action":"skip","expression":"true","enabled":false,"action_parameters":{"products":["bic","hot","uaBlock","zoneLockdown"],"phases":["http_ratelimit","http_request_sbfm"]},"logging":{"enabled":false}}`,
	`{"action":"managed_challenge","expression":"cf.threat_score gt 10","enabled":true,"description":null}`,
	// managed execute with overrides, and a skip of managed rules
	`{"action":"execute","expression":"true","enabled":true,"action_parameters":{"id":"efb7b8c949ac4650a09736fc376e9aee",
	  "overrides":{"sensitivity_level":"low","categories":[{"category":"wordpress","action":"block","enabled":true},{"category":"joomla","enabled":false}],
	  "rules":[{"id":"5de7edfa648c4d6891dc3e7f84534ffa","action":"log","enabled":true,"score_threshold":40},{"id":"e3a567afc347477d9702d9047e97d760","enabled":false}]},
	  "matched_data":{"public_key":"abc="}}}`,
	`{"action":"skip","expression":"ip.src in {192.0.2.0/24}","enabled":true,"action_parameters":{"rules":{"efb7b8c949ac4650a09736fc376e9aee":["5de7edfa648c4d6891dc3e7f84534ffa","e3a567afc347477d9702d9047e97d760"]}}}`,
	// rate limiting
	`{"action":"block","expression":"http.request.uri.path matches \"^/api/\"","enabled":true,"description":"rl",
	  "ratelimit":{"characteristics":["cf.colo.id","ip.src"],"period":60,"requests_per_period":100,"mitigation_timeout":600,"counting_expression":"http.response.code eq 401","requests_to_origin":true},
	  "action_parameters":{"response":{"status_code":429,"content":"{}","content_type":"application/json"}}}`,
	// redirect
	`{"action":"redirect","expression":"http.host eq \"old.example\"","enabled":true,"action_parameters":{"from_value":{"status_code":301,"preserve_query_string":true,"target_url":{"value":"https://new.example/"}}}}`,
	`{"action":"redirect","expression":"true","enabled":true,"action_parameters":{"from_value":{"status_code":302,"target_url":{"expression":"concat(\"https://x.example\", http.request.uri.path)"}}}}`,
	// compression, custom log fields and header modification, as other phases write them
	`{"action":"compress_response","expression":"true","enabled":true,"action_parameters":{"algorithms":[{"name":"brotli"},{"name":"gzip"}]}}`,
	`{"action":"log_custom_field","expression":"true","enabled":true,"action_parameters":{"cookie_fields":[{"name":"__ga"}],"request_fields":[{"name":"referer"},{"name":"x-a"}]}}`,
	`{"action":"rewrite","expression":"true","enabled":true,"action_parameters":{"headers":{"X-B":{"operation":"remove"},"X-A":{"operation":"set","value":"1"}}}}`,
}

func shapes(t *testing.T) []json.RawMessage {
	t.Helper()
	out := make([]json.RawMessage, 0, len(ruleShapes))
	for _, s := range ruleShapes {
		if !json.Valid([]byte(s)) {
			t.Fatalf("not JSON: %s", s)
		}
		out = append(out, json.RawMessage(s))
	}
	return out
}

// rulesetFile writes a zone ruleset holding rules for provider p, fmt clean.
func rulesetFile(t *testing.T, rules []json.RawMessage, p Provider) []byte {
	t.Helper()
	f := hclwrite.NewEmptyFile()
	r := f.Body().AppendNewBlock("resource", []string{"cloudflare_ruleset", "custom"}).Body()
	r.SetAttributeValue("zone_id", cty.StringVal("023e105f4ecef8ad9ca31a8372d0c353"))
	r.SetAttributeValue("name", cty.StringVal("default"))
	r.SetAttributeValue("kind", cty.StringVal("zone"))
	r.SetAttributeValue("phase", cty.StringVal("http_request_firewall_custom"))
	if err := SetRules(r, rules, p); err != nil {
		t.Fatal(err)
	}
	src := hclwrite.Format(f.Bytes())
	if _, diags := hclsyntax.ParseConfig(src, "r.tf", hcl.InitialPos); diags.HasErrors() {
		t.Fatalf("%s: does not parse: %s\n%s", p, diags.Error(), src)
	}
	return src
}

// TestSetRulesFitSchemas: every rule shape is written valid against provider v4.52.8's
// schema with v4 and v5.22.0's with v5.
func TestSetRulesFitSchemas(t *testing.T) {
	for p, version := range map[Provider]string{ProviderV4: "4.52.8", ProviderV5: CheckedProviderVersion} {
		s, err := tfschema.Load(version)
		if err != nil {
			t.Fatal(err)
		}
		src := rulesetFile(t, shapes(t), p)
		for _, err := range s.CheckFile(src, string(p)+".tf") {
			t.Errorf("%s: %v", p, err)
		}
		if t.Failed() {
			t.Logf("%s", src)
		}
	}
}

// TestSetRulesV4 reads the v4 rendering back: one rules block per rule, the computed
// members gone, nested objects as blocks, wire names v4 spells otherwise reshaped.
func TestSetRulesV4(t *testing.T) {
	src := rulesetFile(t, shapes(t), ProviderV4)
	f, _ := hclsyntax.ParseConfig(src, "v4.tf", hcl.InitialPos)
	res := f.Body.(*hclsyntax.Body).Blocks[0]
	if _, ok := res.Body.Attributes["rules"]; ok {
		t.Fatal("v4 rules written as an attribute")
	}
	var rules []*hclsyntax.Block
	for _, b := range res.Body.Blocks {
		if b.Type == "rules" {
			rules = append(rules, b)
		}
	}
	if len(rules) != len(ruleShapes) {
		t.Fatalf("%d rules blocks, want %d", len(rules), len(ruleShapes))
	}
	if _, ok := rules[0].Body.Attributes["id"]; ok {
		t.Error("computed id written")
	}
	if got := literal(t, rules[0], "description"); got.AsString() != `block "x" ${y}` {
		t.Errorf("description %#v", got)
	}
	nested := func(b *hclsyntax.Block, path ...string) *hclsyntax.Block {
		t.Helper()
		for _, name := range path {
			var next *hclsyntax.Block
			for _, nb := range b.Body.Blocks {
				if nb.Type == name && next == nil {
					next = nb
				}
			}
			if next == nil {
				t.Fatalf("no %s block in %s", name, b.Type)
			}
			b = next
		}
		return b
	}
	if got := literal(t, nested(rules[7], "action_parameters", "from_value", "target_url"), "value"); got.AsString() != "https://new.example/" {
		t.Errorf("target_url %#v", got)
	}
	if got := literal(t, nested(rules[6], "ratelimit"), "mitigation_timeout"); !got.RawEquals(cty.NumberIntVal(600)) {
		t.Errorf("mitigation_timeout %#v", got)
	}
	skip := literal(t, nested(rules[5], "action_parameters"), "rules")
	if got := skip.GetAttr("efb7b8c949ac4650a09736fc376e9aee").AsString(); got != "5de7edfa648c4d6891dc3e7f84534ffa,e3a567afc347477d9702d9047e97d760" {
		t.Errorf("skip rules %q", got)
	}
	if got := literal(t, nested(rules[11], "action_parameters", "headers"), "name"); got.AsString() != "X-A" {
		t.Errorf("first header %#v", got)
	}
	if got := literal(t, nested(rules[10], "action_parameters"), "request_fields"); !got.RawEquals(cty.TupleVal([]cty.Value{cty.StringVal("referer"), cty.StringVal("x-a")})) {
		t.Errorf("request_fields %#v", got)
	}
	if n := strings.Count(string(src), "categories {"); n != 2 {
		t.Errorf("%d categories blocks, want 2", n)
	}
}

func literal(t *testing.T, b *hclsyntax.Block, name string) cty.Value {
	t.Helper()
	a, ok := b.Body.Attributes[name]
	if !ok {
		t.Fatalf("%s has no %s", b.Type, name)
	}
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return v
}

// TestSetRulesV4Errors: a member v4 has no place for is an error naming the rule and the
// member; v5 writes it.
func TestSetRulesV4Errors(t *testing.T) {
	for raw, want := range map[string]string{
		`{"action":"set_config","expression":"true","action_parameters":{"request_body_buffering":"full"}}`: "rule 2: action_parameters.request_body_buffering: provider v4 has no place for it",
		`{"action":"block","expression":"true","ratelimit":{"period":"soon"}}`:                              "rule 2: ratelimit.period: string does not fit provider v4's number",
		`{"action":"block","expression":"true","logging":true}`:                                             "rule 2: logging: not an object, v4 has a block there",
	} {
		rules := []json.RawMessage{json.RawMessage(ruleShapes[1]), json.RawMessage(raw)}
		err := SetRules(hclwrite.NewEmptyFile().Body(), rules, ProviderV4)
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", raw, err, want)
		}
	}
	if err := SetRules(hclwrite.NewEmptyFile().Body(), nil, "v3"); err == nil {
		t.Error("provider v3 accepted")
	}
}
