package repo

import (
	"strings"
	"testing"
)

func TestHasSeverityWordHoldsForEveryFindingLine(t *testing.T) {
	for _, line := range []string{
		"main.tf:3:1: error firewall-rules cloudflare_firewall_rule.x: deprecated",
		"a: b.sh:2:5: warning sunset-expression: not checkable",
		"x: notice srv-data-fields data.service: the API no longer takes it",
		"package main", "// Copyright: error handling", "key: errors here", "",
	} {
		if findingLine.MatchString(line) && !hasSeverityWord([]byte(line)) {
			t.Errorf("%q is a finding line, but hasSeverityWord says no", line)
		}
		if got, want := hasSeverityWord([]byte(line)), strings.Contains(line, ": error ") || strings.Contains(line, ": warning ") || strings.Contains(line, ": notice "); got != want {
			t.Errorf("hasSeverityWord(%q) = %v, want %v", line, got, want)
		}
	}
}
