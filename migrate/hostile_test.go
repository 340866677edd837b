package migrate_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate/verify"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// hostileText is what an account can put in a name or a description: a line break followed
// by a GitHub workflow command, an SGR colour and an OSC 8 hyperlink, a bidi override.
const hostileText = "\x1b]8;;http://evil\x07link \x1b[31mred\x1b[0m x\n::error file=a.tf,line=1::FORGED\r\u202e"

// hostileSnapshot is the demo account with hostileText in every name, description, ref and
// expression (seed.Hostile).
func hostileSnapshot(t *testing.T) *inventory.Snapshot {
	t.Helper()
	snap, err := seed.Hostile(hostileText)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// checkSafeLines fails when a line of out holds a control character other than a tab or
// starts (after blanks, as GitHub's runner reads it) with "::", a workflow command.
func checkSafeLines(t *testing.T, name string, out []byte) {
	t.Helper()
	for i, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") {
			t.Errorf("%s:%d: a workflow command: %q", name, i+1, line)
		}
		for _, r := range line {
			if r == '\t' {
				continue
			}
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029 ||
				(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
				t.Errorf("%s:%d: control character %U: %q", name, i+1, r, line)
				break
			}
		}
	}
}

// TestHostileTextInPlanFiles: names, descriptions and expressions from the account reach
// plan.md, the .tf files, README.md and state-rm.sh with no line break, escape sequence or
// control character, so no line of them is a forged CI command; plan.json keeps them exact.
func TestHostileTextInPlanFiles(t *testing.T) {
	snap := hostileSnapshot(t)
	p, _ := planOf(snap, goldenAsOf)
	verify.Verify(p, snap) // its witnesses and rule labels carry the account's text too
	if len(p.Zones) == 0 {
		t.Fatal("no zone plans")
	}
	files := renderAll(t, p)
	reached := 0
	for name, b := range files {
		if name == "plan.json" {
			if !bytes.Contains(b, []byte(`\n::error file=a.tf`)) {
				t.Errorf("plan.json lost the zone names: JSON escapes them")
			}
			continue
		}
		checkSafeLines(t, name, b)
		if bytes.Contains(b, []byte("FORGED")) {
			reached++
		}
		if strings.HasSuffix(name, ".tf") {
			parseHCL(t, name, b)
		}
	}
	if reached < 3 || !bytes.Contains(files["plan.md"], []byte("FORGED")) {
		t.Errorf("the hostile text reached only %d files: the test tests nothing", reached)
	}
}
