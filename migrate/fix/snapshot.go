package fix

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/meaning"
	"github.com/sunsetscan/sunset/scanner/safefile"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// With a snapshot (--snapshot), fix knows the account as a scan saw it:
//   - a migrated rule's ref is the id of the live firewall rule it replaces (same filter
//     expression, action, description and paused), as `sunset plan` sets it, so a later plan
//     or apply on the account knows it is migrated and deletes the old rule;
//   - a migrated rate limit's rule's ref is rate_limit:ID of the live rate limit that does
//     what it does (their translations for the zone's plan have one meaning key), as `sunset
//     plan` sets it, so that a later scan says its replacement is in place and a later plan
//     deletes it;
//   - a zone whose custom rules entry point already exists keeps the rules it holds, first,
//     and the new cloudflare_ruleset is imported (an import block in the root module), so
//     Terraform updates the entry point rather than failing to create a second one.

// ImportsFile holds, in each root module, the import blocks of entry points that exist.
const ImportsFile = "sunset-imports.tf"

// liveRefs sets the ref of each old rule matching a live firewall rule of the zone.
func liveRefs(old []inventory.FirewallRule, z *inventory.ZoneInventory) {
	if z == nil {
		return
	}
	live := z.FirewallRulesWithFilters()
	used := map[string]bool{}
	for i := range old {
		for _, l := range live {
			if !used[l.ID] && l.Filter.Expression == old[i].Filter.Expression && l.Action == old[i].Action &&
				l.Description == old[i].Description && l.Paused == old[i].Paused {
				used[l.ID] = true
				old[i].Ref = l.ID
				break
			}
		}
	}
}

// liveRateLimitRefs sets the ref of each rate limit's rule to rate_limit:ID of the live rate
// limit of the zone that does the same (package meaning, on both translations for plan);
// one whose values the repository does not hold keeps its resource's name.
func liveRateLimitRefs(items []rlItem, z *inventory.ZoneInventory, plan string) {
	if z == nil {
		return
	}
	used := map[string]bool{}
	for i := range items {
		it := &items[i]
		if it.actual == nil {
			continue
		}
		want, _, _ := migrate.TranslateRateLimit(*it.actual, plan)
		key := meaning.Rule(vocab.PhaseRateLimiting, want)
		for _, l := range z.RateLimits {
			got, _, _ := migrate.TranslateRateLimit(l, plan)
			if !used[l.ID] && meaning.Rule(vocab.PhaseRateLimiting, got) == key {
				used[l.ID] = true
				it.rule.Ref = migrate.RateLimitRef(l.ID)
				break
			}
		}
	}
}

// presentRules are the rules that keep references (holes.go) whose rule, built from the
// values, the zone's entry point of the phase holds already (package meaning): given as
// those values, so that the entry point's rule stands for them (ruleList) instead of a copy
// that differs only by its references.
func presentRules(items []rlItem, rules []inventory.RulesetRule, z zoneInfo, plan string) {
	rs, ok := entryPointOf(z, vocab.PhaseRateLimiting)
	if !ok {
		return
	}
	there := map[meaning.Key]bool{}
	for _, r := range rs.Rules {
		there[meaning.Rule(vocab.PhaseRateLimiting, r)] = true
	}
	for i, it := range items {
		if it.holes.empty() || it.actual == nil {
			continue
		}
		rule, _, _ := migrate.TranslateRateLimit(*it.actual, plan)
		if there[meaning.Rule(vocab.PhaseRateLimiting, rule)] {
			rule.Ref = it.rule.Ref
			rules[i] = rule
		}
	}
}

// importBlock adds, in every root module that reaches m once, the import block of the
// ruleset address (inside m) for the entry point id; false when no root reaches it once.
func (f *fixer) importBlock(m *Module, address, zoneID, rulesetID string) bool {
	id := "zones/" + zoneID + "/" + rulesetID
	if f.opts.Target == terraform.ProviderV4 {
		id = "zone/" + zoneID + "/" + rulesetID // provider v4's import id of a zone ruleset
	}
	done := false
	for _, root := range f.repo.Modules {
		if !root.Root() {
			continue
		}
		for _, prefix := range modulePaths(root, m) {
			if strings.Contains(prefix, "[*]") {
				continue
			}
			block := fmt.Sprintf("import {\n  to = %s%s\n  id = %q\n}\n", prefix, address, id)
			f.imports[root.Dir] = append(f.imports[root.Dir], block)
			done = true
		}
	}
	return done
}

// writeImports writes each root module's imports file, or adds to an earlier run's.
func (f *fixer) writeImports() {
	dirs := make([]string, 0, len(f.imports))
	for d := range f.imports {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		path := filepath.ToSlash(filepath.Join(d, ImportsFile))
		abs := absOf(f.repo.Root, path)
		old, err := safefile.ReadFileNoFollow(abs, maxFile)
		head := "# Written by sunset fix: the entry points these rulesets replace exist already (the snapshot\n# says so); Terraform imports them, then updates them. Delete this file after the apply.\n"
		if err != nil {
			old, head = nil, head+"\n"
		} else {
			head = string(old)
		}
		out := head
		for _, b := range f.imports[d] {
			if !strings.Contains(out, b) {
				out += "\n" + b
			}
		}
		if out != string(old) {
			f.res.Files = append(f.res.Files, FileChange{Path: path, Abs: abs, Old: old, New: []byte(out)})
		}
	}
}
