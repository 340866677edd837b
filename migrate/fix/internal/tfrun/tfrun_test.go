package tfrun

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// The zone of the round trip, on Enterprise so that no quota of the emulator gets in the way.
var (
	accountID = seed.ID("account", "tfrun")
	zoneID    = seed.ID("zone", "tfrun.example")
	// asOf is before the firewall rules API's end of life: creating rules still works.
	asOf = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
)

const adminExpr = `(http.request.uri.path contains "/admin" and not ip.src in {192.0.2.0/24})`

func oneZone() *inventory.Snapshot {
	account := inventory.Ref{ID: accountID, Name: "tfrun"}
	return &inventory.Snapshot{
		SchemaVersion: 1,
		Accounts:      []inventory.AccountInventory{{Account: inventory.Account{ID: account.ID, Name: account.Name}}},
		Zones: []inventory.ZoneInventory{{Zone: inventory.Zone{
			ID: zoneID, Name: "tfrun.example", Status: "active", Type: "full", Account: account,
			Plan: inventory.ZonePlan{ID: seed.ID("plan", inventory.PlanEnterprise), Name: "Enterprise Website", LegacyID: inventory.PlanEnterprise},
		}}},
	}
}

// Each testdata configuration passes `terraform validate` with its provider version.
func TestValidate(t *testing.T) {
	tf := Find(t)
	for _, name := range []string{"v4-before", "v4-after", "v5"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			UseConfig(t, dir, filepath.Join("testdata", name))
			tf.Validate(t, dir)
		})
	}
}

// Pinned to provider v5, the v4 ruleset (rules as blocks) is refused: validate runs the
// pinned build, and ValidateErr carries its diagnostics.
func TestPinProvider(t *testing.T) {
	tf := Find(t)
	dir := t.TempDir()
	UseConfig(t, dir, filepath.Join("testdata", "v4-after"))
	PinProvider(t, dir, "5.22.0")
	err := tf.ValidateErr(t, dir)
	if err == nil || !strings.Contains(err.Error(), `Blocks of type "rules" are not expected here`) {
		t.Fatalf("validate of v4's ruleset with provider v5: %v", err)
	}
	PinProvider(t, dir, "4.52.8")
	tf.Init(t, dir) // the lock file names 5.22.0 until init -upgrade selects the new pin
	if err := tf.ValidateErr(t, dir); err != nil {
		t.Fatal(err)
	}
}

// Provider v4 creates a filter and a firewall rule in the emulator; the rewritten
// configuration moves them out of the state (`removed`, destroy = false) while it creates
// the ruleset: the plan forgets them and destroys nothing, and the account keeps the rule.
func TestRoundTripV4(t *testing.T) {
	tf := Find(t)
	em, env := emulateZone(t)
	dir := t.TempDir()

	UseConfig(t, dir, filepath.Join("testdata", "v4-before"))
	tf.Apply(t, dir, env)
	before := zoneOf(t, em)
	if len(before.FirewallRules) != 1 || len(before.Filters) != 1 || before.Filters[0].Expression != adminExpr {
		t.Fatalf("after the first apply the zone has rules %+v, filters %+v; want the one pair", before.FirewallRules, before.Filters)
	}

	UseConfig(t, dir, filepath.Join("testdata", "v4-after"))
	p := tf.Plan(t, dir, env)
	for _, addr := range []string{"cloudflare_firewall_rule.block_admin", "cloudflare_filter.block_admin"} {
		if got := p.Actions(addr); !slices.Equal(got, []string{"forget"}) {
			t.Errorf("plan actions of %s = %q, want [forget]", addr, got)
		}
	}
	if got := p.Actions("cloudflare_ruleset.custom"); !slices.Equal(got, []string{"create"}) {
		t.Errorf("plan actions of cloudflare_ruleset.custom = %q, want [create]", got)
	}
	if del := p.With("delete"); len(del) > 0 {
		t.Errorf("the plan deletes %q", del)
	}
	if !strings.Contains(p.Text, "will no longer be managed by Terraform") {
		t.Errorf("the plan's text does not say the old resources leave the state:\n%s", p.Text)
	}

	tf.Apply(t, dir, env)
	after := zoneOf(t, em)
	if len(after.FirewallRules) != 1 || len(after.Filters) != 1 {
		t.Errorf("the apply touched the old objects: rules %+v, filters %+v", after.FirewallRules, after.Filters)
	}
	rs := customRules(after)
	if rs == nil || len(rs.Rules) != 1 || rs.Rules[0].Expression != adminExpr || rs.Rules[0].Action != "block" {
		t.Errorf("custom rules entry point after the apply: %+v", rs)
	}
	if got := strings.Fields(tf.Run(t, dir, nil, "state", "list")); !slices.Equal(got, []string{"cloudflare_ruleset.custom"}) {
		t.Errorf("state after the apply holds %q, want only the ruleset", got)
	}
}

// Provider v5 creates the ruleset in the emulator through CLOUDFLARE_BASE_URL.
func TestApplyV5(t *testing.T) {
	tf := Find(t)
	em, env := emulateZone(t)
	dir := t.TempDir()
	UseConfig(t, dir, filepath.Join("testdata", "v5"))
	if got := tf.Plan(t, dir, env).Actions("cloudflare_ruleset.custom"); !slices.Equal(got, []string{"create"}) {
		t.Fatalf("plan actions of cloudflare_ruleset.custom = %q, want [create]", got)
	}
	tf.Apply(t, dir, env)
	rs := customRules(zoneOf(t, em))
	if rs == nil || len(rs.Rules) != 1 || rs.Rules[0].Expression != adminExpr {
		t.Errorf("custom rules entry point after the apply: %+v", rs)
	}
	// A second plan finds nothing to change: the provider read back what it wrote.
	again := tf.Plan(t, dir, env)
	if changed := append(again.With("update"), again.With("create")...); len(changed) > 0 {
		t.Errorf("a second plan changes %q", changed)
	}
}

// emulateZone serves the one-zone account and returns the environment of a terraform run
// against it, the zone's id included as var.zone_id.
func emulateZone(t *testing.T) (*Emulator, []string) {
	em := Emulate(t, emulator.Options{Token: seed.DemoToken, Seed: oneZone(), AsOf: asOf})
	return em, append(em.Env(), "TF_VAR_zone_id="+zoneID)
}

// zoneOf returns the round trip's zone as the emulator holds it now.
func zoneOf(t *testing.T, em *Emulator) inventory.ZoneInventory {
	t.Helper()
	for _, z := range em.Snapshot().Zones {
		if z.Zone.ID == zoneID {
			return z
		}
	}
	t.Fatalf("zone %s is gone from the emulator", zoneID)
	return inventory.ZoneInventory{}
}

// customRules returns the zone's custom rules entry point, nil when there is none.
func customRules(z inventory.ZoneInventory) *inventory.Ruleset {
	for i, rs := range z.Rulesets {
		if rs.Phase == vocab.PhaseCustomRules {
			return &z.Rulesets[i]
		}
	}
	return nil
}

func TestLocate(t *testing.T) {
	if _, why := locate(""); !strings.Contains(why, EnvVar+" is not set") {
		t.Errorf("unset: %q", why)
	}
	missing := filepath.Join(t.TempDir(), "none")
	if _, why := locate(missing); !strings.Contains(why, missing) {
		t.Errorf("missing directory: %q does not name it", why)
	}
	dir := t.TempDir()
	if _, why := locate(dir); !strings.Contains(why, "no CLI config") {
		t.Errorf("directory without terraformrc: %q", why)
	}
	if err := os.WriteFile(filepath.Join(dir, "terraformrc"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, why := locate(dir); !strings.Contains(why, "terraform version") {
		t.Errorf("directory without a runnable terraform: %q", why)
	}
}

func TestParsePlan(t *testing.T) {
	doc := `{"format_version":"1.2","resource_changes":[
	 {"address":"cloudflare_filter.a","type":"cloudflare_filter","change":{"actions":["forget"]}},
	 {"address":"cloudflare_ruleset.r","type":"cloudflare_ruleset","change":{"actions":["delete","create"]}},
	 {"address":"module.m.cloudflare_ruleset.s[\"k\"]","type":"cloudflare_ruleset","change":{"actions":["no-op"]}}]}`
	p, err := parsePlan([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Actions("cloudflare_filter.a"); !slices.Equal(got, []string{"forget"}) {
		t.Errorf("Actions(filter) = %q", got)
	}
	if got := p.Actions(`module.m.cloudflare_ruleset.s["k"]`); !slices.Equal(got, []string{"no-op"}) {
		t.Errorf("Actions(module) = %q", got)
	}
	if got := p.Actions("cloudflare_filter.none"); got != nil {
		t.Errorf("Actions(absent) = %q", got)
	}
	if got := p.With("delete"); !slices.Equal(got, []string{"cloudflare_ruleset.r"}) {
		t.Errorf(`With("delete") = %q`, got)
	}
	if p.Changes[1].Type != "cloudflare_ruleset" {
		t.Errorf("type of the second change: %q", p.Changes[1].Type)
	}
	if _, err := parsePlan([]byte("not json")); err == nil {
		t.Error("parsePlan accepted text that is not JSON")
	}
}
