package terraform

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/customrules"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// The provider schemas in testdata are `terraform providers schema -json` of the Cloudflare
// provider built from source (tags v5.22.0 and v4.52.8), reduced to what these tests read:
// the names of every resource type, and for the types this package writes each attribute's
// type or nested attributes and whether it is required, optional or computed (descriptions,
// validators and blocks dropped).

// schemaAttr is one attribute of a reduced provider schema.
type schemaAttr struct {
	Type       json.RawMessage        `json:"type,omitempty"`    // cty type JSON, for a plain attribute
	Nesting    string                 `json:"nesting,omitempty"` // single, list, set or map, for a nested one
	Attributes map[string]*schemaAttr `json:"attributes,omitempty"`
	Required   bool                   `json:"required,omitempty"`
	Optional   bool                   `json:"optional,omitempty"`
	Computed   bool                   `json:"computed,omitempty"`
}

// providerSchema is a reduced provider schema.
type providerSchema struct {
	Version   string                            `json:"version"`
	Types     []string                          `json:"resource_types"`
	Resources map[string]map[string]*schemaAttr `json:"resources"`
}

func loadSchema(t *testing.T, name string) *providerSchema {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var s providerSchema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &s
}

func typeSet(s *providerSchema) map[string]bool {
	out := map[string]bool{}
	for _, n := range s.Types {
		out[n] = true
	}
	return out
}

// v4SchemaTypes are the resource types of provider v4.52.8, the last v4 release.
func v4SchemaTypes(t *testing.T) map[string]bool {
	return typeSet(loadSchema(t, "provider-v4.52.8.json"))
}

// TestSchemaFiles: the reduced schemas are what this package needs: v5 has the DNS settings
// types and no WAF types; v4 has the old resources and no WAF types either.
func TestSchemaFiles(t *testing.T) {
	v5, v4 := loadSchema(t, "provider-v"+CheckedProviderVersion+".json"), loadSchema(t, "provider-v4.52.8.json")
	if v5.Version != CheckedProviderVersion {
		t.Errorf("v5 schema of %s, want %s", v5.Version, CheckedProviderVersion)
	}
	t5, t4 := typeSet(v5), typeSet(v4)
	for _, typ := range []string{"cloudflare_ruleset", "cloudflare_zone_dns_settings", "cloudflare_account_dns_settings", "cloudflare_notification_policy", "cloudflare_zero_trust_access_application"} {
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
	v5 := loadSchema(t, "provider-v"+CheckedProviderVersion+".json")
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
	for typ := range v5.Resources {
		if checked[typ] == 0 {
			t.Errorf("no %s checked", typ)
		}
	}
}

func checkResource(t *testing.T, s *providerSchema, b *hclsyntax.Block) {
	t.Helper()
	where := b.Labels[0] + "." + b.Labels[1]
	attrs, ok := s.Resources[b.Labels[0]]
	if !ok {
		t.Errorf("%s: no such type in the provider %s schema used here", where, s.Version)
		return
	}
	obj := map[string]cty.Value{}
	for name := range b.Body.Attributes {
		obj[name] = valueOf(t, b, name)
	}
	for _, nb := range b.Body.Blocks {
		if nb.Type != "lifecycle" {
			t.Errorf("%s: nested block %s; v5 takes attributes", where, nb.Type)
			continue
		}
		checkIgnoreChanges(t, where, attrs, nb)
	}
	checkObject(t, where, attrs, cty.ObjectVal(obj))
}

// checkIgnoreChanges: every path of lifecycle.ignore_changes names a settable attribute.
func checkIgnoreChanges(t *testing.T, where string, attrs map[string]*schemaAttr, lc *hclsyntax.Block) {
	t.Helper()
	a, ok := lc.Body.Attributes["ignore_changes"]
	if !ok || len(lc.Body.Attributes) != 1 {
		t.Errorf("%s: lifecycle holds other than ignore_changes", where)
		return
	}
	list, ok := a.Expr.(*hclsyntax.TupleConsExpr)
	if !ok || len(list.Exprs) == 0 {
		t.Errorf("%s: ignore_changes is not a list of attributes", where)
		return
	}
	for _, e := range list.Exprs {
		tr, diags := hcl.AbsTraversalForExpr(e)
		if diags.HasErrors() {
			t.Errorf("%s: ignore_changes entry is not an attribute path", where)
			continue
		}
		level := attrs
		path := ""
		for i, step := range tr {
			name := tr.RootName()
			if i > 0 {
				name = step.(hcl.TraverseAttr).Name
			}
			path += "." + name
			sa, ok := level[name]
			if !ok || (sa.Computed && !sa.Optional) {
				t.Errorf("%s: ignore_changes%s is not a settable attribute", where, path)
				break
			}
			level = sa.Attributes
		}
	}
}

// TestDNSSettingsAttrsMatchSchema: dnsSettingsAttrs (what ignore_changes may name) are the
// settable attributes of the DNS settings resources (soa and internal_dns as wholes), none
// missing.
func TestDNSSettingsAttrsMatchSchema(t *testing.T) {
	v5 := loadSchema(t, "provider-v"+CheckedProviderVersion+".json")
	for typ, attrs := range dnsSettingsAttrs {
		want := settable(v5.Resources[typ], "", 3)
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
func settable(attrs map[string]*schemaAttr, prefix string, depth int) []string {
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

// checkObject checks an object value against nested attributes.
func checkObject(t *testing.T, where string, attrs map[string]*schemaAttr, v cty.Value) {
	t.Helper()
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		t.Errorf("%s: %s, want an object", where, v.Type().FriendlyName())
		return
	}
	names := make([]string, 0, len(attrs))
	for n := range attrs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if attrs[n].Required && !hasAttr(v, n) {
			t.Errorf("%s: required attribute %s missing", where, n)
		}
	}
	for it := v.ElementIterator(); it.Next(); {
		k, ev := it.Element()
		a, ok := attrs[k.AsString()]
		switch {
		case !ok:
			t.Errorf("%s.%s: no such attribute", where, k.AsString())
		case a.Computed && !a.Optional && !a.Required:
			t.Errorf("%s.%s: computed only, cannot be set", where, k.AsString())
		default:
			checkValue(t, where+"."+k.AsString(), a, ev)
		}
	}
}

func hasAttr(v cty.Value, n string) bool {
	if v.Type().IsObjectType() {
		return v.Type().HasAttribute(n)
	}
	return v.HasIndex(cty.StringVal(n)).True()
}

// checkValue checks one attribute's value: nested attributes recursively, plain ones by
// converting to the declared type.
func checkValue(t *testing.T, where string, a *schemaAttr, v cty.Value) {
	t.Helper()
	switch a.Nesting {
	case "":
		ty, err := ctyjson.UnmarshalType(a.Type)
		if err != nil {
			t.Fatalf("%s: schema type %s: %v", where, a.Type, err)
		}
		if _, err := convert.Convert(v, ty); err != nil {
			t.Errorf("%s: %s does not convert to %s: %v", where, v.Type().FriendlyName(), ty.FriendlyName(), err)
		}
	case "single":
		checkObject(t, where, a.Attributes, v)
	case "list", "set":
		if !v.Type().IsTupleType() && !v.Type().IsListType() {
			t.Errorf("%s: %s, want a list of objects", where, v.Type().FriendlyName())
			return
		}
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			checkObject(t, where+"["+k.AsBigFloat().String()+"]", a.Attributes, ev)
		}
	case "map":
		for it := v.ElementIterator(); it.Next(); {
			k, ev := it.Element()
			checkObject(t, where+"["+k.AsString()+"]", a.Attributes, ev)
		}
	default:
		t.Fatalf("%s: nesting %q", where, a.Nesting)
	}
}

// TestImportAndRemovedTypesExist: import blocks name only v5 types; the cleanup's removed
// blocks only v4 types (it runs on v4).
func TestImportAndRemovedTypesExist(t *testing.T) {
	files := renderDemo(t)
	t5 := typeSet(loadSchema(t, "provider-v"+CheckedProviderVersion+".json"))
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
