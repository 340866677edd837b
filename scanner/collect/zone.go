package collect

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sourcegraph/conc"
	"golang.org/x/sync/semaphore"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// Zone settings read one by one: the CNAME flattening setting (replaced by DNS settings)
// and the deprecated single settings. The bulk GET /zones/:id/settings is itself
// deprecated, so it is not used even though it would save requests.
var zoneSettings = []string{"cname_flattening", "brotli", "minify", "mobile_redirect", "server_side_exclude", "privacy_pass"}

// Phases whose entry points are read: custom rules, rate limiting rules, managed rules and
// single redirects, which the migration plans merge into.
var entrypointPhases = []vocab.Phase{vocab.PhaseCustomRules, vocab.PhaseRateLimiting, vocab.PhaseManaged, vocab.PhaseDynamicRedirect}

const (
	// RequestsPerZone is the number of requests a zone costs when every list fits in one
	// page, no WAF package is listed and no entry point exists: 5 lists of firewall and
	// rate limiting objects, 6 zone settings, DNS settings, DNS records and the list of
	// rulesets.
	RequestsPerZone = 5 + 6 + 1 + 1 + 1
	// RequestsPerEntrypoint is what each existing entry point of the four phases adds.
	RequestsPerEntrypoint = 1
	// RequestsPerWAFZone is what a zone with previous-version WAF packages adds: its waf
	// setting, which says whether the previous version still runs.
	RequestsPerWAFZone = 1
	// RequestsPerActiveWAFPackage is what each active WAF package of a zone whose previous
	// version runs adds (groups, rules).
	RequestsPerActiveWAFPackage = 2
)

// zonePart is one independent unit of a zone's collection; parts may run concurrently
// (ZoneFanOut), so each stores its result under zoneScan.mu.
type zonePart func(ctx context.Context, s *zoneScan)

// zoneScan is the collection of one zone.
type zoneScan struct {
	src  Source
	rec  *recorder
	base string // "/zones/ID"

	// places bounds the zone's calls at once to Options.ZoneFanOut; nil when unbounded.
	places *semaphore.Weighted

	mu  sync.Mutex
	inv inventory.ZoneInventory
}

// call runs one request of the zone (what is the path relative to the zone), once one of
// the zone's places is free (Options.ZoneFanOut).
func (s *zoneScan) call(ctx context.Context, what string, fn func(context.Context) error) bool {
	if s.places != nil {
		if s.places.Acquire(ctx, 1) == nil {
			defer s.places.Release(1)
		} // else cancelled: do records the part as interrupted
	}
	return s.rec.do(ctx, what, s.base+"/"+what, fn)
}

// together runs calls that depend on nothing but what is already read: at once, or in
// sequence when the zone's parts run in sequence (Options.ZoneFanOut 1).
func (s *zoneScan) together(calls []func()) {
	if s.rec.c.opts.ZoneFanOut == 1 || len(calls) < 2 {
		for _, call := range calls {
			call()
		}
		return
	}
	var wg conc.WaitGroup
	for _, call := range calls {
		wg.Go(call)
	}
	wg.Wait()
}

func (s *zoneScan) store(f func(inv *inventory.ZoneInventory)) {
	s.mu.Lock()
	f(&s.inv)
	s.mu.Unlock()
}

// zoneParts lists the parts of a zone, independent of each other (the reads that depend on
// another are chained inside one part: partWAF, partRulesets), in the order they run in
// sequence. The first two reach different services (DNS, then the firewall), so that the
// failure breaker (see Options.FailureLimit) only skips a zone when more than one service
// fails for it.
func zoneParts() []zonePart {
	parts := make([]zonePart, len(namedParts))
	for i, p := range namedParts {
		parts[i] = p.run
	}
	return parts
}

// namedParts are the zone's parts in zoneParts' order, each named by its first call.
var namedParts = func() []struct {
	name string
	run  zonePart
} {
	type named = struct {
		name string
		run  zonePart
	}
	parts := []named{
		{"dns_settings", partDNSSettings}, {"firewall/rules", partFirewallRules}, {"filters", partFilters},
		{"rate_limits", partRateLimits}, {"firewall/waf/packages", partWAF}, {"firewall/waf/overrides", partWAFOverrides},
	}
	for _, name := range zoneSettings {
		parts = append(parts, named{"settings/" + name, partSetting(name)})
	}
	return append(parts, named{"dns_records", partDNSRecords}, named{"rulesets", partRulesets})
}()

// runParts runs a zone's parts, with up to Options.ZoneFanOut calls at once (all of them
// when it is <= 0), in two rounds while the failure breaker is on: the first FailureLimit parts, then
// the rest, so that a zone whose first calls all failed skips the rest (see
// Options.FailureLimit) whatever the order in which concurrent calls end.
func (c *collector) runParts(ctx context.Context, s *zoneScan, parts []zonePart) {
	fanOut := c.opts.ZoneFanOut
	if fanOut == 1 {
		for _, part := range parts {
			part(ctx, s)
		}
		return
	}
	rounds := [][]zonePart{parts}
	if limit := c.opts.breakerLimit(); limit > 0 && limit < len(parts) {
		rounds = [][]zonePart{parts[:limit], parts[limit:]}
	}
	if fanOut > 1 {
		s.places = semaphore.NewWeighted(int64(fanOut))
	}
	for _, round := range rounds {
		var wg conc.WaitGroup
		for _, part := range round {
			wg.Go(func() { part(ctx, s) })
		}
		wg.Wait()
	}
}

// sequenceRank is a call's place when the zone's parts run in sequence: its part's index
// in namedParts (a call that follows another in its part counts with it).
func sequenceRank(what string) int {
	if what == "settings/waf" {
		what = "firewall/waf/packages"
	}
	best, rank := -1, len(namedParts)
	for i, p := range namedParts {
		if name := p.name; (what == name || strings.HasPrefix(what, name+"/")) && len(name) > best {
			best, rank = len(name), i
		}
	}
	return rank
}

// scanZone collects one zone. It never fails: failures are recorded in the inventory.
func (c *collector) scanZone(ctx context.Context, z inventory.Zone) inventory.ZoneInventory {
	count := func() int { return 0 }
	if c.opts.RequestsFor != nil {
		ctx, count = c.opts.RequestsFor(ctx)
	}
	name := z.Name
	if name == "" {
		name = z.ID
	}
	s := &zoneScan{
		src:  c.src,
		rec:  &recorder{c: c, scope: "zone " + name, rank: sequenceRank},
		base: "/zones/" + z.ID,
		inv:  inventory.ZoneInventory{Zone: z},
	}
	c.runParts(ctx, s, zoneParts())
	inv := s.inv
	inv.Errors = s.rec.errors
	inv.Retired = s.rec.retired
	if c.opts.RequestsFor != nil {
		inv.Requests = count()
	} else {
		inv.Requests = s.rec.calls
	}
	finishErrors(&inv.Errors, &inv.Retired)
	c.reportZone(&inv)
	return inv
}

func partFirewallRules(ctx context.Context, s *zoneScan) {
	s.call(ctx, "firewall/rules", func(ctx context.Context) error {
		v, err := s.src.ListFirewallRules(ctx, s.inv.Zone.ID)
		s.store(func(inv *inventory.ZoneInventory) { inv.FirewallRules = v })
		return err
	})
}

func partFilters(ctx context.Context, s *zoneScan) {
	s.call(ctx, "filters", func(ctx context.Context) error {
		v, err := s.src.ListFilters(ctx, s.inv.Zone.ID)
		s.store(func(inv *inventory.ZoneInventory) { inv.Filters = v })
		return err
	})
}

func partRateLimits(ctx context.Context, s *zoneScan) {
	s.call(ctx, "rate_limits", func(ctx context.Context) error {
		v, err := s.src.ListRateLimits(ctx, s.inv.Zone.ID)
		s.store(func(inv *inventory.ZoneInventory) { inv.RateLimits = v })
		return err
	})
}

// wafPackageActive reports whether a previous-version WAF package is in use, so its groups
// and rules matter: a package is active unless its status says otherwise (the API sends
// "active"), and the anomaly (OWASP) package is off when its sensitivity is "off".
func wafPackageActive(p inventory.WAFPackage) bool {
	if p.Status != "" && p.Status != "active" {
		return false
	}
	return !p.IsOWASP() || !strings.EqualFold(p.Sensitivity, "off")
}

// partWAF reads the WAF packages, then, when there are any, the zone's waf setting (the
// previous version's on/off switch), then the groups and rules of the active packages of a
// zone where it runs (together): each step depends on the one before.
func partWAF(ctx context.Context, s *zoneScan) {
	zoneID := s.inv.Zone.ID
	var pkgs []inventory.WAFPackage
	if !s.call(ctx, "firewall/waf/packages", func(ctx context.Context) error {
		var err error
		pkgs, err = s.src.ListWAFPackages(ctx, zoneID)
		return err
	}) || len(pkgs) == 0 {
		return
	}
	off := false
	s.call(ctx, "settings/waf", func(ctx context.Context) error {
		p, err := s.src.GetZoneSetting(ctx, zoneID, "waf")
		if err != nil || p == nil {
			return err
		}
		v := *p
		v.ID = "waf"
		on, known := inventory.SettingOn(v.Value)
		off = known && !on
		s.store(func(inv *inventory.ZoneInventory) { inv.Settings = append(inv.Settings, v) })
		return nil
	})
	out := make([]inventory.WAFPackageInventory, len(pkgs))
	var calls []func()
	for i, p := range pkgs {
		out[i].Package = p
		if off || !wafPackageActive(p) {
			continue
		}
		base := "firewall/waf/packages/" + p.ID
		calls = append(calls, func() {
			s.call(ctx, base+"/groups", func(ctx context.Context) error {
				var err error
				out[i].Groups, err = s.src.ListWAFGroups(ctx, zoneID, p.ID)
				return err
			})
		}, func() {
			s.call(ctx, base+"/rules", func(ctx context.Context) error {
				var err error
				out[i].Rules, err = s.src.ListWAFRules(ctx, zoneID, p.ID)
				return err
			})
		})
	}
	s.together(calls)
	s.store(func(inv *inventory.ZoneInventory) { inv.WAFPackages = out })
}

func partWAFOverrides(ctx context.Context, s *zoneScan) {
	s.call(ctx, "firewall/waf/overrides", func(ctx context.Context) error {
		v, err := s.src.ListWAFOverrides(ctx, s.inv.Zone.ID)
		s.store(func(inv *inventory.ZoneInventory) { inv.WAFOverrides = v })
		return err
	})
}

func partSetting(name string) zonePart {
	return func(ctx context.Context, s *zoneScan) {
		s.call(ctx, "settings/"+name, func(ctx context.Context) error {
			p, err := s.src.GetZoneSetting(ctx, s.inv.Zone.ID, name)
			if err != nil || p == nil {
				return err
			}
			v := *p
			if v.ID == "" {
				v.ID = name
			}
			s.store(func(inv *inventory.ZoneInventory) { inv.Settings = append(inv.Settings, v) })
			return nil
		})
	}
}

func partDNSSettings(ctx context.Context, s *zoneScan) {
	s.call(ctx, "dns_settings", func(ctx context.Context) error {
		v, err := s.src.GetDNSSettings(ctx, s.inv.Zone.ID)
		s.store(func(inv *inventory.ZoneInventory) { inv.DNSSettings = v })
		return err
	})
}

// keepRecord reports whether a DNS record matters to the catalog: SRV records (and any
// record with the deprecated SRV data fields), and records that still carry zone_id,
// zone_name or locked.
func keepRecord(r inventory.DNSRecord) bool {
	return r.Type == "SRV" || r.Data.HasDeprecatedSRVFields() ||
		r.ZoneID != nil || r.ZoneName != nil || r.Locked != nil
}

func partDNSRecords(ctx context.Context, s *zoneScan) {
	s.call(ctx, "dns_records", func(ctx context.Context) error {
		all, err := s.src.ListDNSRecords(ctx, s.inv.Zone.ID, "")
		var kept []inventory.DNSRecord
		for _, r := range all {
			if keepRecord(r) {
				kept = append(kept, r)
			}
		}
		s.store(func(inv *inventory.ZoneInventory) { inv.DNSRecords = kept })
		return err
	})
}

// isEntrypoint reports whether a listed ruleset is the zone's entry point of phase.
func isEntrypoint(rs inventory.Ruleset, phase vocab.Phase) bool {
	return rs.Phase == phase && (rs.Kind == "" || rs.Kind == "zone")
}

// partRulesets lists the zone's rulesets (without their rules), then reads (together) the
// entry points of the phases that exist: most zones still on the old APIs have none, so
// one listing is cheaper than three GETs answering 404.
func partRulesets(ctx context.Context, s *zoneScan) {
	zoneID := s.inv.Zone.ID
	var listed []inventory.Ruleset
	if !s.call(ctx, "rulesets", func(ctx context.Context) error {
		var err error
		listed, err = s.src.ListRulesets(ctx, zoneID)
		return err
	}) {
		return
	}
	var calls []func()
	for _, phase := range entrypointPhases {
		if slices.ContainsFunc(listed, func(rs inventory.Ruleset) bool { return isEntrypoint(rs, phase) }) {
			calls = append(calls, func() { readEntrypoint(ctx, s, phase) })
		}
	}
	s.together(calls)
}

// readEntrypoint reads the zone's entry point ruleset of phase.
func readEntrypoint(ctx context.Context, s *zoneScan, phase vocab.Phase) {
	zoneID := s.inv.Zone.ID
	s.call(ctx, "rulesets/phases/"+string(phase)+"/entrypoint", func(ctx context.Context) error {
		rs, err := s.src.GetEntrypointRuleset(ctx, zoneID, phase)
		if err != nil || rs == nil {
			return err
		}
		v := *rs
		if v.Phase == "" {
			v.Phase = phase
		}
		s.store(func(inv *inventory.ZoneInventory) { inv.Rulesets = append(inv.Rulesets, v) })
		return nil
	})
}

// Parts of an account's own collection that decide whether a read for the plan follows.
const (
	partPools     = "load_balancers/pools"
	partBookmarks = "access/bookmarks"
)

// accountParts names the parts of an account's own collection that are always read, as
// recorded in errors; the reads for the plan (scanForPlan) follow only where needed.
var accountParts = []string{"dns_settings", partPools, "tunnels", partBookmarks}

// scanAccount collects an account's own objects; failures are recorded in the inventory.
func (c *collector) scanAccount(ctx context.Context, a inventory.AccountInventory) inventory.AccountInventory {
	id := a.Account.ID
	r := &recorder{c: c, scope: "account " + id}
	base := "/accounts/" + id + "/"
	r.do(ctx, accountParts[0], base+accountParts[0], func(ctx context.Context) error {
		var err error
		a.DNSSettings, err = c.src.GetAccountDNSSettings(ctx, id)
		return err
	})
	r.do(ctx, accountParts[1], base+accountParts[1], func(ctx context.Context) error {
		var err error
		a.LoadBalancerPools, err = c.src.ListLoadBalancerPools(ctx, id)
		return err
	})
	r.do(ctx, accountParts[2], base+accountParts[2], func(ctx context.Context) error {
		var err error
		a.Tunnels, err = c.src.ListTunnels(ctx, id)
		return err
	})
	r.do(ctx, accountParts[3], base+accountParts[3], func(ctx context.Context) error {
		var err error
		a.AccessBookmarks, err = c.src.ListAccessBookmarks(ctx, id)
		return err
	})
	c.scanForPlan(ctx, r, &a)
	a.Errors = append(a.Errors, r.errors...)
	a.Retired = append(a.Retired, r.retired...)
	return a
}

// scanForPlan reads, once the bookmarks and pools are read, the account's objects a plan
// may otherwise create twice: its Access applications when it has a bookmark, its
// notification policies when a pool has a notification_email (see the package
// documentation). A failure is that part's error, never fatal.
func (c *collector) scanForPlan(ctx context.Context, r *recorder, a *inventory.AccountInventory) {
	id := a.Account.ID
	if a.NeedsAccessApps() {
		r.doOptional(ctx, inventory.PartAccessApps, func(ctx context.Context) error {
			var err error
			a.AccessApps, err = c.src.ListAccessApps(ctx, id)
			return err
		})
	}
	if a.NeedsNotificationPolicies() {
		r.doOptional(ctx, inventory.PartNotificationPolicies, func(ctx context.Context) error {
			var err error
			a.NotificationPolicies, err = c.src.ListNotificationPolicies(ctx, id)
			return err
		})
	}
}
