package fix

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/migrate/fix/internal/tfrun"
	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner/cfapi"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// These tests run the real Terraform and Cloudflare provider (SUNSET_TERRAFORM, see
// migrate/fix/internal/tfrun) and skip without them.

// providerBuilds are the provider versions the CLI config installs, per target.
var providerBuilds = map[terraform.Provider]string{terraform.ProviderV4: "4.52.8", terraform.ProviderV5: "5.22.0"}

// validFor are the fixtures whose other resources (those fix does not touch) are valid for
// the provider too, and that fix leaves nothing to decide in: after the fix, each root module
// must pass `terraform validate`. The others keep v4-only resources (cloudflare_zone's zone,
// v4 settings) or a reference fix reports, which validate rightly refuses.
var validFor = map[terraform.Provider][]string{
	terraform.ProviderV4: {"nopriority", "foreach", "count", "module", "vardriven", "merge", "templates"},
	terraform.ProviderV5: {"foreach", "count", "module", "vardriven", "templates"},
}

// TestTerraformValidatesFixtures: the rewritten fixtures pass `terraform validate` with the
// target's provider build.
func TestTerraformValidatesFixtures(t *testing.T) {
	tf := tfrun.Find(t)
	for _, target := range []terraform.Provider{terraform.ProviderV4, terraform.ProviderV5} {
		for _, name := range validFor[target] {
			t.Run(name+"/"+string(target), func(t *testing.T) {
				dir := copyFixture(t, name)
				res, err := Run(Options{Root: dir, Target: target})
				if err != nil {
					t.Fatal(err)
				}
				if err := res.Write(); err != nil {
					t.Fatal(err)
				}
				repo, err := Load(dir, []string{dir})
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range repo.Modules {
					if m.Root() {
						root := filepath.Join(dir, filepath.FromSlash(m.Dir))
						tfrun.PinProvider(t, root, providerBuilds[target])
						tf.Validate(t, root)
					}
				}
			})
		}
	}
}

// roundTripRuleset is the ruleset fix writes for the foreach fixture: created only when the
// old rules' for_each leaves a rule, as they were (count = length(var.rules) > 0 ? 1 : 0).
const roundTripRuleset = "cloudflare_ruleset.custom_rules[0]"

// The zone of the round trips (the emulator accepts firewall rules until their end of life).
var (
	roundTripZone = seed.ID("zone", "fix.example")
	roundTripAsOf = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
)

func roundTripAccount() *inventory.Snapshot {
	account := inventory.Ref{ID: seed.ID("account", "fix"), Name: "fix"}
	return &inventory.Snapshot{
		SchemaVersion: 1,
		Accounts:      []inventory.AccountInventory{{Account: inventory.Account{ID: account.ID, Name: account.Name}}},
		Zones: []inventory.ZoneInventory{{Zone: inventory.Zone{
			ID: roundTripZone, Name: "fix.example", Status: "active", Type: "full", Account: account,
			Plan: inventory.ZonePlan{ID: seed.ID("plan", inventory.PlanEnterprise), Name: "Enterprise Website", LegacyID: inventory.PlanEnterprise},
		}}},
	}
}

// roundTripStart applies the foreach fixture as it is with provider v4 against the emulator
// and returns the directory (its state), the emulator and the environment.
func roundTripStart(t *testing.T, tf *tfrun.Terraform) (string, *tfrun.Emulator, []string) {
	em := tfrun.Emulate(t, emulator.Options{Token: seed.DemoToken, Seed: roundTripAccount(), AsOf: roundTripAsOf})
	env := append(em.Env(), "TF_VAR_zone_id="+roundTripZone)
	dir := copyFixture(t, "foreach")
	tfrun.PinProvider(t, dir, providerBuilds[terraform.ProviderV4])
	tf.Apply(t, dir, env)
	if z := zoneNow(t, em); len(z.FirewallRules) != 2 || len(z.Filters) != 2 {
		t.Fatalf("after the first apply the zone holds %d firewall rules and %d filters, want 2 and 2", len(z.FirewallRules), len(z.Filters))
	}
	return dir, em, env
}

// TestTerraformPlanForgetsV4: after `sunset fix --target v4`, terraform plan on provider v4
// creates the ruleset and forgets the old resources, destroying nothing; the apply leaves
// the old objects in the account and the new rules in their order.
func TestTerraformPlanForgetsV4(t *testing.T) {
	tf := tfrun.Find(t)
	dir, em, env := roundTripStart(t, tf)
	res, err := Run(Options{Root: dir, Target: terraform.ProviderV4})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Write(); err != nil {
		t.Fatal(err)
	}
	p := tf.Plan(t, dir, env)
	t.Logf("terraform plan after sunset fix --target v4: %s", p.Summary())
	for _, addr := range []string{`cloudflare_filter.this["block_cn"]`, `cloudflare_firewall_rule.this["office"]`} {
		if got := p.Actions(addr); !slices.Equal(got, []string{"forget"}) {
			t.Errorf("plan actions of %s = %q, want [forget]", addr, got)
		}
	}
	if got := p.Actions(roundTripRuleset); !slices.Equal(got, []string{"create"}) {
		t.Errorf("plan actions of the ruleset = %q, want [create]", got)
	}
	if del := p.With("delete"); len(del) > 0 {
		t.Errorf("the plan destroys %q", del)
	}
	tf.Apply(t, dir, env)
	checkAfterApply(t, tf, dir, em)
	sunsetRetiresTheOld(t, em)
	noChanges(t, tf.Plan(t, dir, env))
}

// TestTerraformPlanV5TwoSteps: after `sunset fix` (v5), the clean-up script's state rm runs
// on the v4 state, then the configuration on provider v5 plans the ruleset's creation and
// nothing else; the apply creates it.
func TestTerraformPlanV5TwoSteps(t *testing.T) {
	tf := tfrun.Find(t)
	dir, em, env := roundTripStart(t, tf)
	res, err := Run(Options{Root: dir, Target: terraform.ProviderV5})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Write(); err != nil {
		t.Fatal(err)
	}
	runCleanupScript(t, tf, dir)
	tfrun.PinProvider(t, dir, providerBuilds[terraform.ProviderV5])
	tf.Init(t, dir)
	p := tf.Plan(t, dir, env)
	t.Logf("terraform plan on provider v5 after sunset fix and the clean-up script: %s", p.Summary())
	if got := p.Actions(roundTripRuleset); !slices.Equal(got, []string{"create"}) {
		t.Errorf("plan actions of the ruleset = %q, want [create]", got)
	}
	if del := append(p.With("delete"), p.With("update")...); len(del) > 0 {
		t.Errorf("the v5 plan also changes %q", del)
	}
	tf.Apply(t, dir, env)
	checkAfterApply(t, tf, dir, em)
	sunsetRetiresTheOld(t, em)
	noChanges(t, tf.Plan(t, dir, env))
}

// sunsetRetiresTheOld is the step after a fix and its Terraform apply, as `sunset fix`'s
// summary gives it: `sunset scan --plan-dir` then `sunset apply --yes` on the account. The
// rules Terraform created stand for the plan's (recognised by what they do, whatever their
// refs): the plan creates none, and the apply deletes the old firewall rules and filters,
// adding no rule.
func sunsetRetiresTheOld(t *testing.T, em *tfrun.Emulator) {
	t.Helper()
	hs := httptest.NewServer(em.Server) // the same account, over plain HTTP for sunset's client
	t.Cleanup(hs.Close)
	c, err := cfapi.New(cfapi.Config{BaseURL: hs.URL + emulator.BasePath, Credentials: cfapi.TokenCredentials(seed.DemoToken)})
	if err != nil {
		t.Fatal(err)
	}
	snap, findings := (&liveAccount{t: t, srv: em.Server, client: c, day: roundTripAsOf}).scan()
	p := migrate.Build(snap, findings, migrate.Options{AsOf: roundTripAsOf})
	before := zoneNow(t, em)
	rules, _ := before.Ruleset(vocab.PhaseCustomRules)
	for _, st := range p.Steps() {
		if op := migrate.SpecOf(st).Op; op == migrate.OpCreateEntrypoint || op == migrate.OpAddRule {
			t.Errorf("the plan after the fix creates rules again: %s %s", st.ID, st.Title)
		}
	}
	kinds := map[string]int{}
	for _, st := range p.Steps() {
		kinds[string(st.Kind)]++
	}
	t.Logf("sunset plan after the Terraform apply: %d steps %v", len(p.Steps()), kinds)
	res, err := apply.Apply(context.Background(), p, apply.Options{Client: c, Snapshot: snap})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Scopes {
		if s.Status != apply.StatusDone {
			t.Errorf("sunset apply: %s %s: %s at %s (%s)", s.Scope, s.Name, s.Status, s.StoppedAt, s.Reason)
		}
	}
	after := zoneNow(t, em)
	now, _ := after.Ruleset(vocab.PhaseCustomRules)
	t.Logf("after sunset apply: %d firewall rules, %d filters, %d custom rules (%d before)", len(after.FirewallRules), len(after.Filters), len(now.Rules), len(rules.Rules))
	if len(after.FirewallRules)+len(after.Filters) > 0 || len(now.Rules) != len(rules.Rules) {
		t.Errorf("after sunset apply: %d firewall rules, %d filters, %d custom rules (want 0, 0, %d)", len(after.FirewallRules), len(after.Filters), len(now.Rules), len(rules.Rules))
	}
}

// noChanges: terraform plan after the whole sequence has nothing to do.
func noChanges(t *testing.T, p *tfrun.PlanJSON) {
	t.Helper()
	t.Logf("terraform plan at the end: %s", p.Summary())
	for _, action := range []string{"create", "update", "delete", "forget"} {
		if got := p.With(action); len(got) > 0 {
			t.Errorf("terraform plan after sunset apply wants to %s %q, want no changes", action, got)
		}
	}
}

// checkAfterApply: the old objects are still in the account, the entry point holds the
// rules in the old order (the allow became a skip, first), and the state only the ruleset.
func checkAfterApply(t *testing.T, tf *tfrun.Terraform, dir string, em *tfrun.Emulator) {
	t.Helper()
	z := zoneNow(t, em)
	if len(z.FirewallRules) != 2 {
		t.Errorf("the apply touched the old firewall rules: %+v", z.FirewallRules)
	}
	rs, ok := z.Ruleset(vocab.PhaseCustomRules)
	if !ok || len(rs.Rules) != 2 || rs.Rules[0].Action != vocab.ActionSkip || rs.Rules[1].Expression != `ip.src.country eq "CN"` {
		t.Errorf("custom rules entry point after the apply: %+v", rs)
	}
	if got := strings.Fields(tf.Run(t, dir, nil, "state", "list")); !slices.Equal(got, []string{roundTripRuleset}) {
		t.Errorf("state after the apply holds %q, want only the ruleset", got)
	}
}

// runCleanupScript runs the clean-up script in dir with tf first on PATH, as the state
// step says.
func runCleanupScript(t *testing.T, tf *tfrun.Terraform, dir string) {
	t.Helper()
	cmd := exec.Command("sh", StateCleanupScript)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(tf.Bin)+string(os.PathListSeparator)+os.Getenv("PATH"), "TF_CLI_CONFIG_FILE="+tf.CLIConfig)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Removed ") {
		t.Fatalf("sh %s: %v:\n%s", StateCleanupScript, err, out)
	}
}

func zoneNow(t *testing.T, em *tfrun.Emulator) inventory.ZoneInventory {
	t.Helper()
	for _, z := range em.Snapshot().Zones {
		if z.Zone.ID == roundTripZone {
			return z
		}
	}
	t.Fatalf("zone %s is gone from the emulator", roundTripZone)
	return inventory.ZoneInventory{}
}
