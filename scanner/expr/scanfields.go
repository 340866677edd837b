package expr

import "strings"

// ScanFields returns the fields src uses, in source order, where src may be less than one
// whole expression: a template (its placeholders are neutralised as ParseTemplated does), an
// expression cut by a syntax error, or several expressions one after another (a file listing
// one per line). When src parses, these are its tree's fields (Fields). When it does not,
// the parser skips from an error to the next logical operator and the fields in between are
// not in its tree, so every dotted name the lexer reads outside string literals is added:
// field names are dotted (ip.src, http.host), while words of the language (and, eq, in) and
// function names are not.
func ScanFields(src string) []Ref {
	e, err := ParseTemplated(src)
	refs := Fields(e)
	if err == nil {
		return refs
	}
	seen := make(map[Pos]bool, len(refs))
	for _, r := range refs {
		seen[r.Pos] = true
	}
	for _, r := range dottedNames(maskPlaceholders(src)) {
		if !seen[r.Pos] {
			refs = append(refs, r)
		}
	}
	return sortRefs(refs)
}

// dottedNames lexes src from start to end and returns its dotted identifiers. A string after
// matches or ~ is read as a regular expression literal, as the parser reads it.
func dottedNames(src string) []Ref {
	var out []Ref
	lx := lexer{src: src}
	mode := 0
	for {
		t := lx.scan(mode)
		if t.kind == tEOF {
			return out
		}
		mode = 0
		switch {
		case t.kind == tIdent && t.text == "matches", t.kind == tTilde:
			mode = modeRegex
		case t.kind == tIdent && strings.IndexByte(t.text, '.') > 0:
			out = append(out, Ref{Name: t.text, Pos: t.pos})
		}
		if t.end <= t.pos && lx.off <= int(t.pos) {
			lx.off = int(t.pos) + 1 // never loop on a token that consumed nothing
		}
	}
}
