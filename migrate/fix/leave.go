package fix

import "strings"

// leave lists r as not rewritten, with what to decide, and says so in a comment above it,
// once: a file that already holds the same comment there gets nothing more, so a second run
// changes nothing.
func (f *fixer) leave(r *Resource, msg string) {
	f.res.Left = append(f.res.Left, Problem{Path: r.File.Path, Line: r.Line(), Message: msg})
	text := commentLines("sunset fix: "+msg+". Decide, then run sunset fix again.", "")
	start, _ := blockSpan(r.File, r)
	if strings.HasSuffix(string(r.File.Src[:start]), text) {
		return
	}
	f.edits[r.File] = append(f.edits[r.File], edit{start: start, end: start, text: text})
}
