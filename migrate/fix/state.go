package fix

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2/hclsyntax"

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

// keepComments carries the comments written inside the blocks fix replaces: an edit that
// takes a whole block away, and does not write its comments again, writes them first (just
// above what replaces the block, or where the block was), one a line as written (a comment
// after an attribute on its own line), under a line naming the block.
//
// A block taken away with nothing in its place takes the comment lines just above it along
// (they spoke of it), under the same line: left as they were, they would seem to speak of
// the next block.
func (f *fixer) keepComments() {
	for file, es := range f.edits {
		for i, e := range es {
			kept := ""
			for _, b := range file.Body.Blocks {
				if rng := b.Range(); e.start <= rng.Start.Byte && rng.End.Byte <= e.end {
					lead := ""
					if e.text == "" && e.start == lineStart(file.Src, rng.Start.Byte) {
						es[i].start = leadingComments(file.Src, e.start, es)
						lead = string(file.Src[es[i].start:e.start])
					}
					kept += innerComments(file, b, e.text, lead)
				}
			}
			if kept != "" && e.text == "" && e.end < len(file.Src) {
				kept += "\n" // apart from the block that follows
			}
			es[i].text = kept + e.text
		}
	}
}

// leadingComments is where the comment lines just above offset at (a line start) begin:
// at itself when there are none, or when another edit holds them.
func leadingComments(src []byte, at int, es []edit) int {
	start := at
	for start > 0 {
		prev := lineStart(src, start-1)
		line := strings.TrimSpace(string(src[prev : start-1]))
		if !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "//") || strings.HasPrefix(line, "# sunset fix:") {
			break
		}
		start = prev
	}
	for _, e := range es {
		if e.start < at && e.end > start {
			return at
		}
	}
	return start
}

// innerComments are lead (comment lines) and the comments inside b that text does not hold,
// under a line naming b; "" when there are none.
func innerComments(file *File, b *hclsyntax.Block, text, lead string) string {
	rng := b.Range()
	toks, _ := hclsyntax.LexConfig(file.Src[rng.Start.Byte:rng.End.Byte], file.Path, rng.Start)
	var out strings.Builder
	out.WriteString(lead)
	for _, t := range toks {
		if c := strings.TrimRight(string(t.Bytes), "\n"); t.Type == hclsyntax.TokenComment && !strings.Contains(text, c) {
			out.WriteString(c + "\n")
		}
	}
	if out.Len() == 0 {
		return ""
	}
	return "# Comments of " + blockName(b) + " (kept by sunset fix):\n" + out.String()
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
		f.step(nil, "On provider v4 (Terraform >= 1.7): terraform plan shows the new rulesets to create and the old resources to forget (\"will no longer be managed by Terraform\"), none to destroy; terraform apply.")
		f.step(nil, "The old rules stay in the account, unmanaged, until you delete them there (sunset scan then plan and apply do it, or the dashboard); until then both run.")
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
		f.step(m, fmt.Sprintf("In %s, before the next apply (on provider v4: before upgrading): sh %s (terraform state rm of the old resources: Terraform forgets them, nothing is destroyed; where there is no state yet it says so and does nothing).", m.Dir, StateCleanupScript))
	}
	f.step(nil, "Then upgrade to provider v5 (the rest of the configuration with the provider's tf-migrate), terraform plan (the new rulesets to create, nothing to destroy) and apply.")
	f.step(nil, "The old rules stay in the account, unmanaged, until you delete them there (sunset scan then plan and apply do it, or the dashboard); until then both run.")
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

// stateLine forgets every instance of address under prefix: by its address when prefix
// names one module instance, else every address of the state the pattern matches (its
// instance keys unknown until then).
func stateLine(prefix, address string) string {
	full := prefix + address
	if !strings.Contains(prefix, "[*]") {
		return fmt.Sprintf("forget '%s'", full)
	}
	pattern := "^" + strings.ReplaceAll(regexp.QuoteMeta(full), `\[\*\]`, `\[[^]]+\]`) + `(\[.*\])?$`
	return fmt.Sprintf("forget_matching '%s'", pattern)
}

// scriptHead is the clean-up script up to its lines: what it is, then the state read once.
// Without a state (nothing applied in this directory yet) there is nothing to forget: the
// script says so and exits 0. Any other failure to read the state (a backend not
// initialised, a locked state) is Terraform's error, and exit 1. An address the state does
// not hold is skipped with a word; a failed state rm stops the script, exit 1.
const scriptHead = `#!/bin/sh
# Written by sunset fix. Step 1 of the move to provider v5: run here before the next apply
# (on provider v4, before the upgrade: v5 cannot read what v4 wrote for these types). Terraform
# forgets the old resources the configuration no longer declares; nothing is destroyed (state
# rm needs no provider). Addresses the state does not hold are skipped; with no state here yet
# there is nothing to forget, and the script says so.
# Addresses are from this directory; if it is a module called from elsewhere, run the lines
# there with the module's address in front (module.NAME.cloudflare_...).
# Delete this file once it has run.
set -u
if ! state=$(terraform state list 2>/dev/null); then
	why=$(terraform state list 2>&1 >/dev/null)
	case $why in
	*"No state file was found"*)
		echo "No Terraform state here yet: nothing to forget."
		exit 0
		;;
	esac
	printf '%s\n' "$why" >&2
	exit 1
fi

# holds ADDRESS: whether the state holds ADDRESS or an instance of it.
holds() {
	printf '%s\n' "$state" | {
		while IFS= read -r a; do
			case $a in "$1" | "$1"\[*) exit 0 ;; esac
		done
		exit 1
	}
}

# forget ADDRESS: terraform state rm of ADDRESS (every instance), when the state holds it.
forget() {
	if holds "$1"; then
		terraform state rm "$1" || exit 1
	else
		echo "$1: not in the state, nothing to forget"
	fi
}

# forget_matching PATTERN: terraform state rm of each address the extended regular
# expression matches (instances of repeated module calls).
forget_matching() {
	printf '%s\n' "$state" | grep -E -e "$1" | while IFS= read -r a; do
		terraform state rm "$a" || exit 1
	done || exit 1
}

`

// scriptLine finds the lines of a clean-up script, this version's (forget ...) or an
// earlier one's (terraform state rm ... and state list | grep -E ... pipelines).
var scriptLine = regexp.MustCompile(`(?m)^(?:forget '([^']*)'|forget_matching '([^']*)'|terraform state rm '([^']*)'|terraform state list \| grep -E '([^']*)' \| .*)$`)

func cleanupScript(lines []string) []byte {
	lines = slices.Compact(slices.Sorted(slices.Values(lines)))
	return []byte(scriptHead + strings.Join(lines, "\n") + "\n")
}

// addScript writes the clean-up script; an earlier run's script keeps its lines and gets
// those it lacks (an earlier version's script is written again in this version's form).
func (f *fixer) addScript(path string, lines []string) {
	sort.Strings(lines)
	lines = slices.Compact(lines)
	abs := absOf(f.repo.Root, path)
	old, err := safefile.ReadFileNoFollow(abs, maxFile)
	if err != nil {
		f.added[path] = cleanupScript(lines)
		return
	}
	out := bytes.TrimRight(old, "\n")
	out = append(out[:len(out):len(out)], '\n')
	if !bytes.HasPrefix(old, []byte(scriptHead)) {
		for _, m := range scriptLine.FindAllSubmatch(old, -1) {
			switch {
			case m[1] != nil || m[3] != nil:
				lines = append(lines, fmt.Sprintf("forget '%s'", append(m[1], m[3]...)))
			default:
				lines = append(lines, fmt.Sprintf("forget_matching '%s'", append(m[2], m[4]...)))
			}
		}
		out = cleanupScript(lines)
	} else {
		for _, l := range lines {
			if !bytes.Contains(old, []byte(l+"\n")) {
				out = append(out, l+"\n"...)
			}
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
