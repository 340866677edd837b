package reports

import (
	"bufio"
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// groupStake is what a table group has to do: its findings per severity, and the nearest end
// of life of those at its worst severity (an error's date, not a notice's).
type groupStake struct {
	g      tableGroup
	counts SeverityCounts
	worst  scanner.Severity
	eol    string
}

// stakeOf counts a group's findings.
func stakeOf(g tableGroup) groupStake {
	s := groupStake{g: g}
	eols := map[scanner.Severity]string{}
	for _, i := range g.idx {
		f := g.findings.At(i)
		s.counts.add(f.Severity)
		s.worst = max(s.worst, f.Severity)
		if e := f.EndOfLife; e != "" && (eols[f.Severity] == "" || e < eols[f.Severity]) {
			eols[f.Severity] = e
		}
	}
	s.eol = textsafe.Sanitize(eols[s.worst])
	return s
}

// writeTopGroups writes the TableTopGroups groups with the most to do: the most errors first,
// then warnings, then notices, then by name; each on a line with its counts and the nearest
// end of life of its worst findings.
func writeTopGroups(bw *bufio.Writer, st tableStyles, groups []tableGroup, width int) {
	stakes := make([]groupStake, len(groups))
	for i, g := range groups {
		stakes[i] = stakeOf(g)
	}
	slices.SortStableFunc(stakes, func(a, b groupStake) int {
		return cmp.Or(cmp.Compare(b.counts.Error, a.counts.Error), cmp.Compare(b.counts.Warning, a.counts.Warning),
			cmp.Compare(b.counts.Notice, a.counts.Notice)) // then the table's order: by name
	})
	top := stakes[:min(TableTopGroups, len(stakes))]
	heading := fmt.Sprintf("The %d %s with the most to do (of %d):", len(top), groupsNoun(groups), len(groups))
	writeLines(bw, st.heading, hang(heading, width, "", "  "))
	for _, s := range top {
		var counts []string
		for _, sev := range ruleSeverities {
			if n := s.counts.of(sev); n > 0 {
				counts = append(counts, st.severityStyle(sev).Render(Plural(n, sev.String(), sev.String()+"s")))
			}
		}
		line := s.g.name + ": " + strings.Join(counts, ", ")
		switch {
		case s.eol == "":
		case s.worst == scanner.SeverityError:
			line += "; past end of life since " + s.eol
		case s.worst == scanner.SeverityWarning:
			line += "; end of life " + s.eol
		}
		writeText(bw, hang(line, width, "  ", "    "))
	}
}

// groupsNoun names the kinds of groups a table holds, the most first: "zones and accounts".
func groupsNoun(groups []tableGroup) string {
	names := [...]string{tableAccountGroup: "account", tableZoneGroup: "zone", tableFileGroup: "file", tableOtherGroup: "other"}
	kinds, n := countByKind(groups, func(g tableGroup) string { return names[g.kind] })
	return sayKinds(kinds, n, sayPlural)
}

// withReplacements is advice for a table that lists no finding: a rule whose findings share
// no text (each says how to fix its own object) says what its catalog entry replaces it with.
func withReplacements(advice map[string]*ruleAdvice, catalog []RuleInfo) map[string]*ruleAdvice {
	out := make(map[string]*ruleAdvice, len(advice))
	for id, a := range advice {
		out[id] = a
	}
	for _, info := range catalog {
		id := textsafe.Sanitize(info.ID)
		a := out[id]
		if rep := textsafe.Sanitize(info.Replacement); a != nil && a.text == "" && rep != "" {
			b := *a
			b.text = "Use instead: " + rep
			out[id] = &b
		}
	}
	return out
}
