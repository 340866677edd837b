package repo

import (
	"bytes"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
)

// suppressMarker starts an inline suppression inside a comment.
const suppressMarker = "sunset:ignore"

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
// and, when a block or object starts on that line, to everything inside it.
func findSuppressions(data []byte, li *lineIndex) []suppression {
	if !bytes.Contains(data, []byte(suppressMarker)) {
		return nil
	}
	var out []suppression
	for off := 0; ; {
		i := bytes.Index(data[off:], []byte(suppressMarker))
		if i < 0 {
			break
		}
		at := off + i
		off = at + len(suppressMarker)
		line, col := li.pos(at)
		ls, le := li.lineBounds(line)
		before := strings.TrimRight(string(data[ls:at]), " \t")
		marker := ""
		for _, m := range commentMarkers {
			if strings.HasSuffix(before, m) {
				marker = m
				break
			}
		}
		if marker == "" {
			continue // prose that mentions the marker, not a comment
		}
		code := strings.TrimSpace(strings.TrimSuffix(before, marker))
		rest := string(data[off:le])
		for _, closer := range []string{"-->", "*/"} {
			if j := strings.Index(rest, closer); j >= 0 {
				rest = rest[:j]
			}
		}
		s := parseSuppression(rest)
		s.line = line
		s.col = col - len([]rune(string(data[ls:at]))) + len([]rune(strings.TrimSuffix(before, marker)))
		_, s.endCol = li.pos(le)
		s.trailing = code != "" && !isCommentOnly(code)
		s.target = line
		if !s.trailing {
			s.target = nextCodeLine(data, li, line)
		}
		out = append(out, s)
	}
	return out
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
func isCommentOnly(code string) bool {
	for _, m := range commentMarkers {
		if strings.HasPrefix(code, m) {
			return true
		}
	}
	return code == "*"
}

// nextCodeLine returns the first line after line that is not blank and not a comment line;
// the line itself when there is none.
func nextCodeLine(data []byte, li *lineIndex, line int) int {
	for n := line + 1; n <= li.lines(); n++ {
		s, e := li.lineBounds(n)
		t := strings.TrimSpace(string(data[s:e]))
		if t == "" || isCommentOnly(t) || strings.HasPrefix(t, "*") {
			continue
		}
		return n
	}
	return line
}

// covers reports whether s applies to a finding starting on line.
func (s suppression) covers(line int, spans []span) bool {
	if line == s.target {
		return true
	}
	if s.trailing {
		return false
	}
	for _, sp := range spans {
		if sp.start == s.target && line >= sp.start && line <= sp.end {
			return true
		}
	}
	return false
}

func (s suppression) names(rule vocab.RuleID) bool {
	for _, r := range s.rules {
		if vocab.RuleID(r) == rule || r == "all" {
			return true
		}
	}
	return false
}

// applySuppressions marks the findings the comments cover and returns the findings about the
// comments themselves (rule RuleSuppression):
//   - a suppression without a reason still suppresses, and is reported (notice);
//   - an expired one (until= before the as-of date) no longer suppresses, and is reported;
//   - one that names no rule, an unknown rule, or an invalid until= date is reported and,
//     for the rules it does name correctly, still applies (an invalid date never expires it
//     silently: it suppresses nothing).
func (c *Checker) applySuppressions(displayPath string, findings []scanner.Finding, sups []suppression, spans []span) []scanner.Finding {
	if len(sups) == 0 {
		return nil
	}
	var hits []hit
	day := catalog.DateOf(c.asOf)
	for _, s := range sups {
		loc := scanner.Location{StartLine: s.line, StartColumn: max(s.col, 1), EndLine: s.line, EndColumn: max(s.endCol, 1)}
		note := func(aspect, msg string) {
			hits = append(hits, hit{
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
		by := "inline"
		if s.reason != "" {
			by = "inline: " + s.reason
		}
		if !s.until.IsZero() {
			by += " (until " + s.until.String() + ")"
		}
		for i := range findings {
			f := &findings[i]
			if f.Suppressed || f.Location == nil || !s.names(f.RuleID) || !s.covers(f.Location.StartLine, spans) {
				continue
			}
			f.Suppressed, f.SuppressedBy = true, by
		}
	}
	return c.findings(displayPath, hits)
}
