package repo

import (
	"bytes"
	"path"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/expr"
)

// Expression lists: a text file that holds Rules language expressions as they are, one a
// line or several lines each with blank lines between (rule exports, lists kept for review,
// inputs of scripts). Every line of such a file is an expression position, so its deprecated
// fields are reported once per line and rule, at the line that holds them. A file is taken
// for a list by its name (listFile): a .txt, .expr, .list, .rules or .filter file, or one
// whose extension sunset does not know as something else (code, markup, data, other tools'
// configuration) or that has none; a script (#! on its first line) is not a list.

// listExts are the extensions of files that hold expression lists.
var listExts = map[string]bool{
	".txt": true, ".text": true, ".expr": true, ".exprs": true, ".expression": true, ".expressions": true,
	".list": true, ".lst": true, ".rule": true, ".rules": true, ".filter": true, ".filters": true, ".wirefilter": true,
}

// otherExts are extensions of files that are something else: source code, markup and
// documentation, data and configuration formats, build files. Their lines are not
// expressions; what they hold is read by their own checks.
var otherExts = func() map[string]bool {
	m := map[string]bool{}
	for _, e := range strings.Fields(`
		go py pyi pyw js mjs cjs jsx ts mts cts tsx php phtml rb rake gemspec ex exs erl hrl java kt kts scala groovy
		gradle cs fs vb swift m mm c h cc cpp cxx hpp hh rs zig nim lua pl pm t r jl dart elm clj cljs hs ml
		sh bash zsh fish ksh csh ps1 psm1 psd1 bat cmd awk sed vim
		md markdown mdx rst adoc asciidoc org tex html htm xhtml xml xsl svg css scss sass less vue svelte astro
		erb ejs hbs mustache jinja j2 tmpl tpl gotmpl liquid twig
		json jsonc json5 ndjson jsonl yaml yml toml ini cfg conf properties env tf tfvars hcl nomad pkr
		csv tsv sql graphql gql proto thrift avsc lock mod sum patch diff log txtar
		dockerfile containerfile mk make cmake bzl bazel nix gitignore gitattributes editorconfig dockerignore
		npmignore prettierrc eslintrc babelrc nvmrc npmrc yarnrc
		`) {
		m["."+e] = true
	}
	return m
}()

// otherNames are files without an extension that are something else.
var otherNames = map[string]bool{
	"makefile": true, "gnumakefile": true, "dockerfile": true, "containerfile": true, "jenkinsfile": true,
	"vagrantfile": true, "gemfile": true, "rakefile": true, "podfile": true, "brewfile": true, "procfile": true,
	"justfile": true, "license": true, "licence": true, "copying": true, "notice": true, "readme": true,
	"changelog": true, "changes": true, "authors": true, "contributors": true, "codeowners": true, "owners": true,
}

// listFile reports whether a file of this name holding data is an expression list.
func listFile(name string, data []byte) bool {
	if bytes.HasPrefix(data, []byte("#!")) {
		return false
	}
	base := strings.ToLower(path.Base(strings.ReplaceAll(name, "\\", "/")))
	ext := path.Ext(base)
	switch {
	case listExts[ext]:
		return true
	case otherExts[ext]:
		return false
	case ext == "" || ext == base:
		return !otherNames[base]
	}
	return !otherNames[strings.TrimSuffix(base, ext)] // README.old, LICENSE.apache
}

// checkList reports the deprecated fields of an expression list: each run of lines between
// blank lines is read as one expression (expr.ScanFields also finds the fields of one
// expression a line), and each field is placed at its line.
func (r *exprRules) checkList(li *lineIndex, data []byte, add func(hit)) {
	if !anyIn(data, r.finders) {
		return
	}
	for start := 0; start < len(data); {
		end := blockEnd(data, start)
		if block := data[start:end]; anyIn(block, r.finders) {
			line, _ := li.pos(start)
			src := string(block)
			x := exprSite{
				address: "expression list", kind: string(vocab.KindExpression),
				lines: &lineMap{src: src, marks: []lineMark{{off: 0, line: line, counts: true}}}, file: li,
			}
			r.fieldHits(x, expr.ScanFields(src), add)
		}
		start = end
	}
}

// blockEnd returns the end of the run of lines starting at start: just after the first blank
// line (only spaces) that follows a line that is not blank, or the end of data.
func blockEnd(data []byte, start int) int {
	seen := false
	for i := start; i < len(data); {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			return len(data)
		}
		blank := len(bytes.TrimSpace(data[i:i+j])) == 0
		if blank && seen {
			return i + j + 1
		}
		seen = seen || !blank
		i += j + 1
	}
	return len(data)
}
