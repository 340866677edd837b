package migrate

import (
	"reflect"
	"testing"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// stepsTranslator adds fixed steps, each in its phase.
type stepsTranslator []struct {
	phase int
	step  Step
}

func (t stepsTranslator) translate(b *builder) {
	for _, s := range t {
		b.add(s.phase, s.step)
	}
}

// The builder merges the translators' steps phase by phase, in translator order within a
// phase, and normalises each step's lists.
func TestBuilderMergesStepsByPhase(t *testing.T) {
	first := stepsTranslator{
		{phaseManual, Step{ID: "a.manual", Manual: true}},
		{phaseCreate, Step{ID: "a.create", Resolves: []string{"f2", "f1", "f2"}}},
		{phaseDelete, Step{ID: "a.delete", DependsOn: []string{"a.verify", "a.create", "a.verify"}}},
	}
	second := stepsTranslator{
		{phaseCreate, Step{ID: "b.create"}},
		{phaseVerify, Step{ID: "b.verify"}},
	}
	b := &builder{ix: newFindingIndex(nil), cat: catalog.Default(), scope: scopeKey("z", "")}
	steps := b.run([]translator{first, second})

	var ids []string
	for _, st := range steps {
		ids = append(ids, st.ID)
	}
	if want := []string{"a.create", "b.create", "b.verify", "a.delete", "a.manual"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("step order %v, want %v", ids, want)
	}
	if got := steps[0].Resolves; !reflect.DeepEqual(got, []string{"f1", "f2"}) {
		t.Errorf("resolves %v, want sorted without repeats", got)
	}
	if got := steps[3].DependsOn; !reflect.DeepEqual(got, []string{"a.create", "a.verify"}) {
		t.Errorf("depends_on %v, want sorted without repeats", got)
	}
	if steps[1].Resolves == nil || steps[1].DependsOn == nil {
		t.Error("empty lists are nil; plan.json must show []")
	}
	if steps[4].Change != ChangeManual {
		t.Errorf("a manual step without a change has change %q, want %q", steps[4].Change, ChangeManual)
	}
}

// A finding no translator takes gets a review step of its own, once, in the manual phase.
func TestBuilderReviewsFindingsNoTranslatorTook(t *testing.T) {
	f := scanner.Finding{
		RuleID: vocab.BillingProfileAPI, ZoneID: "z", Fingerprint: "0123456789abcdef",
		Resource: scanner.Resource{Kind: vocab.KindZone, ID: "z", Name: "example.com"},
		Message:  "The billing profile API is deprecated.", Replacement: "the billing API",
	}
	taken := scanner.Finding{RuleID: vocab.FirewallRules, ZoneID: "z", Fingerprint: "fedcba9876543210",
		Resource: scanner.Resource{Kind: vocab.KindFirewallRule, ID: "r1"}}
	ix := newFindingIndex([]scanner.Finding{f, taken, f})
	b := &builder{ix: ix, cat: catalog.Default(), scope: scopeKey("z", ""), z: &inventory.ZoneInventory{}}
	take := takeTranslator{vocab.FirewallRules, vocab.KindFirewallRule, "r1"}
	steps := b.run([]translator{take})

	if len(steps) != 2 {
		t.Fatalf("%d steps, want the taken finding's step and one review: %+v", len(steps), steps)
	}
	review := steps[1]
	if review.Kind != "finding.review" || !review.Manual || !reflect.DeepEqual(review.Resolves, []string{f.Fingerprint}) {
		t.Errorf("review step %+v", review)
	}
	if want := f.Message + " Replacement: the billing API."; review.Note != want {
		t.Errorf("note %q, want %q", review.Note, want)
	}
	if got := ix.unplanned([]scanner.Finding{f, taken}); len(got) != 0 {
		t.Errorf("unplanned %v, want none", got)
	}
}

// takeTranslator takes the findings of one object in a create step.
type takeTranslator struct {
	rule vocab.RuleID
	kind vocab.Kind
	id   string
}

func (t takeTranslator) translate(b *builder) {
	b.add(phaseCreate, Step{ID: "take", Resolves: b.findings(t.rule, t.kind, t.id)})
}
