package terraform

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"

	"github.com/sunsetscan/sunset/migrate"
)

// CleanupDir is the folder, inside the terraform directory, of step 1 of README.md: what
// drops the old resources from state while the configuration is still on provider v4.
// Terraform does not read subfolders, so its files never join the v5 configuration.
const CleanupDir = "v4-state-cleanup"

// v4Types are the old resource types that provider v4 manages: their state must leave while
// on v4, because v5 cannot read what v4 wrote for cloudflare_firewall_rule and
// cloudflare_rate_limit (cloudflare_filter could wait, but goes in the same step).
var v4Types = map[string]bool{"cloudflare_filter": true, "cloudflare_firewall_rule": true, "cloudflare_rate_limit": true}

// goneTypes are old resource types no provider v4 or v5 has (removed in v4.0.0): a removed
// block naming one fails, and no v4 or v5 state can hold one.
var goneTypes = map[string]bool{
	"cloudflare_waf_override": true, "cloudflare_waf_package": true,
	"cloudflare_waf_group": true, "cloudflare_waf_rule": true,
}

// cleanupSet is what the v4 state cleanup drops, and the retired objects it leaves to the
// API steps because no provider since v4 manages them.
type cleanupSet struct {
	blocks []retiredAddr
	gone   []retiredAddr
	other  []retiredAddr // types this package does not know: listed in README.md
}

// retiredAddr is an old object with the address cf-terraforming gives it.
type retiredAddr struct {
	zone    string // zone name
	typ, id string
	address string
}

// oldAddress is the address cf-terraforming gives an old object.
func oldAddress(r migrate.Retired) string {
	return r.Type + ".terraform_managed_resource_" + strings.TrimLeft(sanitize(r.ID), "_")
}

// add sorts a zone's retired objects by what Terraform can do with them: zones come in plan
// order, each zone's by type and id.
func (c *cleanupSet) add(z *migrate.ZonePlan) {
	retired := append([]migrate.Retired(nil), z.Retired...)
	sort.Slice(retired, func(i, j int) bool {
		if retired[i].Type != retired[j].Type {
			return retired[i].Type < retired[j].Type
		}
		return retired[i].ID < retired[j].ID
	})
	for _, r := range retired {
		a := retiredAddr{zone: z.ZoneName, typ: r.Type, id: r.ID, address: oldAddress(r)}
		switch {
		case v4Types[r.Type]:
			c.blocks = append(c.blocks, a)
		case goneTypes[r.Type]:
			c.gone = append(c.gone, a)
		default:
			c.other = append(c.other, a)
		}
	}
}

// removedFile is CleanupDir/removed.tf: removed blocks (destroy = false) to add to the v4
// configuration in place of the old resource blocks.
func (c cleanupSet) removedFile() []byte {
	var b bytes.Buffer
	b.Write(header("Step 1 of ../README.md, on provider v4 and Terraform " + CleanupTerraform + ": copy into the configuration that manages these objects today, delete their resource blocks, then terraform plan and apply. Terraform forgets them; nothing is destroyed (the API steps of ../../plan.md delete the objects later). Do not add this file to the v5 configuration: v5 rejects the v4 state of cloudflare_firewall_rule and cloudflare_rate_limit."))
	// A zone's blocks at a time, each formatted alone: a removed block has one attribute,
	// so no alignment spans two zones, and the syntax tree of every old object of the
	// account is never held at once.
	for start := 0; start < len(c.blocks); {
		end := start + 1
		for end < len(c.blocks) && c.blocks[end].zone == c.blocks[start].zone {
			end++
		}
		b.Write(hclwrite.Format(removedBlocks(c.blocks[start:end])))
		start = end
	}
	out := bytes.TrimRight(b.Bytes(), "\n")
	return append(out, '\n')
}

// removedBlocks is one zone's part of removed.tf, unformatted.
func removedBlocks(blocks []retiredAddr) []byte {
	f := hclwrite.NewEmptyFile()
	body := f.Body()
	body.AppendUnstructuredTokens(comment("Zone " + blocks[0].zone + ": old resources the plan deletes through the API (plan.md). Rename the addresses if your configuration names them otherwise."))
	for _, b := range blocks {
		rb := body.AppendNewBlock("removed", nil).Body()
		typ, name, _ := strings.Cut(b.address, ".")
		rb.SetAttributeTraversal("from", traversal(typ, name))
		rb.AppendNewBlock("lifecycle", nil).Body().SetAttributeValue("destroy", cty.False)
		body.AppendNewline()
	}
	return f.Bytes()
}

// stateRmScript is CleanupDir/state-rm.sh: the same as removed.tf with `terraform state
// rm`, which needs no provider and no configuration change.
func (c cleanupSet) stateRmScript() []byte {
	var b bytes.Buffer
	b.WriteString("#!/bin/sh\n")
	b.WriteString(generatedMark + " Step 1 of ../README.md, the other way: run in the working directory of the\n")
	b.WriteString("# configuration that manages these objects today, while it is still on provider v4 (before the\n")
	b.WriteString("# upgrade), then delete their resource blocks. Terraform forgets them; nothing is destroyed.\n")
	b.WriteString("# An address your state does not hold fails with \"Invalid target address\" and changes nothing.\n")
	zone := ""
	for _, r := range c.blocks {
		if r.zone != zone {
			zone = r.zone
			fmt.Fprintf(&b, "\n# Zone %s\n", oneLine(zone))
		}
		fmt.Fprintf(&b, "terraform state rm '%s'\n", r.address)
	}
	if len(c.gone) > 0 {
		b.WriteString("\n# WAF overrides: provider v4 and v5 have no resource for them, so only a state written by\n")
		b.WriteString("# provider v3 can hold them (and then fails under v4 and v5). If `terraform state list` shows\n")
		b.WriteString("# them, remove the leading '# ' of these lines; state rm needs no provider schema.\n")
		for _, r := range c.gone {
			fmt.Fprintf(&b, "# terraform state rm '%s'\n", r.address)
		}
	}
	return b.Bytes()
}
