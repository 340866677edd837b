package emulator

import (
	"testing"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// TestRulesetCRUD covers the calls the Terraform provider manages a cloudflare_ruleset with:
// POST /zones/:id/rulesets creates a phase's entry point (a second one is refused with
// 20217), PUT /zones/:id/rulesets/:id replaces its rules (checked like the entry point's),
// DELETE removes it.
func TestRulesetCRUD(t *testing.T) {
	h := newHarness(t, Options{})
	base := "/zones/" + proZone + "/rulesets"
	body := map[string]any{"name": "default", "kind": "zone", "phase": vocab.PhaseCustomRules, "rules": []any{
		map[string]any{"expression": `http.host eq "a.pro.example"`, "action": "block", "description": "a"}}}
	var rs inventory.Ruleset
	h.mustOK("POST", base, body).into(t, &rs)
	if rs.Phase != vocab.PhaseCustomRules || rs.Kind != "zone" || len(rs.Rules) != 1 || rs.Version != "1" {
		t.Fatalf("created %+v", rs)
	}
	var ep inventory.Ruleset
	h.mustOK("GET", base+"/phases/"+string(vocab.PhaseCustomRules)+"/entrypoint", nil).into(t, &ep)
	if ep.ID != rs.ID {
		t.Errorf("the created ruleset is not the phase's entry point: %s vs %s", ep.ID, rs.ID)
	}
	if r := h.do("POST", base, body); r.status != 400 || r.code() != CodeTooManyRulesets {
		t.Errorf("a second entry point: %d %+v", r.status, r.env.Errors)
	}
	update := map[string]any{"rules": []any{
		map[string]any{"id": rs.Rules[0].ID, "expression": `http.host eq "b.pro.example"`, "action": "managed_challenge", "description": "b"},
		map[string]any{"expression": `http.host eq "c.pro.example"`, "action": "skip", "description": "c"}}}
	if r := h.do("PUT", base+"/"+rs.ID, update); r.status != 400 {
		t.Errorf("a skip rule without parameters: %d", r.status)
	}
	update["rules"].([]any)[1].(map[string]any)["action_parameters"] = map[string]any{"ruleset": "current"}
	var up inventory.Ruleset
	h.mustOK("PUT", base+"/"+rs.ID, update).into(t, &up)
	if len(up.Rules) != 2 || up.Rules[0].ID != rs.Rules[0].ID || up.Rules[0].Action != "managed_challenge" || up.Version != "2" {
		t.Errorf("updated %+v", up)
	}
	if r := h.do("PUT", base+"/"+rs.ID, map[string]any{"phase": vocab.PhaseRateLimiting, "rules": []any{}}); r.status != 400 {
		t.Errorf("a phase change: %d", r.status)
	}
	h.mustOK("DELETE", base+"/"+rs.ID, nil)
	if r := h.do("GET", base+"/phases/"+string(vocab.PhaseCustomRules)+"/entrypoint", nil); r.status != 404 {
		t.Errorf("after delete: %d", r.status)
	}
}
