package fix

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// literalZone is the zone testdata/literal writes its rules for, as a scan saw it: the
// firewall rules live, and a custom rules entry point made in the dashboard.
func literalZone() *inventory.Snapshot {
	on := true
	return &inventory.Snapshot{Zones: []inventory.ZoneInventory{{
		Zone: inventory.Zone{ID: "0da42c8d2132a9ddaf714f9e7c920711", Name: "example.com", Plan: inventory.ZonePlan{LegacyID: "pro"}},
		FirewallRules: []inventory.FirewallRule{
			{ID: "fw-bots", Filter: inventory.Filter{ID: "f1", Expression: `(http.user_agent contains "BadBot")`, Description: "bad bots"}, Action: vocab.ActionBlock, Description: "Block bad bots", Priority: intp(1)},
			{ID: "fw-office", Filter: inventory.Filter{ID: "f2", Expression: `ip.src in {192.0.2.0/24} and ip.geoip.country eq "GB"`}, Action: vocab.ActionAllow, Priority: intp(2)},
		},
		Rulesets: []inventory.Ruleset{{ID: "rs-custom", Phase: vocab.PhaseCustomRules, Rules: []inventory.RulesetRule{
			{ID: "r1", Action: vocab.ActionBlock, Expression: `http.request.uri.path eq "/dashboard-made"`, Enabled: &on, Ref: "dash"},
		}}},
	}}}
}

func intp(n int) *int { return &n }

// TestSnapshotImportsAndRefs: with a snapshot, the zone's plan is the account's, the
// entry point's own rules stay first, the new ruleset is imported, and each migrated rule's
// ref is the live firewall rule's id, so a later plan on the account knows it is migrated.
func TestSnapshotImportsAndRefs(t *testing.T) {
	dir := copyFixture(t, "literal")
	res, err := Run(Options{Root: dir, Target: terraform.ProviderV5, Snapshot: literalZone()})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Write(); err != nil {
		t.Fatal(err)
	}
	imports, err := os.ReadFile(filepath.Join(dir, ImportsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"to = cloudflare_ruleset.custom_rules", `id = "zones/0da42c8d2132a9ddaf714f9e7c920711/rs-custom"`} {
		if !strings.Contains(string(imports), want) {
			t.Errorf("%s lacks %q:\n%s", ImportsFile, want, imports)
		}
	}
	main, _ := os.ReadFile(filepath.Join(dir, "main.tf"))
	text := string(main)
	dash, bots := strings.Index(text, "/dashboard-made"), strings.Index(text, "BadBot")
	if dash < 0 || bots < 0 || dash > bots {
		t.Errorf("the entry point's own rule is not kept first:\n%s", text)
	}
	for _, ref := range []string{`ref         = "fw-bots"`, `ref        = "fw-office"`, `ref        = "wp"`} {
		if !strings.Contains(text, ref) {
			t.Errorf("no %s (live ids as refs, the resource name where no live rule matches):\n%s", ref, text)
		}
	}
	rw := res.Rewrites[0]
	if rw.Plan != "pro" || !rw.IsProof || !strings.Contains(strings.Join(rw.Notes, "\n"), "rs-custom") {
		t.Errorf("rewrite %+v: want plan pro from the snapshot, verified, the entry point named", rw)
	}
	again, err := Run(Options{Root: dir, Target: terraform.ProviderV5, Snapshot: literalZone()})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := again.Diff(); d != "" {
		t.Errorf("a second run changes the files again:\n%s", d)
	}
}

// TestZonePlanKeepsWhatItCannotTake: on a Free zone (--zone-plan), the rule using matches
// stays a firewall rule, with a comment saying what to decide, and is listed; the zone's
// allow rule let the office past it, which it does only in the same engine, so the others
// stay with it, saying so.
func TestZonePlanKeepsWhatItCannotTake(t *testing.T) {
	dir := copyFixture(t, "nopriority")
	res, err := Run(Options{Root: dir, Target: terraform.ProviderV5, ZonePlans: map[string]string{"shop.example.com": "free"}})
	if err != nil {
		t.Fatal(err)
	}
	var left string
	for _, p := range res.Left {
		if strings.Contains(p.Message, "cloudflare_firewall_rule.admin_block not rewritten") {
			left = p.Message
		}
	}
	if !strings.Contains(left, "matches") {
		t.Fatalf("left = %v, want admin_block kept for its regex", res.Left)
	}
	if err := res.Write(); err != nil {
		t.Fatal(err)
	}
	text := string(mustRead(t, filepath.Join(dir, "rules.tf")))
	if !strings.Contains(text, "# sunset fix: cloudflare_firewall_rule.admin_block not rewritten") || !strings.Contains(text, `resource "cloudflare_firewall_rule" "admin_block"`) {
		t.Errorf("the kept rule or its comment is missing:\n%s", text)
	}
	if len(res.Rewrites) != 0 {
		t.Errorf("rewrites %+v: want none, the allow rule orders the others", res.Rewrites)
	}
	if l := leftFor(res, "cloudflare_firewall_rule.search_bypass"); len(l) != 1 || !strings.Contains(l[0], "cloudflare_firewall_rule.office_allow is an allow rule") {
		t.Errorf("search_bypass left = %v, want it left with the allow rule named", l)
	}
	leftSaidInPlace(t, dir, res)
}

// TestRefsFitTheAPI: a ref longer than the API's 50 characters is shortened, the same way
// in Go (literal rules) and in the HCL of driven rules (Terraform's sha1 and substr).
func TestRefsFitTheAPI(t *testing.T) {
	key := "allow-the-partner-monitoring-service-from-its-three-datacenters"
	full := "rules_" + key
	got := shortRef(full)
	if len(got) != maxRef || !strings.HasPrefix(got, full[:maxRef-9]) || shortRef("short") != "short" {
		t.Fatalf("shortRef(%q) = %q", full, got)
	}
	x, diags := hclsyntax.ParseExpression([]byte(refExpr(`"rules_${k}"`, true)), "", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ev := evaluatorOf(&Module{Vars: map[string]*hclsyntax.Block{}, Locals: map[string]hclsyntax.Expression{}})
	for _, k := range []string{key, "office"} {
		v := ev.value(x, map[string]cty.Value{"k": cty.StringVal(k)})
		if !v.IsKnown() || v.AsString() != shortRef("rules_"+k) {
			t.Errorf("HCL ref for %q = %#v, want %q", k, v, shortRef("rules_"+k))
		}
	}
}

// TestRateLimitV5Syntax: a rate limit written in provider v5's syntax (objects) is read as
// the API's rate limit and rewritten like a v4 one, verified.
func TestRateLimitV5Syntax(t *testing.T) {
	dir := copyFixture(t, "ratelimit5")
	res, err := Run(Options{Root: dir, Target: terraform.ProviderV5, ZonePlans: map[string]string{"6b2d4f8a1c3e5d7f9a0b2c4d6e8f0a1b": "business"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rewrites) != 1 || !res.Rewrites[0].IsProof || len(res.Left) != 0 {
		t.Fatalf("rewrites %+v, left %v", res.Rewrites, res.Left)
	}
	d, _ := res.Diff()
	for _, want := range []string{`phase   = "http_ratelimit"`, `http.request.method eq \"POST\"`, "requests_per_period"} {
		if !strings.Contains(d, want) {
			t.Errorf("the diff lacks %s:\n%s", want, d)
		}
	}
}
