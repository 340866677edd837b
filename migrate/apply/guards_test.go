package apply_test

import (
	"testing"

	"github.com/sunsetscan/sunset/migrate/apply"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// TestGuardsAsTheWalkFindsThem: the entry points each step's dependencies write or verify,
// computed once a scope, are those a walk of each step's dependencies finds, on the demo and
// on generated accounts (with zones of thousands of old rules).
func TestGuardsAsTheWalkFindsThem(t *testing.T) {
	t.Parallel()
	for name, data := range map[string]*inventory.Snapshot{
		"demo": seed.Demo(), "generated": seed.Generate(60, 3), "migratable": seed.GenerateMigratable(60, 1),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, _ := serve(t, data, emulator.Options{}).plan()
			if len(p.Zones) == 0 {
				t.Fatal("no zone planned")
			}
			for _, d := range apply.GuardsDisagree(p) {
				t.Error(d)
			}
		})
	}
}
