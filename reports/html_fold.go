package reports

import (
	"regexp"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// htmlFold is items that read alike but for the names and ids in them ("Review the
// expression of "…" (…)"), shown once as the first of them and how many more there are
// ("Review the expression of "Block bots" (…) and 7 more"); the items themselves are folded
// behind it. A fold of one item shows that item.
type htmlFold struct {
	// Text is what the items have in common: their text with quoted names and long ids
	// replaced by "…".
	Text string
	// First is the first item's text, whole: what the fold's line shows.
	First string
	// Tag and Note are the items' own when they all share them ("" otherwise).
	Tag, Note string
	Items     []htmlRef
	// Count is how many items the fold stands for when it is not len(Items) (0 then): a
	// fold of steps may list the zones they are in.
	Count int
}

// Len is how many items the fold stands for.
func (f htmlFold) Len() int {
	if f.Count > 0 {
		return f.Count
	}
	return len(f.Items)
}

// Lead is what the fold's line says: its first item, else what its items have in common.
func (f htmlFold) Lead() string { return orElse(f.First, f.Text) }

// More is how many items the fold stands for besides its first.
func (f htmlFold) More() int { return f.Len() - 1 }

// foldItem is an item to fold: a link, with what tags it and a note on it. A prefix (the
// zone it belongs to) is shown before the item's text but does not count in its pattern.
type foldItem struct {
	ref               htmlRef
	tag, note, prefix string
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
	var out []htmlFold
	var members [][]foldItem
	for _, it := range items {
		pattern := textPattern(it.ref.Text)
		k := it.tag + "\x00" + pattern
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, htmlFold{Text: pattern, Tag: it.tag, Note: it.note})
			members = append(members, nil)
		}
		if out[i].Note != it.note {
			out[i].Note = ""
		}
		if len(members[i]) == 0 {
			out[i].First = it.ref.Text
		}
		members[i] = append(members[i], it)
	}
	for i := range out {
		out[i].Items = foldRefs(members[i])
		if len(out[i].Items) == 1 {
			out[i].Text = out[i].Items[0].Text
		}
	}
	return out
}

// foldRefs are the links of a fold's items. The words all of them begin and end with are
// the fold's (its summary says them), so each item shows only what sets it apart: "Pause
// firewall rule "a" (1)" and "Pause firewall rule "b" (2)" become ""a" (1)" and ""b" (2)".
func foldRefs(items []foldItem) []htmlRef {
	texts := make([]string, len(items))
	for i, it := range items {
		texts[i] = it.ref.Text
	}
	if len(items) > 1 {
		texts = trimCommonWords(texts)
	}
	out := make([]htmlRef, len(items))
	for i, it := range items {
		out[i] = htmlRef{Href: it.ref.Href, Text: texts[i]}
		if it.prefix != "" {
			out[i].Text = it.prefix + ": " + texts[i]
		}
	}
	return out
}

// trimCommonWords drops the words every text begins with and those every text ends with,
// never into a quoted name ("rate limit 6" and "rate limit 7" keep their quotes and words:
// `"rate limit 6" (…)`, not `6" (…)`); the texts are returned whole when that would leave
// one of them empty.
func trimCommonWords(texts []string) []string {
	words := make([][]string, len(texts))
	for i, t := range texts {
		words[i] = strings.Split(t, " ")
	}
	shortest := slices.MinFunc(words, func(a, b []string) int { return len(a) - len(b) })
	head := 0
	for head < len(shortest) && all(words, func(w []string) bool { return w[head] == shortest[head] }) {
		head++
	}
	for head > 0 && quotes(shortest[:head])%2 == 1 {
		head-- // back to the word that opens the quote
	}
	tail := 0
	for head+tail < len(shortest) && all(words, func(w []string) bool { return w[len(w)-1-tail] == shortest[len(shortest)-1-tail] }) {
		tail++
	}
	for tail > 0 && quotes(shortest[len(shortest)-tail:])%2 == 1 {
		tail--
	}
	if head+tail >= len(shortest) {
		return texts
	}
	out := make([]string, len(texts))
	for i, w := range words {
		out[i] = strings.Join(w[head:len(w)-tail], " ")
	}
	return out
}

// quotes counts the double quotes in words.
func quotes(words []string) int {
	n := 0
	for _, w := range words {
		n += strings.Count(w, `"`)
	}
	return n
}

func all[T any](xs []T, ok func(T) bool) bool {
	for _, x := range xs {
		if !ok(x) {
			return false
		}
	}
	return true
}

// foldTexts folds plain texts (a plan's warnings) that read alike.
func foldTexts(texts []string) []htmlFold {
	items := make([]foldItem, len(texts))
	for i, t := range texts {
		items[i] = foldItem{ref: htmlRef{Text: textsafe.Sanitize(t)}}
	}
	return foldAlike(items)
}

// Single is the fold's only item, nil when it folds several.
func (f htmlFold) Single() *htmlRef {
	if len(f.Items) == 1 && f.Count <= 1 {
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
		if f := new(g.findings.At(int(i))); !f.Suppressed && f.Severity == g.Worst {
			seen[string(f.RuleID)] = true
		}
	}
	return len(seen)
}
