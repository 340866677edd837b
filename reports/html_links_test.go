package reports

import (
	"testing"

	"github.com/sunsetscan/sunset/scanner"
)

// TestFindingLinksByFingerprint: a step links to the finding of each fingerprint it
// resolves, whether the fingerprint is sunset's 32 hex digits (kept as bytes) or spelled
// otherwise (a plan from elsewhere); the last of two findings with one fingerprint; a
// fingerprint the page did not ask for, or no finding has, is its plain text.
func TestFindingLinksByFingerprint(t *testing.T) {
	hexFP, otherFP := "143b466c24e5c3a273bfcfedf4b7f29d", "not-a-hex-fingerprint"
	findings := scanner.NewFindingList([]scanner.Finding{
		{RuleID: "firewall-rules", Fingerprint: hexFP, Resource: scanner.Resource{Name: "first"}},
		{RuleID: "filters", Fingerprint: otherFP, Resource: scanner.Resource{Name: "odd"}},
		{RuleID: "firewall-rules", Fingerprint: hexFP, Resource: scanner.Resource{Name: "last"}},
		{RuleID: "filters", Fingerprint: "ffffffffffffffffffffffffffffffff", Resource: scanner.Resource{Name: "unasked"}},
	})
	x := newFindingIndex()
	for _, fp := range []string{hexFP, otherFP, "00000000000000000000000000000000", "gone"} {
		x.add(fp)
	}
	ref := x.refs(findings)
	for fp, want := range map[string]htmlRef{
		hexFP:                              {Href: "#f-" + hexFP, Text: "firewall-rules: " + resourceLabel(new(findings.At(2)))},
		otherFP:                            {Href: "#" + findingAnchor(new(findings.At(1))), Text: "filters: " + resourceLabel(new(findings.At(1)))},
		"00000000000000000000000000000000": {Text: "finding 00000000000000000000000000000000"},
		"gone":                             {Text: "finding gone"},
		"ffffffffffffffffffffffffffffffff": {Text: "finding ffffffffffffffffffffffffffffffff"},
	} {
		if got := ref(fp); got != want {
			t.Errorf("ref(%q) = %+v, want %+v", fp, got, want)
		}
	}
}
