package terraform

import (
	"fmt"
	"io"
	"strings"

	"github.com/sunsetscan/sunset/migrate"
)

// A declared resource replaces the plan.md steps that write the object it declares: the
// automatic ones are what `terraform apply` does instead, the manual ones are edits of the
// configuration instead of the call they show. Reads (verify steps) and the steps on old
// objects stay the same on both ways.

// writes reports whether a step calls the API to change something.
func writes(st migrate.Step) bool { return st.Method != "" && st.Method != "GET" }

// writesEntrypoint reports whether st writes the entry point t of the zone: through the
// phase's entrypoint path, or through the existing ruleset's id (rules added, changed or
// deleted one at a time).
func writesEntrypoint(st migrate.Step, zoneID string, t migrate.Target) bool {
	if !writes(st) {
		return false
	}
	base := "/zones/" + zoneID + "/rulesets/"
	if st.Path == base+"phases/"+string(t.Phase)+"/entrypoint" {
		return true
	}
	return t.RulesetID != "" && (st.Path == base+t.RulesetID || strings.HasPrefix(st.Path, base+t.RulesetID+"/"))
}

// writesPath returns a predicate: the step writes exactly path.
func writesPath(path string) func(migrate.Step) bool {
	return func(st migrate.Step) bool { return writes(st) && st.Path == path }
}

// claim writes the steps of a scope that match as replaced by the resource at address to
// README.md's table (gen.replaced) and returns their ids, for the resource's comment.
func (g *gen) claim(scope string, steps []migrate.Step, match func(migrate.Step) bool, address string) []string {
	var ids []string
	for i, st := range steps {
		if match(st) {
			g.replace(scope, i+1, st, address)
			ids = append(ids, st.ID)
		}
	}
	return ids
}

// replace writes the row of step num of scope, replaced by the resource at address, with its
// scope's heading when the scope changes: the step's id, call and whether it is manual, not
// its body. A failed write is kept in g.err.
func (g *gen) replace(scope string, num int, st migrate.Step, address string) {
	var b strings.Builder
	if scope != g.scope {
		if g.scope != "" {
			b.WriteString("\n")
		}
		g.scope = scope
		fmt.Fprintf(&b, "### %s\n\n| plan.md step | call | replaced by |\n|---|---|---|\n", migrate.EscapeMarkdown(scope))
	}
	step := fmt.Sprintf("%d. %s", num, code(st.ID))
	if st.Manual {
		step += " (manual)"
	}
	fmt.Fprintf(&b, "| %s | %s | %s |\n", step, code(st.Method+" "+st.Path), code(address))
	if _, err := io.WriteString(&g.replaced, b.String()); err != nil && g.err == nil {
		g.err = err
	}
	g.nReplaced++
}

// replacesComment is the comment line naming the plan.md steps a resource replaces.
func replacesComment(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return " Replaces plan.md step " + strings.Join(ids, ", ") + ": apply this or run the step(s), never both."
}

// accountOf returns the account id of an /accounts/ID/... path, "" if the path is not one.
func accountOf(path string) string {
	rest, ok := strings.CutPrefix(path, "/accounts/")
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, "/")
	return id
}

// objectOf is the part of a step id after "kind:", or the whole id.
func objectOf(id string) string {
	if _, obj, ok := strings.Cut(id, ":"); ok {
		return obj
	}
	return id
}

// zoneScope and accountScope title a scope as plan.md does.
func zoneScope(z *migrate.ZonePlan) string { return "Zone " + z.ZoneName + " (" + z.ZoneID + ")" }

func accountScope(a *migrate.AccountPlan) string {
	if a.AccountName == "" {
		return "Account " + a.AccountID
	}
	return "Account " + a.AccountName + " (" + a.AccountID + ")"
}
