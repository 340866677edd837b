package reports

import (
	"regexp"

	"github.com/sunsetscan/sunset/scanner"
)

// htmlFold is items that read alike but for the names and ids in them ("Review the
// expression of "…" (…)"), shown once with their count; the items themselves are folded
// behind it. A fold of one item shows that item.
type htmlFold struct {
	// Text is what the items have in common: their text with quoted names and long ids
	// replaced by "…".
	Text string
	// Tag and Note are the items' own when they all share them ("" otherwise).
	Tag, Note string
	Items     []htmlRef
}

// foldItem is an item to fold: a link, with what tags it and a note on it.
type foldItem struct {
	ref       htmlRef
	tag, note string
}

var (
	quotedText = regexp.MustCompile(`"[^"]*"`)
	longID     = regexp.MustCompile(`\b[0-9a-f]{16,}\b`)
)

// textPattern is text with its quoted names and long hexadecimal ids replaced by "…": what
// steps of one kind on different objects have in common.
func textPattern(s string) string {
	return longID.ReplaceAllString(quotedText.ReplaceAllString(s, `"…"`), "…")
}

// foldAlike folds items whose tag and text pattern are the same, in the order they first
// appear; a note is kept when every item of the fold has the same.
func foldAlike(items []foldItem) []htmlFold {
	index := map[string]int{}
	mixed := map[int]bool{}
	var out []htmlFold
	for _, it := range items {
		pattern := textPattern(it.ref.Text)
		k := it.tag + "\x00" + pattern
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, htmlFold{Text: pattern, Tag: it.tag, Note: it.note})
		}
		if out[i].Note != it.note {
			mixed[i] = true
		}
		out[i].Items = append(out[i].Items, it.ref)
	}
	for i := range out {
		if len(out[i].Items) == 1 {
			out[i].Text = out[i].Items[0].Text
		}
		if mixed[i] {
			out[i].Note = ""
		}
	}
	return out
}

// Single is the fold's only item, nil when it folds several.
func (f htmlFold) Single() *htmlRef {
	if len(f.Items) == 1 {
		return &f.Items[0]
	}
	return nil
}

// worstCount is how many of the group's findings that are not suppressed are at its worst
// severity.
func (g *htmlGroup) worstCount() int {
	switch g.Worst {
	case scanner.SeverityError:
		return g.Counts.Error
	case scanner.SeverityWarning:
		return g.Counts.Warning
	}
	return g.Counts.Notice
}

// worstRules is how many rules the group's findings at its worst severity come from.
func (g *htmlGroup) worstRules() int {
	seen := map[string]bool{}
	for _, i := range g.idx {
		if f := &g.findings[i]; !f.Suppressed && f.Severity == g.Worst {
			seen[string(f.RuleID)] = true
		}
	}
	return len(seen)
}
