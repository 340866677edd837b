package fix

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/sunsetscan/sunset/migrate/fix/internal/tfrun"
	"github.com/sunsetscan/sunset/migrate/internal/tfschema"
	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// The fixtures' inputs are provider v4 configuration: each resource block fix reads must be
// valid for v4.52.8.
func TestSettingsFixturesAreV4(t *testing.T) {
	v4, err := tfschema.Load("4.52.8")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"wafon", "driven", "repeated"} {
		for _, p := range tfFilesUnder(t, filepath.Join("testdata", "settings", name)) {
			for _, err := range v4.CheckFile(mustRead(t, p), p) {
				t.Errorf("fixture input: %v", err)
			}
		}
	}
}

// TestWAFSwitchBecomesManagedRules (item 3): waf = "on" in a settings override is the
// previous WAF's switch; with either target the zone's managed rules entry point executes
// the managed ruleset its plan has in its place (the Free Managed Ruleset on a free zone),
// merged into the entry point the module declares, under the condition a variable sets it
// by; waf = "off" just goes. Nothing is dropped without a word: the v4 override says where
// the switch went.
func TestWAFSwitchBecomesManagedRules(t *testing.T) {
	for _, target := range []terraform.Provider{terraform.ProviderV5, terraform.ProviderV4} {
		t.Run(string(target), func(t *testing.T) {
			opts := Options{Target: target}
			dir, res := fixedCopy(t, "settings/wafon", opts)
			checkNewTypes(t, "settings/wafon", dir, target)
			src := string(mustRead(t, filepath.Join(dir, "main.tf")))
			for addr, ruleset := range map[string]string{
				"cloudflare_ruleset.shop_managed_rules": inventory.RulesetFreeManaged,
				"cloudflare_ruleset.blog_managed":       inventory.RulesetCloudflareManaged,
				"cloudflare_ruleset.docs_managed_rules": inventory.RulesetCloudflareManaged,
			} {
				block := resourceText(t, src, addr)
				if !strings.Contains(block, `"`+ruleset+`"`) || !strings.Contains(block, `"execute"`) {
					t.Errorf("%s does not execute %s:\n%s", addr, ruleset, block)
				}
				if rw, ok := rewriteOf(res, addr); !ok || !strings.HasSuffix(rw.Old[0], ".settings.waf") {
					t.Errorf("no rewrite of a waf setting into %s: %+v", addr, res.Rewrites)
				}
			}
			blog := resourceText(t, src, "cloudflare_ruleset.blog_managed")
			if strings.Index(blog, "/healthz") > strings.Index(blog, inventory.RulesetCloudflareManaged) {
				t.Errorf("the execute rule is not after the entry point's own exception:\n%s", blog)
			}
			if !strings.Contains(resourceText(t, src, "cloudflare_ruleset.docs_managed_rules"), `count = var.docs_waf == "on" ? 1 : 0`) {
				t.Errorf("the driven switch's entry point has no count:\n%s", src)
			}
			if strings.Contains(src, "static_managed_rules") || regexp.MustCompile(`(?m)^\s*waf\s*=`).MatchString(src) {
				t.Errorf("waf = \"off\" written again, or a waf setting left:\n%s", src)
			}
			if target == terraform.ProviderV4 && !strings.Contains(src, `# sunset fix: waf = "on" (the previous WAF's switch) went: cloudflare_ruleset.shop_managed_rules executes the Cloudflare Free Managed Ruleset in its place.`) {
				t.Errorf("no comment where the switch was:\n%s", src)
			}
			checkFixed(t, dir, opts, vocab.WAFManagedRulesV1, 0)
		})
	}
}

// TestWAFZoneSettingBecomesManagedRules (item 3, provider v5's resource): a
// cloudflare_zone_setting of waf leaves through a removed block, and the managed rules entry
// point takes its place where its value is on.
func TestWAFZoneSettingBecomesManagedRules(t *testing.T) {
	v5, err := tfschema.Load("5.22.0")
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range v5.CheckFile(mustRead(t, filepath.Join("testdata", "settings", "wafv5", "main.tf")), "main.tf") {
		t.Errorf("fixture input: %v", err)
	}
	opts := Options{Target: terraform.ProviderV5}
	dir, _ := fixedCopy(t, "settings/wafv5", opts)
	checkNewTypes(t, "settings/wafv5", dir, opts.Target)
	src := string(mustRead(t, filepath.Join(dir, "main.tf")))
	ep := resourceText(t, src, "cloudflare_ruleset.api_managed_rules")
	for vars, want := range map[string]int64{`{waf = "on"}`: 1, `{waf = "off"}`: 0} {
		if got := countWith(t, ep, vars); got != want {
			t.Errorf("entry point count with var = %s: %d, want %d\n%s", vars, got, want, ep)
		}
	}
	if !strings.Contains(ep, inventory.RulesetCloudflareManaged) || !strings.Contains(src, "removed {\n  from = cloudflare_zone_setting.api_waf\n") ||
		!strings.Contains(src, `resource "cloudflare_zone_setting" "api_ssl"`) {
		t.Errorf("rewritten file:\n%s", src)
	}
	checkFixed(t, dir, opts, vocab.WAFManagedRulesV1, 0)
}

// TestDynamicSettingBlocks (item 4): a dynamic block in a settings override is the setting
// it makes, never a setting called "dynamic": the retired minify goes (its removal changes
// nothing: the feature is gone), security_header becomes its cloudflare_zone_setting set
// when its collection is not empty, its iterator replaced by the element; a dynamic settings
// block is its settings, under the same condition.
func TestDynamicSettingBlocks(t *testing.T) {
	opts := Options{Target: terraform.ProviderV5}
	dir, _ := fixedCopy(t, "settings/driven", opts)
	checkNewTypes(t, "settings/driven", dir, opts.Target)
	src := string(mustRead(t, filepath.Join(dir, "main.tf")))
	if regexp.MustCompile(`"dynamic"|dynamic "minify"|setting_id = "minify"|brotli`).MatchString(src) {
		t.Errorf("a dynamic block written as a setting, or a retired setting kept:\n%s", src)
	}
	hsts := resourceText(t, src, "cloudflare_zone_setting.site_security_header")
	for _, want := range []string{"count = var.hsts ? 1 : 0", "value      = { strict_transport_security = { enabled = true, max_age = 31536000 } }"} {
		if !strings.Contains(hsts, want) {
			t.Errorf("security_header lacks %q:\n%s", want, hsts)
		}
	}
	env := resourceText(t, src, "cloudflare_zone_setting.env_always_online")
	for vars, want := range map[string]int64{`{env_settings = null}`: 0, `{env_settings = {}}`: 0, `{env_settings = {always_online = "on"}}`: 1} {
		if got := countWith(t, env, vars); got != want {
			t.Errorf("env_always_online count with var = %s: %d, want %d\n%s", vars, got, want, env)
		}
	}
	checkFixed(t, dir, opts, "zone-setting-minify", 0)

	// Provider v4 keeps the override: the dynamic minify block goes, with the blank line
	// that set it apart.
	v4 := Options{Target: terraform.ProviderV4}
	dir4, _ := fixedCopy(t, "settings/driven", v4)
	src4 := string(mustRead(t, filepath.Join(dir4, "main.tf")))
	if strings.Contains(src4, `dynamic "minify"`) || strings.Contains(src4, "\n\n\n") || !strings.Contains(src4, `dynamic "security_header"`) {
		t.Errorf("v4:\n%s", src4)
	}
	checkFixed(t, dir4, v4, "zone-setting-minify", 0)
}

// TestSettingIDsOnlyTheAPIs (item 5): every cloudflare_zone_setting fix writes has a setting
// id of the API's list (zero_rtt as 0rtt); universal_ssl, which the API keeps under its own
// endpoint, becomes cloudflare_universal_ssl_setting; the settings no v5 resource sets are
// listed with why, in the file and the result.
func TestSettingIDsOnlyTheAPIs(t *testing.T) {
	opts := Options{Target: terraform.ProviderV5}
	dir, res := fixedCopy(t, "settings/driven", opts)
	src := string(mustRead(t, filepath.Join(dir, "main.tf")))
	ids := regexp.MustCompile(`setting_id = "([^"]+)"`).FindAllStringSubmatch(src, -1)
	if len(ids) < 8 {
		t.Fatalf("%d settings written:\n%s", len(ids), src)
	}
	for _, m := range ids {
		if _, ok := apiSettings()[m[1]]; !ok {
			t.Errorf("setting_id %q is not one of the API's", m[1])
		}
	}
	if !strings.Contains(src, `setting_id = "0rtt"`) {
		t.Errorf("zero_rtt not written as 0rtt:\n%s", src)
	}
	if ussl := resourceText(t, src, "cloudflare_universal_ssl_setting.site_universal_ssl"); !strings.Contains(ussl, "enabled = true") {
		t.Errorf("universal_ssl:\n%s", ussl)
	}
	for _, name := range []string{"log_to_cloudflare", "visitor_ip", "filter_logs_to_cloudflare"} {
		addr := "cloudflare_zone_settings_override.site.settings." + name
		if l := leftFor(res, addr); len(l) != 1 || !strings.Contains(l[0], `the zone settings API has no setting "`+name+`"`) {
			t.Errorf("%s left = %v", addr, l)
		}
		if !strings.Contains(src, "# "+addr+" not carried over") {
			t.Errorf("no comment for %s:\n%s", name, src)
		}
	}
	checkNewTypes(t, "settings/driven", dir, opts.Target)
	checkFixed(t, dir, opts, "zone-settings-bulk", 0)
}

// TestNullMeansNotManaged (item 6): x = cond ? v : null meant "not managed when cond is
// false"; its cloudflare_zone_setting carries that as count = cond ? 1 : 0 with value = v
// (value is required: never a null branch), as do a variable and a lookup that may be null;
// a value the repository proves set gets no count, and one provider v4 converted (the
// string "1800" of a number setting) is written as the API's type.
func TestNullMeansNotManaged(t *testing.T) {
	opts := Options{Target: terraform.ProviderV5}
	dir, _ := fixedCopy(t, "settings/driven", opts)
	checkNewTypes(t, "settings/driven", dir, opts.Target)
	src := string(mustRead(t, filepath.Join(dir, "main.tf")))
	if regexp.MustCompile(`value\s*=.*:\s*null`).MatchString(src) {
		t.Errorf("a value with a null branch:\n%s", src)
	}
	for _, c := range []struct {
		addr, value string
		counts      map[string]int64 // var object -> count
	}{
		{"cloudflare_zone_setting.site_mirage", `value      = "on"`, map[string]int64{`{plan = "free"}`: 0, `{plan = "pro"}`: 1}},
		{"cloudflare_zone_setting.site_webp", `value      = "on"`, map[string]int64{`{plan = "free"}`: 0, `{plan = "pro"}`: 1}},
		{"cloudflare_zone_setting.site_polish", `value      = var.polish`, map[string]int64{`{polish = null}`: 0, `{polish = "lossy"}`: 1}},
		{"cloudflare_zone_setting.site_http2", `value      = lookup(var.settings, "http2", null)`, map[string]int64{`{settings = {}}`: 0, `{settings = {http2 = "on"}}`: 1}},
		{"cloudflare_zone_setting.site_cache_level", `value      = lookup(var.settings, "cache_level", "aggressive")`, nil},
		{"cloudflare_zone_setting.site_challenge_ttl", `value      = 1800`, nil},
	} {
		block := resourceText(t, src, c.addr)
		if !strings.Contains(block, c.value) {
			t.Errorf("%s lacks %s:\n%s", c.addr, c.value, block)
		}
		if c.counts == nil && strings.Contains(block, "count") {
			t.Errorf("%s is always set, yet has a count:\n%s", c.addr, block)
		}
		for vars, want := range c.counts {
			if got := countWith(t, block, vars); got != want {
				t.Errorf("%s count with var = %s: %d, want %d", c.addr, vars, got, want)
			}
		}
	}
	checkFixed(t, dir, opts, "zone-settings-bulk", 0)
}

// TestRepeatedOverridesKeepTheirInstances: an override with for_each (one zone per
// instance) becomes settings with the same for_each, filtered to the instances that set
// each one (each.key and each.value unchanged), and its waf switch one managed rules entry
// point per instance where it was on; an override with count keeps it, inside the
// setting's own condition.
func TestRepeatedOverridesKeepTheirInstances(t *testing.T) {
	opts := Options{Target: terraform.ProviderV5}
	dir, _ := fixedCopy(t, "settings/repeated", opts)
	checkNewTypes(t, "settings/repeated", dir, opts.Target)
	src := string(mustRead(t, filepath.Join(dir, "main.tf")))
	zones := `{zones = {a = {id = "1", ssl = "full", waf = "on"}, b = {id = "2", ssl = null, waf = "off"}}, enabled = true}`
	for addr, want := range map[string]string{
		"cloudflare_zone_setting.each_ssl":              "a",
		"cloudflare_zone_setting.each_always_use_https": "a b",
		"cloudflare_ruleset.value_managed_rules":        "a",
	} {
		if got := forEachKeys(t, resourceText(t, src, addr), zones); got != want {
			t.Errorf("%s instances: %q, want %q", addr, got, want)
		}
	}
	for vars, want := range map[string]int64{`{enabled = true}`: 1, `{enabled = false}`: 0} {
		for _, addr := range []string{"cloudflare_zone_setting.toggle_http3", "cloudflare_zone_setting.toggle_ipv6"} {
			if got := countWith(t, resourceText(t, src, addr), vars); got != want {
				t.Errorf("%s count with var = %s: %d, want %d", addr, vars, got, want)
			}
		}
	}
	checkFixed(t, dir, opts, "zone-settings-bulk", 0)
}

// resourceText is the block of the resource addr (TYPE.NAME) in src.
func resourceText(t *testing.T, src, addr string) string {
	t.Helper()
	typ, name, _ := strings.Cut(addr, ".")
	f, diags := hclsyntax.ParseConfig([]byte(src), "main.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		if b.Type == "resource" && len(b.Labels) == 2 && b.Labels[0] == typ && b.Labels[1] == name {
			return src[b.Range().Start.Byte:b.Range().End.Byte]
		}
	}
	t.Fatalf("no %s in:\n%s", addr, src)
	return ""
}

// countWith evaluates a resource block's count with var set to the object written as vars.
func countWith(t *testing.T, block, vars string) int64 {
	t.Helper()
	i, _ := metaWith(t, block, vars, "count").AsBigFloat().Int64()
	return i
}

// forEachKeys evaluates a resource block's for_each with var set to the object written as
// vars: its keys, space-separated.
func forEachKeys(t *testing.T, block, vars string) string {
	t.Helper()
	var keys []string
	for it := metaWith(t, block, vars, "for_each").ElementIterator(); it.Next(); {
		k, _ := it.Element()
		keys = append(keys, k.AsString())
	}
	return strings.Join(keys, " ")
}

// metaWith evaluates a resource block's attribute (count, for_each) with var set to the
// object written as vars, and Terraform's functions.
func metaWith(t *testing.T, block, vars, attr string) cty.Value {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(block+"\nvars = "+vars+"\n"), "block.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	body := f.Body.(*hclsyntax.Body)
	v, diags := body.Attributes["vars"].Expr.Value(nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	funcs := functions(&Module{})
	funcs["one"], funcs["lookup"] = oneFunc, lookupFunc
	n, diags := body.Blocks[0].Body.Attributes[attr].Expr.Value(&hcl.EvalContext{Variables: map[string]cty.Value{"var": v}, Functions: funcs})
	if diags.HasErrors() {
		t.Fatalf("%s: %v", attr, diags)
	}
	return n
}

// oneFunc is Terraform's one: the element of a collection of at most one, null when empty.
var oneFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "list", Type: cty.DynamicPseudoType, AllowDynamicType: true}},
	Type:   function.StaticReturnType(cty.DynamicPseudoType),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		if args[0].LengthInt() == 0 {
			return cty.NullVal(cty.DynamicPseudoType), nil
		}
		it := args[0].ElementIterator()
		it.Next()
		_, v := it.Element()
		return v, nil
	},
})

// lookupFunc is Terraform's lookup, whose default may be null (cty's refuses it).
var lookupFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "map", Type: cty.DynamicPseudoType, AllowDynamicType: true, AllowNull: true}, {Name: "key", Type: cty.String},
		{Name: "default", Type: cty.DynamicPseudoType, AllowDynamicType: true, AllowNull: true}},
	Type: function.StaticReturnType(cty.DynamicPseudoType),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		m, k := args[0], args[1].AsString()
		switch {
		case m.IsNull():
		case m.Type().IsObjectType() && m.Type().HasAttribute(k):
			return m.GetAttr(k), nil
		case m.Type().IsMapType() && m.HasIndex(args[1]).True():
			return m.Index(args[1]), nil
		}
		return args[2], nil
	},
})

// TestCorpusZoneSettings: on the corpus's repositories (SUNSET_CORPUS), every
// cloudflare_zone_setting and cloudflare_universal_ssl_setting fix writes is valid
// for provider v5.22.0 (value never null in a branch) with a setting id of the API's, and
// --target v4 writes none.
func TestCorpusZoneSettings(t *testing.T) {
	root := os.Getenv("SUNSET_CORPUS")
	if root == "" {
		t.Skip("SUNSET_CORPUS is not set: the corpus of public repositories (../shared/realworld) is not used")
	}
	v5, err := tfschema.Load("5.22.0")
	if err != nil {
		t.Fatal(err)
	}
	repos, _ := filepath.Glob(filepath.Join(root, "repos*", "*"))
	written := 0
	for _, r := range repos {
		if !hasTerraform(r) {
			continue
		}
		for _, target := range []terraform.Provider{terraform.ProviderV5, terraform.ProviderV4} {
			dir := t.TempDir()
			copyTree(t, r, dir)
			res, err := Run(Options{Root: dir, Target: target})
			if err != nil {
				t.Fatalf("%s: %v", filepath.Base(r), err)
			}
			for _, fc := range res.Files {
				written += checkZoneSettings(t, v5, fc, target)
			}
		}
	}
	if written == 0 {
		t.Error("no zone setting written on the corpus")
	}
}

// checkZoneSettings checks the per-setting resources fix wrote in one file and counts them.
func checkZoneSettings(t *testing.T, v5 *tfschema.Schema, fc FileChange, target terraform.Provider) int {
	t.Helper()
	f, diags := hclsyntax.ParseConfig(fc.New, fc.Path, hcl.InitialPos)
	if diags.HasErrors() || !strings.HasSuffix(fc.Path, ".tf") {
		return 0
	}
	n := 0
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		if b.Type != "resource" || len(b.Labels) != 2 || (b.Labels[0] != typeZoneSetting && b.Labels[0] != typeUniversalSSL) ||
			strings.Contains(string(fc.Old), fmt.Sprintf("resource %q %q", b.Labels[0], b.Labels[1])) {
			continue // not one fix wrote
		}
		n++
		if target == terraform.ProviderV4 {
			t.Errorf("%s: %s.%s written for provider v4", fc.Path, b.Labels[0], b.Labels[1])
		}
		for _, err := range v5.CheckResource(b) {
			t.Errorf("%s: %v", fc.Path, err)
		}
		if a, ok := b.Body.Attributes["setting_id"]; ok {
			v, _ := a.Expr.Value(nil)
			if _, known := apiSettings()[v.AsString()]; !known {
				t.Errorf("%s: %s.%s: setting_id %s is not the API's", fc.Path, b.Labels[0], b.Labels[1], v.GoString())
			}
		}
	}
	return n
}

// TestTerraformValidatesSettingsOnV4: the settings fixtures rewritten for provider v4 pass
// `terraform validate` with the v4.52.8 build (SUNSET_TERRAFORM; skipped without it): the
// managed rules entry points the waf switches became, merged or new, and the overrides
// without their retired settings and dynamic blocks.
func TestTerraformValidatesSettingsOnV4(t *testing.T) {
	tf := tfrun.Find(t)
	for _, name := range []string{"settings/wafon", "settings/driven", "settings/repeated"} {
		t.Run(name, func(t *testing.T) {
			dir, _ := fixedCopy(t, name, Options{Target: terraform.ProviderV4})
			tfrun.PinProvider(t, dir, providerBuilds[terraform.ProviderV4])
			tf.Validate(t, dir)
		})
	}
}
