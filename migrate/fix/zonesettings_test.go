package fix

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// settingRules are the catalog's rules of the retired zone settings.
var settingRules = []vocab.RuleID{"zone-setting-brotli", "zone-setting-minify", "zone-setting-mobile-redirect",
	"zone-setting-server-side-exclude", "zone-setting-privacy-pass", "cname-flattening-setting", "waf-managed-rules-v1"}

// On provider v4 the override stays, its retired settings gone (v5: see TestSettingsOverrideToV5).
func TestSettingsOverrideRetired(t *testing.T) {
	opts := Options{Target: terraform.ProviderV4}
	if n := len(ruleFindingsAll(t, filepath.Join("testdata", "settings", "zones"))); n != 5 {
		t.Fatalf("the fixture has %d retired settings findings before the fix, want 5", n)
	}
	dir, res := fixedCopy(t, "settings/zones", opts)
	checkNewTypes(t, "settings/zones", dir, opts.Target)
	rw, ok := rewriteOf(res, "cloudflare_zone_settings_override.docs")
	want := "brotli minify mobile_redirect server_side_exclude waf"
	if !ok || strings.ReplaceAll(strings.Join(rw.Old, " "), "cloudflare_zone_settings_override.docs.settings.", "") != want {
		t.Fatalf("rewrites = %+v", res.Rewrites)
	}
	redirect, ok := rewriteOf(res, "cloudflare_ruleset.docs_redirect_rules")
	if !ok || redirect.Zone != "docs.example.io" {
		t.Fatalf("no redirect rule: %+v", res.Rewrites)
	}
	src, _ := os.ReadFile(filepath.Join(dir, "main.tf"))
	for _, want := range []string{
		"    always_use_https = \"on\"\n    min_tls_version  = \"1.2\"\n    ssl              = \"strict\"\n  }\n}\n",
		`phase   = "http_request_dynamic_redirect"`,
		`concat(\"https://m.docs.example.io\", http.request.uri.path)`,
		"}\n\nresource \"cloudflare_record\" \"www\"",
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("rewritten file lacks %q:\n%s", want, src)
		}
	}
	if got := ruleFindingsAll(t, dir); len(got) != 0 {
		t.Errorf("retired settings still reported: %v", got)
	}
	checkFixed(t, dir, opts, "zone-setting-brotli", 0)
}

func TestSettingsOverrideLeft(t *testing.T) {
	opts := Options{Target: terraform.ProviderV4}
	dir, res := fixedCopy(t, "settings/unnamed", opts)
	checkNewTypes(t, "settings/unnamed", dir, opts.Target)
	if l := leftFor(res, "cloudflare_zone_settings_override.this.settings.mobile_redirect"); len(l) != 1 || !strings.Contains(l[0], "the zone's name is not known") {
		t.Errorf("left = %v", res.Left)
	}
	// var.mobile defaults to false: the quiet override redirects nothing, and its block goes.
	if rw, ok := rewriteOf(res, "cloudflare_zone_settings_override.quiet"); !ok || len(rw.Old) != 1 {
		t.Errorf("quiet not rewritten: %+v", res.Rewrites)
	}
	src, _ := os.ReadFile(filepath.Join(dir, "main.tf"))
	if !strings.Contains(string(src), "  settings {\n    # sunset fix: cloudflare_zone_settings_override.this.settings.mobile_redirect not rewritten") ||
		strings.Contains(string(src), "cname_flattening") || strings.Contains(string(src), "privacy_pass") {
		t.Errorf("rewritten file:\n%s", src)
	}
	if got := ruleFindingsAll(t, dir); len(got) != 1 {
		t.Errorf("want only the mobile_redirect left reported, got %v", got)
	}
	checkFixed(t, dir, opts, "zone-setting-mobile-redirect", 1)
}

// TestSettingsOverrideToV5: for provider v5 the override (itself deprecated) becomes one
// cloudflare_zone_setting per setting it still sets, with the API's setting ids, valid for
// v5; mobile_redirect becomes its redirect rule; the override leaves the state through the
// clean-up script; check has nothing left to say about settings. An override whose
// mobile_redirect cannot be written stays, on v4's terms, with why.
func TestSettingsOverrideToV5(t *testing.T) {
	opts := Options{Target: terraform.ProviderV5}
	dir, _ := fixedCopy(t, "settings/zones", opts)
	checkNewTypes(t, "settings/zones", dir, opts.Target)
	src := string(mustRead(t, filepath.Join(dir, "main.tf")))
	for _, want := range []string{`setting_id = "always_use_https"`, `setting_id = "min_tls_version"`, `setting_id = "ssl"`, `phase   = "http_request_dynamic_redirect"`} {
		if !strings.Contains(src, want) {
			t.Errorf("no %s in:\n%s", want, src)
		}
	}
	if strings.Contains(src, `resource "cloudflare_zone_settings_override"`) || strings.Contains(src, "brotli") {
		t.Errorf("the override or a retired setting is still there:\n%s", src)
	}
	if script := string(mustRead(t, filepath.Join(dir, StateCleanupScript))); !strings.Contains(script, "forget 'cloudflare_zone_settings_override.docs'") {
		t.Errorf("the clean-up script does not forget the override:\n%s", script)
	}
	checkFixed(t, dir, opts, "zone-settings-bulk", 0)
	if got := ruleFindingsAll(t, dir); len(got) != 0 {
		t.Errorf("check still reports %v", got)
	}
	_, res := fixedCopy(t, "settings/unnamed", opts)
	if l := leftFor(res, "cloudflare_zone_settings_override.this.settings.mobile_redirect"); len(l) != 1 {
		t.Errorf("left = %v", res.Left)
	}
}

// ruleFindingsAll are the findings of settingRules on dir.
func ruleFindingsAll(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, r := range settingRules {
		out = append(out, ruleFindings(t, dir, r)...)
	}
	return out
}

// Provider v5's one resource per setting: a retired one leaves through a removed block (the
// value stays, unmanaged), mobile_redirect with its redirect rule; the others stay.
func TestZoneSettingResources(t *testing.T) {
	opts := Options{Target: terraform.ProviderV5}
	dir, res := fixedCopy(t, "settings/v5", opts)
	checkNewTypes(t, "settings/v5", dir, opts.Target)
	src := string(mustRead(t, filepath.Join(dir, "main.tf")))
	for _, want := range []string{
		"removed {\n  from = cloudflare_zone_setting.brotli\n\n  lifecycle {\n    destroy = false\n  }\n}",
		"removed {\n  from = cloudflare_zone_setting.mobile\n",
		`resource "cloudflare_zone_setting" "ssl"`,
		`target_url = {` + "\n" + `            value = "https://m.blog.example.org/"`,
	} {
		if !strings.Contains(src, want) {
			t.Errorf("rewritten file lacks %q:\n%s", want, src)
		}
	}
	if len(res.Left) != 0 || len(res.StateSteps) != 0 {
		t.Errorf("left %v, state steps %v (v5 reads its own zone settings: the removed blocks do it)", res.Left, res.StateSteps)
	}
	if got := ruleFindingsAll(t, dir); len(got) != 0 {
		t.Errorf("retired settings still reported: %v", got)
	}
	checkFixed(t, dir, opts, "zone-setting-brotli", 0)
}
