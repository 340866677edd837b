package fix

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

func TestPreviousWAF(t *testing.T) {
	opts := Options{Target: terraform.ProviderV5}
	if n := len(ruleFindings(t, filepath.Join("testdata", "waf", "shop"), "waf-managed-rules-v1")); n != 6 {
		t.Fatalf("the fixture has %d WAF findings before the fix, want 6", n)
	}
	dir, res := fixedCopy(t, "waf/shop", opts)
	checkNewTypes(t, "waf/shop", dir, opts.Target)
	rw, ok := rewriteOf(res, "cloudflare_ruleset.managed_rules")
	if !ok || strings.Join(rw.Old, " ") != "cloudflare_waf_package.owasp cloudflare_waf_rule.xss cloudflare_waf_override.admin_uploads" {
		t.Fatalf("rewrites = %+v", res.Rewrites)
	}
	for addr, want := range map[string]string{
		"cloudflare_waf_group.plugins":        "is off and has no category",
		"cloudflare_waf_rule.sqli_probe":      "rule 100000 simulate instead of default",
		"cloudflare_waf_override.api_rewrite": "it rewrites actions",
	} {
		if l := leftFor(res, addr); len(l) != 1 || !strings.Contains(l[0], want) {
			t.Errorf("%s left = %v, want %q", addr, l, want)
		}
	}
	src, _ := os.ReadFile(filepath.Join(dir, "main.tf"))
	text := string(src)
	skip := strings.Index(text, `ref         = "waf_override:admin_uploads"`)
	owasp := strings.Index(text, `id = "`+inventory.RulesetOWASPCore+`"`)
	managed := strings.Index(text, `id = "`+inventory.RulesetCloudflareManaged+`"`)
	if skip < 0 || owasp < skip || managed < skip || !strings.Contains(text, "score_threshold = 25") {
		t.Errorf("exception not before the execute rules, or OWASP settings missing:\n%s", text)
	}
	// v3 types leave no removed block and no state step.
	if strings.Contains(text, "removed {") || len(res.StateSteps) != 0 {
		t.Errorf("state steps %v for v3 resources:\n%s", res.StateSteps, text)
	}
	checkFixed(t, dir, opts, "waf-managed-rules-v1", 3)
}

func TestPreviousWAFFreePlan(t *testing.T) {
	opts := Options{Target: terraform.ProviderV5, ZonePlans: map[string]string{"var.zone_id": "free"}}
	dir, res := fixedCopy(t, "waf/shop", opts)
	checkNewTypes(t, "waf/shop", dir, opts.Target)
	if l := leftFor(res, "cloudflare_waf_package.owasp"); len(l) != 1 || !strings.Contains(l[0], "not available on the Free plan") {
		t.Errorf("owasp left = %v", l)
	}
	src, _ := os.ReadFile(filepath.Join(dir, "main.tf"))
	if !strings.Contains(string(src), inventory.RulesetFreeManaged) || strings.Contains(string(src), inventory.RulesetOWASPCore) {
		t.Errorf("free zone:\n%s", src)
	}
	checkFixed(t, dir, opts, "waf-managed-rules-v1", 4)
}

// TestPreviousWAFRepeated: WAF resources with a for_each the repository decides (a local, a
// literal set) are read instance by instance, as Terraform makes them: one exception per
// URL override instance, rules at their default dropped; one whose for_each a variable
// decides is left, saying so.
func TestPreviousWAFRepeated(t *testing.T) {
	opts := Options{Target: terraform.ProviderV5}
	dir, res := fixedCopy(t, "waf/repeated", opts)
	checkNewTypes(t, "waf/repeated", dir, opts.Target)
	rw, ok := rewriteOf(res, "cloudflare_ruleset.managed_rules")
	if !ok || strings.Join(rw.Old, " ") != "cloudflare_waf_override.uploads cloudflare_waf_rule.defaults" {
		t.Fatalf("rewrites = %+v, left %v", res.Rewrites, res.Left)
	}
	if l := leftFor(res, "cloudflare_waf_group.per_environment"); len(l) != 1 || !strings.Contains(l[0], "does not decide its instances") {
		t.Errorf("per_environment left = %v", l)
	}
	text := string(mustRead(t, filepath.Join(dir, "main.tf")))
	admin := strings.Index(text, `"waf_override:uploads_admin"`)
	media := strings.Index(text, `"waf_override:uploads_media"`)
	managed := strings.Index(text, `id = "`+inventory.RulesetCloudflareManaged+`"`)
	if admin < 0 || media < admin || managed < media || !strings.Contains(text, `media.example.com/*`) {
		t.Errorf("one exception per override instance before the execute rule, with its URLs:\n%s", text)
	}
	// The comment above a block taken away goes with it, not onto the next block.
	if !strings.Contains(text, "# Comments of cloudflare_waf_rule.defaults (kept by sunset fix):\n# Rules put back to their default after a test.\n\n") {
		t.Errorf("the comment above a removed block is not kept as its own:\n%s", text)
	}
	leftSaidInPlace(t, dir, res)
	checkFixed(t, dir, opts, "waf-managed-rules-v1", 1)
}

// TestWAFSwitchWithPreviousWAFLeft: a waf switch on whose zone's previous WAF resources are
// left (a rule not at its default: old rule ids do not map) is said to be not carried over,
// where it stood and in the summary; nothing claims an entry point that was not written.
func TestWAFSwitchWithPreviousWAFLeft(t *testing.T) {
	dir, res := fixTree(t, map[string]string{"main.tf": `resource "cloudflare_zone_settings_override" "site" {
  zone_id = "b1946ac92492d2347c6235b4d2611184"
  settings {
    waf            = "on"
    min_tls_version = "1.2"
  }
}

resource "cloudflare_waf_rule" "probe" {
  zone_id = "b1946ac92492d2347c6235b4d2611184"
  rule_id = "100000"
  mode    = "simulate"
}
`}, terraform.ProviderV5)
	if l := leftFor(res, "cloudflare_zone_settings_override.site.settings.waf"); len(l) != 1 || !strings.Contains(l[0], "not carried over") {
		t.Errorf("the waf switch is not left: %v", res.Left)
	}
	for _, rw := range res.Rewrites {
		for _, n := range rw.Notes {
			if strings.Contains(n, "in its place") && strings.Contains(n, "waf") {
				t.Errorf("a note claims what was not written: %s", n)
			}
		}
	}
	text := string(mustRead(t, filepath.Join(dir, "main.tf")))
	if strings.Contains(text, "Managed Ruleset in its place.") || strings.Contains(text, `phase   = "http_request_firewall_managed"`) {
		t.Errorf("the file claims an entry point that was not written:\n%s", text)
	}
	leftSaidInPlace(t, dir, res)
}
