package terraform

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/sunsetscan/sunset/migrate"
)

// TestRemovedFileZoneByZone shows that removed.tf formatted a zone at a time is the file
// formatted whole (terraform fmt on all of it), for several zones with several old objects,
// one with more than are formatted at once.
func TestRemovedFileZoneByZone(t *testing.T) {
	c := newCleanupSet(false)
	var raw bytes.Buffer
	for _, z := range []string{"a.example", "b.example", "c.example"} {
		zp := &migrate.ZonePlan{ZoneName: z, Retired: []migrate.Retired{
			{Type: "cloudflare_rate_limit", ID: "rl-" + z},
			{Type: "cloudflare_firewall_rule", ID: "fw-2"},
			{Type: "cloudflare_filter", ID: "filter-long-id-" + z},
		}}
		if z == "b.example" { // more blocks than are formatted at once
			for i := range 2*removedChunk + 5 {
				zp.Retired = append(zp.Retired, migrate.Retired{Type: "cloudflare_firewall_rule", ID: fmt.Sprintf("fw-3-%03d", i)})
			}
		}
		if err := c.add(zp); err != nil {
			t.Fatal(err)
		}
		// The zone's blocks in the order add sorts them (type, then id), unformatted whole.
		sorted := slices.Clone(zp.Retired)
		slices.SortFunc(sorted, func(a, b migrate.Retired) int {
			return cmp.Or(strings.Compare(a.Type, b.Type), strings.Compare(a.ID, b.ID))
		})
		var blocks []retiredAddr
		for _, r := range sorted {
			blocks = append(blocks, retiredAddr{zone: z, address: oldAddress(r)})
		}
		raw.Write(removedBlocks(blocks, true))
	}
	if err := c.end(); err != nil {
		t.Fatal(err)
	}
	if c.blocks < 6 {
		t.Fatalf("%d removed blocks: want two or more zones of several", c.blocks)
	}
	var got bytes.Buffer
	if err := c.writeRemoved(&got); err != nil {
		t.Fatal(err)
	}
	head := got.Bytes()[:bytes.Index(got.Bytes(), []byte("\n\n"))+2]
	want := hclwrite.Format(append(append([]byte{}, head...), append(bytes.TrimRight(raw.Bytes(), "\n"), '\n')...))
	if got.String() != string(want) {
		t.Fatalf("removed.tf zone by zone:\n%s\nwhole:\n%s", got.Bytes(), want)
	}
}
