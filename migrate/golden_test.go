package migrate_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate/internal/golden"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/customrules"
	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/migrate/verify"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

var update = flag.Bool("update", false, "rewrite the golden plans in testdata/golden/plan")

// goldenAsOf is before every end of life the demo covers (SRV data fields end 2024-05-31),
// so every kind of step appears.
var goldenAsOf = time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)

const goldenDir = "../testdata/golden/plan"

// planOf scans a snapshot and builds its plan.
func planOf(snap *inventory.Snapshot, asOf time.Time) (*migrate.Plan, scanner.Result) {
	res := scanner.ScanSnapshot(snap, nil, scanner.Options{AsOf: asOf})
	return migrate.Build(snap, res, migrate.Options{AsOf: asOf}), res
}

// renderAll renders a plan in its three forms: file name -> bytes.
func renderAll(t *testing.T, p *migrate.Plan) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	var js, md bytes.Buffer
	if err := p.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := p.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	out["plan.json"], out["plan.md"] = js.Bytes(), md.Bytes()
	tf, err := terraform.Files(p)
	if err != nil {
		t.Fatal(err)
	}
	for n, b := range tf {
		out["terraform/"+n] = b
	}
	return out
}

// checkGolden compares the rendered plan with dir, or rewrites dir under -update.
func checkGolden(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	if *update {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		for n, b := range files {
			path := filepath.Join(dir, n)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	var want []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			want = append(want, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for n := range files {
		got = append(got, n)
	}
	sort.Strings(want)
	sort.Strings(got)
	if strings.Join(want, ",") != strings.Join(got, ",") {
		t.Fatalf("%s: files %v, golden has %v (run go test ./migrate -run Golden -update)", dir, got, want)
	}
	for _, n := range got {
		wantB, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(wantB, files[n]) {
			t.Errorf("%s/%s differs from the golden file (run go test ./migrate -run Golden -update to accept):\n%s", dir, n, firstDiff(string(wantB), string(files[n])))
		}
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "line " + itoa(i+1) + ":\n- " + x + "\n+ " + y
		}
	}
	return "(same lines)"
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// zoneSnapshot keeps one zone of the demo (and no account), so each zone's plan is its own
// golden set.
func zoneSnapshot(full *inventory.Snapshot, name string) *inventory.Snapshot {
	s := &inventory.Snapshot{SchemaVersion: full.SchemaVersion, Source: full.Source}
	for _, z := range full.Zones {
		if z.Zone.Name == name {
			s.Zones = append(s.Zones, z)
		}
	}
	return s
}

// TestGoldenDemoZones pins the plan of every demo zone, and of the demo accounts, in its
// three forms.
func TestGoldenDemoZones(t *testing.T) {
	full := seed.Demo()
	for _, z := range full.Zones {
		t.Run(z.Zone.Name, func(t *testing.T) {
			snap := zoneSnapshot(full, z.Zone.Name)
			p, _ := planOf(snap, goldenAsOf)
			verify.Verify(p, snap) // as `sunset plan` does by default
			if len(p.Zones) != 1 || len(p.Zones[0].Steps) == 0 {
				t.Fatalf("demo zone %s has no plan", z.Zone.Name)
			}
			checkGolden(t, filepath.Join(goldenDir, "demo", z.Zone.Name), renderAll(t, p))
		})
	}
	t.Run("accounts", func(t *testing.T) {
		s := &inventory.Snapshot{SchemaVersion: full.SchemaVersion, Source: full.Source, Accounts: full.Accounts}
		p, _ := planOf(s, goldenAsOf)
		if len(p.Accounts) == 0 {
			t.Fatal("the demo accounts have no plan")
		}
		checkGolden(t, filepath.Join(goldenDir, "demo", "accounts"), renderAll(t, p))
	})
}

// corpus returns the realworld corpus folder, or skips.
func corpus(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SUNSET_CORPUS")
	if dir == "" {
		t.Skip("SUNSET_CORPUS is not set: the realworld fixtures (shared/realworld) are read at test time only")
	}
	return dir
}

// unwrapResult returns the envelope's result (or the body itself).
func unwrapResult(t *testing.T, data []byte) json.RawMessage {
	t.Helper()
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(data, &env) == nil && len(env.Result) > 0 {
		return env.Result
	}
	return data
}

func decodeInto(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	body := bytes.TrimSpace(unwrapResult(t, data))
	if len(body) > 0 && body[0] == '{' {
		// A single object where a list is expected.
		body = append(append([]byte("["), body...), ']')
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// testZone is the zone the realworld fixtures are wrapped into.
func testZone(plan string) inventory.ZoneInventory {
	return inventory.ZoneInventory{Zone: inventory.Zone{
		ID: "023e105f4ecef8ad9ca31a8372d0c353", Name: "example.com", Status: "active",
		Account: inventory.Ref{ID: "01a7362d577a6c3019a474fd6f485823", Name: "Corpus"},
		Plan:    inventory.ZonePlan{LegacyID: plan},
	}}
}

// realworldSnapshots wraps the corpus's firewall rule, rate limit and WAF fixtures as zones.
func realworldSnapshots(t *testing.T, dir string) map[string]*inventory.Snapshot {
	api := filepath.Join(dir, "api")
	out := map[string]*inventory.Snapshot{}
	wrap := func(z inventory.ZoneInventory) *inventory.Snapshot {
		s := &inventory.Snapshot{SchemaVersion: inventory.SnapshotSchemaVersion, Source: "realworld", Zones: []inventory.ZoneInventory{z}}
		s.Sort()
		return s
	}
	for _, name := range []string{"firewall_rules.list.cloudflare-go", "firewall_rules.list.cloudflare-php", "firewall_rules.list.cf-terraforming"} {
		data, err := os.ReadFile(filepath.Join(api, name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		rules, err := customrules.DecodeFirewallRules(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		z := testZone(inventory.PlanEnterprise)
		z.FirewallRules = rules
		out[name] = wrap(z)
	}
	for _, name := range []string{"rate_limits.list.cloudflare-go", "rate_limits.list.cf-terraforming"} {
		for _, plan := range []string{inventory.PlanPro, inventory.PlanEnterprise} {
			z := testZone(plan)
			decodeInto(t, filepath.Join(api, name+".json"), &z.RateLimits)
			out[name+"."+plan] = wrap(z)
		}
	}
	{
		z := testZone(inventory.PlanBusiness)
		var pkgs []inventory.WAFPackage
		decodeInto(t, filepath.Join(api, "waf_packages.list.cloudflare-go.json"), &pkgs)
		var groups []inventory.WAFGroup
		decodeInto(t, filepath.Join(api, "waf_groups.list.cloudflare-go.json"), &groups)
		var rules []inventory.WAFRule
		decodeInto(t, filepath.Join(api, "waf_rules.list.cloudflare-go.json"), &rules)
		for _, p := range pkgs {
			pi := inventory.WAFPackageInventory{Package: p}
			for _, g := range groups {
				if g.PackageID == "" || g.PackageID == p.ID {
					pi.Groups = append(pi.Groups, g)
				}
			}
			for _, r := range rules {
				if r.PackageID == "" || r.PackageID == p.ID {
					pi.Rules = append(pi.Rules, r)
				}
			}
			z.WAFPackages = append(z.WAFPackages, pi)
		}
		decodeInto(t, filepath.Join(api, "waf_overrides.list.cloudflare-go.json"), &z.WAFOverrides)
		out["waf.cloudflare-go"] = wrap(z)
	}
	return out
}

// TestGoldenRealworld pins the plans of the realworld firewall rule, rate limit and WAF
// fixtures, each wrapped as the rules of one test zone.
func TestGoldenRealworld(t *testing.T) {
	dir := corpus(t)
	snaps := realworldSnapshots(t, dir)
	names := make([]string, 0, len(snaps))
	for n := range snaps {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			p, res := planOf(snaps[name], goldenAsOf)
			verify.Verify(p, snaps[name])
			if len(p.Zones) != 1 {
				t.Fatalf("no zone plan for %s (%d findings)", name, len(res.Findings))
			}
			if len(p.Unplanned) > 0 {
				t.Errorf("unplanned findings: %v", p.Unplanned)
			}
			// Digests only: the plans reproduce the corpus, which stays outside the project.
			golden.CheckDigests(t, filepath.Join(goldenDir, "realworld", name+".sha256"), renderAll(t, p), *update)
		})
	}
}

// parseHCL fails the test when a generated Terraform file does not parse with hcl/v2.
func parseHCL(t *testing.T, name string, src []byte) {
	t.Helper()
	if _, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos); diags.HasErrors() {
		t.Fatalf("%s does not parse: %s", name, diags.Error())
	}
}

// TestExportsPlan: the published rule exports, wrapped as the firewall rules of a test
// zone, plan without error in every form, and their Terraform parses.
func TestExportsPlan(t *testing.T) {
	dir := corpus(t)
	snaps := exportSnapshots(t, dir)
	names := make([]string, 0, len(snaps))
	for n := range snaps {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			p, res := planOf(snaps[name], goldenAsOf)
			if len(res.Findings) == 0 || len(p.Zones) != 1 {
				t.Fatalf("%d findings, %d zone plans", len(res.Findings), len(p.Zones))
			}
			if len(p.Unplanned) > 0 {
				t.Fatalf("unplanned findings: %v", p.Unplanned)
			}
			for n, b := range renderAll(t, p) {
				if strings.HasSuffix(n, ".tf") {
					parseHCL(t, n, b)
				}
			}
		})
	}
}
