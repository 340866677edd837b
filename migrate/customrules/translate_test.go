package customrules

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

func prio(n int) *int { return &n }

// fw builds a firewall rule with a filter "f-<id>"; mods adjust it.
func fw(id, action string, priority *int, expression string, mods ...func(*inventory.FirewallRule)) inventory.FirewallRule {
	r := inventory.FirewallRule{ID: id, Action: vocab.Action(action), Priority: priority, Filter: inventory.Filter{ID: "f-" + id, Expression: expression}}
	for _, m := range mods {
		m(&r)
	}
	return r
}

func withProducts(p ...string) func(*inventory.FirewallRule) {
	return func(r *inventory.FirewallRule) { r.Products = p }
}

func paused(r *inventory.FirewallRule) { r.Paused = true }

func withRef(ref string) func(*inventory.FirewallRule) {
	return func(r *inventory.FirewallRule) { r.Ref = ref }
}

func withDesc(d string) func(*inventory.FirewallRule) {
	return func(r *inventory.FirewallRule) { r.Description = d }
}

func codes(ds []Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Severity+":"+d.Code)
	}
	return out
}

func hasCode(ds []Diagnostic, sevCode string) bool { return slices.Contains(codes(ds), sevCode) }

func params(t *testing.T, r *inventory.RulesetRule) skipParams {
	t.Helper()
	var p skipParams
	if err := json.Unmarshal(r.ActionParameters, &p); err != nil {
		t.Fatalf("action_parameters %s: %v", r.ActionParameters, err)
	}
	return p
}

func hasChange(tr RuleTranslation, sub string) bool {
	return slices.ContainsFunc(tr.Changes, func(c string) bool { return strings.Contains(c, sub) })
}

func TestActionMapping(t *testing.T) {
	cases := []struct {
		action, plan string
		prods        []string
		want         string
		params       skipParams
		diag         string // a diagnostic expected on the rule ("" = no error)
		noRule       bool   // no rule at all
		excluded     bool   // a rule, but not in the ruleset
	}{
		{action: "block", want: "block"},
		{action: "challenge", want: "challenge"},
		{action: "js_challenge", want: "js_challenge"},
		{action: "managed_challenge", want: "managed_challenge"},
		{action: "log", plan: "enterprise", want: "log"},
		{action: "log", want: "log"}, // unknown plan: not checked
		{action: "log", plan: "free", want: "log", diag: "error:plan-log", excluded: true},
		{action: "log", plan: "pro", want: "log", diag: "error:plan-log", excluded: true},
		{action: "log", plan: "business", want: "log", diag: "error:plan-log", excluded: true},
		{action: "allow", want: "skip", params: skipParams{Ruleset: "current"}},
		{action: "bypass", prods: []string{"securityLevel", "uaBlock"}, want: "skip", params: skipParams{Products: []string{"securityLevel", "uaBlock"}}},
		{action: "bypass", prods: []string{"waf", "zoneLockdown", "rateLimit", "waf"}, want: "skip",
			params: skipParams{Products: []string{"waf", "zoneLockdown", "rateLimit"}, Phases: []string{"http_ratelimit", "http_request_firewall_managed"}}},
		{action: "bypass", prods: []string{"bic", "newThing"}, want: "skip", params: skipParams{Products: []string{"bic", "newThing"}}, diag: "warning:products"},
		{action: "bypass", diag: "error:products", noRule: true},
		{action: "sandbox", diag: "error:action", noRule: true},
	}
	for _, c := range cases {
		t.Run(c.action+"/"+c.plan+"/"+strings.Join(c.prods, ","), func(t *testing.T) {
			res := Translate([]inventory.FirewallRule{fw("r1", c.action, prio(1), `http.host eq "a.example"`, withProducts(c.prods...))}, Options{Plan: c.plan})
			if len(res.Rules) != 1 {
				t.Fatalf("%d translations", len(res.Rules))
			}
			tr := res.Rules[0]
			if c.diag != "" && !hasCode(tr.Diagnostics, c.diag) {
				t.Errorf("diagnostics %v, want %s", codes(tr.Diagnostics), c.diag)
			}
			if c.diag == "" && len(tr.Diagnostics) > 0 {
				t.Errorf("unexpected diagnostics %v", tr.Diagnostics)
			}
			if c.noRule {
				if tr.Rule != nil || tr.Index != -1 || len(res.Ruleset) != 0 {
					t.Errorf("want no rule, got %+v at %d", tr.Rule, tr.Index)
				}
				return
			}
			if tr.Rule == nil || tr.Rule.Action != vocab.Action(c.want) {
				t.Fatalf("rule %+v, want action %s", tr.Rule, c.want)
			}
			if c.excluded != (tr.Index == -1) || c.excluded != (len(res.Ruleset) == 0) {
				t.Errorf("excluded: index %d, ruleset %d rules, want excluded=%t", tr.Index, len(res.Ruleset), c.excluded)
			}
			if c.want == "skip" {
				if got := params(t, tr.Rule); !reflect.DeepEqual(got, c.params) {
					t.Errorf("params %+v, want %+v", got, c.params)
				}
				if !hasChange(tr, "skip rules log matching requests by default") {
					t.Errorf("changes %q do not mention the default logging", tr.Changes)
				}
				if tr.Rule.Logging != nil {
					t.Errorf("logging %s, want the default", tr.Rule.Logging)
				}
			} else if tr.Rule.ActionParameters != nil {
				t.Errorf("action_parameters %s on %s", tr.Rule.ActionParameters, c.want)
			}
			if len(c.params.Phases) > 0 && !hasChange(tr, "(derived)") {
				t.Errorf("derived phases not said in changes: %q", tr.Changes)
			}
			if *tr.Rule.Enabled != true || tr.Rule.Expression != `http.host eq "a.example"` || tr.Rule.Ref != "r1" {
				t.Errorf("rule %+v", tr.Rule)
			}
		})
	}
}

func TestAllowBypassMerge(t *testing.T) {
	office := `ip.src in {198.51.100.0/24}`
	t.Run("same priority", func(t *testing.T) {
		res := Translate([]inventory.FirewallRule{
			fw("allow1", "allow", prio(10), office, withDesc("Allow office"), withRef("OFF-1")),
			fw("block1", "block", prio(10), `http.request.uri.path contains "/admin"`),
			// The same expression spelled differently still pairs.
			fw("bypass1", "bypass", prio(10), `(ip.src in {198.51.100.0/24})`, withProducts("waf", "securityLevel"), withDesc("Skip WAF")),
		}, Options{})
		if len(res.Rules) != 2 || len(res.Ruleset) != 2 {
			t.Fatalf("%d translations, %d rules", len(res.Rules), len(res.Ruleset))
		}
		m := res.Rules[0]
		if !reflect.DeepEqual(m.FirewallRuleIDs, []string{"bypass1", "allow1"}) {
			t.Errorf("merged ids %v", m.FirewallRuleIDs)
		}
		want := skipParams{Ruleset: "current", Products: []string{"waf", "securityLevel"}, Phases: []string{"http_request_firewall_managed"}}
		if got := params(t, m.Rule); !reflect.DeepEqual(got, want) {
			t.Errorf("params %+v", got)
		}
		if m.Rule.Description != "Skip WAF + Allow office" || m.Rule.Ref != "OFF-1" {
			t.Errorf("description %q ref %q", m.Rule.Description, m.Rule.Ref)
		}
		if !hasChange(m, "merged bypass bypass1 and allow allow1") || !hasChange(m, "spells the expression differently") {
			t.Errorf("changes %q", m.Changes)
		}
	})
	t.Run("neighbours across priorities", func(t *testing.T) {
		res := Translate([]inventory.FirewallRule{
			fw("b", "bypass", prio(5), office, withProducts("hot")),
			fw("a", "allow", prio(9), office),
			fw("x", "block", prio(20), `ssl`),
		}, Options{})
		if len(res.Ruleset) != 2 || len(res.Rules[0].FirewallRuleIDs) != 2 {
			t.Fatalf("not merged: %+v", res.Rules)
		}
	})
	t.Run("rule between", func(t *testing.T) {
		res := Translate([]inventory.FirewallRule{
			fw("b", "bypass", prio(5), office, withProducts("hot")),
			fw("x", "challenge", prio(7), `http.request.uri.path eq "/login"`),
			fw("a", "allow", prio(9), office),
		}, Options{})
		if len(res.Ruleset) != 3 {
			t.Fatalf("merged across a rule: %d rules", len(res.Ruleset))
		}
		if !hasCode(res.Rules[0].Diagnostics, "info:order") {
			t.Errorf("bypass kept apart without a word: %v", res.Rules[0].Diagnostics)
		}
	})
	t.Run("allow first", func(t *testing.T) {
		res := Translate([]inventory.FirewallRule{
			fw("a", "allow", prio(1), office),
			fw("b", "bypass", prio(2), office, withProducts("waf")),
		}, Options{})
		if len(res.Ruleset) != 2 || res.Rules[0].FirewallRuleIDs[0] != "a" {
			t.Fatalf("rules %+v", res.Rules)
		}
		if d := res.Rules[1].Diagnostics; !hasCode(d, "info:order") || !strings.Contains(d[0].Message, "never takes effect") {
			t.Errorf("shadowed bypass: %v", d)
		}
	})
	t.Run("paused differs", func(t *testing.T) {
		res := Translate([]inventory.FirewallRule{
			fw("a", "allow", prio(1), office, paused),
			fw("b", "bypass", prio(1), office, withProducts("waf")),
		}, Options{})
		if len(res.Ruleset) != 2 {
			t.Fatalf("merged a paused allow with an active bypass")
		}
	})
	t.Run("two pairs at one priority", func(t *testing.T) {
		other := `http.request.uri.path eq "/health"`
		res := Translate([]inventory.FirewallRule{
			fw("b1", "bypass", prio(1), office, withProducts("waf")),
			fw("b2", "bypass", prio(1), other, withProducts("hot")),
			fw("a1", "allow", prio(1), office),
			fw("a2", "allow", prio(1), other),
		}, Options{})
		// Only one pair can be neighbours; merging the second would drop its
		// products for requests that match both expressions.
		if len(res.Ruleset) != 3 {
			t.Fatalf("%d rules, want 3", len(res.Ruleset))
		}
		merged := 0
		for _, tr := range res.Rules {
			if len(tr.FirewallRuleIDs) == 2 {
				merged++
			}
		}
		if merged != 1 {
			t.Errorf("%d merged pairs", merged)
		}
	})
}

func TestEnabledDescriptionRef(t *testing.T) {
	long := strings.Repeat("é", 600)
	res := Translate([]inventory.FirewallRule{
		fw("p", "block", prio(1), `ssl`, paused),
		fw("fp", "block", prio(2), `ssl`, func(r *inventory.FirewallRule) { r.Filter.Paused = true; r.Filter.Description = "from the filter" }),
		fw("r", "block", prio(3), `ssl`, withRef("TICKET-9"), withDesc(long)),
		fw("", "block", prio(4), `ssl`),
	}, Options{})
	p, fp, r, noID := res.Rules[0], res.Rules[1], res.Rules[2], res.Rules[3]
	if *p.Rule.Enabled || !hasChange(p, "paused -> enabled false") {
		t.Errorf("paused rule: enabled %v, changes %q", *p.Rule.Enabled, p.Changes)
	}
	if !*fp.Rule.Enabled || !hasChange(fp, "filter's own flag is ignored") {
		t.Errorf("paused filter: enabled %v, changes %q", *fp.Rule.Enabled, fp.Changes)
	}
	if fp.Rule.Description != "from the filter" || !hasChange(fp, "description taken from filter f-fp") {
		t.Errorf("filter description: %q %q", fp.Rule.Description, fp.Changes)
	}
	if fp.Rule.Ref != "fp" || !hasChange(fp, "ref set to the firewall rule id fp") {
		t.Errorf("ref %q", fp.Rule.Ref)
	}
	if r.Rule.Ref != "TICKET-9" || len([]rune(r.Rule.Description)) != 500 || !hasChange(r, "cut to 500") {
		t.Errorf("ref %q, description of %d characters", r.Rule.Ref, len([]rune(r.Rule.Description)))
	}
	if noID.Rule.Ref != "" {
		t.Errorf("ref %q for a rule without id", noID.Rule.Ref)
	}
}

func TestExpressionTranslation(t *testing.T) {
	cases := []struct {
		name, src, plan string
		want            string // translated expression
		valid           bool
		diags           []string // severity:code expected (all of them, in order)
		changes         []string // substrings expected in Changes
	}{
		{name: "unchanged", src: `http.host eq "a.example"`, want: `http.host eq "a.example"`, valid: true},
		{name: "canonical", src: `(http.request.uri.path ~ "^/a$")&&ssl`, want: `http.request.uri.path matches "^/a$" and ssl`, valid: true,
			changes: []string{"canonical form"}},
		{name: "renames", src: `ip.geoip.country eq "GB" or ip.geoip.asnum == 64500`, want: `ip.src.country eq "GB" or ip.src.asnum eq 64500`, valid: true,
			diags:   []string{"info:renamed-field", "info:renamed-field"},
			changes: []string{"renamed ip.geoip.country to ip.src.country", "renamed ip.geoip.asnum to ip.src.asnum", "canonical form"}},
		{name: "rename only", src: `ip.geoip.continent eq "EU"`, want: `ip.src.continent eq "EU"`, valid: true, diags: []string{"info:renamed-field"}},
		{name: "regex free", src: `http.request.uri.path matches "^/a"`, plan: "free", diags: []string{"error:plan-regex"}, want: `http.request.uri.path matches "^/a"`},
		{name: "regex pro", src: `http.request.uri.path ~ "^/a"`, plan: "pro", diags: []string{"error:plan-regex"}, want: `http.request.uri.path matches "^/a"`},
		{name: "regex business", src: `http.request.uri.path ~ "^/a"`, plan: "business", want: `http.request.uri.path matches "^/a"`, valid: true},
		{name: "regex enterprise", src: `http.request.uri.path ~ "^/a"`, plan: "enterprise", want: `http.request.uri.path matches "^/a"`, valid: true},
		{name: "regex unknown plan", src: `http.request.uri.path ~ "^/a"`, want: `http.request.uri.path matches "^/a"`, valid: true},
		{name: "business field on pro", src: `ip.src.is_in_european_union`, plan: "pro", want: `ip.src.is_in_european_union`, diags: []string{"error:plan-field"}},
		{name: "business field on business", src: `ip.src.is_in_european_union`, plan: "business", want: `ip.src.is_in_european_union`, valid: true},
		{name: "renamed business field on free", src: `ip.geoip.is_in_european_union`, plan: "free", want: `ip.src.is_in_european_union`,
			diags: []string{"error:plan-field", "info:renamed-field"}},
		{name: "enterprise field on business", src: `cf.bot_management.score lt 30`, plan: "business", want: `cf.bot_management.score lt 30`, diags: []string{"error:plan-field"}},
		{name: "enterprise field on enterprise", src: `cf.bot_management.score lt 30`, plan: "enterprise", want: `cf.bot_management.score lt 30`, valid: true},
		{name: "pro function on free", src: `is_timed_hmac_valid_v0("secret", http.request.uri, 100000, http.request.timestamp.sec, 8)`, plan: "free",
			want: `is_timed_hmac_valid_v0("secret", http.request.uri, 100000, http.request.timestamp.sec, 8)`, diags: []string{"error:plan-function"}},
		{name: "type error", src: `http.host eq 1`, want: `http.host eq 1`, diags: []string{"error:type-mismatch"}},
		{name: "unknown field", src: `ip.addr eq 192.0.2.1`, want: `ip.addr eq 192.0.2.1`, diags: []string{"error:unknown-field"}},
		{name: "transform-only function", src: `to_string(cf.bot_management.score) eq "1"`, want: `to_string(cf.bot_management.score) eq "1"`,
			diags: []string{"error:function-not-allowed"}},
		{name: "response field", src: `http.response.code eq 403`, want: `http.response.code eq 403`, diags: []string{"error:phase"}},
		{name: "unparsable", src: `ip.src in {1.2.3.4, 5.6.7.8}`, diags: []string{"error:parse"}},
		{name: "templated unparsable", src: `ip.src in {${join(" ", var.ips)}}`, diags: []string{"warning:templated"}},
		{name: "templated in a string", src: `http.host eq "${var.host}"`, want: `http.host eq "${var.host}"`, valid: true, diags: []string{"warning:templated"}},
		{name: "too long", src: strings.Repeat("ssl&&", 800) + "ssl", want: strings.Repeat("ssl and ", 800) + "ssl", diags: []string{"error:length"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := TranslateExpression(c.src, Options{Plan: c.plan})
			if r.Expression != c.want || r.Valid != c.valid || r.Input != c.src {
				t.Errorf("got %q valid=%t, want %q valid=%t; diagnostics %v", r.Expression, r.Valid, c.want, c.valid, r.Diagnostics)
			}
			if got := codes(r.Diagnostics); !slices.Equal(got, c.diags) {
				t.Errorf("diagnostics %v, want %v: %v", got, c.diags, r.Diagnostics)
			}
			for _, ch := range c.changes {
				if !slices.ContainsFunc(r.Changes, func(s string) bool { return strings.Contains(s, ch) }) {
					t.Errorf("changes %q lack %q", r.Changes, ch)
				}
			}
			if r.Changes == nil || r.Diagnostics == nil {
				t.Error("nil slices (they encode as null)")
			}
		})
	}
}

func TestDiagnosticPositionsAreInTheOriginal(t *testing.T) {
	// The rename makes the text longer before the error; the position must
	// still be the original's.
	src := "ip.geoip.country eq \"GB\" and\n  http.host eq 1"
	r := TranslateExpression(src, Options{})
	var tm *Diagnostic
	for i, d := range r.Diagnostics {
		if d.Code == "type-mismatch" {
			tm = &r.Diagnostics[i]
		}
	}
	if tm == nil || tm.Line != 2 || tm.Column != 16 {
		t.Fatalf("type error at %+v, want 2:16", tm)
	}
	want := "2:16: error: http.host is String and cannot be compared with Int 1 using eq [type-mismatch]\n  http.host eq 1\n               ^"
	if got := tm.Render(src); got != want {
		t.Errorf("render:\n%s\nwant:\n%s", got, want)
	}
}

// The checker's diagnostics are this package's: they pass through with their byte offsets
// (which split the "plan" code), and a set-level diagnostic has no position in its text or
// in the JSON, which carries the line and column only.
func TestOneDiagnosticTypeWithTheChecker(t *testing.T) {
	src := `http.request.uri.path matches "^/wp-"`
	r := TranslateExpression(src, Options{Plan: "pro"})
	var regex *Diagnostic
	for i, d := range r.Diagnostics {
		if d.Code == CodePlanRegex {
			regex = &r.Diagnostics[i]
		}
	}
	if regex == nil || src[regex.Offset:regex.End] != "matches" || regex.Line != 1 || regex.Column != 23 {
		t.Fatalf("plan-regex diagnostic %+v, want it on \"matches\" at 1:23", regex)
	}
	js, err := json.Marshal(regex)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"severity":"error","code":"plan-regex","message":"` + regex.Message + `","line":1,"column":23}`; string(js) != want {
		t.Errorf("JSON %s, want %s", js, want)
	}

	rules := []inventory.FirewallRule{fw("r1", "block", nil, `ssl`), fw("r2", "block", nil, `ssl`)}
	res := Translate(rules, Options{Plan: "free", Existing: make([]inventory.RulesetRule, 5)})
	i := slices.IndexFunc(res.Diagnostics, func(d Diagnostic) bool { return d.Code == CodeQuota })
	if i < 0 {
		t.Fatalf("no quota diagnostic in %v", res.Diagnostics)
	}
	if got := res.Diagnostics[i].String(); !strings.HasPrefix(got, "error: ") || !strings.HasSuffix(got, " [quota]") {
		t.Errorf("set-level diagnostic %q, want no position", got)
	}
	if got := res.Diagnostics[i].Render(`ssl`); got != res.Diagnostics[i].String() {
		t.Errorf("set-level render %q draws a caret", got)
	}
}

func TestParseErrorRender(t *testing.T) {
	src := `ip.src in {1.2.3.4, 5.6.7.8}`
	r := TranslateExpression(src, Options{})
	if len(r.Diagnostics) == 0 {
		t.Fatal("no diagnostics")
	}
	d := r.Diagnostics[0]
	if d.Line != 1 || d.Column != 19 {
		t.Errorf("at %d:%d, want 1:19", d.Line, d.Column)
	}
	want := "1:19: error: expected a set element, found \",\": set elements are separated by spaces, not commas [parse]\nip.src in {1.2.3.4, 5.6.7.8}\n                  ^"
	if got := d.Render(src); got != want {
		t.Errorf("render:\n%s\nwant:\n%s", got, want)
	}
	res := Translate([]inventory.FirewallRule{fw("x", "block", nil, src)}, Options{})
	if res.Rules[0].Rule != nil || res.Rules[0].Index != -1 || len(res.Ruleset) != 0 || res.Rules[0].NewExpression != "" {
		t.Errorf("unparsable: %+v", res.Rules[0])
	}
}

func TestThreatScore(t *testing.T) {
	cases := []struct {
		src, effect string
		facts       []string
	}{
		{`cf.threat_score gt 10`, "never matches", []string{"`cf.threat_score gt 10` is always false"}},
		{`cf.threat_score lt 10`, "matches every request", []string{"`cf.threat_score lt 10` is always true"}},
		{`cf.threat_score ge 0`, "matches every request", nil},
		{`cf.threat_score in {1..5 20}`, "never matches", []string{"is always false"}},
		{`cf.threat_score in {0..5}`, "matches every request", nil},
		{`ip.src.country eq "CN" or cf.threat_score gt 10`, `as if written: ip.src.country eq "CN"`, nil},
		{`ip.src.country eq "CN" and not cf.threat_score gt 10`, `as if written: ip.src.country eq "CN"`, nil},
		{`ssl xor cf.threat_score le 5`, `as if written: not ssl`, nil},
		{`cf.threat_score gt 14 and not cf.client.bot`, "never matches", nil},
	}
	for _, c := range cases {
		t.Run(c.src, func(t *testing.T) {
			r := TranslateExpression(c.src, Options{})
			if r.Valid || r.Expression == "" {
				t.Errorf("valid=%t expression %q: a threat score condition must not translate silently", r.Valid, r.Expression)
			}
			var msgs []string
			for _, d := range r.Diagnostics {
				if d.Code == CodeThreatScore && d.Severity == SeverityError {
					msgs = append(msgs, d.Message)
				}
			}
			all := strings.Join(msgs, "\n")
			if len(msgs) < 2 || !strings.Contains(msgs[len(msgs)-1], c.effect) {
				t.Errorf("threat-score errors %q, want the effect %q last", msgs, c.effect)
			}
			for _, f := range c.facts {
				if !strings.Contains(all, f) {
					t.Errorf("messages %q lack %q", msgs, f)
				}
			}
		})
	}
	res := Translate([]inventory.FirewallRule{
		fw("t", "block", prio(1), `cf.threat_score gt 14`),
		fw("tp", "block", prio(2), `cf.threat_score gt 20`, paused),
	}, Options{Plan: "free"})
	tr := res.Rules[0]
	if tr.Rule == nil || *tr.Rule.Enabled || tr.Index != 0 || !hasChange(tr, "created disabled") {
		t.Errorf("threat score rule: %+v index %d changes %q", tr.Rule, tr.Index, tr.Changes)
	}
	if tp := res.Rules[1]; hasChange(tp, "created disabled") || !hasChange(tp, "paused -> enabled false") || tp.Index != 1 {
		t.Errorf("paused threat score rule: changes %q", tp.Changes)
	}
	if e, _ := res.Counts(); e == 0 {
		t.Error("no errors counted")
	}
}

func TestOrdering(t *testing.T) {
	t.Run("priority, null last, ties by precedence, then input order", func(t *testing.T) {
		rules := []inventory.FirewallRule{
			fw("n-block", "block", nil, `ssl`),
			fw("n-log", "log", nil, `ssl`),
			fw("2-block", "block", prio(2), `ssl`),
			fw("1-block", "block", prio(1), `ssl`),
			fw("1-js", "js_challenge", prio(1), `ssl`),
			fw("1-managed", "managed_challenge", prio(1), `ssl`),
			fw("1-challenge", "challenge", prio(1), `ssl`),
			fw("1-allow", "allow", prio(1), `ssl`),
			fw("1-bypass", "bypass", prio(1), `not ssl`, withProducts("waf")),
			fw("1-log", "log", prio(1), `ssl`),
			fw("1-block-b", "block", prio(1), `ssl`),
			fw("0-challenge", "challenge", prio(0), `ssl`),
		}
		res := Translate(rules, Options{})
		var got []string
		for _, tr := range res.Rules {
			got = append(got, tr.FirewallRuleIDs...)
		}
		want := []string{"0-challenge", "1-log", "1-bypass", "1-allow", "1-challenge", "1-managed", "1-js", "1-block", "1-block-b", "2-block", "n-log", "n-block"}
		if !slices.Equal(got, want) {
			t.Errorf("order\n got %v\nwant %v", got, want)
		}
		for i, tr := range res.Rules {
			if tr.Index != i {
				t.Errorf("%v at index %d, want %d", tr.FirewallRuleIDs, tr.Index, i)
			}
		}
		// The log rules run after terminating rules here: said, not hidden.
		if !hasCode(res.Rules[1].Diagnostics, "info:order") || !hasCode(res.Rules[10].Diagnostics, "info:order") {
			t.Errorf("log after terminating rules without an order note: %v / %v", res.Rules[1].Diagnostics, res.Rules[10].Diagnostics)
		}
	})
	t.Run("log first at equal priority needs no note", func(t *testing.T) {
		res := Translate([]inventory.FirewallRule{
			fw("b", "block", prio(1), `ssl`), fw("l", "log", prio(1), `ssl`),
		}, Options{Plan: "enterprise"})
		if res.Rules[0].FirewallRuleIDs[0] != "l" || len(res.Rules[0].Diagnostics) != 0 {
			t.Errorf("%+v", res.Rules[0])
		}
	})
	t.Run("left-out rules keep their place in Rules", func(t *testing.T) {
		res := Translate([]inventory.FirewallRule{
			fw("a", "block", prio(1), `ssl`),
			fw("b", "block", prio(2), `http.request.uri.path ~ "x"`),
			fw("c", "block", prio(3), `ssl`),
		}, Options{Plan: "pro"})
		if got := []int{res.Rules[0].Index, res.Rules[1].Index, res.Rules[2].Index}; !slices.Equal(got, []int{0, -1, 1}) {
			t.Errorf("indexes %v", got)
		}
		if !hasChange(res.Rules[1], "left out of the ruleset") {
			t.Errorf("changes %q", res.Rules[1].Changes)
		}
	})
}

func TestQuota(t *testing.T) {
	existing := []inventory.RulesetRule{
		{ID: "e1", Action: "block", Expression: `not ssl`}, {ID: "e2", Action: "log", Expression: `ssl`},
		{ID: "e3", Action: "skip", Expression: `ssl`, ActionParameters: json.RawMessage(`{"products":["waf"]}`)},
		{ID: "e4", Action: "block", Expression: `ssl`, Enabled: new(bool)},
	}
	rules := []inventory.FirewallRule{
		fw("r1", "block", prio(1), `ssl`), fw("r2", "block", prio(2), `ssl`, withDesc("second")), fw("r3", "block", prio(3), `ssl`),
	}
	res := Translate(rules, Options{Plan: "free", Existing: existing})
	if res.Quota != 5 || len(res.Ruleset) != 5 {
		t.Fatalf("quota %d, %d rules", res.Quota, len(res.Ruleset))
	}
	if res.Ruleset[0].ID != "e1" || res.Ruleset[4].Ref != "r1" {
		t.Errorf("ruleset %+v", res.Ruleset)
	}
	var quota *Diagnostic
	for i, d := range res.Diagnostics {
		if d.Code == CodeQuota {
			quota = &res.Diagnostics[i]
		}
	}
	if quota == nil || quota.Severity != SeverityError || !strings.Contains(quota.Message, `r2 ("second"), r3`) || strings.Contains(quota.Message, "r1") {
		t.Errorf("quota diagnostic %+v", quota)
	}
	if !hasCode(res.Rules[1].Diagnostics, "error:quota") || res.Rules[1].Index != -1 || res.Rules[0].Index != 4 {
		t.Errorf("r2: %v index %d", res.Rules[1].Diagnostics, res.Rules[1].Index)
	}
	// Only e1 stops evaluation (e2 logs, e3 skips products, e4 is disabled).
	if !hasCode(res.Diagnostics, "info:order") || !strings.Contains(res.Diagnostics[len(res.Diagnostics)-1].Message, "(1: e1)") {
		t.Errorf("existing-order note: %v", res.Diagnostics)
	}
	for plan, q := range map[string]int{"free": 5, "pro": 20, "business": 100, "enterprise": 1000, "": 0, "partner": 0} {
		if Quota(plan) != q {
			t.Errorf("Quota(%q) = %d, want %d", plan, Quota(plan), q)
		}
	}
}

func TestIdempotence(t *testing.T) {
	rules := []inventory.FirewallRule{
		fw("a", "allow", prio(1), `ip.src in {192.0.2.0/24}`),
		fw("b", "bypass", prio(1), `ip.src in {192.0.2.0/24}`, withProducts("waf")),
		fw("c", "block", prio(2), `ssl`, withRef("MIR-31")),
		fw("d", "challenge", prio(3), `ip.geoip.country eq "T1"`),
	}
	existing := []inventory.RulesetRule{{ID: "x", Action: "block", Expression: `http.host eq "x"`, Ref: "manual"}}
	first := Translate(rules, Options{Plan: "business", Existing: existing})
	if len(first.Ruleset) != 4 {
		t.Fatalf("first run: %d rules", len(first.Ruleset))
	}
	// The entry point after the PUT: ids assigned by the API.
	after := slices.Clone(first.Ruleset)
	for i := range after {
		if after[i].ID == "" {
			after[i].ID = "new" + string(rune('0'+i))
		}
	}
	second := Translate(rules, Options{Plan: "business", Existing: after})
	if !reflect.DeepEqual(second.Ruleset, after) {
		t.Errorf("second run changes the entry point:\n%+v\n%+v", second.Ruleset, after)
	}
	for _, tr := range second.Rules {
		if !hasChange(tr, "already migrated") || tr.Rule == nil || tr.Index < 1 || after[tr.Index].ID != tr.Rule.ID {
			t.Errorf("%v: %q index %d", tr.FirewallRuleIDs, tr.Changes, tr.Index)
		}
	}
}

// TestRecognisedByMeaning: custom rules another tool wrote (its own refs, descriptions,
// spelling and order) stand for the firewall rules they do the same as: nothing is added
// twice; each existing rule stands for one firewall rule at most, and one that does
// something else (disabled, another action) stands for none.
func TestRecognisedByMeaning(t *testing.T) {
	rules := []inventory.FirewallRule{
		fw("a", "block", prio(1), `http.request.uri.path eq "/xmlrpc.php"`),
		fw("b", "challenge", prio(2), `ip.geoip.country in {"T1" "XX"}`),
		fw("c", "block", prio(3), `ssl`),
		fw("d", "block", prio(4), `ssl`),
		fw("e", "allow", prio(5), `ip.src in {192.0.2.0/24}`),
	}
	existing := []inventory.RulesetRule{
		{ID: "t1", Action: "challenge", Expression: `(ip.src.country in {"XX" "T1"})`, Ref: "tf_geo", Description: "Terraform"},
		{ID: "t2", Action: "block", Expression: `http.request.uri.path == "/xmlrpc.php"`, Ref: "t2"},
		{ID: "t3", Action: "block", Expression: `ssl`, Ref: "tf_ssl"},
		{ID: "t4", Action: "skip", Expression: `ip.src in {192.0.2.0/24}`, ActionParameters: json.RawMessage(`{"ruleset":"current"}`), Enabled: new(bool)},
	}
	res := Translate(rules, Options{Plan: "business", Existing: existing})
	got := map[string]string{}
	for _, tr := range res.Rules {
		got[tr.FirewallRuleIDs[0]] = fmt.Sprintf("%s %d", tr.Match, tr.Index)
	}
	want := map[string]string{"a": "meaning 1", "b": "meaning 0", "c": "meaning 2", "d": " 4", "e": " 5"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("matches %v, want %v", got, want)
	}
	if len(res.Ruleset) != 6 {
		t.Fatalf("ruleset of %d rules, want the 4 existing and 2 new (d: one ssl block stands for c only; e: the existing skip is disabled)", len(res.Ruleset))
	}
	if !hasChange(res.Rules[0], `already there: custom rule t2 (ref "t2") does the same`) {
		t.Errorf("changes %q", res.Rules[0].Changes)
	}
}
