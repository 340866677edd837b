package repo

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// TestFindingsAggregatedPastLimit: past MaxFindingsPerRule findings of one rule in one file,
// the rest are one finding that counts them, keeps the gate's severity and a stable
// fingerprint; suppressed findings aggregate apart from unsuppressed ones.
func TestFindingsAggregatedPastLimit(t *testing.T) {
	c := NewChecker(nil, asOf)
	// Each pair is one finding: the filler keeps the next pair out of the patterns' reach.
	filler := strings.Repeat("#\n", 160)
	pair := "Transfer-Encoding: chunked\nContent-Length: 42\n" + filler
	check := func(src string) (kept, more []scanner.Finding) {
		t.Helper()
		for _, f := range c.CheckFile("h.txt", KindText, []byte(src)).Findings {
			switch {
			case f.RuleID != vocab.TransferEncodingWithContentLength:
				t.Fatalf("unexpected finding %+v", f)
			case strings.Contains(f.Message, "more findings of this rule"):
				more = append(more, f)
			default:
				kept = append(kept, f)
			}
		}
		return kept, more
	}
	one := c.CheckFile("h.txt", KindText, []byte(pair)).Findings
	if len(one) != 1 {
		t.Fatalf("one pair: %d findings", len(one))
	}
	kept, more := check(strings.Repeat(pair, 250))
	if len(kept) != MaxFindingsPerRule || len(more) != 1 {
		t.Fatalf("%d kept, %d aggregated", len(kept), len(more))
	}
	m := more[0]
	want := fmt.Sprintf("150 more findings of this rule in this file past the first %d, at lines 16201, 16363, 16525, 16687, 16849, …: ", MaxFindingsPerRule)
	if !strings.HasPrefix(m.Message, want) || m.Severity != one[0].Severity || m.Location.StartLine != 16201 || m.Suppressed {
		t.Errorf("aggregate %s %q at %+v", m.Severity, m.Message, m.Location)
	}
	// Shifting every line keeps the fingerprint (it names the rule, the path and "more").
	_, shifted := check("\n\n" + strings.Repeat(pair, 250))
	if len(shifted) != 1 || shifted[0].Fingerprint != m.Fingerprint {
		t.Errorf("fingerprint not line-independent: %+v", shifted)
	}
	// 120 suppressed pairs then 130 unsuppressed ones: two aggregates, apart.
	var b strings.Builder
	for i := 0; i < 120; i++ {
		b.WriteString("Transfer-Encoding: chunked # sunset:ignore transfer-encoding-with-content-length fixture\nContent-Length: 42\n" + filler)
	}
	b.WriteString(strings.Repeat(pair, 130))
	kept, more = check(b.String())
	if len(kept) != 2*MaxFindingsPerRule || len(more) != 2 {
		t.Fatalf("%d kept, %d aggregated", len(kept), len(more))
	}
	for _, m := range more {
		n := 30
		if m.Suppressed {
			n = 20
		}
		if !strings.HasPrefix(m.Message, fmt.Sprintf("%d more", n)) || m.Suppressed != (m.SuppressedBy == "inline: fixture") {
			t.Errorf("aggregate suppressed=%v by %q: %q", m.Suppressed, m.SuppressedBy, m.Message)
		}
	}
	if more[0].Fingerprint == more[1].Fingerprint {
		t.Error("suppressed and unsuppressed aggregates share a fingerprint")
	}
}

// TestStackedSuppressions: many comments stacked over one line, several on one line, and a
// stack before a block each apply as one comment would (the linear scan gives the answers
// of the per-comment scan it replaced).
func TestStackedSuppressions(t *testing.T) {
	c := NewChecker(nil, asOf)
	call := `curl "$API/zones/$Z/filters"` + "\n"
	stack := strings.Repeat("# sunset:ignore firewall-rules unrelated\n\n", 50)
	cases := []struct {
		name, file, src string
		suppressedBy    []string // of the filters findings in order, "" for not suppressed
	}{
		{"stack over a call", "a.sh", stack + "# sunset:ignore filters first\n# sunset:ignore filters second\n" + call, []string{"inline: first"}},
		{"stack, code, stack", "a.sh", stack + call + stack + "# sunset:ignore filters late\n" + call + call, []string{"", "inline: late", ""}},
		{"all before a rule id", "a.sh", "# sunset:ignore all one\n# sunset:ignore filters two\n" + call, []string{"inline: one"}},
		{"two on one line", "a.sh", "# sunset:ignore firewall-rules a # sunset:ignore filters b\n" + call, []string{"inline: b"}},
		{"trailing and before", "a.sh", "# sunset:ignore filters before\n" + strings.TrimSuffix(call, "\n") + " # sunset:ignore filters after\n", []string{"inline: before"}},
		{"trailing only its line", "a.sh", strings.TrimSuffix(call, "\n") + " # sunset:ignore filters t\n" + call, []string{"inline: t", ""}},
		{"stack before a block", "a.yaml", stack + "# sunset:ignore filters block\n- id: f1\n  paused: false\n  expression: ip.src eq 192.0.2.1\n  ref: x\n- id: f2\n  paused: false\n  expression: ip.src eq 192.0.2.2\n  ref: y\n", []string{"inline: block", ""}},
		{"nothing after the stack", "a.sh", call + stack, []string{""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range c.CheckFile(tc.file, KindOf(tc.file), []byte(tc.src)).Findings {
				if f.RuleID == vocab.Filters {
					got = append(got, f.SuppressedBy)
				}
			}
			if strings.Join(got, "|") != strings.Join(tc.suppressedBy, "|") {
				t.Errorf("suppressed by %q, want %q", got, tc.suppressedBy)
			}
		})
	}
}
