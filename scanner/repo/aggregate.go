package repo

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// MaxFindingsPerRule is how many findings of one rule one file reports one by one (counting
// suppressed and unsuppressed findings apart). Past it, the rest become a single finding of
// the same rule that says how many more there are and on which lines the first of them are:
// a generated or hostile file with a finding on every line (233,000 in 5 MB) would otherwise
// hold gigabytes of findings through every report, and nobody reads the 101st.
const MaxFindingsPerRule = 100

// aggregateLines is how many line numbers an aggregate finding lists.
const aggregateLines = 5

// aggregates counts findings per rule and collects those past MaxFindingsPerRule.
type aggregates struct {
	counts map[aggKey]int
	rest   map[aggKey]*aggregate
}

// aggKey is a rule and the SuppressedBy of its findings ("" for unsuppressed ones): the
// findings of a rule a suppression covers aggregate apart from those it does not, so the
// gate still sees every unsuppressed one.
type aggKey struct {
	rule vocab.RuleID
	by   string
}

// aggregate is the findings of one rule past the limit.
type aggregate struct {
	first hit              // the first of them: its location is the aggregate's
	sev   scanner.Severity // the highest of their severities
	n     int
	lines []int // the first aggregateLines lines
}

func newAggregates() *aggregates {
	return &aggregates{counts: map[aggKey]int{}, rest: map[aggKey]*aggregate{}}
}

// over counts a finding of h's rule and reports whether it is past the limit, when it is
// added to the rule's aggregate instead of being reported.
func (a *aggregates) over(h hit, sev scanner.Severity, by string) bool {
	k := aggKey{h.rule, by}
	a.counts[k]++
	if a.counts[k] <= MaxFindingsPerRule {
		return false
	}
	g := a.rest[k]
	if g == nil {
		g = &aggregate{first: h, sev: sev}
		a.rest[k] = g
	}
	g.n++
	g.sev = max(g.sev, sev)
	if len(g.lines) < aggregateLines && (len(g.lines) == 0 || g.lines[len(g.lines)-1] != h.loc.StartLine) {
		g.lines = append(g.lines, h.loc.StartLine)
	}
	return true
}

// findings returns one finding per aggregate, at its first finding's location, with a
// line-independent fingerprint (rule, path and "more").
func (a *aggregates) findings(c *Checker, displayPath string) []scanner.Finding {
	keys := make([]aggKey, 0, len(a.rest))
	for k := range a.rest {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].rule != keys[j].rule {
			return keys[i].rule < keys[j].rule
		}
		return keys[i].by < keys[j].by
	})
	out := make([]scanner.Finding, 0, len(keys))
	for _, k := range keys {
		g := a.rest[k]
		lines := make([]string, len(g.lines))
		for i, l := range g.lines {
			lines[i] = strconv.Itoa(l)
		}
		if g.n > len(g.lines) {
			lines = append(lines, "…")
		}
		h := g.first
		h.id, h.name = "", ""
		h.msg = fmt.Sprintf("%d more findings of this rule in this file past the first %d, at lines %s: %s",
			g.n, MaxFindingsPerRule, strings.Join(lines, ", "), strings.TrimSpace(h.msg))
		addr := "more"
		if k.by != "" {
			addr = "more suppressed"
		}
		out = append(out, c.build(displayPath, h, g.sev, addr, k.by))
	}
	return out
}
