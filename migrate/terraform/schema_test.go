package terraform

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/customrules"
	"github.com/sunsetscan/sunset/migrate/internal/tfschema"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

func loadSchema(t *testing.T, version string) *tfschema.Schema {
	t.Helper()
	s, err := tfschema.Load(version)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func typeSet(s *tfschema.Schema) map[string]bool {
	out := map[string]bool{}
	for _, n := range s.Types {
		out[n] = true
	}
	return out
}

// v4SchemaTypes are the resource types of provider v4.52.8, the last v4 release.
func v4SchemaTypes(t *testing.T) map[string]bool {
	return typeSet(loadSchema(t, "4.52.8"))
}

// writtenTypes are the resource types this package writes (the schema holds others, for
// sunset fix).
var writtenTypes = []string{"cloudflare_ruleset", "cloudflare_zone_dns_settings", "cloudflare_account_dns_settings", "cloudflare_notification_policy", "cloudflare_zero_trust_access_application"}

// TestSchemaFiles: the reduced schemas are what this package needs: v5 has the DNS settings
// types and no WAF types; v4 has the old resources and no WAF types either.
func TestSchemaFiles(t *testing.T) {
	v5, v4 := loadSchema(t, CheckedProviderVersion), loadSchema(t, "4.52.8")
	if v5.Version != CheckedProviderVersion {
		t.Errorf("v5 schema of %s, want %s", v5.Version, CheckedProviderVersion)
	}
	t5, t4 := typeSet(v5), typeSet(v4)
	for _, typ := range writtenTypes {
		if !t5[typ] || v5.Resources[typ] == nil {
			t.Errorf("v5 schema lacks %s", typ)
		}
	}
	for typ := range v4Types {
		if !t4[typ] {
			t.Errorf("v4 lacks %s", typ)
		}
	}
	for typ := range goneTypes {
		if t4[typ] || t5[typ] {
			t.Errorf("%s is in a provider schema: goneTypes is wrong", typ)
		}
	}
}

// TestAttributesMatchProviderSchema: every resource, import and removed block of the demo's
// output (and of the corpus's when SUNSET_CORPUS is set) fits the v5 schema: known types,
// every attribute and nested attribute known and settable, required ones present, values of
// the declared types.
func TestAttributesMatchProviderSchema(t *testing.T) {
	v5 := loadSchema(t, CheckedProviderVersion)
	plans := map[string]*migrate.Plan{"demo": demoPlan(t), "creates": createsPlan()}
	for name, snap := range corpusSnapshots(t) {
		res := scanner.ScanSnapshot(snap, nil, scanner.Options{AsOf: demoAsOf})
		plans[name] = migrate.Build(snap, res, migrate.Options{AsOf: demoAsOf})
	}
	checked := map[string]int{}
	for name, p := range plans {
		files, err := Files(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, b := range blocksOf(parseTF(t, files, topLevel), "resource") {
			checkResource(t, v5, b)
			checked[b.Labels[0]]++
		}
	}
	for _, typ := range writtenTypes {
		if checked[typ] == 0 {
			t.Errorf("no %s checked", typ)
		}
	}
}

func checkResource(t *testing.T, s *tfschema.Schema, b *hclsyntax.Block) {
	t.Helper()
	for _, err := range s.CheckResource(b) {
		t.Error(err)
	}
	for _, nb := range b.Body.Blocks {
		if nb.Type != "lifecycle" {
			t.Errorf("%s.%s: nested block %s; v5 takes attributes", b.Labels[0], b.Labels[1], nb.Type)
		}
	}
}

// TestDNSSettingsAttrsMatchSchema: dnsSettingsAttrs (what ignore_changes may name) are the
// settable attributes of the DNS settings resources (soa and internal_dns as wholes), none
// missing.
func TestDNSSettingsAttrsMatchSchema(t *testing.T) {
	v5 := loadSchema(t, CheckedProviderVersion)
	for typ, attrs := range dnsSettingsAttrs {
		want := settable(v5.Resources[typ].Attributes, "", 3)
		var got []string
		var walk func([]settingAttr, string)
		walk = func(as []settingAttr, prefix string) {
			for _, a := range as {
				got = append(got, prefix+a.name)
				walk(a.children, prefix+a.name+".")
			}
		}
		walk(attrs, "")
		sort.Strings(got)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s:\n have %v\nschema %v", typ, got, want)
		}
	}
}

// settable lists the settable attribute paths of a schema, depth levels deep, ids aside.
func settable(attrs map[string]*tfschema.Attr, prefix string, depth int) []string {
	var out []string
	for name, a := range attrs {
		if (a.Computed && !a.Optional) || a.Required || depth == 0 {
			continue
		}
		out = append(out, prefix+name)
		if a.Nesting == "single" && depth > 1 && name != "soa" && name != "internal_dns" {
			out = append(out, settable(a.Attributes, prefix+name+".", depth-1)...)
		}
	}
	sort.Strings(out)
	return out
}

// TestImportAndRemovedTypesExist: import blocks name only v5 types; the cleanup's removed
// blocks only v4 types (it runs on v4).
func TestImportAndRemovedTypesExist(t *testing.T) {
	files := renderDemo(t)
	t5 := typeSet(loadSchema(t, CheckedProviderVersion))
	for _, b := range blocksOf(parseTF(t, files, topLevel), "import") {
		if typ, addr := refType(t, b, "to"); !t5[typ] {
			t.Errorf("import into %s: v5 has no %s", addr, typ)
		}
	}
	t4 := v4SchemaTypes(t)
	n := 0
	for _, b := range blocksOf(parseTF(t, files, inCleanup), "removed") {
		n++
		if typ, addr := refType(t, b, "from"); !t4[typ] {
			t.Errorf("removed %s: v4 has no %s", addr, typ)
		}
	}
	if n == 0 {
		t.Fatal("no removed blocks in the demo's cleanup")
	}
}

// corpusSnapshots wraps the corpus's firewall rules, rate limits and previous WAF as zones,
// when SUNSET_CORPUS is set (the corpus stays outside the project).
func corpusSnapshots(t *testing.T) map[string]*inventory.Snapshot {
	t.Helper()
	dir := os.Getenv("SUNSET_CORPUS")
	if dir == "" {
		return nil
	}
	api := filepath.Join(dir, "api")
	read := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join(api, name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	out := map[string]*inventory.Snapshot{}
	add := func(name string, z inventory.ZoneInventory) {
		z.Zone = inventory.Zone{ID: "023e105f4ecef8ad9ca31a8372d0c353", Name: "example.com", Status: "active",
			Account: inventory.Ref{ID: "01a7362d577a6c3019a474fd6f485823"}, Plan: z.Zone.Plan}
		s := &inventory.Snapshot{SchemaVersion: inventory.SnapshotSchemaVersion, Zones: []inventory.ZoneInventory{z}}
		s.Sort()
		out[name] = s
	}
	for _, f := range []string{"firewall_rules.list.cloudflare-go.json", "firewall_rules.list.cloudflare-php.json", "firewall_rules.list.cf-terraforming.json"} {
		rules, err := customrules.DecodeFirewallRules(read(f))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		add(f, inventory.ZoneInventory{FirewallRules: rules, Zone: inventory.Zone{Plan: inventory.ZonePlan{LegacyID: inventory.PlanEnterprise}}})
	}
	for _, f := range []string{"rate_limits.list.cloudflare-go.json", "rate_limits.list.cf-terraforming.json"} {
		for _, level := range []string{inventory.PlanPro, inventory.PlanEnterprise} {
			z := inventory.ZoneInventory{Zone: inventory.Zone{Plan: inventory.ZonePlan{LegacyID: level}}}
			decodeResult(t, read(f), &z.RateLimits)
			add(f+"."+level, z)
		}
	}
	z := inventory.ZoneInventory{Zone: inventory.Zone{Plan: inventory.ZonePlan{LegacyID: inventory.PlanBusiness}}}
	var pkgs []inventory.WAFPackage
	decodeResult(t, read("waf_packages.list.cloudflare-go.json"), &pkgs)
	var groups []inventory.WAFGroup
	decodeResult(t, read("waf_groups.list.cloudflare-go.json"), &groups)
	var rules []inventory.WAFRule
	decodeResult(t, read("waf_rules.list.cloudflare-go.json"), &rules)
	for _, p := range pkgs {
		pi := inventory.WAFPackageInventory{Package: p, Groups: groups, Rules: rules}
		z.WAFPackages = append(z.WAFPackages, pi)
	}
	decodeResult(t, read("waf_overrides.list.cloudflare-go.json"), &z.WAFOverrides)
	add("waf", z)
	return out
}

// decodeResult decodes an envelope's result into v.
func decodeResult(t *testing.T, data []byte, v any) {
	t.Helper()
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(data, &env); err != nil || len(env.Result) == 0 {
		t.Fatalf("not an envelope with a result: %v", err)
	}
	if err := json.Unmarshal(env.Result, v); err != nil {
		t.Fatal(err)
	}
}
