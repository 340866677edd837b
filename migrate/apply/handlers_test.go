package apply

import (
	"testing"

	"github.com/sunsetscan/sunset/migrate"
)

// TestEveryKindHasAHandler: every kind the registry holds is one apply runs (or a manual
// one) with a cost, and a kind the spec says can be undone has an undo.
func TestEveryKindHasAHandler(t *testing.T) {
	for kind, spec := range migrate.KindSpecs {
		if spec.Op == migrate.OpManual {
			continue
		}
		h, ok := handlers[spec.Op]
		c := &costWalk{r: &scopeRun{opts: &Options{}}, left: map[string]int{}, loaded: map[string]bool{}, out: costs{}}
		c.step(migrate.Step{Kind: kind}, func(p purpose, n int) { c.out.add(string(kind), p, n) })
		switch {
		case !ok || h.run == nil:
			t.Errorf("kind %s (op %d) has no handler in apply", kind, spec.Op)
		case spec.Op != migrate.OpAddRule && c.out.total() < 1: // rules added: costWalk.unit
			t.Errorf("kind %s has no cost", kind)
		case spec.Undoable() != (h.undo != nil):
			t.Errorf("kind %s: the spec says undoable %t, the handler has an undo %t", kind, spec.Undoable(), h.undo != nil)
		}
	}
}
