package fix

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

var bothTargets = []terraform.Provider{terraform.ProviderV5, terraform.ProviderV4}

// checkInputs checks that testdata/NAME claims provider version: the claim's check
// (TestFixtureInputsAreValidForTheirProvider) holds its inputs to that release's schema.
func checkInputs(t *testing.T, name, version string) {
	t.Helper()
	if c, ok := claims[name]; !ok || c.version != version {
		t.Fatalf("testdata/%s claims %q, not provider %s", name, c.version, version)
	}
}

// leftSaidInPlace checks that every usage fix left is said by a comment in its file.
func leftSaidInPlace(t *testing.T, dir string, res *Result) {
	t.Helper()
	for _, p := range res.Left {
		src := string(mustRead(t, filepath.Join(dir, filepath.FromSlash(p.Path))))
		if !strings.Contains(src, "# sunset fix: "+p.Message) {
			t.Errorf("%s is left without its comment in the file", p)
		}
	}
}

// fixForBoth fixes testdata/NAME (written for provider version) for each target, runs
// inspect on the result, and checks it: written blocks valid for the provider schemas, a
// second run changing nothing, and rule reported by check only on the left resources.
func fixForBoth(t *testing.T, name, version string, rule vocab.RuleID, left int, inspect func(t *testing.T, dir string, res *Result)) {
	t.Helper()
	checkInputs(t, name, version)
	for _, target := range bothTargets {
		t.Run(string(target), func(t *testing.T) {
			opts := Options{Target: target}
			dir, res := fixedCopy(t, name, opts)
			inspect(t, dir, res)
			checkNewTypes(t, name, dir, target)
			checkSchemas(t, res, target)
			checkFixed(t, dir, opts, rule, left)
		})
	}
}

// TestCountToggledRulesPairWithTheFilterTheyIndex: rules and filters under the same
// `count = var.x ? 1 : 0`, the rule naming the filter as [0], one(F[*].id), try(F[0].id,
// null) or F.*.id[0], are rewritten together; the only rule left is the one using
// cf.threat_score, and every leftover has its comment where it stands.
func TestCountToggledRulesPairWithTheFilterTheyIndex(t *testing.T) {
	fixForBoth(t, "toggles", "4.52.8", vocab.FirewallRules, 1, func(t *testing.T, dir string, res *Result) {
		rw, ok := rewriteOf(res, "cloudflare_ruleset.custom_rules")
		if !ok {
			t.Fatalf("no ruleset written; left: %v", res.Left)
		}
		for _, name := range []string{"back_office", "scanners", "fence"} {
			if !slices.Contains(rw.Old, typeFirewallRule+"."+name) || !slices.Contains(rw.Old, typeFilter+"."+name) {
				t.Errorf("%s and its filter not replaced: %v", name, rw.Old)
			}
		}
		if got := leftFor(res, "cloudflare_firewall_rule.risky_posts"); len(got) != 1 || !strings.Contains(got[0], "cf.threat_score") {
			t.Errorf("the rule using cf.threat_score is not left with the reason: %v", res.Left)
		}
		leftSaidInPlace(t, dir, res)
	})
}

// TestFilterIsUnusedOnlyWhenNothingRefersToIt: a filter no rule uses is called unused (and
// to delete) only when nothing in the configuration refers to it; one an output reads is
// left naming the output.
func TestFilterIsUnusedOnlyWhenNothingRefersToIt(t *testing.T) {
	_, res := fixedCopy(t, "toggles", Options{})
	if got := leftFor(res, "cloudflare_filter.sale_bots"); len(got) != 1 || !strings.Contains(got[0], "used by no firewall rule") {
		t.Errorf("the filter nothing refers to: %v", got)
	}
	got := leftFor(res, "cloudflare_filter.maintenance")
	if len(got) != 1 || strings.Contains(got[0], "used by no") || !strings.Contains(got[0], "output maintenance_filter_id") {
		t.Errorf("the filter an output reads: %v", got)
	}
	for _, name := range []string{"back_office", "scanners", "fence"} {
		if got := leftFor(res, typeFilter+"."+name); len(got) > 0 {
			t.Errorf("a filter its rule uses is called unused: %v", got)
		}
	}
}

// TestForLookupPairsEachRuleWithTheFilterOfItsKey: a rule that looks its filter up with a
// for expression over the filters (by an attribute that is the key of the shared for_each,
// by one whose known values all differ, or by the key itself) is rewritten with it.
func TestForLookupPairsEachRuleWithTheFilterOfItsKey(t *testing.T) {
	fixForBoth(t, "lookup", "4.52.8", vocab.FirewallRules, 0, func(t *testing.T, _ string, res *Result) {
		if len(res.Left) > 0 {
			t.Errorf("left: %v", res.Left)
		}
		shop, ok := rewriteOf(res, "cloudflare_ruleset.custom_rules")
		if !ok || !slices.Contains(shop.Old, "cloudflare_firewall_rule.shop") {
			t.Fatalf("the shop's rules (looked up by ref = the for_each key) are not rewritten: %+v", res.Rewrites)
		}
		blog, ok := rewriteOf(res, "cloudflare_ruleset.custom_rules_2")
		if !ok || len(blog.Old) != 4 || !blog.IsProof {
			t.Fatalf("the blog's rules (looked up by distinct descriptions, and by key) are not rewritten and proven: %+v", blog)
		}
	})
}

// TestForLookupThatMayNameAnotherFilterIsLeft: a lookup by an attribute two filters may
// share (the first would be taken for both) is not followed, and says so above the rule;
// the filter is not called unused.
func TestForLookupThatMayNameAnotherFilterIsLeft(t *testing.T) {
	src := `variable "zone_id" {
  type = string
}

variable "rules" {
  type = map(object({
    expression = string
    note       = string
  }))
}

resource "cloudflare_filter" "f" {
  for_each    = var.rules
  zone_id     = var.zone_id
  description = each.value.note
  expression  = each.value.expression
}

resource "cloudflare_firewall_rule" "r" {
  for_each  = var.rules
  zone_id   = var.zone_id
  filter_id = [for f in values(cloudflare_filter.f) : f.id if f.description == each.value.note][0]
  action    = "block"
}

resource "cloudflare_firewall_rule" "log" {
  for_each  = var.rules
  zone_id   = var.zone_id
  filter_id = [for f in values(cloudflare_filter.f) : f.id if f.description == each.value.note][0]
  action    = "log"
}
`
	dir, res := fixWritten(t, src)
	main := string(mustRead(t, filepath.Join(dir, "main.tf")))
	if n := strings.Count(main, "# sunset fix: cloudflare_filter.f "); n != 1 {
		t.Errorf("the filter both left rules use is commented %d times:\n%s", n, main)
	}
	if again, err := Run(Options{Root: dir}); err != nil || len(again.Files) > 0 {
		t.Errorf("a second run changes %v (%v)", again.Files, err)
	}
	if len(res.Rewrites) != 0 {
		t.Errorf("rewritten: %+v", res.Rewrites)
	}
	got := append(leftFor(res, "cloudflare_firewall_rule.r"), leftFor(res, "cloudflare_firewall_rule.log")...)
	if len(got) != 2 || !strings.Contains(got[0], "share") {
		t.Errorf("the rule is not left with the reason: %v", res.Left)
	}
	if got := leftFor(res, "cloudflare_filter.f"); len(got) != 1 || strings.Contains(got[0], "used by no") {
		t.Errorf("the filter: %v", got)
	}
	leftSaidInPlace(t, dir, res)
}

// fixWritten fixes a module whose main.tf is src and writes the changes.
func fixWritten(t *testing.T, src string) (string, *Result) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Run(Options{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Write(); err != nil {
		t.Fatal(err)
	}
	return dir, res
}

// TestV5FilterIDObjectPairs: provider v5's rules naming their filter as filter = { id =
// ... } (the filter's fields in body, the action an object) are rewritten with it.
func TestV5FilterIDObjectPairs(t *testing.T) {
	// The upgrade leaves filter = { id = ... }, which provider 5.22 itself refuses (its
	// claim says so).
	fixForBoth(t, "filterid5", "5.22.0", vocab.Filters, 0, func(t *testing.T, _ string, res *Result) {
		rw, ok := rewriteOf(res, "cloudflare_ruleset.custom_rules")
		if !ok || len(rw.Old) != 4 || len(res.Left) > 0 {
			t.Fatalf("rewrites %+v, left %v", res.Rewrites, res.Left)
		}
		if !rw.IsProof {
			t.Errorf("not proven: %s", rw.Proven)
		}
	})
}

// TestDrivenRulesetIsNotCreatedWithoutRules: rules under a for_each over data that may be
// empty (or toggled by count) become a ruleset with a count that is 0 when no old rule
// would exist, so no entry point is created then (with a zone_id that may be null too).
func TestDrivenRulesetIsNotCreatedWithoutRules(t *testing.T) {
	for _, c := range []struct {
		fixture, ruleset, tfvars string
		want                     int64
	}{
		{"lookup", "custom_rules", "waf_rules = []", 0},
		{"lookup", "custom_rules", `waf_rules = [{ name = "a", expression = "ip.src eq 192.0.2.1", action = "block" }]`, 1},
		{"toggles", "custom_rules", "protect_back_office = false\nchallenge_scanners = false", 0},
		{"toggles", "custom_rules", "challenge_scanners = true", 1},
		{"vardriven", "custom_rules", "firewall_rules = []", 0},
	} {
		t.Run(c.fixture+"/"+c.tfvars, func(t *testing.T) {
			dir, _ := fixedCopy(t, c.fixture, Options{})
			if err := os.WriteFile(filepath.Join(dir, "terraform.tfvars"), []byte(c.tfvars+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			repo, err := Load(dir, []string{dir})
			if err != nil {
				t.Fatal(err)
			}
			r := resourceNamed(repo.Modules[0], typeRuleset, c.ruleset)
			if r == nil || r.Attr("count") == nil {
				t.Fatalf("%s.%s has no count", typeRuleset, c.ruleset)
			}
			v := evaluatorOf(repo.Modules[0]).value(r.Attr("count"), nil)
			if !v.IsKnown() || !v.Type().Equals(cty.Number) {
				t.Fatalf("count = %s does not evaluate: %#v", exprText(r.File, r.Attr("count")), v)
			}
			if n, _ := v.AsBigFloat().Int64(); n != c.want {
				t.Errorf("count = %d with %s, want %d", n, c.tfvars, c.want)
			}
		})
	}
	// Rules fix knows exist whatever the variables (a local's map) need no count.
	_, res := fixedCopy(t, "lookup", Options{})
	for _, rw := range res.Rewrites {
		if rw.New == "cloudflare_ruleset.custom_rules_2" && slices.ContainsFunc(rw.Notes, func(n string) bool { return strings.HasPrefix(n, guardNotePrefix) }) {
			t.Errorf("the blog's ruleset (rules from a local) is given a count: %v", rw.Notes)
		}
	}
}

func resourceNamed(m *Module, typ, name string) *Resource {
	for _, r := range m.Resources {
		if r.Type == typ && r.Name == name {
			return r
		}
	}
	return nil
}

// TestThreatScoreGuardOnlyWhereDataMayUseIt: a rule whose expression comes from data gets
// enabled = false when the data uses cf.threat_score, and the comment above the ruleset and
// the summary say so; a template whose literal text cannot hold the field gets no such
// guard (nor replace() calls for fields it does not name: its own are renamed in place).
func TestThreatScoreGuardOnlyWhereDataMayUseIt(t *testing.T) {
	for fixture, rule := range map[string]string{"lookup": "cloudflare_firewall_rule.shop", "vardriven": "cloudflare_firewall_rule.rules"} {
		dir, res := fixedCopy(t, fixture, Options{})
		rw, _ := rewriteOf(res, "cloudflare_ruleset.custom_rules")
		if !slices.ContainsFunc(rw.Notes, func(n string) bool { return strings.HasPrefix(n, threatNotePrefix) && strings.Contains(n, rule) }) {
			t.Errorf("%s: the summary does not say the rules of %s may be created disabled: %v", fixture, rule, rw.Notes)
		}
		if main := string(mustRead(t, filepath.Join(dir, "main.tf"))); !strings.Contains(main, "# sunset fix: "+threatNotePrefix) {
			t.Errorf("%s: the comment above the ruleset does not say it:\n%s", fixture, main)
		}
	}

	// Values only where the rules language takes values: nothing for HCL to map.
	src := `variable "zone_id" {
  type = string
}

variable "blocked" {
  type = map(object({ ip = string, country = string }))
}

resource "cloudflare_filter" "blocked" {
  for_each   = var.blocked
  zone_id    = var.zone_id
  expression = "ip.src eq ${each.value.ip} or ip.geoip.country eq \"${each.value.country}\""
}

resource "cloudflare_firewall_rule" "blocked" {
  for_each  = var.blocked
  zone_id   = var.zone_id
  filter_id = cloudflare_filter.blocked[each.key].id
  action    = "block"
}
`
	dir, res := fixWritten(t, src)
	got := rulesetSource(t, string(mustRead(t, filepath.Join(dir, "main.tf"))), "custom_rules")
	if strings.Contains(got, "regexall") || strings.Contains(got, "replace(") || !strings.Contains(got, `ip.src.country eq \"${v.country}\"`) {
		t.Errorf("a template whose values stand only for values is mapped in HCL:\n%s", got)
	}
	if rw, _ := rewriteOf(res, "cloudflare_ruleset.custom_rules"); slices.ContainsFunc(rw.Notes, func(n string) bool { return strings.HasPrefix(n, threatNotePrefix) }) {
		t.Errorf("said to be created disabled: %v", rw.Notes)
	}

	dir, _ = fixedCopy(t, "lookup", Options{})
	main := string(mustRead(t, filepath.Join(dir, "main.tf")))
	blog := rulesetSource(t, main, "custom_rules_2")
	if strings.Contains(blog, "regexall") || strings.Contains(blog, "replace(") || !strings.Contains(blog, "ip.src.asnum") {
		t.Errorf("the blog's template rules carry mappings their text does not need:\n%s", blog)
	}

	dir, _ = fixedCopy(t, "toggles", Options{})
	toggles := rulesetSource(t, string(mustRead(t, filepath.Join(dir, "main.tf"))), "custom_rules")
	if strings.Contains(toggles, "regexall") || strings.Contains(toggles, "replace(") || !strings.Contains(toggles, "ip.src.country in {${join(") {
		t.Errorf("templates with values only in value positions are mapped in HCL:\n%s", toggles)
	}
}

// rulesetSource is the source of resource "cloudflare_ruleset" NAME in src.
func rulesetSource(t *testing.T, src, name string) string {
	t.Helper()
	f, diags := hclsyntax.ParseConfig([]byte(src), "main.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		if b.Type == "resource" && len(b.Labels) == 2 && b.Labels[0] == typeRuleset && b.Labels[1] == name {
			return src[b.Range().Start.Byte:b.Range().End.Byte]
		}
	}
	t.Fatalf("no %s.%s", typeRuleset, name)
	return ""
}

// TestFilterReferenceForms: each way of naming a filter's id reads as the filter and the
// instance it names.
func TestFilterReferenceForms(t *testing.T) {
	for src, want := range map[string]string{
		`cloudflare_filter.f.id`:                                                           "f",
		`cloudflare_filter.f[0].id`:                                                        "f[0]",
		`cloudflare_filter.f[count.index].id`:                                              "f[count.index]",
		`cloudflare_filter.f[each.key].id`:                                                 "f[each.key]",
		`cloudflare_filter.f.*.id[0]`:                                                      "f first",
		`(cloudflare_filter.f[*].id)[0]`:                                                   "f first",
		`one(cloudflare_filter.f[*].id)`:                                                   "f first",
		`element(cloudflare_filter.f.*.id, 0)`:                                             "f first",
		`join("", cloudflare_filter.f.*.id)`:                                               "f first",
		`join(",", cloudflare_filter.f.*.id)`:                                              "",
		`element(cloudflare_filter.f[*].id, count.index)`:                                  "f[count.index]",
		`cloudflare_filter.f.*.id[count.index]`:                                            "f[count.index]",
		`try(cloudflare_filter.f[0].id, null)`:                                             "f[0]",
		`{ id = cloudflare_filter.f.id }`:                                                  "f",
		`[for x in values(cloudflare_filter.f)[*] : x.id if x.description == each.key][0]`: "f by description",
		`one([for x in cloudflare_filter.f : x.id if lookup(x, "ref") == each.value.ref])`: "f by ref",
		`[for k, x in cloudflare_filter.f : x.id if each.key == k][0]`:                     "f by key",
		`each.value.id`:       "",
		`var.filter_id`:       "",
		`cloudflare_filter.f`: "",
		`[for x in values(cloudflare_filter.f) : x.id][0]`: "",
	} {
		x, diags := hclsyntax.ParseExpression([]byte(src), "", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		got := ""
		if l, ok := filterLinkOf(x); ok {
			got = l.name
			switch {
			case l.lookup != nil && l.lookup.byKey:
				got += " by key"
			case l.lookup != nil:
				got += " by " + l.lookup.attr
			case l.first:
				got += " first"
			case l.key != nil:
				got += "[" + strings.TrimSpace(string(renderKey(src, l.key))) + "]"
			}
		}
		if got != want {
			t.Errorf("%s reads as %q, want %q", src, got, want)
		}
	}
}

func renderKey(src string, k hclsyntax.Expression) string {
	if l, ok := k.(*hclsyntax.LiteralValueExpr); ok && l.Val.Type() == cty.Number {
		return l.Val.AsBigFloat().String()
	}
	r := k.Range()
	return src[r.Start.Byte:r.End.Byte]
}

// TestTemplateFieldsRenamedWhereWritten: a template whose interpolations stand for values
// gets its deprecated fields renamed in its own text (quoted with escapes, or an indented
// heredoc), never inside the rules language's strings; one with an interpolation where an
// operator or a field goes is not read as such a template.
func TestTemplateFieldsRenamedWhereWritten(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`"ip.geoip.country eq \"${var.c}\" and http.host ne \"ip.geoip.country\""`,
			`"ip.src.country eq \"${var.c}\" and http.host ne \"ip.geoip.country\""`},
		{"<<-EOT\n    ip.geoip.asnum in {${join(\" \", var.asns)}}\n    or ip.geoip.asnum eq 1\n  EOT\n",
			"<<-EOT\n    ip.src.asnum in {${join(\" \", var.asns)}}\n    or ip.src.asnum eq 1\n  EOT\n"},
		{`"ip.src ne ${var.ip}"`, `"ip.src ne ${var.ip}"`},
		{`"ip.geoip.country eq \"KP\" ${var.more}"`, ""},
		{`"${var.expression}"`, ""},
		{`var.expression`, ""},
	} {
		src := []byte("x = " + c.src + "\n")
		f, diags := hclsyntax.ParseConfig(src, "t.tf", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		file := &File{Path: "t.tf", Src: src, Body: f.Body.(*hclsyntax.Body)}
		got, ok := renamedTemplate(file, file.Body.Attributes["x"].Expr)
		if !ok {
			got = ""
		}
		if got != strings.TrimSuffix(c.want, "\n") && got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.src, got, c.want)
		}
	}
}

// TestAllowRuleKeepsTheZonesRulesTogether: when one rule must stay (cf.threat_score), an
// allow rule that let requests past it stays too (a skip in the new engine would not reach
// the rule left in the old one), and so do the others, each saying why; without an allow,
// the others move and the one stays.
func TestAllowRuleKeepsTheZonesRulesTogether(t *testing.T) {
	rules := func(action string) string {
		return `variable "zone_id" {
  default = "0da42c8d2132a9ddaf714f9e7c920711"
}

resource "cloudflare_filter" "bots" {
  zone_id    = var.zone_id
  expression = "(cf.client.bot) or (cf.threat_score gt 14)"
}

resource "cloudflare_firewall_rule" "bots" {
  zone_id   = var.zone_id
  filter_id = cloudflare_filter.bots.id
  action    = "block"
}

resource "cloudflare_filter" "monitor" {
  zone_id    = var.zone_id
  expression = "(ip.src in {192.0.2.0/24})"
}

resource "cloudflare_firewall_rule" "monitor" {
  zone_id   = var.zone_id
  filter_id = cloudflare_filter.monitor.id
  action    = "` + action + `"
}
`
	}
	for _, c := range []struct {
		action string
		moved  bool
	}{{"allow", false}, {"block", true}} {
		dir, res := fixTree(t, map[string]string{"main.tf": rules(c.action)}, terraform.ProviderV5)
		_, moved := rewriteOf(res, "cloudflare_ruleset.custom_rules")
		if moved != c.moved {
			t.Errorf("%s: monitor moved = %v, want %v; left %v", c.action, moved, c.moved, res.Left)
		}
		if l := leftFor(res, "cloudflare_firewall_rule.monitor"); !c.moved && (len(l) != 1 || !strings.Contains(l[0], "is an allow rule")) {
			t.Errorf("%s: monitor left = %v", c.action, l)
		}
		leftSaidInPlace(t, dir, res)
	}
}

// TestFilterIndexedByTheKeyAttribute: rules and filters over a local map keyed by each
// element's expression (its value the element merged with a priority) pair when the rule
// indexes the filter by each.value.expression, which is its key; a merge that sets the
// expression anew does not, and the pair is left saying so.
func TestFilterIndexedByTheKeyAttribute(t *testing.T) {
	src := func(extra string) string {
		return `variable "zone_id" {
  type = string
}

variable "rules" {
  type = list(object({ expression = string, action = string }))
}

locals {
  rules = { for idx, r in var.rules : r.expression => merge(r, { priority = idx + 1` + extra + ` }) }
}

resource "cloudflare_filter" "filters" {
  for_each   = local.rules
  zone_id    = var.zone_id
  expression = each.value.expression
}

resource "cloudflare_firewall_rule" "rules" {
  for_each  = local.rules
  zone_id   = var.zone_id
  filter_id = cloudflare_filter.filters[each.value.expression].id
  action    = each.value.action
  priority  = each.value.priority
}
`
	}
	for _, c := range []struct {
		extra string
		pairs bool
	}{{"", true}, {`, expression = "true"`, false}} {
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{"main.tf": src(c.extra)})
		res, err := Run(Options{Root: dir, Target: terraform.ProviderV5})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := rewriteOf(res, "cloudflare_ruleset.custom_rules"); ok != c.pairs {
			t.Errorf("merge(r, {priority%s}): rewritten = %v, want %v; left %v", c.extra, ok, c.pairs, res.Left)
		}
	}
}
