package fix

// leave lists r as not rewritten, with what to decide, and says so in a comment above it
// (once: see commentAbove).
func (f *fixer) leave(r *Resource, msg string) {
	f.res.Left = append(f.res.Left, Problem{Path: r.File.Path, Line: r.Line(), Message: msg})
	f.commentAbove(r.File, r.Block.Range().Start.Byte, "sunset fix: "+msg+". Decide, then run sunset fix again.")
}

// leftComment is the comment that says what fix left and why, to go at lineStart (indented
// by indent, for a nested block); missing is false when the file already holds it there, so
// a second run changes nothing.
func leftComment(file *File, lineStart int, indent, msg string) (text string, missing bool) {
	text = commentLines("sunset fix: "+msg+". Decide, then run sunset fix again.", indent)
	return text, !saysAbove(file, lineStart, text)
}
