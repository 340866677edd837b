package repo

import (
	"bytes"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
)

// suppressMarker starts an inline suppression inside a comment.
const suppressMarker = "sunset:ignore"

// suppressFinder finds suppressMarker.
var suppressFinder = newFinder([]byte(suppressMarker))

// commentMarkers open a comment in the languages a repository holds: shell, Python, YAML,
// HCL (#), Go, JS, HCL (//, /* */), HTML and Markdown (<!-- -->), SQL and Lua (--), INI (;).
var commentMarkers = []string{"<!--", "/*", "//", "#", "--", ";"}

// suppression is one sunset:ignore comment.
type suppression struct {
	line     int      // the comment's line
	target   int      // the line it applies to
	trailing bool     // the comment follows code on its own line
	rules    []string // rule ids, or "all"
	until    catalog.Date
	badUntil string // an until= value that is not a date
	reason   string
	col      int
	endCol   int
}

// findSuppressions finds every sunset:ignore comment. Syntax, in any comment style:
//
//	# sunset:ignore RULE_ID[,RULE_ID...] [until=YYYY-MM-DD] reason text
//
// A comment after code on the same line applies to that line; a comment on a line of its own
// applies to the next line that is neither blank nor a comment (so suppressions can stack),
// and, when a block or object starts on that line, to everything inside it. A comment's text
// ends at the end of its line, a closing --> or */, or the next sunset:ignore.
//
// The work is linear in the file: each line is looked at a bounded number of times however
// many comments stack over one code line or share one long line.
func findSuppressions(data []byte, li *lineIndex) []suppression {
	if !suppressFinder.in(data) { // every file is searched: by its rarest byte, ten times as fast
		return nil
	}
	var out []suppression
	var next nextCode
	endLine, endCol := 0, 0 // the end column of the last line asked about
	for off := 0; ; {
		i := bytes.Index(data[off:], []byte(suppressMarker))
		if i < 0 {
			break
		}
		at := off + i
		off = at + len(suppressMarker)
		line, col := li.pos(at)
		ls, le := li.lineBounds(line)
		before := bytes.TrimRight(data[ls:at], " \t")
		marker := commentMarkerAtEnd(before)
		if marker == "" {
			continue // prose that mentions the marker, not a comment
		}
		code := bytes.TrimSpace(before[:len(before)-len(marker)])
		restEnd := le
		if j := bytes.Index(data[off:le], []byte(suppressMarker)); j >= 0 {
			restEnd = off + j
		}
		s := parseSuppression(commentText(data[off:restEnd]))
		s.line = line
		s.col = col - utf8.RuneCount(data[ls+len(before)-len(marker):at])
		if line != endLine {
			endLine, endCol = line, col+utf8.RuneCount(data[at:le])
		}
		s.endCol = endCol
		s.trailing = len(code) > 0 && !isCommentOnly(code)
		s.target = line
		if !s.trailing {
			s.target = next.after(data, li, line)
		}
		out = append(out, s)
	}
	return out
}

// commentMarkerAtEnd returns the comment opener text ends with, "" when none.
func commentMarkerAtEnd(text []byte) string {
	for _, m := range commentMarkers {
		if bytes.HasSuffix(text, []byte(m)) {
			return m
		}
	}
	return ""
}

// commentText is a comment's text up to a closing --> or */.
func commentText(rest []byte) string {
	for _, closer := range []string{"-->", "*/"} {
		if j := bytes.Index(rest, []byte(closer)); j >= 0 {
			rest = rest[:j]
		}
	}
	return string(rest)
}

// parseSuppression reads "RULES [until=DATE] reason".
func parseSuppression(rest string) suppression {
	var s suppression
	f := strings.Fields(rest)
	if len(f) == 0 {
		return s
	}
	for _, r := range strings.Split(f[0], ",") {
		if r = strings.TrimSpace(r); r != "" {
			s.rules = append(s.rules, r)
		}
	}
	f = f[1:]
	if len(f) > 0 && strings.HasPrefix(f[0], "until=") {
		v := strings.TrimPrefix(f[0], "until=")
		if d, err := catalog.ParseDate(v); err == nil {
			s.until = d
		} else {
			s.badUntil = v
		}
		f = f[1:]
	}
	s.reason = strings.TrimSpace(strings.TrimLeft(strings.Join(f, " "), "-:– "))
	return s
}

// isCommentOnly reports whether text before a marker is itself only a comment opener (as in
// "# # sunset:ignore" or "<!-- #").
func isCommentOnly(code []byte) bool {
	for _, m := range commentMarkers {
		if bytes.HasPrefix(code, []byte(m)) {
			return true
		}
	}
	return string(code) == "*"
}

// nextCode finds the next code line after a comment line, remembering its last answer: a
// stack of comments over one code line is scanned once, not once per comment.
type nextCode struct {
	from, target int // every line in (from, target) is blank or a comment; 0: no answer yet
	none         int // when not 0: no code line follows this line
}

// after returns the first line after line that is not blank and not a comment line; the
// line itself when there is none.
func (n *nextCode) after(data []byte, li *lineIndex, line int) int {
	switch {
	case n.none != 0 && line >= n.none:
		return line
	case n.target != 0 && line > n.from && line < n.target:
		return n.target
	}
	for l := line + 1; l <= li.lines(); l++ {
		s, e := li.lineBounds(l)
		t := bytes.TrimSpace(data[s:e])
		if len(t) == 0 || isCommentOnly(t) || t[0] == '*' {
			continue
		}
		n.from, n.target = line, l
		return l
	}
	n.none = line
	return line
}

// checkSuppressions returns the suppressions that apply, with the SuppressedBy text of each,
// and the hits about the comments themselves (rule RuleSuppression):
//   - a suppression without a reason still suppresses, and is reported (notice);
//   - an expired one (until= before the as-of date) no longer suppresses, and is reported;
//   - one that names no rule, an unknown rule, or an invalid until= date is reported and,
//     for the rules it does name correctly, still applies (an invalid date never expires it
//     silently: it suppresses nothing).
func (c *Checker) checkSuppressions(sups []suppression) (apply []suppression, by []string, notes []hit) {
	day := catalog.DateOf(c.asOf)
	for _, s := range sups {
		loc := scanner.Location{StartLine: s.line, StartColumn: max(s.col, 1), EndLine: s.line, EndColumn: max(s.endCol, 1)}
		note := func(aspect, msg string) {
			notes = append(notes, hit{
				rule: RuleSuppression, sev: scanner.SeverityNotice, kind: "suppression",
				id: strings.Join(s.rules, ","), address: "suppression " + strings.Join(s.rules, ",") + " " + aspect + " " + s.reason,
				msg: msg, loc: loc,
			})
		}
		var bad []string
		for _, r := range s.rules {
			if r != "all" && !c.KnownRule(r) {
				bad = append(bad, r)
			}
		}
		switch {
		case len(s.rules) == 0:
			note("empty", "sunset:ignore names no rule id: write `sunset:ignore RULE_ID reason`")
			continue
		case len(bad) > 0:
			note("unknown", "sunset:ignore names unknown rule id "+strings.Join(bad, ", ")+" (see `sunset rules`)")
		}
		if s.badUntil != "" {
			note("bad-until", "sunset:ignore until="+s.badUntil+" is not a date (YYYY-MM-DD); the suppression is ignored")
			continue
		}
		if !s.until.IsZero() && day.After(s.until.Time) {
			note("expired", "sunset:ignore "+strings.Join(s.rules, ",")+" expired on "+s.until.String()+"; the findings it covered are reported again")
			continue
		}
		if s.reason == "" {
			note("no-reason", "sunset:ignore "+strings.Join(s.rules, ",")+" gives no reason: add one after the rule id")
		}
		b := "inline"
		if s.reason != "" {
			b = "inline: " + s.reason
		}
		if !s.until.IsZero() {
			b += " (until " + s.until.String() + ")"
		}
		apply, by = append(apply, s), append(by, b)
	}
	return apply, by, notes
}

// coverage tells which suppression covers a finding, for findings taken in line order: a
// sweep over the suppressions grouped by the line they target, so the cost is the findings
// times the suppressed blocks open at a line (their nesting), not findings times comments.
type coverage struct {
	groups []*supGroup // by target line
	by     []string    // SuppressedBy text of each applying suppression
	next   int         // the first group not yet reached
	active []*supGroup // reached groups whose reach is not yet behind
}

// supGroup is a run of suppressions with one target and one placement (trailing or not).
type supGroup struct {
	target, reach int            // lines covered: target..reach
	rules         map[string]int // rule id or "all" -> the first suppression naming it (its index)
}

// newCoverage groups the applying suppressions; a comment on its own line reaches to the end
// of the longest block (span) starting on its target line. nil when there is none.
func newCoverage(apply []suppression, by []string, spans []span) *coverage {
	if len(apply) == 0 {
		return nil
	}
	reach := map[int]int{}
	for _, s := range apply {
		if !s.trailing {
			reach[s.target] = s.target
		}
	}
	for _, sp := range spans {
		if r, ok := reach[sp.start]; ok && sp.end > r {
			reach[sp.start] = sp.end
		}
	}
	cv := &coverage{by: by}
	var g *supGroup
	prevTrailing := false
	for i, s := range apply {
		if g == nil || g.target != s.target || prevTrailing != s.trailing {
			g = &supGroup{target: s.target, reach: s.target, rules: map[string]int{}}
			if !s.trailing {
				g.reach = reach[s.target]
			}
			cv.groups = append(cv.groups, g)
		}
		prevTrailing = s.trailing
		for _, r := range s.rules {
			if _, ok := g.rules[r]; !ok {
				g.rules[r] = i
			}
		}
	}
	// Targets almost always follow the file; a line that one test reads as a comment and the
	// other as code ("*x # sunset:ignore") can break that, so the sweep sorts them.
	sort.SliceStable(cv.groups, func(i, j int) bool { return cv.groups[i].target < cv.groups[j].target })
	return cv
}

// suppressedBy returns the SuppressedBy text of the first suppression (in document order)
// that covers a finding of rule on line, "" when none does. line must not decrease from one
// call to the next.
func (cv *coverage) suppressedBy(rule vocab.RuleID, line int) string {
	if cv == nil {
		return ""
	}
	for cv.next < len(cv.groups) && cv.groups[cv.next].target <= line {
		cv.active = append(cv.active, cv.groups[cv.next])
		cv.next++
	}
	keep := cv.active[:0]
	for _, g := range cv.active {
		if g.reach >= line { // a group behind line is never needed again
			keep = append(keep, g)
		}
	}
	cv.active = keep
	best := -1
	for _, g := range cv.active {
		i, ok := g.rules[string(rule)]
		if j, all := g.rules["all"]; all && (!ok || j < i) {
			i, ok = j, true
		}
		if ok && (best < 0 || i < best) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	return cv.by[best]
}
