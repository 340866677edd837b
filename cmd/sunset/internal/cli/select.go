package cli

import (
	"fmt"

	"github.com/sunsetscan/sunset/migrate"
	"github.com/sunsetscan/sunset/scanner/collect"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// selectSnapshot narrows a saved snapshot (--snapshot, or a journal's) to what --account,
// --zone and --zone-filter select, as a live scan with them collects: a selection that
// names what the snapshot does not hold is a usage error (exit 2), as it is live.
func selectSnapshot(snap *inventory.Snapshot, o *scanOptions) (*inventory.Snapshot, error) {
	out, err := collect.SelectSnapshot(snap, o.collect)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	return out, nil
}

// selectPlan narrows a plan to the scopes the selection keeps of its snapshot (sel, from
// selectSnapshot): the zones it holds, and the accounts named with --account. Account
// scopes need their account named whenever zones are selected: a zone selection alone
// never writes account objects (notification policies, pools, Access applications). It
// returns the plan and how many account scopes were left out for that reason.
func selectPlan(p *migrate.Plan, sel *inventory.Snapshot, o *scanOptions) (*migrate.Plan, int) {
	zoneSel := len(o.collect.Zones) > 0 || o.collect.ZoneFilter != ""
	if !zoneSel && len(o.collect.Accounts) == 0 {
		return p, 0
	}
	zones, accounts, named := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, z := range sel.Zones {
		zones[z.Zone.ID] = true
	}
	for _, id := range o.collect.Accounts {
		named[id] = true
	}
	left := 0
	for _, a := range p.Accounts {
		switch {
		case named[a.AccountID]:
			accounts[a.AccountID] = true
		case zoneSel && len(named) == 0:
			left++
		}
	}
	return p.Only(zones, accounts), left
}

// noteAccountsLeft says that account scopes were left out of an apply for a zone selection.
func noteAccountsLeft(s *Streams, left int) {
	if left > 0 {
		fmt.Fprintf(s.Err, "sunset: %d account scope(s) left out: a zone selection alone never writes account objects; name the account with --account ID to include it\n", left)
	}
}

// narrowApply applies --zone, --zone-filter and --account to an apply's plan, whatever its
// source: a live scan or --snapshot (already narrowed), a saved plan, or a journal (its plan
// and snapshot; the journal itself stays whole). A selection that keeps no scope of a plan
// that has some is a usage error.
func narrowApply(s *Streams, o *scanOptions, run *applyRun) error {
	if run.loaded != nil {
		snap, err := selectSnapshot(run.snap, o)
		if err != nil {
			return err
		}
		run.snap = snap
	}
	plan, left := selectPlan(run.plan, run.snap, o)
	if len(plan.Zones)+len(plan.Accounts)+left == 0 && len(run.plan.Zones)+len(run.plan.Accounts) > 0 {
		return usageErrorf("--zone, --zone-filter and --account select no zone or account of the plan")
	}
	noteAccountsLeft(s, left)
	run.plan = plan
	if run.loaded != nil {
		run.loaded.Plan, run.loaded.Snapshot = plan, run.snap
	}
	return nil
}
