package apply

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// TestRollbackWritesBackOnlyWhatTheSnapshotHeld: what a journal says a pause overwrote is
// written back by a rollback only when the snapshot agrees; an edited record (a firewall
// rule's action turned into allow, the chain of the journal recomputed) is refused.
func TestRollbackWritesBackOnlyWhatTheSnapshotHeld(t *testing.T) {
	day := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	snap := seed.Demo()
	p := migrate.Build(snap, scanner.ScanSnapshot(snap, nil, scanner.Options{AsOf: day}), migrate.Options{AsOf: day})
	for _, sc := range scopesOf(p, snap) {
		for _, st := range sc.steps {
			if st.Kind != migrate.KindFirewallRulePause {
				continue
			}
			r := &scopeRun{sc: sc, opts: &Options{}}
			honest := r.beforeOf(st)
			if got, err := r.trustedBefore(st, honest); err != nil || string(got) != string(honest) {
				t.Fatalf("the honest record: %s, %v", got, err)
			}
			var m map[string]any
			if err := json.Unmarshal(honest, &m); err != nil {
				t.Fatal(err)
			}
			m["action"] = "allow"
			edited, _ := json.Marshal(m)
			if _, err := r.trustedBefore(st, edited); err == nil || !strings.Contains(err.Error(), "was the journal edited") {
				t.Fatalf("an edited record: %v", err)
			}
			return
		}
	}
	t.Fatal("the demo plan pauses no firewall rule")
}
