package fix

import (
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"

	"github.com/sunsetscan/sunset/migrate/terraform"
)

// Renamed types: the legacy tunnel and the Access bookmark.
const (
	typeArgoTunnel     = "cloudflare_argo_tunnel"
	typeAccessBookmark = "cloudflare_access_bookmark"
)

// v5TunnelAttrs are the attributes of cloudflare_zero_trust_tunnel_cloudflared that
// references to a legacy tunnel may keep using (v5 has no cname or tunnel_token).
var v5TunnelAttrs = []string{"id", "account_id", "name", "config_src"}

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
		used := f.renameRefs(m, r, newType)
		rw := Rewrite{Module: m.Dir, File: r.File.Path, Line: r.Line(), Old: []string{r.Address()}, New: newType + "." + r.Name,
			Proven: "nothing to prove: the same tunnel, managed through the tunnel API",
			Notes:  []string{"the legacy tunnels API is deprecated; the tunnel API manages the same tunnels (no data moves)"}}
		if f.opts.Target == terraform.ProviderV5 {
			for _, attr := range used {
				if !slices.Contains(v5TunnelAttrs, attr) {
					f.res.Left = append(f.res.Left, Problem{Path: r.File.Path, Line: r.Line(), Message: fmt.Sprintf("%s.%s is referenced, and %s has no %s: rewrite those references (a tunnel's CNAME target is <id>.cfargotunnel.com; its token comes from the cloudflare_zero_trust_tunnel_cloudflared_token data source)", rw.New, attr, newType, attr)})
				}
			}
		}
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
		f.renameRefs(m, r, newType) // the application has the bookmark's attributes
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

// renameRefs points the module's references to r at newType.NAME, and returns the
// attributes they read, sorted.
func (f *fixer) renameRefs(m *Module, r *Resource, newType string) []string {
	var used []string
	for _, file := range m.Files {
		_ = hclsyntax.VisitAll(file.Body, func(n hclsyntax.Node) hcl.Diagnostics {
			x, ok := n.(*hclsyntax.ScopeTraversalExpr)
			if !ok || len(x.Traversal) < 2 || x.Traversal.RootName() != r.Type || attrName(x.Traversal[1]) != r.Name {
				return nil
			}
			rng := x.Traversal[0].SourceRange()
			f.edits[file] = append(f.edits[file], edit{start: rng.Start.Byte, end: rng.End.Byte, text: newType})
			if len(x.Traversal) > 2 {
				if a := attrName(x.Traversal[2]); a != "" && !slices.Contains(used, a) {
					used = append(used, a)
				}
			}
			return nil
		})
	}
	slices.Sort(used)
	return used
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
