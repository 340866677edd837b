package terraform

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/sunsetscan/sunset/migrate"
)

// TestCommentsHoldOneSafeLine: a zone name or step title in a "#" comment of a .tf file or
// of state-rm.sh cannot end the comment (in state-rm.sh the next line would run) and carries
// no escape sequence or control character.
func TestCommentsHoldOneSafeLine(t *testing.T) {
	hostile := "zone\x1b[31m x\n::error file=a.tf,line=1::FORGED\r\nrm -rf /\u202e"
	f := hclwrite.NewEmptyFile()
	f.Body().AppendUnstructuredTokens(comment(hostile))
	src := finish(header(hostile), f)
	if _, diags := hclsyntax.ParseConfig(src, "x.tf", hcl.InitialPos); diags.HasErrors() {
		t.Fatalf("the comment broke the file: %v\n%s", diags, src)
	}
	c := newCleanupSet(false)
	if err := c.add(&migrate.ZonePlan{ZoneName: hostile, Retired: []migrate.Retired{{Type: "cloudflare_filter", ID: "1"}}}); err != nil {
		t.Fatal(err)
	}
	if err := c.end(); err != nil {
		t.Fatal(err)
	}
	var sh strings.Builder
	if err := c.writeStateRm(&sh); err != nil {
		t.Fatal(err)
	}
	script := sh.String()
	for name, out := range map[string]string{"tf": string(src), "state-rm.sh": script} {
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "::") || strings.HasPrefix(line, "rm ") || strings.ContainsAny(line, "\x1b\r\u202e") {
				t.Errorf("%s: unsafe line %q", name, line)
			}
		}
		if !strings.Contains(out, "# Zone zone x ::error file=a.tf,line=1::FORGED rm -rf /") &&
			!strings.Contains(out, "# zone x ::error file=a.tf,line=1::FORGED rm -rf /") {
			t.Errorf("%s: the comment lost its text:\n%s", name, out)
		}
	}
}
