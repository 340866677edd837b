package lexkit

import (
	"bytes"
	"fmt"

	"github.com/sunsetscan/sunset/scanner/repo/code"
)

// Check reports the first thing in f that a reader must never produce for src: a position
// outside the file, an End before its Pos, a value that is only holes, a value's call index
// out of range, hole names out of step with the holes. Fuzz tests call it.
func Check(src []byte, f *code.File) error {
	if f == nil {
		return fmt.Errorf("nil file")
	}
	lines := bytes.Count(src, []byte{'\n'}) + 1
	in := func(p code.Pos) bool { return p.Line >= 1 && p.Col >= 1 && p.Line <= lines }
	before := func(a, b code.Pos) bool { return a.Line < b.Line || a.Line == b.Line && a.Col <= b.Col }
	for i, s := range f.Strings {
		switch {
		case !in(s.Pos) || !in(s.End) || !before(s.Pos, s.End):
			return fmt.Errorf("string %d %q at %v-%v", i, s.Value, s.Pos, s.End)
		case !s.Literal():
			return fmt.Errorf("string %d %q is only holes", i, s.Value)
		case s.Call >= len(f.Calls) || s.Call < -1 || s.Call == -1 && s.Arg != -1:
			return fmt.Errorf("string %d %q call %d arg %d", i, s.Value, s.Call, s.Arg)
		case bytes.Count([]byte(s.Value), []byte{code.Hole}) != len(s.HoleNames):
			return fmt.Errorf("string %d %q has hole names %q", i, s.Value, s.HoleNames)
		}
	}
	for i, c := range f.Calls {
		if !in(c.Pos) || !in(c.End) || !before(c.Pos, c.End) || len(c.Callee) == 0 {
			return fmt.Errorf("call %d %v at %v-%v", i, c.Callee, c.Pos, c.End)
		}
		for _, k := range c.Keys {
			if !in(k.Pos) || k.Depth < 0 {
				return fmt.Errorf("call %d %v key %v", i, c.Callee, k)
			}
		}
	}
	return nil
}
