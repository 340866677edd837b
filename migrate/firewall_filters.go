package migrate

import (
	"fmt"
	"sort"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// filterUsers maps each filter id to the ids of the firewall rules that use it.
func filterUsers(rules []inventory.FirewallRule) map[string][]string {
	users := map[string][]string{}
	for _, fr := range rules {
		if fr.Filter.ID != "" {
			users[fr.Filter.ID] = append(users[fr.Filter.ID], fr.ID)
		}
	}
	return users
}

// deleteUnusedFilters deletes, in filter id order, the filters whose every rule this plan
// deletes (deleteOf: rule id -> its delete step); a filter of a kept rule stays.
func (m *firewallMigration) deleteUnusedFilters(users map[string][]string, deleteOf map[string]string, kept map[string]bool) {
	filterIDs := make([]string, 0, len(users))
	for id := range users {
		filterIDs = append(filterIDs, id)
	}
	sort.Strings(filterIDs)
	for _, fid := range filterIDs {
		if kept[fid] {
			continue
		}
		if deps, all := ruleDeletes(users[fid], deleteOf); all {
			m.deleteFilter(fid, deps)
		}
	}
}

// ruleDeletes returns the delete steps of the rules, and whether every rule has one.
func ruleDeletes(ruleIDs []string, deleteOf map[string]string) ([]string, bool) {
	var deps []string
	for _, rid := range ruleIDs {
		d, ok := deleteOf[rid]
		if !ok {
			return nil, false
		}
		deps = append(deps, d)
	}
	return deps, true
}

// deleteFilter deletes a filter once its rules' delete steps (deps) are done.
func (m *firewallMigration) deleteFilter(fid string, deps []string) {
	resolves := m.b.findings(vocab.Filters, vocab.KindFilter, fid)
	resolves = append(resolves, m.b.findings(vocab.GeoIPFieldNames, vocab.KindExpression, fid)...)
	m.b.add(phaseFilters, Step{
		ID: string(KindFilterDelete) + ":" + fid, Kind: KindFilterDelete, Change: ChangeDelete,
		Method: "DELETE", Path: zonePath(m.zid, "filters", fid),
		DependsOn: deps, Resolves: resolves, Risk: RiskLow,
		Title:  "Delete filter " + named(m.filterDescription(fid), fid),
		Reason: fmt.Sprintf("No firewall rule uses it once %s deleted; custom rules carry their expression inline.", plural(len(deps), "rule is", "rules are")),
		Note:   "The API refuses to delete a filter that another feature still uses (or one created by the combined rule+filter call): if it does, keep the filter; it is never forced.",
	})
	m.b.retire("cloudflare_filter", fid)
}

// filterDescription is the description of the zone's filter with the id (the last one
// listed, should the snapshot repeat it), "" when unknown.
func (m *firewallMigration) filterDescription(fid string) string {
	desc := ""
	for _, f := range m.b.z.Filters {
		if f.ID == fid {
			desc = f.Description
		}
	}
	return desc
}

// deleteOrphanFilters deletes the filters no firewall rule refers to. The API refuses to
// delete a filter a rule still references, so the call cannot break anything that uses it.
func (m *firewallMigration) deleteOrphanFilters(users map[string][]string) {
	for _, f := range m.b.z.Filters {
		if len(users[f.ID]) > 0 {
			continue
		}
		resolves := m.b.findings(vocab.Filters, vocab.KindFilter, f.ID)
		resolves = append(resolves, m.b.findings(vocab.GeoIPFieldNames, vocab.KindExpression, f.ID)...)
		resolves = append(resolves, m.b.findings(vocab.ThreatScoreField, vocab.KindExpression, f.ID)...)
		if len(resolves) == 0 {
			continue
		}
		m.b.add(phaseFilters, Step{
			ID: string(KindFilterDelete) + ":" + f.ID, Kind: KindFilterDelete, Change: ChangeDelete,
			Method: "DELETE", Path: zonePath(m.zid, "filters", f.ID),
			Resolves: resolves, Risk: RiskLow,
			Title:  "Delete orphan filter " + named(f.Description, f.ID),
			Reason: "No firewall rule refers to it; custom rules carry their expression inline, so nothing needs it.",
			Note:   "The API refuses to delete a filter that a rule still references: if it does, a rule was added since the scan; keep the filter and build the plan again.",
		})
		m.b.retire("cloudflare_filter", f.ID)
	}
}
