package fix

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/meaning"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// Rate limits keep the variables and locals they read as references, as firewall rules
// keep ${var.x}: a local the rule holds whole stays the local, the variables a url is made
// of stay variables (lowered in the host where the value may not be lower case), a threshold
// or a period written as an expression stays that expression (a period rounded in HCL as the
// translation rounds it). No field rename or threat score test is written: a rate limit's
// expression can hold neither. A value that decides how the rule is built (a whole url, a
// mode) cannot stay a reference: that rate limit is left, saying why.
func TestRateLimitsKeepReferences(t *testing.T) {
	validInput(t, "ratelimit/refs", "4.52.8")
	opts := Options{Target: terraform.ProviderV5}
	dir, res := fixedCopy(t, "ratelimit/refs", opts)
	checkNewTypes(t, "ratelimit/refs", dir, opts.Target)
	rw, ok := rewriteOf(res, "cloudflare_ruleset.rate_limiting_rules")
	if !ok || strings.Join(rw.Old, " ") != "cloudflare_rate_limit.api cloudflare_rate_limit.login" || rw.IsProof ||
		!strings.HasPrefix(rw.Proven, "not proven: the repository does not hold the value of var.domain, var.login_period") {
		t.Fatalf("rewrite %+v, left %v", rw, res.Left)
	}
	src := string(mustRead(t, filepath.Join(dir, "main.tf")))
	for _, want := range []string{
		`description = "API writes on ${var.subdomain}"`,
		`expression  = "http.host wildcard \"${local.api_host}\" and http.request.uri.path wildcard \"/v1/*\" and http.request.method eq \"POST\""`,
		"requests_per_period = local.api_limit",
		`expression = "http.host wildcard \"www.${lower(var.domain)}\" and http.request.uri.path wildcard \"/login*\""`,
		"period              = max([for p in [10, 60, 120, 300, 600, 3600] : p if abs(p - var.login_period) == min(",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("rewritten file lacks %q:\n%s", want, src)
		}
	}
	for _, never := range []string{"api.example.org", "replace(", "regexall(", "SUNSETREF"} {
		if strings.Contains(src, never) {
			t.Errorf("rewritten file holds %q:\n%s", never, src)
		}
	}
	if l := leftFor(res, "cloudflare_rate_limit.reports"); len(l) != 1 || !strings.Contains(l[0], "var.report_url kept as references differs from the rule built from the values") {
		t.Errorf("reports left = %v", res.Left)
	}
	if l := leftFor(res, "cloudflare_rate_limit.exports"); len(l) != 1 || !strings.Contains(l[0], "the value of var.report_mode decides how the rule is built") {
		t.Errorf("exports left = %v", res.Left)
	}
	checkFixed(t, dir, opts, vocab.RateLimitingV1, 2)

	// With an environment's values, the rules Terraform would create are those sunset plan
	// translates from the rate limits with the same values.
	tfvars := "domain = \"Shop.Example\"\nlogin_period = 30\nsubdomain = \"edge\"\n"
	before := copyFixture(t, "ratelimit/refs")
	for _, d := range []string{before, dir} {
		if err := os.WriteFile(filepath.Join(d, "terraform.tfvars"), []byte(tfvars), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := rateLimitsOf(t, before)
	rules := rulesOf(t, dir, vocab.PhaseRateLimiting)
	if len(rules) != 2 {
		t.Fatalf("%d rules, want api's and login's", len(rules))
	}
	for _, got := range rules {
		name := strings.TrimPrefix(got.Ref, "rate_limit:")
		rl, ok := old[name]
		if !ok {
			t.Fatalf("no rate limit for the rule %s", got.Ref)
		}
		want, _, _ := migrate.TranslateRateLimit(rl, inventory.PlanEnterprise)
		if meaning.Rule(vocab.PhaseRateLimiting, got) != meaning.Rule(vocab.PhaseRateLimiting, want) || got.Description != want.Description {
			t.Errorf("%s with the values:\n got %+v\nwant %+v", name, got, want)
		}
	}
}

// rateLimitsOf reads the rate limits of dir's root module with its values, by name.
func rateLimitsOf(t *testing.T, dir string) map[string]inventory.RateLimit {
	t.Helper()
	repo, err := Load(dir, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]inventory.RateLimit{}
	for _, r := range repo.Modules[0].Resources {
		if r.Type == typeRateLimit {
			rl, unknown := readRateLimit(evaluatorOf(repo.Modules[0]), r)
			if len(unknown) > 0 {
				t.Fatalf("%s: %v not known", r.Address(), unknown)
			}
			out[r.Name] = rl
		}
	}
	return out
}

// rulesOf evaluates, with dir's values, the rules of the root module's ruleset of the phase,
// as Terraform would send them.
func rulesOf(t *testing.T, dir string, phase vocab.Phase) []inventory.RulesetRule {
	t.Helper()
	repo, err := Load(dir, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	m := repo.Modules[0]
	ev := evaluatorOf(m)
	for _, r := range m.Resources {
		if r.Type != typeRuleset || knownString(ev, r.Attr("phase")) != string(phase) {
			continue
		}
		raws, err := evaluateRules(ev, exprText(r.File, r.Attr("rules")))
		if err != nil {
			t.Fatal(err)
		}
		var out []inventory.RulesetRule
		for _, raw := range raws {
			var rule inventory.RulesetRule
			if err := json.Unmarshal(raw, &rule); err != nil {
				t.Fatal(err)
			}
			out = append(out, rule)
		}
		return out
	}
	t.Fatalf("no %s ruleset in %s", phase, dir)
	return nil
}
