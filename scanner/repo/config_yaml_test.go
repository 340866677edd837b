package repo

import (
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// TestConfigYAMLQuotesControls: values of a checked repository's .sunset.yaml holding a line
// break, an escape or a bidi override print (--print-config) as one escaped double-quoted
// line each, so no output line is a forged "::error" CI command, and read back the same.
func TestConfigYAMLQuotesControls(t *testing.T) {
	in := "include:\n  - \"x\\n::error file=a.tf,line=1::FORGED\"\n  - \"\\e31mred\\u202e\\u0085\"\nbaseline: \"b\\r\\n::warning::B\"\n"
	cfg, err := ParseConfig([]byte(in), "c")
	if err != nil {
		t.Fatal(err)
	}
	out := cfg.YAML()
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") || strings.ContainsFunc(line, textsafe.IsControl) {
			t.Errorf("unsafe line %q in\n%s", line, out)
		}
	}
	again, err := ParseConfig(out, "c")
	if err != nil {
		t.Fatalf("own YAML does not read back: %v\n%s", err, out)
	}
	a, _ := cfg.MarshalJSON()
	b, _ := again.MarshalJSON()
	if string(a) != string(b) {
		t.Fatalf("round trip: %s != %s", a, b)
	}
	if !strings.Contains(string(out), `"x\n::error file=a.tf,line=1::FORGED"`) {
		t.Errorf("the value is not written escaped:\n%s", out)
	}
}
