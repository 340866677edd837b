package fix

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/sunsetscan/sunset/scanner/safefile"
)

// maxFile bounds the size of a .tf or .tfvars file fix reads: larger ones are reported and
// left alone (no hand-written configuration is this large).
const maxFile = 16 << 20

// Repo is the Terraform of the paths fix was given: one Module per directory holding .tf
// files, in path order.
type Repo struct {
	Root    string // the directory paths are relative to
	Modules []*Module
	byDir   map[string]*Module
	// Problems are files fix could not read or parse: reported, left as they are.
	Problems []Problem
}

// Problem is a file or a block fix leaves as it is, and why.
type Problem struct {
	Path    string `json:"path"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// String is the problem as PATH:LINE: MESSAGE (PATH: MESSAGE without a line).
func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Message)
	}
	return p.Path + ": " + p.Message
}

// Module is one directory of .tf files.
type Module struct {
	Dir       string // slash-separated, relative to Repo.Root ("." for the root)
	Files     []*File
	Resources []*Resource
	Calls     []*ModuleCall // module blocks with a local source
	Vars      map[string]*hclsyntax.Block
	Locals    map[string]hclsyntax.Expression
	Outputs   map[string]hclsyntax.Expression
	// Tfvars are the attributes of terraform.tfvars and *.auto.tfvars (root modules only).
	Tfvars map[string]hclsyntax.Expression
	// CalledBy are the module calls that use this directory.
	CalledBy []*ModuleCall
	taken    map[string]bool // resource addresses declared or given out by fix
	ev       *evaluator      // see evaluatorOf
}

// File is one .tf file: its bytes and parsed body.
type File struct {
	Path string // slash-separated, relative to Repo.Root
	Abs  string
	// Src is the text fix reads and edits: the file's bytes without a UTF-8 byte order mark,
	// and with LF line ends where every line of the file ends with CRLF (see encoding).
	Src  []byte
	Body *hclsyntax.Body
	enc  encoding
}

// Resource is one resource block.
type Resource struct {
	Module *Module
	File   *File
	Type   string
	Name   string
	Block  *hclsyntax.Block
}

// Address is the resource's address inside its module (TYPE.NAME).
func (r *Resource) Address() string { return r.Type + "." + r.Name }

// Line is the resource's first line.
func (r *Resource) Line() int { return r.Block.DefRange().Start.Line }

// Attr returns the resource's top-level attribute name, nil when it is not set.
func (r *Resource) Attr(name string) hclsyntax.Expression {
	if a, ok := r.Block.Body.Attributes[name]; ok {
		return a.Expr
	}
	return nil
}

// Repeated reports whether the resource has count or for_each.
func (r *Resource) Repeated() bool { return r.Attr("count") != nil || r.Attr("for_each") != nil }

// ModuleCall is a module block whose source is a local directory.
type ModuleCall struct {
	Caller *Module
	File   *File
	Name   string
	Block  *hclsyntax.Block
	Target *Module
}

// Load reads the Terraform under paths (directories are walked; hidden directories and
// .terraform are skipped). Files it cannot read or parse are Problems; the rest is loaded.
func Load(root string, paths []string) (*Repo, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	r := &Repo{Root: root, byDir: map[string]*Module{}}
	var files []string
	for _, p := range paths {
		found, err := tfFiles(p)
		if err != nil {
			return nil, err
		}
		files = append(files, found...)
	}
	sort.Strings(files)
	seen := map[string]bool{}
	for _, abs := range files {
		if seen[abs] {
			continue
		}
		seen[abs] = true
		r.loadFile(abs)
	}
	sort.Slice(r.Modules, func(i, j int) bool { return r.Modules[i].Dir < r.Modules[j].Dir })
	r.linkCalls()
	return r, nil
}

// tfFiles lists the .tf and .tfvars files at or under path.
func tfFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		abs, err := filepath.Abs(path)
		return []string{abs}, err
	}
	var out []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != path && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && (strings.HasSuffix(p, ".tf") || strings.HasSuffix(p, ".tfvars")) {
			abs, err := filepath.Abs(p)
			if err != nil {
				return err
			}
			out = append(out, abs)
		}
		return nil
	})
	return out, err
}

// loadFile parses one file into its module.
func (r *Repo) loadFile(abs string) {
	rel := r.rel(abs)
	raw, err := safefile.ReadFileNoFollow(abs, maxFile)
	if err != nil {
		var refused *safefile.RefusedError
		if errors.As(err, &refused) {
			err = errors.New(refused.Reason)
		}
		r.Problems = append(r.Problems, Problem{Path: rel, Message: "not read: " + err.Error()})
		return
	}
	src, enc := decode(raw)
	f, diags := hclsyntax.ParseConfig(src, rel, hcl.InitialPos)
	if diags.HasErrors() {
		d := diags[0]
		line := 0
		if d.Subject != nil {
			line = d.Subject.Start.Line
		}
		r.Problems = append(r.Problems, Problem{Path: rel, Line: line, Message: "does not parse, left as it is: " + d.Summary + ": " + d.Detail})
		return
	}
	m := r.module(filepath.ToSlash(filepath.Dir(rel)))
	body := f.Body.(*hclsyntax.Body)
	if strings.HasSuffix(abs, ".tfvars") {
		if name := filepath.Base(abs); name == "terraform.tfvars" || strings.HasSuffix(name, ".auto.tfvars") {
			for n, a := range body.Attributes {
				m.Tfvars[n] = a.Expr
			}
		}
		return
	}
	file := &File{Path: rel, Abs: abs, Src: src, Body: body, enc: enc}
	m.Files = append(m.Files, file)
	m.index(file)
}

func (r *Repo) rel(abs string) string {
	rel, err := filepath.Rel(r.Root, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

func (r *Repo) module(dir string) *Module {
	if m := r.byDir[dir]; m != nil {
		return m
	}
	m := &Module{Dir: dir, Vars: map[string]*hclsyntax.Block{}, Locals: map[string]hclsyntax.Expression{},
		Outputs: map[string]hclsyntax.Expression{}, Tfvars: map[string]hclsyntax.Expression{}}
	r.byDir[dir] = m
	r.Modules = append(r.Modules, m)
	return m
}

// index records the file's resources, variables, locals, outputs and module calls.
func (m *Module) index(f *File) {
	for _, b := range f.Body.Blocks {
		switch {
		case b.Type == "resource" && len(b.Labels) == 2:
			m.Resources = append(m.Resources, &Resource{Module: m, File: f, Type: b.Labels[0], Name: b.Labels[1], Block: b})
		case b.Type == "variable" && len(b.Labels) == 1:
			m.Vars[b.Labels[0]] = b
		case b.Type == "locals":
			for n, a := range b.Body.Attributes {
				m.Locals[n] = a.Expr
			}
		case b.Type == "output" && len(b.Labels) == 1:
			if a, ok := b.Body.Attributes["value"]; ok {
				m.Outputs[b.Labels[0]] = a.Expr
			}
		case b.Type == "module" && len(b.Labels) == 1:
			m.Calls = append(m.Calls, &ModuleCall{Caller: m, File: f, Name: b.Labels[0], Block: b})
		}
	}
}

// linkCalls points each module call with a local source at its module.
func (r *Repo) linkCalls() {
	for _, m := range r.Modules {
		for _, c := range m.Calls {
			a, ok := c.Block.Body.Attributes["source"]
			if !ok {
				continue
			}
			v, diags := a.Expr.Value(nil)
			if diags.HasErrors() || !v.Type().Equals(ctyString) {
				continue
			}
			src := v.AsString()
			if !strings.HasPrefix(src, "./") && !strings.HasPrefix(src, "../") {
				continue
			}
			dir := filepath.ToSlash(filepath.Clean(filepath.Join(filepath.FromSlash(m.Dir), filepath.FromSlash(src))))
			// A module calling its own directory is a cycle Terraform refuses: not followed.
			if t := r.byDir[dir]; t != nil && t != m {
				c.Target = t
				t.CalledBy = append(t.CalledBy, c)
			}
		}
	}
}

// Root reports whether no module call in the repository uses m: its state is its own.
func (m *Module) Root() bool { return len(m.CalledBy) == 0 }
