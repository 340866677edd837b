package migrate

import (
	"fmt"
	"time"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// builder assembles the plan of one zone or account. It knows no resource kind: the
// translators add the steps, and the builder files each in its phase, normalises it, and
// offers the services translators share (findings, ruleset changes, targets, notes, retired
// objects, the catalog's dates).
type builder struct {
	ix    *findingIndex
	cat   *catalog.Catalog
	asOf  time.Time
	scope string
	// z is the zone planned, a the account; exactly one is set.
	z *inventory.ZoneInventory
	a *inventory.AccountInventory

	phases [numPhases][]Step

	targets    []Target
	zoneDNS    *Settings
	accountDNS *Settings
	retired    []Retired
	notes      []string
}

// Phases of a plan, in the order steps run.
const (
	phaseCreate    = iota // replacements: rulesets, DNS settings, records
	phaseVerify           // reads that confirm the replacements
	phasePause            // old firewall rules paused
	phaseDelete           // old firewall rules deleted
	phaseFilters          // filters no remaining rule uses
	phaseOldDelete        // old rate limits and WAF overrides
	phaseManual           // what an operator must do
	numPhases
)

// run lets each translator add its steps, in order, gives the findings none of them took a
// review step each, and returns the steps in plan order: phase by phase, and within a phase
// in the order the translators added them.
func (b *builder) run(translators []translator) []Step {
	for _, t := range translators {
		t.translate(b)
	}
	b.leftovers()
	var out []Step
	for _, ph := range b.phases {
		out = append(out, ph...)
	}
	return out
}

// add files a step in its phase, with its lists sorted and free of repeats (never nil, so
// plan.json shows []), and a manual step without a change counted as manual.
func (b *builder) add(phase int, st Step) {
	st.Resolves = uniqueSorted(nonNil(st.Resolves))
	st.DependsOn = uniqueSorted(nonNil(st.DependsOn))
	if st.Manual && st.Change == "" {
		st.Change = ChangeManual
	}
	b.phases[phase] = append(b.phases[phase], st)
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// note adds zone- or account-wide remarks; repeats are dropped when the plan is made.
func (b *builder) note(notes ...string) { b.notes = append(b.notes, notes...) }

// retire records an old object the plan deletes, for Terraform's removed {} blocks.
func (b *builder) retire(tfType, id string) {
	b.retired = append(b.retired, Retired{Type: tfType, ID: id})
}

// findings returns the fingerprints of the scope's findings of rule ruleID about the object
// (kind, id), marking them as planned. An empty id matches any object of the kind.
func (b *builder) findings(ruleID vocab.RuleID, kind vocab.Kind, id string) []string {
	var out []string
	for _, f := range b.ix.byScope[b.scope] {
		if f.RuleID == ruleID && f.Resource.Kind == kind && (id == "" || f.Resource.ID == id) {
			out = append(out, f.Fingerprint)
			b.ix.used[f.Fingerprint] = true
		}
	}
	return out
}

// peekFindings is findings of exactly the object id, without marking them planned.
func (b *builder) peekFindings(ruleID vocab.RuleID, kind vocab.Kind, id string) []string {
	var out []string
	for _, f := range b.ix.byScope[b.scope] {
		if f.RuleID == ruleID && f.Resource.Kind == kind && f.Resource.ID == id {
			out = append(out, f.Fingerprint)
		}
	}
	return out
}

// has reports whether the scope has any finding of ruleID, without marking it.
func (b *builder) has(ruleID vocab.RuleID) bool {
	for _, f := range b.ix.byScope[b.scope] {
		if f.RuleID == ruleID {
			return true
		}
	}
	return false
}

// open returns the scope's findings that no step took yet.
func (b *builder) open() []scanner.Finding {
	var out []scanner.Finding
	for _, f := range b.ix.byScope[b.scope] {
		if !b.ix.used[f.Fingerprint] {
			out = append(out, f)
		}
	}
	return out
}

// leftovers gives every finding of the scope that no step took a manual step of its own, so
// no finding goes unplanned: it carries the catalog's replacement as guidance.
func (b *builder) leftovers() {
	for _, f := range b.open() {
		if b.ix.used[f.Fingerprint] {
			continue // a repeat of a finding reviewed just now
		}
		b.ix.used[f.Fingerprint] = true
		b.add(phaseManual, Step{
			ID:       "review:" + string(f.RuleID) + ":" + string(f.Resource.Kind) + ":" + orDash(f.Resource.ID) + ":" + f.Fingerprint[:8],
			Kind:     KindFindingReview,
			Manual:   true,
			Resolves: []string{f.Fingerprint},
			Risk:     RiskLow,
			Title:    fmt.Sprintf("Review %s on %s %s", f.RuleID, f.Resource.Kind, orDash(f.Resource.Name)),
			Reason:   "The finding has no automatic migration: an operator acts on it.",
			Note:     b.reviewNote(f),
		})
	}
}

// reviewNote is a finding's message with its replacement (the catalog's when the finding
// names none) and its documentation.
func (b *builder) reviewNote(f scanner.Finding) string {
	repl := f.Replacement
	if repl == "" {
		if e, ok := b.cat.Lookup(f.RuleID); ok {
			repl = e.Replacement
		}
	}
	note := f.Message
	if repl != "" {
		note += " Replacement: " + repl + "."
	}
	if f.DocURL != "" {
		note += " See " + f.DocURL + "."
	}
	return note
}

// writable tells whether a step may still write to the endpoint of a catalog entry: not
// past its end of life as of the plan's day (an unknown day counts as past, so nothing is
// planned against an endpoint that may be gone).
func (b *builder) writable(ruleID vocab.RuleID) bool {
	e, ok := b.cat.Lookup(ruleID)
	if !ok || e.EndOfLife.IsZero() {
		return true
	}
	return !b.asOf.IsZero() && e.SeverityAt(b.asOf) != catalog.SeverityError
}
