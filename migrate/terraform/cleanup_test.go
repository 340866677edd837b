package terraform

import (
	"bytes"
	"testing"

	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/sunsetscan/sunset/migrate"
)

// TestRemovedFileZoneByZone shows that removed.tf formatted a zone at a time is the file
// formatted whole (terraform fmt on all of it), for several zones with several old objects.
func TestRemovedFileZoneByZone(t *testing.T) {
	var c cleanupSet
	for _, z := range []string{"a.example", "b.example", "c.example"} {
		c.add(&migrate.ZonePlan{ZoneName: z, Retired: []migrate.Retired{
			{Type: "cloudflare_rate_limit", ID: "rl-" + z},
			{Type: "cloudflare_firewall_rule", ID: "fw-2"},
			{Type: "cloudflare_filter", ID: "filter-long-id-" + z},
		}})
	}
	if len(c.blocks) < 6 {
		t.Fatalf("%d removed blocks: want two or more zones of several", len(c.blocks))
	}
	var raw bytes.Buffer
	for start := 0; start < len(c.blocks); {
		end := start + 1
		for end < len(c.blocks) && c.blocks[end].zone == c.blocks[start].zone {
			end++
		}
		raw.Write(removedBlocks(c.blocks[start:end]))
		start = end
	}
	got := c.removedFile()
	head := got[:bytes.Index(got, []byte("\n\n"))+2]
	want := hclwrite.Format(append(append([]byte{}, head...), append(bytes.TrimRight(raw.Bytes(), "\n"), '\n')...))
	if string(got) != string(want) {
		t.Fatalf("removed.tf zone by zone:\n%s\nwhole:\n%s", got, want)
	}
}
