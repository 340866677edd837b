package fix

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// A root module applied once per Terraform workspace may add each workspace's firewall
// rules or rate limits to the same zone: the old resources are many objects per zone, so
// the workspaces did not meet. What replaces them is the zone's one entry point per phase:
// declared by every workspace, each apply would replace the rules the others wrote (or
// fail). So rules that read terraform.workspace (directly or through locals) on a zone that
// does not are left, saying so.

// workspaceWhy says why the old resources rs of module m are left for their workspaces, ""
// when they are not: their values read terraform.workspace and zone does not.
func workspaceWhy(m *Module, zone hclsyntax.Expression, rs []*Resource) string {
	if zone != nil && readsWorkspace(m, zone, map[string]bool{}) {
		return ""
	}
	for _, r := range rs {
		reads := false
		_ = hclsyntax.VisitAll(r.Block.Body, func(n hclsyntax.Node) hcl.Diagnostics {
			if x, ok := n.(hclsyntax.Expression); ok && readsWorkspace(m, x, map[string]bool{}) {
				reads = true
			}
			return nil
		})
		if reads {
			return fmt.Sprintf("%s reads terraform.workspace, on a zone every workspace shares: each workspace's ruleset would be the zone's one entry point, replacing the rules of the others; gather the workspaces' rules in one configuration, or move them by hand", r.Address())
		}
	}
	return ""
}

// readsWorkspace reports whether x reads terraform.workspace, directly or through locals
// (seen holds the locals followed, against cycles).
func readsWorkspace(m *Module, x hclsyntax.Expression, seen map[string]bool) bool {
	for _, tr := range x.Variables() {
		if len(tr) < 2 {
			continue
		}
		name := attrName(tr[1])
		switch tr.RootName() {
		case "terraform":
			if name == "workspace" {
				return true
			}
		case "local":
			if l := m.Locals[name]; l != nil && !seen[name] {
				seen[name] = true
				if readsWorkspace(m, l, seen) {
					return true
				}
			}
		}
	}
	return false
}
