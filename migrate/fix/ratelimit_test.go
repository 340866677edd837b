package fix

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

func TestRateLimitsProPlan(t *testing.T) {
	opts := Options{Target: terraform.ProviderV5}
	dir, res := fixedCopy(t, "ratelimit/pro", opts)
	checkNewTypes(t, "ratelimit/pro", dir, opts.Target)
	rw, ok := rewriteOf(res, "cloudflare_ruleset.shop_rate_limiting_rules")
	if !ok {
		t.Fatalf("no ruleset rewrite: %+v", res.Rewrites)
	}
	if strings.Join(rw.Old, " ") != "cloudflare_rate_limit.login cloudflare_rate_limit.cart" || rw.Plan != "pro" || rw.Zone != "shop.example.com" || !rw.IsProof {
		t.Errorf("rewrite = %+v", rw)
	}
	notes := strings.Join(rw.Notes, "\n")
	for _, want := range []string{"plan pro from the cloudflare_zone resource", "period 30 s is not allowed on the pro plan: rounded to 10 s", `http.request.full_uri wildcard "https://*"`} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if l := leftFor(res, "cloudflare_rate_limit.search"); len(l) != 1 || !strings.Contains(l[0], "Enterprise only") {
		t.Errorf("search left = %v", l)
	}
	// Enabled rate limits go first, so the disabled one is the one over pro's quota of 2.
	if l := leftFor(res, "cloudflare_rate_limit.legacy_checkout"); len(l) != 1 || !strings.Contains(l[0], "quota of 2") {
		t.Errorf("legacy_checkout left = %v", l)
	}
	// The output that reads the old rate limit is reported: what it reads is gone.
	if l := leftFor(res, "output login_rate_limit refers to cloudflare_rate_limit.login (replaced by cloudflare_ruleset.shop_rate_limiting_rules)"); len(l) != 1 {
		t.Errorf("reference not reported: %v", res.Left)
	}
	src, _ := os.ReadFile(filepath.Join(dir, "main.tf"))
	if strings.Index(string(src), `ref = "rate_limit:login"`) > strings.Index(string(src), `ref = "rate_limit:cart"`) {
		t.Errorf("rules not in the plan's order:\n%s", src)
	}
	script, err := os.ReadFile(filepath.Join(dir, StateCleanupScript))
	if err != nil || !strings.Contains(string(script), "forget 'cloudflare_rate_limit.cart'") || strings.Contains(string(script), "search") {
		t.Errorf("state clean-up script (%v):\n%s", err, script)
	}
	checkFixed(t, dir, opts, vocab.RateLimitingV1, 2)
}

func TestRateLimitsUnknownPlan(t *testing.T) {
	opts := Options{Target: terraform.ProviderV5}
	dir, res := fixedCopy(t, "ratelimit/unknown", opts)
	checkNewTypes(t, "ratelimit/unknown", dir, opts.Target)
	rw, ok := rewriteOf(res, "cloudflare_ruleset.rate_limiting_rules")
	if !ok || len(res.Left) != 0 {
		t.Fatalf("rewrites %+v, left %v", res.Rewrites, res.Left)
	}
	notes := strings.Join(rw.Notes, "\n")
	for _, want := range []string{
		"written as for Enterprise",
		"cloudflare_rate_limit.wp_login as written needs the enterprise plan or higher (on business: correlate by nat",
		"cloudflare_rate_limit.feed as written needs the pro plan or higher (on free: url",
		"the plans allow free 1, pro 2, business 5, enterprise 5",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	src, _ := os.ReadFile(filepath.Join(dir, "main.tf"))
	for _, want := range []string{`"cf.unique_visitor_id"`, "requests_to_origin  = true", `http.response.code in {200 401}`, "zone_id = var.zone_id"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("rewritten file lacks %q:\n%s", want, src)
		}
	}
	checkFixed(t, dir, opts, vocab.RateLimitingV1, 0)
}

func TestRateLimitsLeft(t *testing.T) {
	opts := Options{Target: terraform.ProviderV5}
	dir, res := fixedCopy(t, "ratelimit/left", opts)
	checkNewTypes(t, "ratelimit/left", dir, opts.Target)
	if l := leftFor(res, "cloudflare_rate_limit.per_path"); len(l) != 1 || !strings.Contains(l[0], "count or for_each") {
		t.Errorf("per_path left = %v", l)
	}
	// tunable's threshold is a variable without default: carried as a reference, not proven.
	rw, ok := rewriteOf(res, "cloudflare_ruleset.rate_limiting_rules")
	if !ok || strings.Join(rw.Old, " ") != "cloudflare_rate_limit.tunable cloudflare_rate_limit.origin_errors" || rw.IsProof ||
		!strings.HasPrefix(rw.Proven, "not proven: the repository does not hold the value of var.threshold") {
		t.Errorf("rewrite %+v", rw)
	}
	if src := string(mustRead(t, filepath.Join(dir, "main.tf"))); !strings.Contains(src, "requests_per_period = var.threshold") {
		t.Errorf("the threshold is not kept as the variable:\n%s", src)
	}
	checkFixed(t, dir, opts, vocab.RateLimitingV1, 1)

	// On a free zone the response statuses cannot be counted: origin_errors stays.
	opts.ZonePlans = map[string]string{"var.zone_id": "free"}
	dir, res = fixedCopy(t, "ratelimit/left", opts)
	checkNewTypes(t, "ratelimit/left", dir, opts.Target)
	if rw, ok := rewriteOf(res, "cloudflare_ruleset.rate_limiting_rules"); !ok || strings.Join(rw.Old, " ") != "cloudflare_rate_limit.tunable" {
		t.Errorf("rewrites on free: %+v", res.Rewrites)
	}
	if l := leftFor(res, "cloudflare_rate_limit.origin_errors"); len(l) != 1 || !strings.Contains(l[0], "need a counting expression, which the free plan does not allow") {
		t.Errorf("origin_errors left = %v", l)
	}
	checkFixed(t, dir, opts, vocab.RateLimitingV1, 2)
}

// On provider v4 the rules are v4's rules blocks and the old rate limits become removed blocks.
func TestRateLimitsV4(t *testing.T) {
	opts := Options{Target: terraform.ProviderV4}
	dir, res := fixedCopy(t, "ratelimit/unknown", opts)
	checkNewTypes(t, "ratelimit/unknown", dir, opts.Target)
	if len(res.Rewrites) == 0 || len(res.Left) != 0 {
		t.Fatalf("rewrites %+v, left %v", res.Rewrites, res.Left)
	}
	src, _ := os.ReadFile(filepath.Join(dir, "main.tf"))
	if !strings.Contains(string(src), "from = cloudflare_rate_limit.feed") {
		t.Errorf("no removed block:\n%s", src)
	}
	checkFixed(t, dir, opts, vocab.RateLimitingV1, 0)
}

// A rate limit in a module called three times: one ruleset in the module, and the state
// steps remove every instance under the root's module paths.
func TestRateLimitsInModule(t *testing.T) {
	opts := Options{Target: terraform.ProviderV5}
	dir, res := fixedCopy(t, "ratelimit/modules", opts)
	checkNewTypes(t, "ratelimit/modules", dir, opts.Target)
	rw, ok := rewriteOf(res, "cloudflare_ruleset.rate_limiting_rules")
	if !ok || rw.Module != "modules/edge" || rw.Zone != "var.zone_id" {
		t.Fatalf("rewrites = %+v, left %v", res.Rewrites, res.Left)
	}
	script, err := os.ReadFile(filepath.Join(dir, StateCleanupScript))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"forget 'module.edge_staging.cloudflare_rate_limit.uploads'", `module\.edge\[[^]]+\]\.cloudflare_rate_limit\.uploads`} {
		if !strings.Contains(string(script), want) {
			t.Errorf("state clean-up script lacks %q:\n%s", want, script)
		}
	}
	checkFixed(t, dir, opts, vocab.RateLimitingV1, 0)
}

// A Business zone, its plan from the snapshot: methods, schemes and response conditions carry
// over (period and timeout rounded to the plan's values); counting per NAT visitor does not.
func TestRateLimitsBusinessFromSnapshot(t *testing.T) {
	snap := &inventory.Snapshot{Zones: []inventory.ZoneInventory{{Zone: inventory.Zone{ID: "eccbc87e4b5ce2fe28308fd9f2a7baf3", Name: "example.dev", Plan: inventory.ZonePlan{LegacyID: "business"}}}}}
	opts := Options{Target: terraform.ProviderV5, Snapshot: snap}
	dir, res := fixedCopy(t, "ratelimit/business", opts)
	checkNewTypes(t, "ratelimit/business", dir, opts.Target)
	rw, ok := rewriteOf(res, "cloudflare_ruleset.rate_limiting_rules")
	if !ok || rw.Plan != "business" || rw.Zone != "example.dev" || !rw.IsProof {
		t.Fatalf("rewrites = %+v, left %v", res.Rewrites, res.Left)
	}
	notes := strings.Join(rw.Notes, "\n")
	for _, want := range []string{"plan business from the snapshot", "period 900 s is not allowed on the business plan: rounded to 600 s", "timeout 7200 s is not an allowed mitigation_timeout on the business plan: rounded to 3600 s"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if l := leftFor(res, "cloudflare_rate_limit.api_nat"); len(l) != 1 || !strings.Contains(l[0], "cf.unique_visitor_id characteristic, which is Enterprise only") {
		t.Errorf("api_nat left = %v", res.Left)
	}
	src, _ := os.ReadFile(filepath.Join(dir, "main.tf"))
	for _, want := range []string{`http.request.method in {\"GET\" \"POST\"}`, `http.request.full_uri wildcard \"https://*\"`, `http.response.code in {401 403}`} {
		if !strings.Contains(string(src), want) {
			t.Errorf("rewritten file lacks %q:\n%s", want, src)
		}
	}
	checkFixed(t, dir, opts, vocab.RateLimitingV1, 1)
}

// The snapshot shows the zone's rate limiting entry point with a rule: it is imported, its
// rule kept first and counted in the quota.
func TestRateLimitsExistingEntryPoint(t *testing.T) {
	enabled := true
	existing := inventory.RulesetRule{ID: "r1", Version: "3", Action: "block", Expression: `http.request.uri.path eq "/login"`, Enabled: &enabled,
		RateLimit: json.RawMessage(`{"characteristics":["cf.colo.id","ip.src"],"period":60,"requests_per_period":5,"mitigation_timeout":600}`)}
	snap := &inventory.Snapshot{Zones: []inventory.ZoneInventory{{
		Zone:     inventory.Zone{ID: "eccbc87e4b5ce2fe28308fd9f2a7baf3", Name: "example.dev", Plan: inventory.ZonePlan{LegacyID: "enterprise"}},
		Rulesets: []inventory.Ruleset{{ID: "0b7f5e3a", Name: "zone rate limits", Kind: "zone", Phase: "http_ratelimit", Rules: []inventory.RulesetRule{existing}}},
	}}}
	for target, id := range map[terraform.Provider]string{terraform.ProviderV5: "zones/eccbc87e4b5ce2fe28308fd9f2a7baf3/0b7f5e3a", terraform.ProviderV4: "zone/eccbc87e4b5ce2fe28308fd9f2a7baf3/0b7f5e3a"} {
		opts := Options{Target: target, Snapshot: snap}
		dir, res := fixedCopy(t, "ratelimit/business", opts)
		checkNewTypes(t, "ratelimit/business", dir, target)
		rw, ok := rewriteOf(res, "cloudflare_ruleset.rate_limiting_rules")
		if !ok || !strings.Contains(strings.Join(rw.Notes, "\n"), "entry point exists (ruleset 0b7f5e3a, 1 rule, from the snapshot): imported") {
			t.Fatalf("%s: rewrites = %+v, left %v", target, res.Rewrites, res.Left)
		}
		src := string(mustRead(t, filepath.Join(dir, "main.tf")))
		kept, added := strings.Index(src, `"http.request.uri.path eq \"/login\""`), strings.Index(src, `"rate_limit:api_auth"`)
		if kept < 0 || added < kept || strings.Contains(src, `"r1"`) || !strings.Contains(src, `"zone rate limits"`) {
			t.Errorf("%s: rewritten file:\n%s", target, src)
		}
		imports := string(mustRead(t, filepath.Join(dir, ImportsFile)))
		if !strings.Contains(imports, "import {\n  to = cloudflare_ruleset.rate_limiting_rules\n  id = \""+id+"\"\n}") {
			t.Errorf("%s: %s:\n%s", target, ImportsFile, imports)
		}
		checkFixed(t, dir, opts, vocab.RateLimitingV1, 0)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The module declares the zone's rate limiting entry point already: the rule that fits the
// pro plan's quota beside its own joins it, after its rule; the other is left.
func TestRateLimitsIntoDeclaredEntryPoint(t *testing.T) {
	opts := Options{Target: terraform.ProviderV5, ZonePlans: map[string]string{"docs.example.com": "pro"}} // v5's cloudflare_zone cannot say
	dir, res := fixedCopy(t, "ratelimit/declared", opts)
	checkNewTypes(t, "ratelimit/declared", dir, opts.Target)
	rw, ok := rewriteOf(res, "cloudflare_ruleset.docs_limits")
	if !ok || strings.Join(rw.Old, " ") != "cloudflare_rate_limit.signup" || rw.Plan != "pro" {
		t.Fatalf("rewrites = %+v, left %v", res.Rewrites, res.Left)
	}
	if l := leftFor(res, "cloudflare_rate_limit.feedback"); len(l) != 1 || !strings.Contains(l[0], "quota of 2") {
		t.Errorf("feedback left = %v", res.Left)
	}
	src := string(mustRead(t, filepath.Join(dir, "main.tf")))
	own, added := strings.Index(src, `wildcard \"/search*\"`), strings.Index(src, `ref = "rate_limit:signup"`)
	if own < 0 || added < own || strings.Count(src, `resource "cloudflare_ruleset"`) != 1 || !strings.Contains(src, `http.host wildcard \"docs.example.com\"`) {
		t.Errorf("rewritten file:\n%s", src)
	}
	checkFixed(t, dir, opts, vocab.RateLimitingV1, 1)
}
