package repo

import (
	"bufio"
	"bytes"
	"path"
	"strings"
)

// pattern is one gitignore-style pattern (gitignore(5)): also the syntax of --include and
// --exclude.
type pattern struct {
	base     string   // directory of the .gitignore, relative to the walk root ("" at the root)
	segs     []string // pattern split on "/"; "**" segments match any number of directories
	anchored bool     // had a "/" before its end: matched against the path from base
	negate   bool     // "!pattern" re-includes
	dirOnly  bool     // "pattern/" matches directories only
}

// parsePattern reads one line of a .gitignore (or a glob). ok is false for blank lines and
// comments.
func parsePattern(line, base string) (pattern, bool) {
	line = strings.TrimSuffix(line, "\r")
	// Trailing spaces are ignored unless escaped with a backslash.
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\\ ") {
		line = line[:len(line)-1]
	}
	if line == "" || strings.HasPrefix(line, "#") {
		return pattern{}, false
	}
	p := pattern{base: base}
	switch {
	case strings.HasPrefix(line, "!"):
		p.negate = true
		line = line[1:]
	case strings.HasPrefix(line, `\!`), strings.HasPrefix(line, `\#`):
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return pattern{}, false
	}
	if strings.Contains(line, "/") {
		p.anchored = true
		line = strings.TrimPrefix(line, "/")
	}
	// "[!a]" is gitignore's negated class; path.Match spells it "[^a]".
	line = strings.ReplaceAll(line, "[!", "[^")
	p.segs = strings.Split(line, "/")
	return p, true
}

// match reports whether the path rel (slash separated, relative to the walk root) matches.
func (p pattern) match(rel string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	if p.base != "" {
		if !strings.HasPrefix(rel, p.base+"/") {
			return false
		}
		rel = rel[len(p.base)+1:]
	}
	if !p.anchored {
		ok, _ := path.Match(p.segs[0], path.Base(rel))
		return ok
	}
	return matchSegs(p.segs, strings.Split(rel, "/"))
}

// matchSegs matches pattern segments against path segments; "**" matches zero or more.
func matchSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			if len(rest) == 0 {
				return len(segs) > 0 // "dir/**" matches everything inside dir, not dir itself
			}
			for i := 0; i <= len(segs); i++ {
				if matchSegs(rest, segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// ignoreSet is the patterns in force in one directory: those of every .gitignore from the
// root down, in order, so that the last match wins as in git.
type ignoreSet []pattern

// with returns the set extended by the patterns of a .gitignore's contents (a new slice: sets
// are shared by sibling directories).
func (s ignoreSet) with(data []byte, base string) ignoreSet {
	var add []pattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		if p, ok := parsePattern(sc.Text(), base); ok {
			add = append(add, p)
		}
	}
	if len(add) == 0 {
		return s
	}
	out := make(ignoreSet, 0, len(s)+len(add))
	return append(append(out, s...), add...)
}

// ignored reports whether rel is ignored. A directory that is ignored is not descended into,
// so, as in git, a file below it cannot be re-included.
func (s ignoreSet) ignored(rel string, isDir bool) bool {
	ign := false
	for _, p := range s {
		if p.match(rel, isDir) {
			ign = !p.negate
		}
	}
	return ign
}

// globSet is a list of --include or --exclude globs (gitignore syntax, relative to each root).
type globSet []pattern

func newGlobSet(globs []string) globSet {
	var out globSet
	for _, g := range globs {
		if p, ok := parsePattern(g, ""); ok {
			out = append(out, p)
		}
	}
	return out
}

func (g globSet) match(rel string, isDir bool) bool {
	for _, p := range g {
		if !p.negate && p.match(rel, isDir) {
			return true
		}
	}
	return false
}
