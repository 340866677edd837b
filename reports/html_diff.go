package reports

import (
	"strings"
	"unicode"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/textsafe"
)

// htmlDiff is one old -> new pair of a plan step, for the page: both sides marked, and the
// difference in words.
type htmlDiff struct {
	Title, Step, StepHref string
	Old, New              []diffSpan
	Changes               []string
}

// diffSpan is a run of text of one side of a diff; Changed marks text the other side lacks.
type diffSpan struct {
	Text    string
	Changed bool
}

// planDiff shows one expression change of plan step hs, old and new marked token by token.
func planDiff(d migrate.Diff, hs htmlStep) htmlDiff {
	hd := htmlDiff{Title: textsafe.Sanitize(d.Label), Step: hs.ID, StepHref: "#" + hs.Anchor, Changes: sanitizeAll(d.Changes)}
	hd.Old, hd.New = diffTokens(textsafe.Block(d.Old), textsafe.Block(d.New))
	return hd
}

// diffMaxCells bounds the token diff's table (old tokens x new tokens); past it both sides
// are shown whole, marked changed, rather than spend quadratic time on a huge expression.
const diffMaxCells = 400_000

// diffTokens marks what differs between two texts, token by token (names, numbers and
// dotted fields are one token; so is a run of spaces; any other character is one), by the
// longest common subsequence.
func diffTokens(before, after string) (o, n []diffSpan) {
	a, b := tokenize(before), tokenize(after)
	if len(a)*len(b) > diffMaxCells {
		return spansOf(before, true), spansOf(after, true)
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int32, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			o, n = appendSpan(o, a[i], false), appendSpan(n, b[j], false)
			i, j = i+1, j+1
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			n = appendSpan(n, b[j], true)
			j++
		default:
			o = appendSpan(o, a[i], true)
			i++
		}
	}
	return o, n
}

func spansOf(s string, changed bool) []diffSpan {
	if s == "" {
		return nil
	}
	return []diffSpan{{Text: s, Changed: changed}}
}

// appendSpan adds a token, merging it into the last span when both are alike. Spaces
// between two changed tokens join the change, so a replaced phrase reads as one.
func appendSpan(spans []diffSpan, tok string, changed bool) []diffSpan {
	if k := len(spans) - 1; k >= 0 {
		last := &spans[k]
		if last.Changed == changed {
			last.Text += tok
			return spans
		}
		if changed && k >= 1 && spans[k-1].Changed && strings.TrimSpace(last.Text) == "" {
			spans[k-1].Text += last.Text + tok
			return spans[:k]
		}
	}
	return append(spans, diffSpan{Text: tok, Changed: changed})
}

// tokenize splits text into words (letters, digits, '_', '.', '$'), runs of white space,
// and single other characters.
func tokenize(s string) []string {
	var out []string
	isWord := func(r rune) bool {
		return r == '_' || r == '.' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	start := 0
	kind := func(r rune) int {
		switch {
		case isWord(r):
			return 1
		case unicode.IsSpace(r):
			return 2
		}
		return 3
	}
	prev := 0
	for i, r := range s {
		k := kind(r)
		if i > start && (k != prev || k == 3) {
			out = append(out, s[start:i])
			start = i
		}
		prev = k
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
