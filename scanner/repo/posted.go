package repo

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/sunsetscan/sunset/scanner"
)

// postedRules joins what the files of one check say about each other. A rule object with an
// expression and an action a firewall rule takes ({"expression": ..., "action": "block"})
// could be a firewall rule or a rule of the ruleset that replaces them: which one depends on
// where it is sent. When a script of the same repository writes to the filters or firewall
// rules API (POST /zones/:zone_id/firewall/rules), the repository's rule files are what it
// sends, and their rule objects are firewall rules. The repository of a script is the
// nearest directory above it holding .git, or, in a tree without one, the script's own
// directory (its rule files sit beside or below it).
type postedRules struct {
	mu      sync.Mutex
	roots   []string // the repositories whose scripts post rules
	pending []pendingFile
}

// pendingFile is a file whose findings wait for every script to be read.
type pendingFile struct {
	dir string // its directory, absolute
	fr  FileResult
}

// hold keeps back the findings of a file that holds rule objects (FileResult.IfPosted) and
// notes a script that posts rules; it returns true when the file's findings are held.
// path is the file's path to open. Safe for concurrent use.
func (p *postedRules) hold(path string, fr FileResult) bool {
	if fr.IfPosted == nil && !fr.PostsRules {
		return false
	}
	dir := absDir(path)
	root := ""
	if fr.PostsRules {
		root = scriptRepo(dir)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if fr.PostsRules {
		p.roots = append(p.roots, root)
	}
	if fr.IfPosted == nil {
		return false
	}
	p.pending = append(p.pending, pendingFile{dir: dir, fr: fr})
	return true
}

// findings returns, once every file is checked, the findings held back: those of a file in a repository whose script
// posts rules include its rule objects.
func (p *postedRules) findings() []scanner.Finding {
	var out []scanner.Finding
	for _, f := range p.pending {
		if p.posted(f.dir) {
			out = append(out, f.fr.IfPosted...)
		} else {
			out = append(out, f.fr.Findings...)
		}
	}
	return out
}

func (p *postedRules) posted(dir string) bool {
	for _, r := range p.roots {
		if dir == r || strings.HasPrefix(dir, r+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// absDir is the absolute directory of a file's path ("" when it cannot be had).
func absDir(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	return filepath.Dir(abs)
}

// scriptRepo is the repository of a script in directory dir: the nearest directory holding
// .git, or dir itself.
func scriptRepo(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// writeMethod is the method an SDK call named like a write makes (CreateFirewallRules,
// client.filters.create, createFirewallRule): POST, or "" for any other name.
func writeMethod(name string) string {
	first := ""
	eachWord(name, func(w string) bool { first = w; return true })
	if equalFoldAny(first, []string{"create", "add", "new", "post", "update", "put", "patch", "edit"}) {
		return "POST"
	}
	return ""
}
