package fix

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/sunsetscan/sunset/migrate/internal/tfschema"
	"github.com/sunsetscan/sunset/migrate/terraform"
)

// Renamed types: the legacy tunnel and the Access bookmark.
const (
	typeArgoTunnel     = "cloudflare_argo_tunnel"
	typeAccessBookmark = "cloudflare_access_bookmark"
)

// argoTunnels renames the module's cloudflare_argo_tunnel (a provider v3 type) to
// cloudflare_tunnel (v4) or cloudflare_zero_trust_tunnel_cloudflared (v5, secret becoming
// tunnel_secret), as `sunset plan` maps legacy tunnels: the same tunnel, through the tunnel
// API. No provider since v4 reads the old type's state, so a moved block cannot carry it:
// the state steps say how to forget it on v3 and import the same tunnel after the upgrade.
func (f *fixer) argoTunnels(m *Module) {
	newType, rs := f.renameTargets(m, typeArgoTunnel, "cloudflare_tunnel", "cloudflare_zero_trust_tunnel_cloudflared")
	for _, r := range rs {
		lr := r.Block.LabelRanges[0]
		edits := []edit{{start: lr.Start.Byte, end: lr.End.Byte, text: fmt.Sprintf("%q", newType)}}
		if a, ok := r.Block.Body.Attributes["secret"]; ok && f.opts.Target == terraform.ProviderV5 {
			edits = append(edits, edit{start: a.NameRange.Start.Byte, end: a.NameRange.End.Byte, text: "tunnel_secret"})
		}
		f.rewriteBlock(r.File, r.Block.Range(), edits)
		done := f.renameRefs(m, r, newType)
		rw := Rewrite{Module: m.Dir, File: r.File.Path, Line: r.Line(), Old: []string{r.Address()}, New: newType + "." + r.Name,
			Proven: "nothing to prove: the same tunnel, managed through the tunnel API",
			Notes:  []string{"the legacy tunnels API is deprecated; the tunnel API manages the same tunnels (no data moves)"}}
		if done.cnames > 0 {
			rw.Notes = append(rw.Notes, fmt.Sprintf("%s has no cname: the references to the old tunnel's read its id and \".cfargotunnel.com\", what cname always was", newType))
		}
		f.reportMissing(rw.New, newType, done.missing)
		f.res.Rewrites = append(f.res.Rewrites, rw)
		f.step(m, fmt.Sprintf("%s (module %s) is provider v3's type, which no later provider reads or moves: while still on v3, terraform state rm '%s' (with its module path; nothing is destroyed); after the upgrade, import the same tunnel: terraform import '%s' <account_id>/<tunnel_id> (or an import block).", r.Address(), m.Dir, r.Address(), rw.New))
	}
}

// accessBookmarks turns the module's cloudflare_access_bookmark (a provider v3 type: neither
// v4.52.8 nor v5 has it) into an Access application of type bookmark
// (cloudflare_access_application on v4, cloudflare_zero_trust_access_application on v5), as
// `sunset plan` does: a new application. No later provider reads the old type's state, so no
// removed block can forget it: the state steps say how, and that the old bookmark is to be
// deleted in the account once the application shows.
func (f *fixer) accessBookmarks(m *Module) {
	newType, rs := f.renameTargets(m, typeAccessBookmark, "cloudflare_access_application", "cloudflare_zero_trust_access_application")
	for _, r := range rs {
		block := bookmarkApp(r, newType)
		what := fmt.Sprintf("sunset fix: the Access application of type bookmark replacing %s (the bookmarks API is deprecated: see sunset help fix).", r.Address())
		f.drop([]*Resource{r}, commentLines(what, "")+block, "")
		f.reportMissing(newType+"."+r.Name, newType, f.renameRefs(m, r, newType).missing)
		f.res.Rewrites = append(f.res.Rewrites, Rewrite{Module: m.Dir, File: r.File.Path, Line: r.Line(), Old: []string{r.Address()}, New: newType + "." + r.Name,
			Proven: "nothing to prove: the same name and domain, as an application of type bookmark",
			Notes:  []string{"a new Access application is created; the old bookmark stays in the account: delete it there once the application shows in the App Launcher (sunset plan and apply do it)"}})
		f.step(m, fmt.Sprintf("%s (module %s) is provider v3's type, which no later provider reads: while still on v3, terraform state rm '%s' (with its module path; nothing is destroyed); the apply on the new provider creates %s.%s.", r.Address(), m.Dir, r.Address(), newType, r.Name))
	}
}

// bookmarkApp is the bookmark's block as an application of type bookmark: its own text with
// the type renamed and type = "bookmark" first, formatted when the block was.
func bookmarkApp(r *Resource, newType string) string {
	rng := r.Block.Range()
	src := r.File.Src
	lr := r.Block.LabelRanges[0]
	open := r.Block.OpenBraceRange.End.Byte
	text := string(src[rng.Start.Byte:lr.Start.Byte]) + fmt.Sprintf("%q", newType) + string(src[lr.End.Byte:open]) +
		"\n  type = \"bookmark\"" + string(src[open:rng.End.Byte]) + "\n"
	before := string(src[rng.Start.Byte:rng.End.Byte]) + "\n"
	if string(hclwrite.Format([]byte(before))) == before {
		text = string(hclwrite.Format([]byte(text)))
	}
	return text
}

// renamedRefs is what renameRefs did: how many references to a tunnel's cname it wrote out, and
// the references left that read what the new type does not have.
type renamedRefs struct {
	cnames  int
	missing []missingAttr
}

// missingAttr is a reference to an attribute the new type does not have, and the block
// holding it.
type missingAttr struct {
	attr  string
	file  *File
	block *hclsyntax.Block
}

// renameRefs points the module's references to r at newType.NAME. A tunnel's cname, which
// v5's tunnel has not, is what it always was, the tunnel's id and ".cfargotunnel.com":
// written so (see tunnelCNAME); a reference to another attribute newType does not have is
// returned.
func (f *fixer) renameRefs(m *Module, r *Resource, newType string) renamedRefs {
	var out renamedRefs
	s := targetSchemas()[f.opts.Target]
	_, noCNAME := s.CheckPath(tfschema.Reference{Type: newType, Name: r.Name, Path: []string{"cname"}})
	for _, file := range m.Files {
		wraps := templateParts(file.Body)
		for _, b := range file.Body.Blocks {
			_ = hclsyntax.VisitAll(b.Body, func(n hclsyntax.Node) hcl.Diagnostics {
				x, ok := n.(*hclsyntax.ScopeTraversalExpr)
				if !ok || len(x.Traversal) < 2 || x.Traversal.RootName() != r.Type || attrName(x.Traversal[1]) != r.Name {
					return nil
				}
				if e, ok := tunnelCNAME(file, x, wraps[x], r.Type, newType); ok && noCNAME != nil {
					f.edits[file] = append(f.edits[file], e)
					out.cnames++
					return nil
				}
				rng := x.Traversal[0].SourceRange()
				f.edits[file] = append(f.edits[file], edit{start: rng.Start.Byte, end: rng.End.Byte, text: newType})
				ref, ok := tfschema.ParseReference(append(hcl.Traversal{hcl.TraverseRoot{Name: newType}}, x.Traversal[1:]...))
				if _, err := s.CheckPath(ref); ok && err != nil {
					out.missing = append(out.missing, missingAttr{attr: ref.Path[0], file: file, block: b})
				}
				return nil
			})
		}
	}
	return out
}

// reportMissing leaves each reference to an attribute the new type does not have, with a
// comment above the block holding it.
func (f *fixer) reportMissing(newAddr, newType string, missing []missingAttr) {
	for _, x := range missing {
		msg := fmt.Sprintf("%s reads %s.%s, and %s has no %s: point it at what the new resource offers", blockName(x.block), newAddr, x.attr, newType, x.attr)
		if newType == "cloudflare_zero_trust_tunnel_cloudflared" {
			msg += " (its token comes from the cloudflare_zero_trust_tunnel_cloudflared_token data source, its secret is tunnel_secret)"
		}
		f.res.Left = append(f.res.Left, Problem{Path: x.file.Path, Line: x.block.DefRange().Start.Line, Message: msg})
		f.commentAbove(x.file, x.block.Range().Start.Byte, "sunset fix: "+msg+".")
	}
}

// tunnelCNAME is the edit that writes a reference to a legacy tunnel's cname (TYPE.NAME.cname,
// with or without an instance key) as the id of the tunnel that replaces it and
// ".cfargotunnel.com", which is how every provider that had cname computed it; inside a
// template (wrapped: the reference is one of its interpolations) only that interpolation
// changes. False when x reads anything else.
func tunnelCNAME(file *File, x *hclsyntax.ScopeTraversalExpr, wrapped bool, oldType, newType string) (edit, bool) {
	t := x.Traversal
	if oldType != typeArgoTunnel || attrName(t[len(t)-1]) != "cname" {
		return edit{}, false
	}
	rng := x.Range()
	src := file.Src
	base := newType + string(src[t[0].SourceRange().End.Byte:t[len(t)-1].SourceRange().Start.Byte]) + ".id" // an attribute step starts at its dot
	if !wrapped {
		return edit{start: rng.Start.Byte, end: rng.End.Byte, text: `"${` + base + `}.cfargotunnel.com"`}, true
	}
	open := strings.LastIndex(string(src[:rng.Start.Byte]), "${")
	closing := rng.End.Byte + strings.Index(string(src[rng.End.Byte:]), "}")
	if open < 0 || closing < rng.End.Byte || strings.TrimSpace(strings.TrimLeft(string(src[open+2:rng.Start.Byte]), "~")) != "" {
		return edit{}, false
	}
	return edit{start: open, end: closing + 1, text: "${" + base + "}.cfargotunnel.com"}, true
}

// templateParts are the references that are an interpolation of a template in body.
func templateParts(body *hclsyntax.Body) map[*hclsyntax.ScopeTraversalExpr]bool {
	out := map[*hclsyntax.ScopeTraversalExpr]bool{}
	_ = hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		switch t := n.(type) {
		case *hclsyntax.TemplateExpr:
			for _, p := range t.Parts {
				if x, ok := p.(*hclsyntax.ScopeTraversalExpr); ok {
					out[x] = true
				}
			}
		case *hclsyntax.TemplateWrapExpr:
			if x, ok := t.Wrapped.(*hclsyntax.ScopeTraversalExpr); ok {
				out[x] = true
			}
		}
		return nil
	})
	return out
}

// renameTargets is the type that typ becomes on the target provider (v4 or v5), and the module's
// resources of typ to rewrite: one whose new address the module already declares is left.
func (f *fixer) renameTargets(m *Module, typ, v4, v5 string) (string, []*Resource) {
	newType := v4
	if f.opts.Target == terraform.ProviderV5 {
		newType = v5
	}
	var out []*Resource
	for _, r := range m.Resources {
		switch {
		case r.Type != typ:
		case m.declares(newType, r.Name):
			f.leave(r, fmt.Sprintf("%s not rewritten: the module already declares %s.%s", r.Address(), newType, r.Name))
		default:
			out = append(out, r)
		}
	}
	return newType, out
}

// declares reports whether the module declares TYPE.NAME.
func (m *Module) declares(typ, name string) bool {
	return slices.ContainsFunc(m.Resources, func(r *Resource) bool { return r.Type == typ && r.Name == name })
}
