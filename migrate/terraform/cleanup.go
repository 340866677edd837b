package terraform

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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
// API steps because no provider since v4 manages them. Each zone's part of the cleanup files
// and of README.md is written to a spool as the zone comes, so memory keeps counts, not
// the account's old objects.
type cleanupSet struct {
	blocks, gone int // removed blocks, and old objects of goneTypes
	// group is the removed blocks of the zone last added, not yet written: consecutive zones
	// of one name share their heading, as in a plan held whole.
	group []retiredAddr
	// shZone is the zone whose heading state-rm.sh last got.
	shZone string
	// heldNL is how many newlines end removed.tf's part so far: written before the next
	// zone's part, dropped at the end.
	heldNL int
	// removed and stateRm are the zones' parts of removed.tf and state-rm.sh; goneSh the
	// commented state rm lines of goneTypes that end state-rm.sh; goneMd and otherMd the
	// lines of README.md for goneTypes and for types this package does not know.
	removed, stateRm, goneSh, goneMd, otherMd spool
	err                                       error // the first failed write to a spool
}

// newCleanupSet is an empty cleanupSet whose spools are temporary files when onDisk.
func newCleanupSet(onDisk bool) *cleanupSet {
	c := &cleanupSet{}
	for _, s := range c.spools() {
		s.onDisk = onDisk
	}
	return c
}

func (c *cleanupSet) spools() []*spool {
	return []*spool{&c.removed, &c.stateRm, &c.goneSh, &c.goneMd, &c.otherMd}
}

// remove deletes the spools' temporary files.
func (c *cleanupSet) remove() error {
	var errs []error
	for _, s := range c.spools() {
		errs = append(errs, s.remove())
	}
	return errors.Join(errs...)
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

// printf writes to s, keeping the first failure in c.err.
func (c *cleanupSet) printf(s *spool, format string, args ...any) {
	if _, err := fmt.Fprintf(s, format, args...); err != nil && c.err == nil {
		c.err = err
	}
}

// add sorts a zone's retired objects by what Terraform can do with them and writes their
// lines: zones come in plan order, each zone's objects by type and id.
func (c *cleanupSet) add(z *migrate.ZonePlan) error {
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
			if len(c.group) > 0 && c.group[0].zone != a.zone {
				c.flush()
			}
			c.group = append(c.group, a)
			c.blocks++
		case goneTypes[r.Type]:
			c.printf(&c.goneSh, "# terraform state rm '%s'\n", a.address)
			c.printf(&c.goneMd, "  - zone %s: %s %s\n", migrate.EscapeMarkdown(a.zone), a.typ, code(a.id))
			c.gone++
		default:
			c.printf(&c.otherMd, "- zone %s: %s %s is retired by plan.md's API steps; drop `%s` from state if your configuration manages it.\n", migrate.EscapeMarkdown(a.zone), a.typ, code(a.id), a.address)
		}
	}
	return c.err
}

// end writes the removed blocks still held; call it after the last zone.
func (c *cleanupSet) end() error {
	c.flush()
	return c.err
}

// flush writes the held group's part of removed.tf and of state-rm.sh.
func (c *cleanupSet) flush() {
	if len(c.group) == 0 {
		return
	}
	// Each zone's part is formatted alone, removedChunk blocks at a time: a removed block
	// has one attribute, so no alignment spans two blocks, and the formatter's tokens for a
	// zone of thousands of old rules (megabytes) are never held at once. The file ends with
	// one newline: a part's own are held until another part follows.
	for i := 0; i < len(c.group); i += removedChunk {
		part := hclwrite.Format(removedBlocks(c.group[i:min(i+removedChunk, len(c.group))], i == 0))
		body := bytes.TrimRight(part, "\n")
		c.printf(&c.removed, "%s%s", strings.Repeat("\n", c.heldNL), body)
		c.heldNL = len(part) - len(body)
	}
	for _, r := range c.group {
		if r.zone != c.shZone {
			c.shZone = r.zone
			c.printf(&c.stateRm, "\n# Zone %s\n", oneLine(r.zone))
		}
		c.printf(&c.stateRm, "terraform state rm '%s'\n", r.address)
	}
	clear(c.group) // the next zone's group reuses the array: drop this one's strings
	c.group = c.group[:0]
}

// writeRemoved writes CleanupDir/removed.tf: removed blocks (destroy = false) to add to the
// v4 configuration in place of the old resource blocks.
func (c *cleanupSet) writeRemoved(w io.Writer) error {
	if _, err := w.Write(header("Step 1 of ../README.md, on provider v4 and Terraform " + CleanupTerraform + ": copy into the configuration that manages these objects today, delete their resource blocks, then terraform plan and apply. Terraform forgets them; nothing is destroyed (the API steps of ../../plan.md delete the objects later). Do not add this file to the v5 configuration: v5 rejects the v4 state of cloudflare_firewall_rule and cloudflare_rate_limit.")); err != nil {
		return err
	}
	if err := c.removed.copyTo(w); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// removedBlocks is a part of one zone's removed.tf, unformatted: a removed block (destroy =
// false) per old object, under the zone's heading when heading.
func removedBlocks(blocks []retiredAddr, heading bool) []byte {
	f := hclwrite.NewEmptyFile()
	body := f.Body()
	if heading {
		body.AppendUnstructuredTokens(comment("Zone " + blocks[0].zone + ": old resources the plan deletes through the API (plan.md). Rename the addresses if your configuration names them otherwise."))
	}
	for _, b := range blocks {
		rb := body.AppendNewBlock("removed", nil).Body()
		typ, name, _ := strings.Cut(b.address, ".")
		rb.SetAttributeTraversal("from", traversal(typ, name))
		rb.AppendNewBlock("lifecycle", nil).Body().SetAttributeValue("destroy", cty.False)
		body.AppendNewline()
	}
	return f.Bytes()
}

// removedChunk is how many removed blocks are formatted at once.
const removedChunk = 64

// writeStateRm writes CleanupDir/state-rm.sh: the same as removed.tf with `terraform state
// rm`, which needs no provider and no configuration change.
func (c *cleanupSet) writeStateRm(w io.Writer) error {
	var b bytes.Buffer
	b.WriteString("#!/bin/sh\n")
	b.WriteString(generatedMark + " Step 1 of ../README.md, the other way: run in the working directory of the\n")
	b.WriteString("# configuration that manages these objects today, while it is still on provider v4 (before the\n")
	b.WriteString("# upgrade), then delete their resource blocks. Terraform forgets them; nothing is destroyed.\n")
	b.WriteString("# An address your state does not hold fails with \"Invalid target address\" and changes nothing.\n")
	if _, err := w.Write(b.Bytes()); err != nil {
		return err
	}
	if err := c.stateRm.copyTo(w); err != nil || c.gone == 0 {
		return err
	}
	b.Reset()
	b.WriteString("\n# WAF overrides: provider v4 and v5 have no resource for them, so only a state written by\n")
	b.WriteString("# provider v3 can hold them (and then fails under v4 and v5). If `terraform state list` shows\n")
	b.WriteString("# them, remove the leading '# ' of these lines; state rm needs no provider schema.\n")
	if _, err := w.Write(b.Bytes()); err != nil {
		return err
	}
	return c.goneSh.copyTo(w)
}
