package emulator

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// TestCombinedCreate covers the spec's rules 1-5 of POST /zones/:id/firewall/rules with an
// inline filter, one case per failure mode.
func TestCombinedCreate(t *testing.T) {
	type item = map[string]any
	tests := []struct {
		name        string
		zone        string
		body        []item
		status      int
		code        int
		wantFilters int // filters added by the call
		wantRules   int // rules added by the call
		msgContains string
	}{
		{name: "rule 1: filter then rule", zone: freeZone,
			body:   []item{{"filter": item{"expression": `http.request.uri.path contains "/admin"`}, "action": "block"}},
			status: 200, wantFilters: 1, wantRules: 1},
		{name: "rule 2: blank expression", zone: freeZone,
			body:   []item{{"filter": item{"expression": "  "}, "action": "block"}},
			status: 400, code: CodeBlankExpression},
		{name: "rule 2: expression does not parse", zone: freeZone,
			body:   []item{{"filter": item{"expression": `(http.request.uri.path contains "/a"`}, "action": "block"}},
			status: 400, code: CodeInvalidExpression, msgContains: "Filter parsing error"},
		{name: "rule 2: unknown action", zone: freeZone,
			body:   []item{{"filter": item{"expression": `ip.src eq 198.51.100.7`}, "action": "explode"}},
			status: 400, code: CodeInvalid, msgContains: "unknown firewall rule action"},
		{name: "rule 2: bypass without products", zone: freeZone,
			body:   []item{{"filter": item{"expression": `ip.src eq 198.51.100.7`}, "action": "bypass"}},
			status: 400, code: CodeInvalid, msgContains: "needs products"},
		{name: "rule 2: products on a non-bypass rule", zone: freeZone,
			body:   []item{{"filter": item{"expression": `ip.src eq 198.51.100.7`}, "action": "block", "products": []string{"waf"}}},
			status: 400, code: CodeInvalid, msgContains: "only allowed with the bypass"},
		{name: "rule 2: one invalid item stops the whole batch", zone: freeZone,
			body: []item{{"filter": item{"expression": `ip.src eq 198.51.100.8`}, "action": "block"},
				{"filter": item{"expression": `ip.src eq 198.51.100.9`}, "action": "nope"}},
			status: 400, code: CodeInvalid, msgContains: "item 1"},
		{name: "rule 2: duplicate filter expression", zone: bizZone,
			body:   []item{{"filter": item{"expression": `http.request.uri.path ~ "^/wp-login.php$"`}, "action": "block"}},
			status: 400, code: CodeDuplicateFilter},
		{name: "rule 3: quota exceeded keeps the filter", zone: fullZone,
			body:   []item{{"filter": item{"expression": `ip.src eq 203.0.113.9`}, "action": "block"}},
			status: 400, code: CodeQuotaExceeded, wantFilters: 1, msgContains: "filters created"},
		{name: "unavailable feature: regex on free keeps the filter", zone: freeZone,
			body:   []item{{"filter": item{"expression": `http.request.uri.path matches "^/x"`}, "action": "block"}},
			status: 403, code: CodeFeatureUnavailable, wantFilters: 1, msgContains: "regular expression"},
		{name: "unavailable feature: log below enterprise keeps the filter", zone: bizZone,
			body:   []item{{"filter": item{"expression": `ip.src eq 203.0.113.10`}, "action": "log"}},
			status: 403, code: CodeFeatureUnavailable, wantFilters: 1, msgContains: "log action"},
		{name: "regex is fine on business", zone: bizZone,
			body:   []item{{"filter": item{"expression": `http.request.uri.path ~ "^/y"`}, "action": "challenge"}},
			status: 200, wantFilters: 1, wantRules: 1},
		{name: "log is fine on enterprise; bypass with products", zone: entZone,
			body: []item{{"filter": item{"expression": `ip.src eq 203.0.113.11`}, "action": "log"},
				{"filter": item{"expression": `ip.src eq 203.0.113.12`}, "action": "bypass", "products": []string{"waf", "uaBlock"}}},
			status: 200, wantFilters: 2, wantRules: 2},
		{name: "unknown filter id in the two-call form", zone: freeZone,
			body:   []item{{"filter": item{"id": id(0xdead)}, "action": "block"}},
			status: 400, code: CodeNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Options{})
			f0, r0 := h.counts(tc.zone)
			res := h.do("POST", "/zones/"+tc.zone+"/firewall/rules", tc.body)
			if res.status != tc.status {
				t.Fatalf("status %d, want %d (errors %+v)", res.status, tc.status, res.env.Errors)
			}
			if tc.code != 0 && res.code() != tc.code {
				t.Errorf("code %d, want %d (errors %+v)", res.code(), tc.code, res.env.Errors)
			}
			if tc.msgContains != "" && (len(res.env.Errors) == 0 || !strings.Contains(joinErrors(res.env.Errors), tc.msgContains)) {
				t.Errorf("errors %+v do not mention %q", res.env.Errors, tc.msgContains)
			}
			f1, r1 := h.counts(tc.zone)
			if f1-f0 != tc.wantFilters || r1-r0 != tc.wantRules {
				t.Errorf("created %d filters and %d rules, want %d and %d", f1-f0, r1-r0, tc.wantFilters, tc.wantRules)
			}
			if tc.status == 200 {
				var rules []inventory.FirewallRule
				res.into(t, &rules)
				for _, r := range rules {
					if len(r.ID) != 32 || len(r.Filter.ID) != 32 || r.Filter.Expression == "" || r.Paused || r.Priority != nil {
						t.Errorf("created rule %+v lacks id, filter id/expression, or has paused/priority set", r)
					}
				}
			}
			if res.status != 200 && tc.wantFilters > 0 && len(res.env.Messages) == 0 {
				t.Errorf("a failure that kept filters must say so in messages")
			}
		})
	}
}

func joinErrors(errs []APIError) string {
	var b strings.Builder
	for _, e := range errs {
		b.WriteString(e.Message)
		b.WriteString("\n")
	}
	return b.String()
}

// TestCombinedFilterProtection covers rule 4 and the deletion order: the combined flow never
// modifies or deletes the filter it created (PUT on the filters endpoints is refused, and
// deleting the rule leaves the filter, with or without the old delete_filter_if_unused flag);
// the filters API deletes it once no rule refers to it, and refuses while one does.
func TestCombinedFilterProtection(t *testing.T) {
	h := newHarness(t, Options{})
	res := h.mustOK("POST", "/zones/"+freeZone+"/firewall/rules", []map[string]any{{"filter": map[string]any{"expression": `ip.src eq 192.0.2.77`}, "action": "block"}})
	var rules []inventory.FirewallRule
	res.into(t, &rules)
	rule, filter := rules[0].ID, rules[0].Filter.ID

	put := h.do("PUT", "/zones/"+freeZone+"/filters/"+filter, map[string]any{"expression": `ip.src eq 192.0.2.78`})
	if put.status != 400 || put.code() != CodeFilterProtected {
		t.Errorf("PUT protected filter: %d %+v", put.status, put.env.Errors)
	}
	bulkPut := h.do("PUT", "/zones/"+freeZone+"/filters", []map[string]any{{"id": filter, "expression": `ip.src eq 192.0.2.78`}})
	if bulkPut.code() != CodeFilterProtected {
		t.Errorf("bulk PUT protected filter: %d %+v", bulkPut.status, bulkPut.env.Errors)
	}
	del := h.do("DELETE", "/zones/"+freeZone+"/filters/"+filter, nil)
	if del.status != 400 || del.code() != CodeFilterInUse || del.env.Success || string(del.env.Result) != "null" {
		t.Errorf("DELETE of a filter a rule refers to: %d %s %+v", del.status, del.env.Result, del.env.Errors)
	}
	// The rule's own PUT cannot rewrite the expression inline either.
	inline := h.do("PUT", "/zones/"+freeZone+"/firewall/rules/"+rule, map[string]any{"action": "block", "filter": map[string]any{"expression": "ip.src eq 192.0.2.79"}})
	if inline.status != 400 {
		t.Errorf("PUT rule with an inline filter: %d", inline.status)
	}
	h.mustOK("DELETE", "/zones/"+freeZone+"/firewall/rules/"+rule+"?delete_filter_if_unused=true", nil)
	if g := h.do("GET", "/zones/"+freeZone+"/filters/"+filter, nil); g.status != 200 {
		t.Errorf("deleting the rule deleted its filter: %d", g.status)
	}
	var gone map[string]string
	h.mustOK("DELETE", "/zones/"+freeZone+"/filters/"+filter, nil).into(t, &gone)
	if gone["id"] != filter {
		t.Errorf("DELETE filter answered %v, want {\"id\": %s}", gone, filter)
	}
	if g := h.do("GET", "/zones/"+freeZone+"/filters/"+filter, nil); g.status != 404 {
		t.Errorf("filter still there after DELETE: %d", g.status)
	}
}

// TestCombinedFiltersBulkDelete: the bulk DELETE of the filters API deletes combined-create
// filters too once their rules are gone, all or none.
func TestCombinedFiltersBulkDelete(t *testing.T) {
	h := newHarness(t, Options{})
	res := h.mustOK("POST", "/zones/"+proZone+"/firewall/rules", []map[string]any{
		{"filter": map[string]any{"expression": `ip.src eq 192.0.2.81`}, "action": "block"},
		{"filter": map[string]any{"expression": `ip.src eq 192.0.2.82`}, "action": "challenge"}})
	var rules []inventory.FirewallRule
	res.into(t, &rules)
	h.mustOK("DELETE", "/zones/"+proZone+"/firewall/rules/"+rules[0].ID, nil)
	both := "/zones/" + proZone + "/filters?id=" + rules[0].Filter.ID + "&id=" + rules[1].Filter.ID
	if r := h.do("DELETE", both, nil); r.code() != CodeFilterInUse {
		t.Errorf("bulk DELETE with a filter still in use: %d %+v", r.status, r.env.Errors)
	}
	if f, _ := h.counts(proZone); f != 2 {
		t.Errorf("a refused bulk DELETE deleted filters: %d left", f)
	}
	h.mustOK("DELETE", "/zones/"+proZone+"/firewall/rules/"+rules[1].ID, nil)
	h.mustOK("DELETE", both, nil)
	if f, r := h.counts(proZone); f != 0 || r != 0 {
		t.Errorf("after both deletions: %d filters, %d rules", f, r)
	}
}

// TestTwoCallSequence covers the recommended sequence: POST /filters, then POST
// /firewall/rules referring to it; the filter cannot be deleted while a rule uses it; rule
// first, then filter.
func TestTwoCallSequence(t *testing.T) {
	h := newHarness(t, Options{})
	res := h.mustOK("POST", "/zones/"+proZone+"/filters", []map[string]any{{"expression": `http.host eq "pro.example"`, "description": "host"}})
	var filters []inventory.Filter
	res.into(t, &filters)
	fid := filters[0].ID

	dup := h.do("POST", "/zones/"+proZone+"/filters", []map[string]any{{"expression": `http.host eq "pro.example"`}})
	if dup.code() != CodeDuplicateFilter {
		t.Errorf("duplicate filter: %d %+v", dup.status, dup.env.Errors)
	}

	res = h.mustOK("POST", "/zones/"+proZone+"/firewall/rules", []map[string]any{{"filter": map[string]any{"id": fid}, "action": "managed_challenge", "priority": 5}})
	var rules []inventory.FirewallRule
	res.into(t, &rules)
	if rules[0].Filter.ID != fid || rules[0].Filter.Expression != `http.host eq "pro.example"` || rules[0].Priority == nil || *rules[0].Priority != 5 {
		t.Fatalf("rule %+v does not refer to filter %s", rules[0], fid)
	}
	// A second feature reuses the same filter.
	h.mustOK("POST", "/zones/"+proZone+"/firewall/rules", []map[string]any{{"filter": map[string]any{"id": fid}, "action": "bypass", "products": []string{"waf"}}})

	if del := h.do("DELETE", "/zones/"+proZone+"/filters/"+fid, nil); del.code() != CodeFilterInUse {
		t.Errorf("deleting a referenced filter: %d %+v", del.status, del.env.Errors)
	}
	// A filter of the two-call sequence can be changed with PUT.
	h.mustOK("PUT", "/zones/"+proZone+"/filters/"+fid, map[string]any{"expression": `http.host eq "www.pro.example"`})
	list := h.mustOK("GET", "/zones/"+proZone+"/firewall/rules", nil)
	var all []inventory.FirewallRule
	list.into(t, &all)
	for _, r := range all {
		if r.Filter.Expression != `http.host eq "www.pro.example"` {
			t.Errorf("rule %s shows filter expression %q after the filter changed", r.ID, r.Filter.Expression)
		}
		h.mustOK("DELETE", "/zones/"+proZone+"/firewall/rules?id="+r.ID, nil)
	}
	h.mustOK("DELETE", "/zones/"+proZone+"/filters/"+fid, nil)
	if f, r := h.counts(proZone); f != 0 || r != 0 {
		t.Errorf("left %d filters, %d rules", f, r)
	}
}

// TestFirewallRuleUpdates covers PATCH and PUT of rules, single and bulk.
func TestFirewallRuleUpdates(t *testing.T) {
	h := newHarness(t, Options{})
	base := "/zones/" + bizZone + "/firewall/rules"
	res := h.mustOK("PATCH", base+"/"+ruleOnBiz, map[string]any{"paused": true, "priority": nil, "description": "paused"})
	var r inventory.FirewallRule
	res.into(t, &r)
	if !r.Paused || r.Priority != nil || r.Action != "block" || r.Description != "paused" {
		t.Errorf("PATCH result %+v", r)
	}
	if bad := h.do("PATCH", base, []map[string]any{{"id": ruleOnBiz, "action": "log"}}); bad.status != http.StatusForbidden {
		t.Errorf("PATCH to log on business: %d", bad.status)
	}
	if bad := h.do("PUT", base+"/"+ruleOnBiz, map[string]any{"action": "allow"}); bad.status != 400 {
		t.Errorf("PUT without filter id: %d", bad.status)
	}
	res = h.mustOK("PUT", base, []map[string]any{{"id": ruleOnBiz, "action": "allow", "filter": map[string]any{"id": id(0xb2)}}})
	var rs []inventory.FirewallRule
	res.into(t, &rs)
	if rs[0].Action != "allow" || rs[0].Paused || rs[0].Description != "" {
		t.Errorf("PUT replaces the whole rule, got %+v", rs[0])
	}
	if nf := h.do("GET", base+"/"+id(0x999), nil); nf.status != 404 || nf.code() != CodeNotFound {
		t.Errorf("unknown rule: %d %+v", nf.status, nf.env.Errors)
	}
}

// TestValidateExpr covers POST /filters/validate-expr.
func TestValidateExpr(t *testing.T) {
	h := newHarness(t, Options{})
	path := "/zones/" + freeZone + "/filters/validate-expr"
	h.mustOK("POST", path, map[string]string{"expression": `http.request.uri.path contains "/x"`})
	if r := h.do("POST", path, map[string]string{"expression": `http.host eq "a" or`}); r.code() != CodeInvalidExpression {
		t.Errorf("invalid: %+v", r.env.Errors)
	}
	if r := h.do("POST", path, map[string]string{"expression": ""}); r.code() != CodeBlankExpression {
		t.Errorf("blank: %+v", r.env.Errors)
	}
}

// TestValidatorOption checks that Options.ValidateExpression replaces the default check (the Rules language parser).
func TestValidatorOption(t *testing.T) {
	h := newHarness(t, Options{ValidateExpression: func(s string) error {
		if strings.Contains(s, "forbidden") {
			return &ExpressionError{Line: 1, Column: 1, Expression: s, Reason: "forbidden word"}
		}
		return nil
	}})
	r := h.do("POST", "/zones/"+freeZone+"/firewall/rules", []map[string]any{{"filter": map[string]any{"expression": `http.host eq "forbidden"`}, "action": "block"}})
	if r.code() != CodeInvalidExpression || !strings.Contains(r.env.Errors[0].Message, "forbidden word") {
		t.Errorf("custom validator not used: %+v", r.env.Errors)
	}
}

// TestCombinedFilterDeletionFitsTheDescription runs the deletion order a third-party client
// uses (combined create, delete the rule, delete the filter) with the API's description
// checking the writes and every answer.
func TestCombinedFilterDeletionFitsTheDescription(t *testing.T) {
	doc := planOpsDoc(t)
	h := newHarness(t, Options{OpenAPI: doc})
	base := "/zones/" + bizZone
	var rule, filter string
	runFlow(t, h, doc, []step{{"POST", base + "/firewall/rules", []map[string]any{{"action": "managed_challenge", "description": "login",
		"filter": map[string]any{"expression": `http.request.uri.path eq "/login"`}}}, http.StatusOK, func(t *testing.T, r json.RawMessage) {
		var rules []inventory.FirewallRule
		if err := json.Unmarshal(r, &rules); err != nil || len(rules) != 1 {
			t.Fatalf("created rules %s: %v", r, err)
		}
		rule, filter = rules[0].ID, rules[0].Filter.ID
	}}})
	runFlow(t, h, doc, []step{
		{"DELETE", base + "/filters/" + filter, nil, http.StatusBadRequest, nil},
		{"DELETE", base + "/firewall/rules/" + rule, nil, http.StatusOK, want("id", rule)},
		{"GET", base + "/filters/" + filter, nil, http.StatusOK, want("id", filter)},
		{"DELETE", base + "/filters/" + filter, nil, http.StatusOK, want("id", filter)},
		{"GET", base + "/filters/" + filter, nil, http.StatusNotFound, nil},
	})
}

// TestBulkLimits: a bulk update takes at most MaxBulkRuleUpdate rules, as the API's docs
// say; a bulk deletion skips an id that does not exist (200, as the API answers) where one
// object's DELETE is a 404.
func TestBulkLimits(t *testing.T) {
	h := newHarness(t, Options{})
	base := "/zones/" + bizZone + "/firewall/rules"
	items := make([]map[string]any, MaxBulkRuleUpdate+1)
	for i := range items {
		items[i] = map[string]any{"id": ruleOnBiz, "action": "block", "filter": map[string]any{"id": id(0xb2)}}
	}
	if r := h.do("PUT", base, items); r.status != http.StatusBadRequest {
		t.Errorf("a bulk PUT of %d rules: %d, want 400", len(items), r.status)
	}
	if r := h.do("DELETE", base+"/"+id(0x999), nil); r.status != http.StatusNotFound {
		t.Errorf("DELETE of a missing rule: %d, want 404", r.status)
	}
	res := h.mustOK("DELETE", base+"?id="+ruleOnBiz+"&id="+id(0x999), nil)
	var gone []map[string]string
	res.into(t, &gone)
	if len(gone) != 1 || gone[0]["id"] != ruleOnBiz {
		t.Errorf("bulk DELETE with a missing id deleted %v, want only %s", gone, ruleOnBiz)
	}
	if _, rules := h.counts(bizZone); rules != 0 {
		t.Errorf("%d rules left after the bulk DELETE", rules)
	}
}
