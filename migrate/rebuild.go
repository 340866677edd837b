package migrate

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// Rebuild builds again the plan p says it is: from the snapshot p was built from, judged
// on p's day (AsOf) with the catalog given (nil: the built-in one).
func (p *Plan) Rebuild(snap *inventory.Snapshot, cat *catalog.Catalog) (*Plan, error) {
	var day time.Time
	if p.AsOf != "" {
		var err error
		if day, err = time.Parse(time.DateOnly, p.AsOf); err != nil {
			return nil, fmt.Errorf("plan: as_of %q: want YYYY-MM-DD", p.AsOf)
		}
	}
	res := scanner.ScanSnapshot(snap, cat, scanner.Options{AsOf: day})
	return Build(snap, res, Options{AsOf: day, Catalog: cat}), nil
}

// SameAs holds every step apply would run and every target of p to the plan sunset builds
// from the same snapshot (built, from Rebuild): the same kind, call, body and dependencies,
// the same rules in each entry point. A plan may hold fewer scopes or steps than built
// (Check holds what is left together); anything it holds that built does not is refused,
// so the rules a plan writes are the ones this sunset translates, not ones written into
// plan.json or a journal by hand. What the plan says of its scan is held too (sameMarks):
// its source, and the zones and accounts it marks as not read whole. It returns the
// refusals joined (StepError).
func (p *Plan) SameAs(built *Plan) error {
	var errs []error
	add := func(e *StepError) {
		if len(errs) < maxStepErrors {
			errs = append(errs, e)
		}
	}
	sameMarks(p, built, add)
	accounts := map[string]*AccountPlan{}
	for i := range built.Accounts {
		accounts[built.Accounts[i].AccountID] = &built.Accounts[i]
	}
	zones := map[string]*ZonePlan{}
	for i := range built.Zones {
		zones[built.Zones[i].ZoneID] = &built.Zones[i]
	}
	for _, a := range p.Accounts {
		var want []Step
		if b := accounts[a.AccountID]; b != nil {
			want = b.Steps
		}
		sameSteps(ScopeAccount, a.AccountID, a.Steps, want, add)
	}
	for _, z := range p.Zones {
		b := zones[z.ZoneID]
		if b == nil {
			b = &ZonePlan{}
		}
		sameSteps(ScopeZone, z.ZoneID, z.Steps, b.Steps, add)
		sameTargets(z.ZoneID, z.Targets, b.Targets, add)
	}
	return errors.Join(errs...)
}

// rebuiltHint says what may explain a plan that differs from the one rebuilt.
const rebuiltHint = "this sunset does not plan it from the snapshot (edited, or built by another version or with another --catalog: build the plan again)"

func sameSteps(scope, id string, got, want []Step, add func(*StepError)) {
	byID := map[string]*Step{}
	for i := range want {
		byID[want[i].ID] = &want[i]
	}
	for _, st := range got {
		if st.Manual {
			continue // never sent
		}
		w := byID[st.ID]
		switch {
		case w == nil:
			add(&StepError{Scope: scope, ScopeID: id, Step: st.ID, Why: rebuiltHint})
		case w.Kind != st.Kind || w.Method != st.Method || w.Path != st.Path || w.Manual:
			add(&StepError{Scope: scope, ScopeID: id, Step: st.ID, Why: fmt.Sprintf("%s %s %s: %s", st.Kind, st.Method, st.Path, rebuiltHint)})
		case !sameBody(st.Body, w.Body):
			add(&StepError{Scope: scope, ScopeID: id, Step: st.ID, Why: "its body: " + rebuiltHint})
		case !slices.Equal(slices.Sorted(slices.Values(st.DependsOn)), slices.Sorted(slices.Values(w.DependsOn))):
			add(&StepError{Scope: scope, ScopeID: id, Step: st.ID, Why: "its dependencies: " + rebuiltHint})
		}
	}
}

func sameBody(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	return sameJSON(a, b)
}

func sameTargets(id string, got, want []Target, add func(*StepError)) {
	for _, t := range got {
		i := slices.IndexFunc(want, func(w Target) bool { return w.Phase == t.Phase })
		ok := i >= 0 && want[i].RulesetID == t.RulesetID && len(want[i].Rules) == len(t.Rules)
		for k := 0; ok && k < len(t.Rules); k++ {
			ok = sameJSON(t.Rules[k], want[i].Rules[k])
		}
		if !ok {
			add(&StepError{Scope: ScopeZone, ScopeID: id, Step: "target " + string(t.Phase), Why: "its rules: " + rebuiltHint})
		}
	}
}
