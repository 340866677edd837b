package apply

import (
	"fmt"
	"slices"

	"github.com/sunsetscan/sunset/migrate"
)

// GuardsDisagree lists the steps of p whose guarded entry points, as the scope computes
// them once for all its steps (guardBits), differ from a walk of the step's dependencies.
func GuardsDisagree(p *migrate.Plan) []string {
	var out []string
	for _, sc := range scopesOf(p, nil) {
		if sc.kind == "zone" && sc.guards == nil {
			out = append(out, fmt.Sprintf("zone %s: no guards computed", sc.name))
		}
		walk := sc
		walk.guards = nil
		for _, st := range sc.steps {
			if got, want := sc.guardedPhases(st), walk.guardedPhases(st); !slices.Equal(got, want) {
				out = append(out, fmt.Sprintf("zone %s step %s: %v, the walk %v", sc.name, st.ID, got, want))
			}
		}
	}
	return out
}
