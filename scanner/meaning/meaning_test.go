package meaning_test

import (
	"encoding/json"
	"testing"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/meaning"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

func boolPtr(b bool) *bool { return &b }

// TestRuleKey: rules that do the same have one key, whatever their labels and spelling; a
// change in what a rule does changes it.
func TestRuleKey(t *testing.T) {
	base := inventory.RulesetRule{
		ID: "a", Ref: "fw1", Description: "Block xmlrpc", Action: vocab.ActionSkip,
		Expression:       `http.request.uri.path eq "/xmlrpc.php" and ip.src.country in {"CN" "RU"}`,
		ActionParameters: json.RawMessage(`{"products":["waf","bic"],"phases":["http_request_firewall_managed"]}`),
	}
	same := map[string]inventory.RulesetRule{
		"other labels":           {ID: "b", Ref: "terraform_name", Description: "other", Action: base.Action, Expression: base.Expression, ActionParameters: base.ActionParameters, Enabled: boolPtr(true)},
		"other spelling":         {Action: base.Action, Expression: `(http.request.uri.path == "/xmlrpc.php") && ip.src.country in {"RU" "CN"}`, ActionParameters: base.ActionParameters},
		"parameters reordered":   {Action: base.Action, Expression: base.Expression, ActionParameters: json.RawMessage(` { "phases": ["http_request_firewall_managed"], "products": ["bic","waf","bic"], "ruleset": "" }`)},
		"logging is not meaning": {Action: base.Action, Expression: base.Expression, ActionParameters: base.ActionParameters, Logging: json.RawMessage(`{"enabled":false}`)},
	}
	want := meaning.Rule(vocab.PhaseCustomRules, base)
	for name, r := range same {
		if got := meaning.Rule(vocab.PhaseCustomRules, r); got != want {
			t.Errorf("%s: key %s, want %s", name, got, want)
		}
	}
	other := map[string]inventory.RulesetRule{
		"disabled":         {Action: base.Action, Expression: base.Expression, ActionParameters: base.ActionParameters, Enabled: boolPtr(false)},
		"other action":     {Action: vocab.ActionBlock, Expression: base.Expression},
		"other parameters": {Action: base.Action, Expression: base.Expression, ActionParameters: json.RawMessage(`{"products":["waf"]}`)},
		"other expression": {Action: base.Action, Expression: `http.request.uri.path eq "/xmlrpc"`, ActionParameters: base.ActionParameters},
	}
	for name, r := range other {
		if got := meaning.Rule(vocab.PhaseCustomRules, r); got == want {
			t.Errorf("%s: same key as the base rule", name)
		}
	}
	if meaning.Rule(vocab.PhaseRateLimiting, base) == want {
		t.Error("the phase is not in the key")
	}
	rl := func(s string) inventory.RulesetRule {
		return inventory.RulesetRule{Action: vocab.ActionBlock, Expression: "true", RateLimit: json.RawMessage(s)}
	}
	if meaning.Rule(vocab.PhaseRateLimiting, rl(`{"period":60,"requests_per_period":10}`)) != meaning.Rule(vocab.PhaseRateLimiting, rl(`{"requests_per_period":10.0,"period":6e1}`)) {
		t.Error("numbers compare by value")
	}
	if meaning.Rule(vocab.PhaseRateLimiting, rl(`{"period":60}`)) == meaning.Rule(vocab.PhaseRateLimiting, rl(`{"period":10}`)) {
		t.Error("the ratelimit object is in the key")
	}
}

// TestObjectKeys: Access applications and notification policies by what they do.
func TestObjectKeys(t *testing.T) {
	app := inventory.AccessApp{ID: "1", Name: "Grafana", Type: "bookmark", Domain: "grafana.example.com", CreatedAt: "2025-01-01"}
	copyApp := inventory.AccessApp{ID: "2", Name: "Grafana", Type: "bookmark", Domain: "Grafana.example.com/", AppLauncherVisible: boolPtr(true)}
	if meaning.AccessApp(app) != meaning.AccessApp(copyApp) {
		t.Error("two bookmarks of one name and domain differ")
	}
	if meaning.AccessApp(app) == meaning.AccessApp(inventory.AccessApp{Name: "Grafana", Type: "bookmark", Domain: "wiki.example.com"}) {
		t.Error("another domain is the same app")
	}
	p := inventory.NotificationPolicy{Name: "a", AlertType: "load_balancing_health_alert", Mechanisms: json.RawMessage(`{"email":[{"id":"a@x"},{"id":"b@x"}]}`), Filters: json.RawMessage(`{"pool_id":["p1"]}`)}
	q := inventory.NotificationPolicy{Name: "other name", AlertType: p.AlertType, Enabled: boolPtr(true), Mechanisms: p.Mechanisms, Filters: json.RawMessage(`{"pool_id":["p1"],"other":[]}`)}
	if meaning.NotificationPolicy(p) != meaning.NotificationPolicy(q) {
		t.Error("a policy named otherwise differs")
	}
	q.Filters = json.RawMessage(`{"pool_id":["p2"]}`)
	if meaning.NotificationPolicy(p) == meaning.NotificationPolicy(q) {
		t.Error("a policy on another pool is the same")
	}
}

// TestIndexClaimsEachOnce: two wanted objects that do the same need two existing ones.
func TestIndexClaimsEachOnce(t *testing.T) {
	keys := []meaning.Key{"a", "b", "a"}
	x := meaning.NewIndex(len(keys), func(i int) meaning.Key { return keys[i] })
	x.Reserve(0)
	if i, ok := x.Claim("a"); !ok || i != 2 {
		t.Fatalf("Claim(a) = %d, %v; want 2 (0 is reserved)", i, ok)
	}
	if _, ok := x.Claim("a"); ok {
		t.Fatal("a third a was claimed")
	}
	if !x.Claimed(1) {
		if i, ok := x.Claim("b"); !ok || i != 1 || !x.Claimed(1) {
			t.Fatalf("Claim(b) = %d, %v", i, ok)
		}
	}
}
