package migrate

import (
	"sort"
	"strings"
	"time"

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
	env := newBuildEnv(res.Findings, opts)
	p := newPlan(snap, env, opts)
	if snap == nil {
		p.finish()
		return p
	}
	for _, z := range sortedZones(snap) {
		if zp, ok := env.zonePlan(z); ok {
			p.Zones = append(p.Zones, zp)
		}
	}
	// Findings of zones or accounts the snapshot does not hold, and file findings, have no
	// object to plan for.
	p.Unplanned = append(p.Unplanned, env.ix.unplanned(res.Findings)...)
	p.finish()
	return p
}

// newPlan is a plan of the snapshot's accounts, without zones yet: how Build and
// Spill.Finish begin.
func newPlan(snap *inventory.Snapshot, env buildEnv, opts Options) *Plan {
	p := &Plan{SchemaVersion: SchemaVersion, Accounts: []AccountPlan{}, Zones: []ZonePlan{}, Unplanned: []string{}}
	if !opts.AsOf.IsZero() {
		p.AsOf = opts.AsOf.UTC().Format("2006-01-02")
	}
	if snap == nil {
		return p
	}
	p.Source = snap.Source
	p.markIncomplete(snap)
	for _, a := range sortedAccounts(snap) {
		if ap, ok := env.accountPlan(a); ok {
			p.Accounts = append(p.Accounts, ap)
		}
	}
	return p
}

// buildEnv is what every scope's builder shares: the findings, the catalog and the day.
type buildEnv struct {
	ix   *findingIndex
	cat  *catalog.Catalog
	asOf time.Time
}

// accountPlan runs the account translators on one account; false when it has no step.
func (env buildEnv) accountPlan(a *inventory.AccountInventory) (AccountPlan, bool) {
	b := env.newBuilder(scopeKey("", a.Account.ID))
	b.a = a
	steps := b.run(accountTranslators)
	if len(steps) == 0 {
		return AccountPlan{}, false
	}
	return AccountPlan{
		AccountID: a.Account.ID, AccountName: a.Account.Name, Steps: steps,
		DNSSettings: b.accountDNS, Notes: uniqueStable(b.notes),
	}, true
}

// zonePlan runs the zone translators on one zone; false when it has no step.
func (env buildEnv) zonePlan(z *inventory.ZoneInventory) (ZonePlan, bool) {
	b := env.newBuilder(scopeKey(z.Zone.ID, ""))
	b.z = z
	steps := b.run(zoneTranslators)
	if len(steps) == 0 {
		return ZonePlan{}, false
	}
	return ZonePlan{
		ZoneID: z.Zone.ID, ZoneName: z.Zone.Name, AccountID: z.Zone.Account.ID,
		PlanLevel: strings.ToLower(z.Zone.Plan.LegacyID), Steps: steps,
		Targets: b.targets, DNSSettings: b.zoneDNS, Retired: b.retired, Notes: uniqueStable(b.notes),
	}, true
}

func (env buildEnv) newBuilder(scope string) *builder {
	return &builder{ix: env.ix, cat: env.cat, asOf: env.asOf, scope: scope}
}

// sortedAccounts lists the snapshot's accounts by id.
func sortedAccounts(snap *inventory.Snapshot) []*inventory.AccountInventory {
	accounts := make([]*inventory.AccountInventory, len(snap.Accounts))
	for i := range snap.Accounts {
		accounts[i] = &snap.Accounts[i]
	}
	sort.SliceStable(accounts, func(i, j int) bool { return accounts[i].Account.ID < accounts[j].Account.ID })
	return accounts
}

// sortedZones lists the snapshot's zones by name, then id.
func sortedZones(snap *inventory.Snapshot) []*inventory.ZoneInventory {
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
	return zones
}

// findingIndex finds the findings of an object and remembers which ones a step took.
type findingIndex struct {
	byScope map[string][]scanner.Finding
	used    map[string]bool
}

// scopeKey names the scope of a zone or, when zoneID is empty, of an account.
func scopeKey(zoneID, accountID string) string {
	if zoneID != "" {
		return "zone:" + zoneID
	}
	return "account:" + accountID
}

// newFindingIndex indexes the live findings by scope; file findings have no object to plan.
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

// unplanned returns the fingerprints of the findings no step took, in their order.
func (ix *findingIndex) unplanned(fs []scanner.Finding) []string {
	var out []string
	for _, f := range fs {
		if !ix.used[f.Fingerprint] {
			out = append(out, f.Fingerprint)
		}
	}
	return out
}
