package fix

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner/safefile"
)

// The old resources leave the state without being destroyed (the objects stay in the account
// until they are deleted there: sunset plan and apply, or by hand, once the new rules run).
//
//   - provider v4: each old block becomes a removed block (destroy = false) where it was, in
//     its own module, so one `terraform apply` on v4 creates the new rulesets and forgets the
//     old resources, whatever module instances and keys they have (Terraform >= 1.7).
//   - provider v5: v5 cannot read the state provider v4 wrote for cloudflare_firewall_rule
//     and cloudflare_rate_limit, so the configuration drops them and StateCleanupScript, in
//     each root module, runs `terraform state rm` for their addresses on v4, before the
//     upgrade (state rm needs no provider).

// StateCleanupScript is the file, in each root module, of the v5 path's first step.
const StateCleanupScript = "sunset-state-cleanup.sh"

// replace puts block (declaring newAddr) where the first old resource was and removes the
// others; they leave the state without a destroy: on v4 each becomes a removed block, on v5
// the clean-up script lists it.
func (f *fixer) replace(olds []*Resource, block, newAddr string) {
	f.swap(olds, block, newAddr, true)
}

// swap puts block where the first of olds was and removes them all; forget says whether
// Terraform's state can hold them (then they leave it without a destroy, see replace).
func (f *fixer) swap(olds []*Resource, block, newAddr string, forget bool) {
	for i, r := range olds {
		start, end := blockSpan(r.File, r)
		text := ""
		if forget && f.opts.Target == terraform.ProviderV4 {
			text = removedBlock(r)
		}
		if i == 0 && block != "" {
			text = block + "\n" + text
		}
		if text != "" && !strings.HasSuffix(text, "\n\n") && end < len(r.File.Src) {
			text += "\n"
		}
		f.edits[r.File] = append(f.edits[r.File], edit{start: start, end: end, text: text})
		if forget {
			f.removed = append(f.removed, r)
		}
		if newAddr != "" {
			f.replacedBy[r] = newAddr
		}
	}
}

// removedBlock forgets r without destroying it.
func removedBlock(r *Resource) string {
	return fmt.Sprintf("removed {\n  from = %s\n\n  lifecycle {\n    destroy = false\n  }\n}\n", r.Address())
}

// stateSteps writes the v5 clean-up script of each root module and says what to run.
func (f *fixer) stateSteps() {
	if len(f.removed) == 0 {
		return
	}
	if f.opts.Target == terraform.ProviderV4 {
		f.res.StateSteps = append(f.res.StateSteps,
			"On provider v4 (Terraform >= 1.7): terraform plan shows the new rulesets to create and the old resources to forget (\"will no longer be managed by Terraform\"), none to destroy; terraform apply.",
			"The old rules stay in the account, unmanaged, until you delete them there (sunset scan then plan and apply do it, or the dashboard); until then both run.")
		return
	}
	roots := map[*Module][]string{}
	for _, r := range f.removed {
		for _, root := range f.repo.Modules {
			if !root.Root() {
				continue
			}
			for _, prefix := range modulePaths(root, r.Module) {
				roots[root] = append(roots[root], stateLine(prefix, r.Address()))
			}
		}
	}
	mods := make([]*Module, 0, len(roots))
	for m := range roots {
		mods = append(mods, m)
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].Dir < mods[j].Dir })
	for _, m := range mods {
		path := filepath.ToSlash(filepath.Join(m.Dir, StateCleanupScript))
		f.addScript(path, roots[m])
		f.res.StateSteps = append(f.res.StateSteps, fmt.Sprintf("In %s, before the next apply (on provider v4: before upgrading): sh %s (terraform state rm of the old resources: Terraform forgets them, nothing is destroyed).", m.Dir, StateCleanupScript))
	}
	f.res.StateSteps = append(f.res.StateSteps,
		"Then upgrade to provider v5 (the rest of the configuration with the provider's tf-migrate), terraform plan (the new rulesets to create, nothing to destroy) and apply.",
		"The old rules stay in the account, unmanaged, until you delete them there (sunset scan then plan and apply do it, or the dashboard); until then both run.")
}

// modulePaths are the module address prefixes under which root reaches m ("" for root
// itself), a repeated module call as a pattern ("module.NAME[*]").
func modulePaths(root, m *Module) []string {
	return modulePathsVia(root, m, map[*Module]bool{})
}

// modulePathsVia is modulePaths not going through the modules on the way (a call cycle,
// which Terraform refuses, ends there).
func modulePathsVia(root, m *Module, onWay map[*Module]bool) []string {
	if root == m {
		return []string{""}
	}
	onWay[root] = true
	defer delete(onWay, root)
	var out []string
	for _, c := range root.Calls {
		if c.Target == nil || onWay[c.Target] {
			continue
		}
		step := "module." + c.Name
		if _, ok := c.Block.Body.Attributes["for_each"]; ok {
			step += "[*]"
		} else if _, ok := c.Block.Body.Attributes["count"]; ok {
			step += "[*]"
		}
		for _, rest := range modulePathsVia(c.Target, m, onWay) {
			if rest == "" {
				out = append(out, step+".")
			} else {
				out = append(out, step+"."+rest)
			}
		}
	}
	return out
}

// stateLine removes every instance of address under prefix: directly when prefix names
// one module instance, through `terraform state list` when it has instance keys.
func stateLine(prefix, address string) string {
	full := prefix + address
	if !strings.Contains(prefix, "[*]") {
		return fmt.Sprintf("terraform state rm '%s'", full)
	}
	pattern := "^" + strings.ReplaceAll(regexp.QuoteMeta(full), `\[\*\]`, `\[[^]]+\]`) + `(\[.*\])?$`
	return fmt.Sprintf("terraform state list | grep -E '%s' | while IFS= read -r a; do terraform state rm \"$a\"; done", pattern)
}

func cleanupScript(lines []string) []byte {
	sort.Strings(lines)
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	b.WriteString("# Written by sunset fix. Step 1 of the move to provider v5: run here before the next apply\n")
	b.WriteString("# (on provider v4, before the upgrade: v5 cannot read what v4 wrote for these types). Terraform\n")
	b.WriteString("# forgets the old resources the configuration no longer declares; nothing is destroyed (state\n")
	b.WriteString("# rm needs no provider).\n")
	b.WriteString("# An address the state does not hold fails with \"Invalid target address\" and changes nothing.\n")
	b.WriteString("# Addresses are from this directory; if it is a module called from elsewhere, run the lines\n")
	b.WriteString("# there with the module's address in front (module.NAME.cloudflare_...).\n")
	b.WriteString("# Delete this file once it has run.\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	return []byte(b.String())
}

// addScript writes the clean-up script, or adds the lines an earlier run's script lacks.
func (f *fixer) addScript(path string, lines []string) {
	abs := absOf(f.repo.Root, path)
	old, err := safefile.ReadFileNoFollow(abs, maxFile)
	if err != nil {
		f.added[path] = cleanupScript(lines)
		return
	}
	out := bytes.TrimRight(old, "\n")
	out = append(out[:len(out):len(out)], '\n')
	for _, l := range lines {
		if !bytes.Contains(old, []byte(l+"\n")) {
			out = append(out, l+"\n"...)
		}
	}
	if !bytes.Equal(out, old) {
		f.res.Files = append(f.res.Files, FileChange{Path: path, Abs: abs, Old: old, New: out})
	}
}

// absOf is the absolute path of a path the result shows (relative to root, or absolute when
// outside it).
func absOf(root, rel string) string {
	if p := filepath.FromSlash(rel); filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(root, filepath.FromSlash(rel))
}
