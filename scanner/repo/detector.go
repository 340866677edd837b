package repo

import (
	"fmt"
	"path"
	"strings"
)

// Kind is how a file is read.
type Kind string

// File kinds. Every kind is also read as text (endpoint paths, the catalog's text patterns).
const (
	KindTerraform     Kind = "terraform"      // .tf, .tfvars, .hcl (Terragrunt): HCL native syntax
	KindTerraformJSON Kind = "terraform-json" // .tf.json, .tfvars.json
	KindJSON          Kind = "json"
	KindYAML          Kind = "yaml"
	KindGo            Kind = "go"
	KindPython        Kind = "python"
	KindJavaScript    Kind = "javascript" // and TypeScript
	KindPHP           Kind = "php"
	KindRuby          Kind = "ruby"
	KindShell         Kind = "shell"
	KindElixir        Kind = "elixir"
	KindText          Kind = "text"
)

// kindDef says which file names are of a kind: suffixes of the lowercased base name, or
// whole base names. The first matching definition wins, so longer suffixes come first.
type kindDef struct {
	kind     Kind
	suffixes []string
	names    []string
}

// kinds are the file kinds sunset reads, most specific first; anything else is text.
var kinds = []kindDef{
	{kind: KindTerraformJSON, suffixes: []string{".tf.json", ".tfvars.json"}},
	{kind: KindTerraform, suffixes: []string{".tf", ".tfvars", ".hcl"}},
	{kind: KindJSON, suffixes: []string{".json"}},
	{kind: KindYAML, suffixes: []string{".yaml", ".yml"}},
	{kind: KindGo, suffixes: []string{".go"}},
	{kind: KindPython, suffixes: []string{".py", ".pyi", ".pyw"}},
	{kind: KindJavaScript, suffixes: []string{".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"}},
	{kind: KindPHP, suffixes: []string{".php", ".phtml"}},
	{kind: KindRuby, suffixes: []string{".rb", ".rake", ".gemspec"}, names: []string{"rakefile", "gemfile"}},
	{kind: KindShell, suffixes: []string{".sh", ".bash", ".zsh", ".ksh"}, names: []string{".bashrc", ".profile", ".envrc"}},
	{kind: KindElixir, suffixes: []string{".ex", ".exs"}},
	{kind: KindText},
}

// KindOf returns the kind of a file from its name.
func KindOf(name string) Kind {
	base := strings.ToLower(path.Base(strings.ReplaceAll(name, "\\", "/")))
	for _, d := range kinds {
		for _, s := range d.suffixes {
			if strings.HasSuffix(base, s) {
				return d.kind
			}
		}
		for _, n := range d.names {
			if base == n {
				return d.kind
			}
		}
	}
	return KindText
}

// shebangs map the interpreter of a script's #! line to its kind, for files whose name says
// nothing (bin/deploy).
var shebangs = map[string]Kind{
	"sh": KindShell, "bash": KindShell, "zsh": KindShell, "ksh": KindShell, "dash": KindShell,
	"python": KindPython, "python3": KindPython, "python2": KindPython,
	"node": KindJavaScript, "deno": KindJavaScript, "bun": KindJavaScript, "ts-node": KindJavaScript,
	"ruby": KindRuby, "php": KindPHP, "elixir": KindElixir,
}

// kindOfContent refines KindText by a #! line: "#!/usr/bin/env python3" is Python.
func kindOfContent(kind Kind, data []byte) Kind {
	if kind != KindText || len(data) < 3 || data[0] != '#' || data[1] != '!' {
		return kind
	}
	line := string(data[2:min(len(data), 128)])
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	f := strings.Fields(line)
	if len(f) == 0 {
		return kind
	}
	interp := path.Base(f[0])
	if interp == "env" && len(f) > 1 {
		interp = f[1]
		if interp == "-S" && len(f) > 2 {
			interp = f[2]
		}
	}
	if k, ok := shebangs[interp]; ok {
		return k
	}
	return kind
}

// KindNames lists the kinds --stdin-type takes.
func KindNames() []string {
	out := make([]string, len(kinds))
	for i, d := range kinds {
		out[i] = string(d.kind)
	}
	return out
}

// ParseKind reads a --stdin-type value: one of KindNames.
func ParseKind(s string) (Kind, error) {
	k := Kind(strings.ToLower(strings.TrimSpace(s)))
	for _, d := range kinds {
		if d.kind == k {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown file type %q (want one of %s)", s, strings.Join(KindNames(), ", "))
}

// input is one file as the detectors see it.
type input struct {
	path  string // the path findings carry
	kind  Kind
	data  []byte
	lower []byte // data lowercased (ASCII), once lowered has made it
	li    *lineIndex
}

// lowered returns the file lowercased (ASCII), made on first use: the prefilters of most
// files fold case as they search (newFoldFinder, multiFinder), and a copy of every file
// read would cost as much as several of their searches. The buffer is lowerBuffers'.
func (in *input) lowered() []byte {
	if in.lower == nil {
		in.lower = toLower(lowerBuffers.get(), in.data)
	}
	return in.lower
}

// detector finds one family of deprecated usage in files. The detectors of a check are one
// list (Checker.detectors): a new kind of file is one registration there.
type detector interface {
	// reads reports whether the detector reads files of kind k.
	reads(k Kind) bool
	// check adds what it finds in the file and returns the blocks an inline suppression on
	// the line before covers (see span).
	check(c *Checker, in *input, add func(hit)) []span
}

// textDetector is the text matcher as a detector: every kind of file.
type textDetector struct{ m *textMatcher }

func (textDetector) reads(Kind) bool { return true }

func (d textDetector) check(_ *Checker, in *input, add func(hit)) []span {
	d.m.match(in.data, in.li, add)
	return nil
}

// tfDetector reads Terraform, HCL or JSON syntax.
type tfDetector struct{ r *tfRules }

func (tfDetector) reads(k Kind) bool { return k == KindTerraform || k == KindTerraformJSON }

func (d tfDetector) check(c *Checker, in *input, add func(hit)) []span {
	return d.r.check(c, in.path, in.kind, in.data, in.lowered(), in.li, add)
}

// shapeDetector reads JSON and YAML documents for API objects by their shape.
type shapeDetector struct{ r *shapeRules }

func (shapeDetector) reads(k Kind) bool { return k == KindJSON || k == KindYAML }

func (d shapeDetector) check(c *Checker, in *input, add func(hit)) []span {
	return d.r.check(c, in.kind, in.data, in.lowered(), in.li, add)
}

// listDetector reads a text file that is a list of Rules language expressions (see
// listFile) for their deprecated fields.
type listDetector struct{ r *exprRules }

func (listDetector) reads(k Kind) bool { return k == KindText }

func (d listDetector) check(_ *Checker, in *input, add func(hit)) []span {
	if listFile(in.path, in.data) {
		d.r.checkList(in.li, in.data, add)
	}
	return nil
}
