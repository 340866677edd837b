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
		switch {
		case !ok || h.run == nil:
			t.Errorf("kind %s (op %d) has no handler in apply", kind, spec.Op)
		case h.requests < 1:
			t.Errorf("kind %s has no cost", kind)
		case spec.Undoable() != (h.undo != nil):
			t.Errorf("kind %s: the spec says undoable %t, the handler has an undo %t", kind, spec.Undoable(), h.undo != nil)
		}
	}
}
