package fix

import (
	"bytes"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/migrate/terraform"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// Options steer a fix.
type Options struct {
	// Root is the directory the paths of the result are relative to.
	Root string
	// Paths are the files and directories to read (Root when empty).
	Paths []string
	// Target is the provider version the rewritten configuration is for.
	Target terraform.Provider
	// ZonePlans maps a zone (its name, its id, or its zone_id expression as written, such as
	// var.zone_id) to its plan: free, pro, business or enterprise.
	ZonePlans map[string]string
	// Snapshot, when set, says which zones exist with which plan and entry points.
	Snapshot *inventory.Snapshot
}

// Result is what a fix changes and what it leaves.
type Result struct {
	// Files are the files whose content changes (or is created), in path order.
	Files []FileChange `json:"files"`
	// Rewrites are what was replaced, by what, and whether the meaning was proven kept.
	Rewrites []Rewrite `json:"rewrites"`
	// Left are the deprecated usages fix did not rewrite, each with what to decide.
	Left []Problem `json:"left"`
	// Problems are files fix could not read or parse (left as they are).
	Problems []Problem `json:"problems"`
	// Dangling are the blocks that refer to a resource fix replaces (or replaced on an earlier
	// run) and no block declares any more: Terraform refuses the configuration until each is
	// pointed elsewhere or removed, so `fix --check` fails while there are any.
	Dangling []Problem `json:"dangling"`
	// StateSteps say how the old resources leave the state without being destroyed.
	StateSteps []string `json:"state_steps"`
	// units says what Write writes together (units.go).
	units units
}

// FileChange is one file's content before and after (Old is nil for a new file).
type FileChange struct {
	Path string `json:"path"`
	Abs  string `json:"-"`
	Old  []byte `json:"-"`
	New  []byte `json:"-"`
}

// Rewrite is one group of old resources replaced by a new one.
type Rewrite struct {
	Module  string   `json:"module"`
	File    string   `json:"file"`
	Line    int      `json:"line"`
	Old     []string `json:"old"`
	New     string   `json:"new"`
	Zone    string   `json:"zone"`
	Plan    string   `json:"plan,omitempty"`
	Proven  string   `json:"proven"`
	Notes   []string `json:"notes,omitempty"`
	IsProof bool     `json:"verified"`
}

// Run reads the repository, rewrites what it can and returns the changes; it writes
// nothing (see Write).
func Run(opts Options) (*Result, error) {
	if opts.Target == "" {
		opts.Target = terraform.ProviderV5
	}
	paths := opts.Paths
	if len(paths) == 0 {
		paths = []string{opts.Root}
	}
	repo, err := Load(opts.Root, paths)
	if err != nil {
		return nil, err
	}
	f := &fixer{repo: repo, opts: opts, edits: map[*File][]edit{}, res: &Result{Problems: repo.Problems}, replacedBy: map[*Resource]string{}, added: map[string][]byte{}, imports: map[string][]string{}}
	f.shared = sharedZones(repo)
	for _, m := range repo.Modules {
		f.module(m)
	}
	f.reportOrphans()
	f.references()
	f.stateSteps()
	f.writeImports()
	f.targetReferences()
	f.keepComments()
	f.finish()
	return f.res, nil
}

// fixer carries a run: the edits of each file and the result being built.
type fixer struct {
	repo    *Repo
	opts    Options
	edits   map[*File][]edit
	res     *Result
	removed []*Resource // old resources that leave the configuration
	// replacedBy is the address of the resource that replaced an old one.
	replacedBy map[*Resource]string
	added      map[string][]byte
	renamed    map[string]bool
	imports    map[string][]string // root module dir -> import blocks
	orphans    []*Resource         // filters no rule of their module uses // string literals already given their fields' new names
	waf        wafState            // the waf switches carried over (wafswitch.go)
	shared     map[string][]string // zones whose entry point more than one module claims (sharedzone.go)
}

// edit replaces the bytes [start, end) of a file with text.
type edit struct {
	start, end int
	text       string
}

// module rewrites one module's deprecated resources.
func (f *fixer) module(m *Module) {
	ev := evaluatorOf(m)
	groups, orphans, left := firewallGroups(m)
	for _, l := range left {
		f.leave(l.rule, l.why)
	}
	f.orphans = append(f.orphans, orphans...)
	f.renameRulesetFields(m)
	for _, g := range groups {
		sortPairs(g.pairs)
		f.firewallGroup(ev, g)
	}
	f.rateLimits(ev, m)
	f.settingsOverrides(ev, m)
	f.previousWAF(ev, m)
	f.notificationEmails(ev, m)
	f.srvRecords(ev, m)
	f.argoTunnels(m)
	f.accessBookmarks(m)
}

// finish applies the edits and fills Files in path order.
func (f *fixer) finish() {
	for file, es := range f.edits {
		es = outermost(es)
		out := append([]byte(nil), file.Src...)
		for _, e := range es {
			out = append(out[:e.start:e.start], append([]byte(e.text), out[e.end:]...)...)
		}
		// A block removed at the end leaves the blank line that separated it: the file ends
		// as it did.
		ends := len(file.Src) - len(bytes.TrimRight(file.Src, "\n"))
		out = append(bytes.TrimRight(out, "\n"), bytes.Repeat([]byte("\n"), ends)...)
		f.res.Files = append(f.res.Files, FileChange{Path: file.Path, Abs: file.Abs, Old: file.raw(), New: file.enc.encode(out)})
	}
	for path, data := range f.added {
		f.res.Files = append(f.res.Files, FileChange{Path: path, Abs: absOf(f.repo.Root, path), New: data})
	}
	sort.Slice(f.res.Files, func(i, j int) bool { return f.res.Files[i].Path < f.res.Files[j].Path })
	sort.SliceStable(f.res.Left, func(i, j int) bool { return lessProblem(f.res.Left[i], f.res.Left[j]) })
}

// outermost drops the edits inside another edit's range (a literal renamed in a block that
// goes whole) and orders the rest from the end of the file, an insertion before the
// replacement that starts where it is.
func outermost(es []edit) []edit {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].start != es[j].start {
			return es[i].start < es[j].start
		}
		return es[i].end > es[j].end
	})
	var out []edit
	for _, e := range es {
		nested := false
		for _, k := range out {
			inside := k.start <= e.start && e.end <= k.end
			if e.start == e.end {
				inside = k.start < e.start && e.start < k.end // an insertion at either end stays
			}
			if k.end > k.start && inside {
				nested = true
				break
			}
		}
		if !nested {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].start != out[j].start {
			return out[i].start > out[j].start
		}
		return out[i].end > out[j].end
	})
	return out
}

func lessProblem(a, b Problem) bool {
	if a.Path != b.Path {
		return a.Path < b.Path
	}
	return a.Line < b.Line
}

// blockSpan is the bytes of a block with its indentation and line end, so that removing it
// leaves no blank line behind (one following blank line goes too).
func blockSpan(file *File, r *Resource) (int, int) {
	rng := r.Block.Range()
	start, end := rng.Start.Byte, rng.End.Byte
	for start > 0 && (file.Src[start-1] == ' ' || file.Src[start-1] == '\t') {
		start--
	}
	if end < len(file.Src) && file.Src[end] == '\n' {
		end++
	}
	if end < len(file.Src) && file.Src[end] == '\n' && start > 0 {
		end++
	}
	return start, end
}

func joinAddrs(rs []*Resource, home *Module) string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, displayAddr(r, home))
	}
	return strings.Join(out, ", ")
}
