package fix

import (
	"bytes"
	"fmt"
	"slices"
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// references rewrites or reports what still refers to a replaced resource: a depends_on
// entry now names the resource that replaced it; any other reference (an output, another
// resource's attribute) has no counterpart fix can choose, so it is reported with a comment
// above its block saying what to point it at.
//
// A reference left from an earlier run (the old resource gone from the files, the comment
// above the block) is found again, so --check keeps failing until it is resolved.
func (f *fixer) references() {
	for _, m := range f.repo.Modules {
		gone := map[string]*Resource{}
		for r := range f.replacedBy {
			if r.Module == m {
				gone[r.Address()] = r
			}
		}
		declared := map[string]bool{}
		for _, r := range m.Resources {
			declared[r.Address()] = true
		}
		for _, file := range m.Files {
			for _, b := range file.Body.Blocks {
				if len(gone) > 0 {
					f.blockReferences(file, b, gone)
				}
				f.undeclared(file, b, declared)
			}
		}
	}
}

// replacedTypes are the types whose resources fix replaces by others.
var replacedTypes = []string{typeFilter, typeFirewallRule, typeRateLimit, typeWAFPackage, typeWAFGroup, typeWAFRule, typeWAFOverride}

// undeclared lists b in Dangling when it refers to a resource of a type fix replaces that
// no block of its module declares (what an earlier run of fix left to resolve).
func (f *fixer) undeclared(file *File, b *hclsyntax.Block, declared map[string]bool) {
	if b.Type == "removed" || b.Type == "moved" || b.Type == "import" {
		return // they name addresses the configuration no longer (or not yet) declares
	}
	var missing []string
	_ = hclsyntax.VisitAll(b.Body, func(n hclsyntax.Node) hcl.Diagnostics {
		tr, ok := n.(*hclsyntax.ScopeTraversalExpr)
		if !ok || len(tr.Traversal) < 2 || !slices.Contains(replacedTypes, tr.Traversal.RootName()) {
			return nil
		}
		if addr := tr.Traversal.RootName() + "." + attrName(tr.Traversal[1]); !declared[addr] && !slices.Contains(missing, addr) {
			missing = append(missing, addr)
		}
		return nil
	})
	if len(missing) > 0 {
		f.res.Dangling = append(f.res.Dangling, Problem{Path: file.Path, Line: b.DefRange().Start.Line,
			Message: fmt.Sprintf("%s refers to %s, which no block declares: Terraform refuses the configuration until the reference is pointed elsewhere or removed", blockName(b), joinList(missing))})
	}
}

// blockReferences handles the references of one top-level block to gone resources.
func (f *fixer) blockReferences(file *File, b *hclsyntax.Block, gone map[string]*Resource) {
	if b.Type == "resource" && len(b.Labels) == 2 && gone[b.Labels[0]+"."+b.Labels[1]] != nil {
		return // the replaced block itself
	}
	var reported []string
	seen := map[string]bool{}
	dependsOn := map[hcl.Range]bool{}
	if a, ok := b.Body.Attributes["depends_on"]; ok {
		if t, ok := a.Expr.(*hclsyntax.TupleConsExpr); ok {
			for _, e := range t.Exprs {
				dependsOn[e.Range()] = true
			}
		}
	}
	_ = hclsyntax.VisitAll(b.Body, func(n hclsyntax.Node) hcl.Diagnostics {
		tr, ok := n.(*hclsyntax.ScopeTraversalExpr)
		if !ok || len(tr.Traversal) < 2 {
			return nil
		}
		addr := tr.Traversal.RootName() + "." + attrName(tr.Traversal[1])
		r := gone[addr]
		if r == nil {
			return nil
		}
		if dependsOn[tr.Range()] && len(tr.Traversal) == 2 {
			rng := tr.Range()
			f.edits[file] = append(f.edits[file], edit{start: rng.Start.Byte, end: rng.End.Byte, text: f.replacedBy[r]})
			return nil
		}
		if !seen[addr] {
			seen[addr] = true
			reported = append(reported, fmt.Sprintf("%s (replaced by %s)", addr, f.replacedBy[r]))
		}
		return nil
	})
	if len(reported) == 0 {
		return
	}
	sort.Strings(reported)
	what := blockName(b)
	msg := fmt.Sprintf("%s refers to %s, which fix replaced: point it at the new rule (its ref is the old resource's name) or remove it; Terraform fails on the reference until then", what, joinList(reported))
	f.res.Left = append(f.res.Left, Problem{Path: file.Path, Line: b.DefRange().Start.Line, Message: msg})
	f.res.Dangling = append(f.res.Dangling, Problem{Path: file.Path, Line: b.DefRange().Start.Line, Message: msg})
	f.commentAbove(file, b.Range().Start.Byte, "sunset fix: "+msg+".")
}

func blockName(b *hclsyntax.Block) string {
	switch len(b.Labels) {
	case 0:
		return b.Type
	case 1:
		return b.Type + " " + b.Labels[0]
	}
	return b.Labels[0] + "." + b.Labels[1]
}

func joinList(xs []string) string {
	out := ""
	for i, x := range xs {
		switch {
		case i == 0:
		case i == len(xs)-1:
			out += " and "
		default:
			out += ", "
		}
		out += x
	}
	return out
}

func lineStart(src []byte, at int) int {
	for at > 0 && src[at-1] != '\n' {
		at--
	}
	return at
}

// commentAbove puts text as comment lines above the line holding at, unless the lines above
// already say it (a run on a fixed repository adds nothing).
func (f *fixer) commentAbove(file *File, at int, text string) {
	start := lineStart(file.Src, at)
	c := commentLines(text, "")
	if saysAbove(file, start, c) {
		return
	}
	f.edits[file] = append(f.edits[file], edit{start: start, end: start, text: c})
}

// saysAbove reports whether the lines just above start are comment, so that a run on a
// fixed repository does not add it again.
func saysAbove(file *File, start int, comment string) bool {
	return bytes.HasSuffix(file.Src[:start], []byte(comment))
}
