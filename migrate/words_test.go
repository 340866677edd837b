package migrate_test

import (
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// TestStepWordsSayWhatTheSummaryCounts: one vocabulary across plan.md, the HTML and apply.
// A step's words (apply's list of requests, the HTML's automatic steps) begin with the word
// the plan's summary counts it under: a step counted "to verify" is "verify …", one "to
// delete" is "delete …", one "to pause" is "pause …" (or "turn off …" for a setting).
func TestStepWordsSayWhatTheSummaryCounts(t *testing.T) {
	p, _ := planOf(seed.Demo(), goldenAsOf)
	seen := map[string]bool{}
	for _, st := range p.Steps() {
		spec := migrate.KindSpecs[st.Kind]
		word := st.ChangeWord()
		if st.Manual || spec == nil || (word != "verify" && word != "delete" && word != "pause") {
			continue
		}
		seen[word] = true
		if !strings.HasPrefix(spec.Words, word+" ") && (word != "pause" || !strings.HasPrefix(spec.Words, "turn off ")) {
			t.Errorf("step %s, counted as %q in the plan's summary, reads %q", st.ID, word, spec.Words)
		}
	}
	for _, word := range []string{"verify", "delete", "pause"} {
		if !seen[word] {
			t.Errorf("the demo plan has no step to %s", word)
		}
	}
}
