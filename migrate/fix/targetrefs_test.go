package fix

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/sunsetscan/sunset/migrate/terraform"
)

// TestNewBlocksReadTheTargetsNames: a zone found through the zones data source
// (data.cloudflare_zones.this.zones[0].id, also inside lookup) is read in the new blocks
// under the name the target's data source has: result for v5, zones for v4. Every block the
// fix writes is valid for the target's schema, references included, and the rewrites say
// what was renamed.
func TestNewBlocksReadTheTargetsNames(t *testing.T) {
	for target, want := range map[terraform.Provider][]string{
		terraform.ProviderV5: {"zone_id = data.cloudflare_zones.this.result[0].id", `zone_id    = lookup(data.cloudflare_zones.this.result[0], "id")`},
		terraform.ProviderV4: {"zone_id = data.cloudflare_zones.this.zones[0].id"},
	} {
		t.Run(string(target), func(t *testing.T) {
			opts := Options{Target: target}
			dir, res := fixedCopy(t, "zonesdata", opts)
			src := string(mustRead(t, filepath.Join(dir, "main.tf")))
			for _, w := range want {
				if !strings.Contains(src, w) {
					t.Errorf("the rewritten file lacks %q:\n%s", w, src)
				}
			}
			for _, e := range writtenBlockErrors(t, res, target) {
				t.Error(e)
			}
			renamed := target == terraform.ProviderV5
			for _, rw := range res.Rewrites {
				if got := strings.Contains(strings.Join(rw.Notes, "\n"), "data.cloudflare_zones.this.zones -> data.cloudflare_zones.this.result"); got != renamed {
					t.Errorf("%s: rename noted %v, want %v: %q", rw.New, got, renamed, rw.Notes)
				}
			}
			for _, l := range res.Left {
				if strings.Contains(l.Message, "does not have") {
					t.Errorf("left: %v", l)
				}
			}
			checkFixed(t, dir, opts, "firewall-rules", 0)
		})
	}
}

// TestTargetTextRenamesOrReports: in text fix writes, a reference the target has stays; one
// v5 reads under another name is renamed, whatever indexes, keys or functions surround it;
// one with no counterpart is returned as left; comments and quoted text are not references.
func TestTargetTextRenamesOrReports(t *testing.T) {
	v5 := targetSchemas()[terraform.ProviderV5]
	for _, c := range []struct{ in, out, left string }{
		{"zone_id = cloudflare_zone.z.id", "zone_id = cloudflare_zone.z.id", ""},
		{"zone_id = data.cloudflare_zones.zones[count.index].zones[0].id", "zone_id = data.cloudflare_zones.zones[count.index].result[0].id", ""},
		{`host = "${cloudflare_zone.z["a"].zone}/login"`, `host = "${cloudflare_zone.z["a"].name}/login"`, ""},
		{"account = data.cloudflare_accounts.a.accounts.0.id", "account = data.cloudflare_accounts.a.result.0.id", ""},
		{"account = cloudflare_zone.z.account_id", "account = cloudflare_zone.z.account.id", ""},
		{"x = cloudflare_zone.z.jump_start # cloudflare_zone.z.zone\ny = \"cloudflare_zone.z.zone\"", "x = cloudflare_zone.z.jump_start # cloudflare_zone.z.zone\ny = \"cloudflare_zone.z.zone\"", "cloudflare_zone.z.jump_start"},
	} {
		out, _, left := targetText(v5, terraform.ProviderV5, c.in)
		if out != c.out || (c.left == "") != (len(left) == 0) || (c.left != "" && !strings.Contains(left[0], c.left)) {
			t.Errorf("%q: got %q, left %q; want %q, left %q", c.in, out, left, c.out, c.left)
		}
	}
}

// TestMergeIntoV4RulesetUnderV5: under --target v5, rules merged into a ruleset written for
// provider v4 (rules blocks) are written as that block's rules are, so the block stays valid
// for v4 as a whole (v5 syntax inside it would be valid for neither), and the rewrite says the
// block is v4's and what converts it.
func TestMergeIntoV4RulesetUnderV5(t *testing.T) {
	opts := Options{Target: terraform.ProviderV5}
	dir, res := fixedCopy(t, "merge", opts)
	src := mustRead(t, filepath.Join(dir, "main.tf"))
	f, diags := hclsyntax.ParseConfig(src, "main.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	v4 := targetSchemas()[terraform.ProviderV4]
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		if b.Type != "resource" || b.Labels[0] != typeRuleset {
			continue
		}
		if _, attr := b.Body.Attributes["rules"]; attr || len(b.Body.Blocks) != 2 {
			t.Errorf("the ruleset mixes syntaxes or lacks the rule:\n%s", src)
		}
		for _, err := range v4.CheckResource(b) {
			t.Errorf("the merged ruleset is not valid for provider v4: %v", err)
		}
	}
	rw, ok := rewriteOf(res, "cloudflare_ruleset.waf_custom")
	if !ok || !strings.Contains(strings.Join(rw.Notes, "\n"), "cloudflare_ruleset.waf_custom is written for provider v4, not v5; the provider's tf-migrate converts it") {
		t.Errorf("rewrite %+v", rw)
	}
}
