package migrate

// Only is the plan for the zones and accounts given (by id) alone, its summary counted
// again and its unread marks narrowed alike (Incomplete stays: the scan was what it was):
// how --zone, --zone-filter and --account narrow a saved plan or a journal's.
func (p *Plan) Only(zones, accounts map[string]bool) *Plan {
	out := *p
	out.Zones, out.Accounts = []ZonePlan{}, []AccountPlan{}
	out.Unread = onlyUnread(p.Unread, zones, accounts)
	for _, z := range p.Zones {
		if zones[z.ZoneID] {
			out.Zones = append(out.Zones, z)
		}
	}
	for _, a := range p.Accounts {
		if accounts[a.AccountID] {
			out.Accounts = append(out.Accounts, a)
		}
	}
	out.finish()
	return &out
}
