package tfrun

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// PlanJSON is what a test asserts of a saved plan: each resource change with its actions,
// read from `terraform show -json`, and the plan's text as Terraform printed it.
type PlanJSON struct {
	// Changes are the plan's resource changes in Terraform's order (by address), no-ops
	// included.
	Changes []ResourceChange
	// Text is the output of `terraform plan` ("... will no longer be managed by Terraform").
	Text string
}

// ResourceChange is one entry of the plan's resource_changes.
type ResourceChange struct {
	// Address is the resource instance's address (module path, type, name, key).
	Address string `json:"address"`
	// Type is the resource type, e.g. cloudflare_ruleset.
	Type string `json:"type"`
	// Actions are Terraform's actions for it: "no-op", "create", "read", "update",
	// "delete", "forget" (a `removed` block with destroy = false), two for a replacement.
	Actions []string `json:"-"`
}

// Plan initialises dir when needed, runs `terraform plan` with env into a saved plan and
// returns the plan's changes; it fails t when the plan fails.
func (tf *Terraform) Plan(t testing.TB, dir string, env []string) *PlanJSON {
	t.Helper()
	tf.initOnce(t, dir)
	const saved = "sunset-test.tfplan"
	text := tf.Run(t, dir, env, "plan", "-input=false", "-no-color", "-out="+saved)
	show := tf.Run(t, dir, env, "show", "-json", "-no-color", filepath.Join(dir, saved))
	p, err := parsePlan([]byte(show))
	if err != nil {
		t.Fatalf("terraform show -json of the plan in %s: %v", dir, err)
	}
	p.Text = text
	return p
}

// parsePlan reads the resource changes of `terraform show -json` of a saved plan.
func parsePlan(data []byte) (*PlanJSON, error) {
	var doc struct {
		ResourceChanges []struct {
			ResourceChange
			Change struct {
				Actions []string `json:"actions"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	p := &PlanJSON{}
	for _, rc := range doc.ResourceChanges {
		c := rc.ResourceChange
		c.Actions = rc.Change.Actions
		p.Changes = append(p.Changes, c)
	}
	return p, nil
}

// Actions returns the actions planned for address (nil when the plan does not name it).
func (p *PlanJSON) Actions(address string) []string {
	for _, c := range p.Changes {
		if c.Address == address {
			return c.Actions
		}
	}
	return nil
}

// With returns the addresses whose actions include action, in the plan's order.
func (p *PlanJSON) With(action string) []string {
	var out []string
	for _, c := range p.Changes {
		if slices.Contains(c.Actions, action) {
			out = append(out, c.Address)
		}
	}
	return out
}

// Summary counts the plan's changes by action, as `terraform plan` ends its output:
// "create 1, forget 4" (actions in a fixed order, those with none left out; "no changes").
func (p *PlanJSON) Summary() string {
	var parts []string
	for _, action := range []string{"create", "update", "delete", "forget"} {
		if n := len(p.With(action)); n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", action, n))
		}
	}
	if len(parts) == 0 {
		return "no changes"
	}
	return strings.Join(parts, ", ")
}
