package migrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/catalog"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// Options steer Build.
type Options struct {
	// AsOf is the day the findings were judged on. It is recorded in the plan, and no step
	// writes to a deprecated setting endpoint past its end of life as of that day (zero: no
	// such step is planned, as the day is unknown).
	AsOf time.Time
	// Catalog supplies replacements for findings that carry none; nil means catalog.Default().
	Catalog *catalog.Catalog
}

// Build turns a snapshot and the findings of its scan (scanner.ScanSnapshot) into a plan.
// Only objects with a finding are planned, so --as-of and a user catalog decide what is
// deprecated; every live finding ends up in the Resolves of at least one step. Build is pure
// (no I/O, no clock) and deterministic: zones by name then id, accounts by id.
func Build(snap *inventory.Snapshot, res scanner.Result, opts Options) *Plan {
	p := &Plan{SchemaVersion: SchemaVersion, Accounts: []AccountPlan{}, Zones: []ZonePlan{}, Unplanned: []string{}}
	if !opts.AsOf.IsZero() {
		p.AsOf = opts.AsOf.UTC().Format("2006-01-02")
	}
	cat := opts.Catalog
	if cat == nil {
		cat = catalog.Default()
	}
	if snap == nil {
		p.finish()
		return p
	}
	p.Source = snap.Source
	ix := newFindingIndex(res.Findings)

	accounts := make([]*inventory.AccountInventory, len(snap.Accounts))
	for i := range snap.Accounts {
		accounts[i] = &snap.Accounts[i]
	}
	sort.SliceStable(accounts, func(i, j int) bool { return accounts[i].Account.ID < accounts[j].Account.ID })
	for _, a := range accounts {
		ab := &builder{ix: ix, cat: cat, asOf: opts.AsOf, scope: scopeKey("", a.Account.ID)}
		ab.account(a)
		ab.leftovers()
		if steps := ab.steps(); len(steps) > 0 {
			p.Accounts = append(p.Accounts, AccountPlan{
				AccountID: a.Account.ID, AccountName: a.Account.Name, Steps: steps,
				DNSSettings: ab.accountDNS, Notes: uniqueStable(ab.notes),
			})
		}
	}
	zones := make([]*inventory.ZoneInventory, len(snap.Zones))
	for i := range snap.Zones {
		zones[i] = &snap.Zones[i]
	}
	sort.SliceStable(zones, func(i, j int) bool {
		if zones[i].Zone.Name != zones[j].Zone.Name {
			return zones[i].Zone.Name < zones[j].Zone.Name
		}
		return zones[i].Zone.ID < zones[j].Zone.ID
	})
	for _, z := range zones {
		zb := &builder{ix: ix, cat: cat, asOf: opts.AsOf, scope: scopeKey(z.Zone.ID, ""), z: z}
		zb.zone()
		zb.leftovers()
		steps := zb.steps()
		if len(steps) == 0 {
			continue
		}
		p.Zones = append(p.Zones, ZonePlan{
			ZoneID: z.Zone.ID, ZoneName: z.Zone.Name, AccountID: z.Zone.Account.ID,
			PlanLevel: strings.ToLower(z.Zone.Plan.LegacyID), Steps: steps,
			Targets: zb.targets, DNSSettings: zb.zoneDNS, Retired: zb.retired, Notes: uniqueStable(zb.notes),
		})
	}
	// Findings of zones or accounts the snapshot does not hold, and file findings, have no
	// object to plan for.
	for _, f := range res.Findings {
		if !ix.used[f.Fingerprint] {
			p.Unplanned = append(p.Unplanned, f.Fingerprint)
		}
	}
	p.finish()
	return p
}

// findingIndex finds the findings of an object and remembers which ones a step took.
type findingIndex struct {
	byScope map[string][]scanner.Finding
	used    map[string]bool
}

func scopeKey(zoneID, accountID string) string {
	if zoneID != "" {
		return "zone:" + zoneID
	}
	return "account:" + accountID
}

func newFindingIndex(fs []scanner.Finding) *findingIndex {
	ix := &findingIndex{byScope: map[string][]scanner.Finding{}, used: map[string]bool{}}
	for _, f := range fs {
		if f.Source != "" && f.Source != scanner.SourceLive {
			continue
		}
		k := scopeKey(f.ZoneID, f.AccountID)
		ix.byScope[k] = append(ix.byScope[k], f)
	}
	return ix
}

// builder accumulates the steps of one zone or account in their phases.
type builder struct {
	ix    *findingIndex
	cat   *catalog.Catalog
	asOf  time.Time
	scope string
	z     *inventory.ZoneInventory

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

func (b *builder) add(phase int, st Step) {
	if st.DependsOn == nil {
		st.DependsOn = []string{}
	}
	if st.Resolves == nil {
		st.Resolves = []string{}
	}
	st.Resolves = uniqueSorted(st.Resolves)
	st.DependsOn = uniqueSorted(st.DependsOn)
	if st.Manual && st.Change == "" {
		st.Change = ChangeManual
	}
	b.phases[phase] = append(b.phases[phase], st)
}

func (b *builder) steps() []Step {
	var out []Step
	for _, ph := range b.phases {
		out = append(out, ph...)
	}
	return out
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

// has reports whether the scope has any finding of ruleID, without marking it.
func (b *builder) has(ruleID vocab.RuleID) bool {
	for _, f := range b.ix.byScope[b.scope] {
		if f.RuleID == ruleID {
			return true
		}
	}
	return false
}

// leftovers gives every finding of the scope that no step took a manual step of its own, so
// no finding goes unplanned: it carries the catalog's replacement as guidance.
func (b *builder) leftovers() {
	for _, f := range b.ix.byScope[b.scope] {
		if b.ix.used[f.Fingerprint] {
			continue
		}
		b.ix.used[f.Fingerprint] = true
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
		b.add(phaseManual, Step{
			ID:       "review:" + string(f.RuleID) + ":" + string(f.Resource.Kind) + ":" + orDash(f.Resource.ID) + ":" + f.Fingerprint[:8],
			Kind:     "finding.review",
			Manual:   true,
			Resolves: []string{f.Fingerprint},
			Risk:     RiskLow,
			Title:    fmt.Sprintf("Review %s on %s %s", f.RuleID, f.Resource.Kind, orDash(f.Resource.Name)),
			Reason:   "The finding has no automatic migration: an operator acts on it.",
			Note:     note,
		})
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// uniqueStable drops repeated strings, keeping the first of each in place.
func uniqueStable(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func uniqueSorted(xs []string) []string {
	if len(xs) == 0 {
		return xs
	}
	out := append([]string(nil), xs...)
	sort.Strings(out)
	w := 1
	for i := 1; i < len(out); i++ {
		if out[i] != out[w-1] {
			out[w] = out[i]
			w++
		}
	}
	return out[:w]
}

// mustJSON encodes v for a step body; the values encoded are built here and always encode.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("migrate: encoding %T: %v", v, err))
	}
	return b
}

func zonePath(zoneID string, segs ...string) string {
	return "/zones/" + zoneID + "/" + strings.Join(segs, "/")
}

func entrypointPath(zoneID string, phase vocab.Phase) string {
	return zonePath(zoneID, "rulesets", "phases", string(phase), "entrypoint")
}

// named renders an object for titles: `"description" (id)` or the id.
func named(desc, id string) string {
	switch {
	case desc != "" && id != "":
		return fmt.Sprintf("%q (%s)", desc, id)
	case desc != "":
		return fmt.Sprintf("%q", desc)
	}
	return id
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func boolPtr(b bool) *bool { return &b }

// zone plans every kind of a zone, in the order its steps are numbered.
func (b *builder) zone() {
	b.firewall()
	b.rateLimits()
	b.waf()
	b.dnsSettings()
	b.srvRecords()
	b.recordFields()
	b.zoneSettings()
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

// compactJSON renders a raw JSON value without insignificant whitespace, so text built from
// it does not depend on how the snapshot was indented.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return strings.TrimSpace(string(raw))
	}
	return b.String()
}
