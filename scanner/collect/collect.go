// Package collect turns a live account, read through a Source (the API client), into an
// *inventory.Snapshot: the accounts, their zones and every object the deprecation catalog
// and the migration plans read, sorted, with the parts that could not be read recorded
// instead of failing the whole scan.
//
// # Flow
//
//  1. Accounts: Options.Accounts are fetched one by one (GET /accounts/:id); without them
//     every account the credentials can see is listed (GET /accounts, paginated).
//  2. Zones, per account (bounded by Options.Workers): when Options.Zones holds only zone
//     names, one name-filtered listing per name (GET /zones?account.id=A&name=N); when it
//     holds a zone id, or is empty, one full listing of the account's zones. The selection
//     (names, ids, Options.ZoneFilter glob) is then applied locally in every case, so a
//     server that ignores the name filter still yields the right zones. A --zone entry that
//     matches nothing is an *UnmatchedZonesError before any zone is scanned. With a zone
//     selection, accounts owning none of the selected zones are left out, unless they were
//     named in Options.Accounts.
//  3. One conc pool runs a task per account (account-scoped objects) and a task per zone,
//     Options.Workers at once, not counting the zones whose requests all wait out a
//     Retry-After or a backoff (Options.WaitsFor): such a zone lends its place to the next.
//     Inside a zone the independent reads go out at once (Options.ZoneFanOut); only the WAF
//     packages, their waf setting and their groups and rules, and the ruleset list and its
//     entry points, follow each other. The CLI's client sends at most Workers requests at
//     once, and a request waiting before a retry holds none (cfapi.Config.MaxInFlight), so
//     other zones' requests go meanwhile.
//
// # Requests per zone
//
// A zone costs 14 requests (RequestsPerZone) when every list fits in one page, it lists no
// previous-version WAF package and no entry point ruleset exists:
//
//	firewall/rules, filters, rate_limits, firewall/waf/packages,
//	firewall/waf/overrides                                                   5
//	settings/{cname_flattening,brotli,minify,mobile_redirect,
//	          server_side_exclude,privacy_pass} (single GETs)                  6
//	dns_settings                                                             1
//	dns_records (one listing of every type)                                  1
//	rulesets (the list, without rules)                                       1
//
// plus 1 per entry point that exists among the phases http_request_firewall_custom,
// http_ratelimit, http_request_firewall_managed and http_request_dynamic_redirect (read to
// merge into later), plus 1 for settings/waf when the zone lists WAF packages (the previous
// version's switch), plus 2 per active WAF package while that switch is on (its groups and
// its rules): a zone with one active package and a custom rules entry point costs 18. Every
// further page of a list is one more request. An account costs 4 (dns_settings,
// load_balancers/pools, tunnels, access/bookmarks) plus its zone listing pages, plus one GET
// when named in Options.Accounts, plus 1 for access/apps when it has an Access bookmark and
// 1 for alerting/v3/policies when a load balancer pool has a notification_email.
//
// Those two are read for the migration plan, not for a finding: a plan replaces a bookmark
// with an Access application of type bookmark and a pool's notification_email with a
// notification policy, and must not create one when one that does the same exists. They are
// read only where the plan may create one (inventory.AccountInventory.NeedsAccessApps,
// NeedsNotificationPolicies), so an account without either costs nothing more. Their
// failure never ends the collection, not even a 403 that IsFatal would call fatal (a token
// allowed to read bookmarks and pools may lack the permission to read applications or
// policies): it is recorded as an error of that part (inventory.PartAccessApps,
// PartNotificationPolicies), which makes the snapshot incomplete and tells the plan that it
// could not check; every deprecated object was read all the same.
//
// The deprecated dns_settings/use_apex_ns and dns_settings/secondary_overrides endpoints
// are not read: the zone's dns_settings reflects both (multi_provider, secondary_overrides),
// so they answered nothing new, and a scan calling them would be a caller of deprecated
// endpoints itself. A snapshot written before still holds their values (LegacyDNSSettings),
// and its scan uses them.
//
// The four entry points are found through the ruleset list rather than four GETs: zones
// still on the old APIs mostly have none, so one request replaces four 404s, and the list
// costs one request more only for a zone that has all four. The bulk zone settings
// endpoint would replace the six single GETs but is itself deprecated, so it is not used.
//
// DNS records are read with one listing of all types rather than one per type: the SRV
// records (deprecated data.service/proto/name) and the records still showing zone_id,
// zone_name or locked come from the same response, and a zone usually fits in one page.
// Only those records are kept in the snapshot; the others are not needed by any catalog
// entry or plan, and dropping them keeps memory proportional to the findings.
//
// A WAF package is active unless its status is set to something other than "active", or
// it is the anomaly (OWASP) package with sensitivity "off"; groups and rules of inactive
// packages have nothing to migrate and are not fetched.
//
// # Errors and the result contract
//
//   - (snapshot, nil): the collection ran to its end. Parts that failed after the client's
//     retries are in ZoneInventory.Errors / AccountInventory.Errors and Snapshot.Incomplete
//     is set; endpoints past their end of life (Options.IsRetired) are in Retired, and are
//     not failures. A zone or account whose first Options.FailureLimit calls all failed has
//     the rest of its parts recorded as SkippedAfterFailures instead of requested.
//   - (snapshot, ctx.Err()): the context was cancelled or timed out. The snapshot holds
//     everything read so far, is sorted and has Incomplete set; every zone that was not
//     started has one error {What: "zone", Message: NotScannedInterrupted}, and every part
//     of a started zone or account that was not read has {What: part, Message:
//     NotScannedInterrupted}. Callers still write their reports from it.
//   - (nil, err) otherwise: an error for which Options.IsFatal is true (its chain is kept,
//     so errors.As finds the client's error), a listing of accounts that failed, invalid
//     Options, or an *UnmatchedZonesError.
//
// The snapshot holds typed objects only, never raw responses.
package collect

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"sync"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sourcegraph/conc/pool"
	"golang.org/x/sync/semaphore"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// NotScannedInterrupted is the message of the CollectError recorded for a zone, or a part
// of one, that was not read because the collection was cancelled.
const NotScannedInterrupted = "not scanned: interrupted"

// Defaults of Options.
const (
	DefaultWorkers = 8
)

// Source is what collection needs from the API client, and nothing more. List methods
// return every page. A method returns an error the Options functions classify (fatal,
// retired, or a failure of that part).
type Source interface {
	// ListAccounts lists every account the credentials can see.
	ListAccounts(ctx context.Context) ([]inventory.Account, error)
	// GetAccount reads one account.
	GetAccount(ctx context.Context, accountID string) (*inventory.Account, error)
	// ListZones lists the zones of an account; a non-empty name asks the server for the
	// zone of that exact name only.
	ListZones(ctx context.Context, accountID, name string) ([]inventory.Zone, error)

	// ListFirewallRules lists a zone's firewall rules, each with its filter embedded.
	ListFirewallRules(ctx context.Context, zoneID string) ([]inventory.FirewallRule, error)
	// ListFilters lists a zone's filters (to find the orphaned and the shared ones).
	ListFilters(ctx context.Context, zoneID string) ([]inventory.Filter, error)
	// ListWAFPackages lists a zone's previous-version WAF packages.
	ListWAFPackages(ctx context.Context, zoneID string) ([]inventory.WAFPackage, error)
	// ListWAFGroups lists the rule groups of a WAF package.
	ListWAFGroups(ctx context.Context, zoneID, packageID string) ([]inventory.WAFGroup, error)
	// ListWAFRules lists the rules of a WAF package.
	ListWAFRules(ctx context.Context, zoneID, packageID string) ([]inventory.WAFRule, error)
	// ListWAFOverrides lists a zone's URL-based WAF overrides.
	ListWAFOverrides(ctx context.Context, zoneID string) ([]inventory.WAFOverride, error)
	// ListRateLimits lists a zone's previous-version rate limits.
	ListRateLimits(ctx context.Context, zoneID string) ([]inventory.RateLimit, error)
	// GetZoneSetting reads one zone setting (GET /zones/:id/settings/NAME).
	GetZoneSetting(ctx context.Context, zoneID, name string) (*inventory.Setting, error)
	// GetDNSSettings reads a zone's DNS settings.
	GetDNSSettings(ctx context.Context, zoneID string) (*inventory.DNSSettings, error)
	// ListDNSRecords lists a zone's DNS records of one type, or of every type when
	// recordType is "".
	ListDNSRecords(ctx context.Context, zoneID, recordType string) ([]inventory.DNSRecord, error)
	// ListRulesets lists a zone's rulesets without their rules (to see which phases have an
	// entry point).
	ListRulesets(ctx context.Context, zoneID string) ([]inventory.Ruleset, error)
	// GetEntrypointRuleset reads a zone's entry point ruleset of a phase; nil, nil when the
	// phase has none.
	GetEntrypointRuleset(ctx context.Context, zoneID string, phase vocab.Phase) (*inventory.Ruleset, error)

	// GetAccountDNSSettings reads an account's DNS settings.
	GetAccountDNSSettings(ctx context.Context, accountID string) (*inventory.AccountDNSSettings, error)
	// ListLoadBalancerPools lists an account's load balancer pools.
	ListLoadBalancerPools(ctx context.Context, accountID string) ([]inventory.LoadBalancerPool, error)
	// ListTunnels lists an account's legacy tunnels (deprecated API).
	ListTunnels(ctx context.Context, accountID string) ([]inventory.Tunnel, error)
	// ListAccessBookmarks lists an account's Access bookmarks (deprecated API).
	ListAccessBookmarks(ctx context.Context, accountID string) ([]inventory.AccessBookmark, error)
	// ListAccessApps lists an account's Access applications; called only for an account
	// with Access bookmarks (inventory.AccountInventory.NeedsAccessApps).
	ListAccessApps(ctx context.Context, accountID string) ([]inventory.AccessApp, error)
	// ListNotificationPolicies lists an account's notification policies; called only for
	// an account with a pool's notification_email (NeedsNotificationPolicies).
	ListNotificationPolicies(ctx context.Context, accountID string) ([]inventory.NotificationPolicy, error)
}

// Progress is reported after each zone.
type Progress struct {
	// ZonesDone counts the zones whose scan began and ended, failed parts or not.
	ZonesDone int
	// ZonesTotal is the number of zones selected.
	ZonesTotal int
	// ZonesFailed counts the done zones with at least one error.
	ZonesFailed int
	// ZonesReused counts the done zones Options.Reuse took, without a request.
	ZonesReused int
	// Requests sums the requests of the done zones.
	Requests int
}

// Options steer a collection. The zero value collects every zone of every visible account
// with DefaultWorkers workers.
type Options struct {
	// Accounts are account ids to collect; empty means every account the credentials see.
	Accounts []string
	// Zones selects zones by name or id; empty means every zone.
	Zones []string
	// ZoneFilter is a path.Match glob on zone names ("*.example.com"); empty means all.
	ZoneFilter string
	// Workers bounds the zones (and accounts) collected at once, not counting the zones
	// all of whose requests in progress wait before a retry (see WaitsFor); <= 0 means
	// DefaultWorkers. The CLI's client also sends at most Workers requests at once
	// (cfapi.Config.MaxInFlight).
	Workers int
	// ZoneFanOut bounds the parts of one zone read at once; <= 0 means all of them (each
	// part is one request or a chain of dependent ones), 1 means in sequence.
	ZoneFanOut int
	// IsRetired reports whether an error means the endpoint is past its end of life: the
	// call is recorded in Retired, not in Errors. Nil means never.
	IsRetired func(error) bool
	// IsFatal reports whether an error must abort the whole collection (401/403). Nil
	// means never.
	IsFatal func(error) bool
	// StatusOf returns the HTTP status carried by an error (0 when none); it fills
	// Retired.Status. Nil leaves Status 0.
	StatusOf func(error) int
	// WaitsFor wraps a zone's context so the Source calls hook(true) when a request of the
	// zone begins waiting out a Retry-After or a backoff, and hook(false) when that wait
	// ends (cfapi.WithWaitHook). While any of its requests waits, a zone gives back its
	// place among the Workers, so another zone starts; it takes a place again, in turn with
	// the zones waiting to start, when none waits. Nil: a zone keeps its place to its end.
	WaitsFor func(ctx context.Context, hook func(waiting bool)) context.Context
	// RequestsFor wraps a zone's context so the client counts that zone's requests; the
	// returned function reads the count. Nil counts calls to the Source instead (one per
	// call, whatever the number of pages).
	RequestsFor func(ctx context.Context) (context.Context, func() int)
	// Progress is called after each zone whose scan began, never concurrently; it must be
	// cheap, as the next report waits for it.
	Progress func(Progress)
	// Source is recorded in Snapshot.Source (e.g. the API base URL).
	Source string
	// OnZone, when set, receives each collected zone, its lists sorted, as soon as it is
	// read; the snapshot then keeps only the zone's identity, errors, retirements and
	// request count, so memory holds what OnZone keeps rather than the whole account. It is
	// called from the workers, concurrently: it must be safe for concurrent use. Zones never
	// started (an interrupted run) are not passed to it; they are in the snapshot.
	OnZone func(*inventory.ZoneInventory)
	// Admit, when set, is called before each zone is started and may wait: a consumer of
	// OnZone slower than the collection (a plan built and verified zone by zone) holds the
	// next zone back until it has room, so memory does not hold the zones read and not yet
	// taken. An error (the context's) starts no more zones: the collection ends as an
	// interrupted one.
	Admit func(ctx context.Context) error
	// Reuse, when set, is asked for each selected zone before it is scanned: a zone it
	// returns with true is taken as read, without a request, and handed to OnZone like a
	// collected one (see resume.go). It is called from the workers, concurrently.
	Reuse func(inventory.Zone) (*inventory.ZoneInventory, bool)
	// ReuseAccount is Reuse for an account's own objects (resume.go).
	ReuseAccount func(accountID string) (*inventory.AccountInventory, bool)
	// ListOnly stops after the zone listing: the snapshot holds the selected accounts and
	// zones without reading them (what --dry-run prices).
	ListOnly bool
	// FailureLimit is how many calls of one zone or account may fail (after the client's
	// retries) before any call of it got an answer; at the limit the rest of it is skipped
	// and recorded as SkippedAfterFailures. 0 means DefaultFailureLimit, a negative value
	// never skips.
	FailureLimit int
}

// DefaultFailureLimit is Options.FailureLimit's default: when the first two calls of a
// zone (to different services: DNS settings, then firewall rules) both fail, the zone
// itself is failing, and every further part would only burn retries. A zone that answered
// once is never skipped, so unrelated failures cannot cost its other parts, and the
// outcome does not depend on the order in which parts complete.
const DefaultFailureLimit = 2

func (o Options) breakerLimit() int {
	if o.FailureLimit == 0 {
		return DefaultFailureLimit
	}
	return o.FailureLimit
}

// Collect reads the accounts and zones that opts select from src and returns them as a
// sorted snapshot. See the package documentation for the result contract.
func Collect(ctx context.Context, src Source, opts Options) (*inventory.Snapshot, error) {
	if src == nil {
		return nil, errors.New("collect: no source")
	}
	if opts.ZoneFilter != "" {
		if _, err := path.Match(opts.ZoneFilter, ""); err != nil {
			return nil, fmt.Errorf("collect: zone filter %q: %w", opts.ZoneFilter, err)
		}
	}
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	c := &collector{src: src, opts: &opts, sel: newSelection(opts)}
	// runCtx is cancelled by the caller (interruption) or by the first fatal error.
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	c.cancel = cancel

	accounts, err := c.accounts(runCtx)
	if err != nil {
		return nil, err
	}
	snap := &inventory.Snapshot{SchemaVersion: inventory.SnapshotSchemaVersion, Source: opts.Source}
	if accounts == nil { // interrupted while listing accounts
		snap.Incomplete = true
		return snap, ctx.Err()
	}

	listed := c.listZones(runCtx, accounts)
	if c.fatal != nil {
		return nil, c.fatal
	}
	if ctx.Err() == nil {
		if missing := c.sel.unmatched(listed); len(missing) > 0 && !anyListingFailed(listed) {
			return nil, c.unmatchedError(runCtx, listed, missing)
		}
	}

	var zones []inventory.Zone
	snap.Accounts, zones = keptAccounts(listed)
	if opts.ListOnly {
		return listedOnly(snap, zones), nil
	}
	snap.Zones = c.scan(runCtx, snap.Accounts, zones)
	if c.fatal != nil {
		return nil, c.fatal
	}

	interrupted := finishSnapshot(snap)
	snap.Sort()
	if interrupted {
		snap.Incomplete = true
		if err := ctx.Err(); err != nil {
			return snap, err
		}
		return snap, context.Canceled
	}
	return snap, nil
}

// collector is the state of one Collect call.
type collector struct {
	src    Source
	opts   *Options
	sel    selection
	cancel context.CancelCauseFunc

	fatalOnce sync.Once
	fatal     error // set once, read after the pools' Wait

	progressMu sync.Mutex
	progress   Progress
}

// abort records the first fatal error and cancels everything still running.
func (c *collector) abort(err error) {
	c.fatalOnce.Do(func() {
		c.fatal = err
		c.cancel(err)
	})
}

func (c *collector) isFatal(err error) bool { return c.opts.IsFatal != nil && c.opts.IsFatal(err) }
func (c *collector) isRetired(err error) bool {
	return c.opts.IsRetired != nil && c.opts.IsRetired(err)
}

func (c *collector) statusOf(err error) int {
	if c.opts.StatusOf == nil {
		return 0
	}
	return c.opts.StatusOf(err)
}

// accounts resolves the accounts to collect. It returns nil, nil when interrupted.
func (c *collector) accounts(ctx context.Context) ([]inventory.AccountInventory, error) {
	if len(c.opts.Accounts) == 0 {
		list, err := c.src.ListAccounts(ctx)
		switch {
		case err == nil:
		case c.isFatal(err):
			return nil, fmt.Errorf("collect: listing accounts: %w", err)
		case ctx.Err() != nil:
			return nil, nil
		default:
			return nil, fmt.Errorf("collect: listing accounts: %w", err)
		}
		out := make([]inventory.AccountInventory, 0, len(list))
		seen := map[string]bool{}
		for _, a := range list {
			if !seen[a.ID] {
				seen[a.ID] = true
				out = append(out, inventory.AccountInventory{Account: a})
			}
		}
		return out, nil
	}
	// Named accounts are read in the zone listing step (their GET is one of its parts).
	out := []inventory.AccountInventory{}
	seen := map[string]bool{}
	for _, id := range c.opts.Accounts {
		if id != "" && !seen[id] {
			seen[id] = true
			out = append(out, inventory.AccountInventory{Account: inventory.Account{ID: id}})
		}
	}
	return out, nil
}

// listing is one account after its zones were listed.
type listing struct {
	inv     inventory.AccountInventory
	zones   []inventory.Zone // selected zones
	keep    bool             // the account goes into the snapshot
	failed  bool             // the zone listing did not complete
	matched map[string]bool  // Options.Zones entries matched by this account's zones
}

// keptAccounts returns the accounts that go into the snapshot and their selected zones, in
// listing order. A zone is kept once even if a server ignores account.id and lists it under
// several accounts.
func keptAccounts(listed []listing) ([]inventory.AccountInventory, []inventory.Zone) {
	var accounts []inventory.AccountInventory
	var zones []inventory.Zone
	seen := map[string]bool{}
	for _, l := range listed {
		if !l.keep {
			continue
		}
		accounts = append(accounts, l.inv)
		for _, z := range l.zones {
			if !seen[z.ID] {
				seen[z.ID] = true
				zones = append(zones, z)
			}
		}
	}
	return accounts, zones
}

// finishSnapshot puts every account's and zone's errors and retirements in their final order
// and marks the snapshot incomplete when any part failed. It reports whether any part was
// not scanned because the run was interrupted, which Collect must return as an error.
func finishSnapshot(snap *inventory.Snapshot) (interrupted bool) {
	for i := range snap.Accounts {
		a := &snap.Accounts[i]
		finishErrors(&a.Errors, &a.Retired)
		if len(a.Errors) > 0 {
			snap.Incomplete = true
		}
		interrupted = interrupted || hasInterrupted(a.Errors)
	}
	for i := range snap.Zones {
		z := &snap.Zones[i]
		finishErrors(&z.Errors, &z.Retired)
		if len(z.Errors) > 0 {
			snap.Incomplete = true
		}
		interrupted = interrupted || hasInterrupted(z.Errors)
	}
	return interrupted
}

func anyListingFailed(ls []listing) bool {
	for _, l := range ls {
		if l.failed {
			return true
		}
	}
	return false
}

// listZones lists and selects the zones of every account, Workers accounts at a time.
func (c *collector) listZones(ctx context.Context, accounts []inventory.AccountInventory) []listing {
	out := make([]listing, len(accounts))
	p := pool.New().WithMaxGoroutines(c.opts.Workers)
	for i := range accounts {
		p.Go(func() { out[i] = c.listAccount(ctx, accounts[i]) })
	}
	p.Wait()
	return out
}

func (c *collector) listAccount(ctx context.Context, a inventory.AccountInventory) listing {
	l := listing{inv: a}
	id := a.Account.ID
	r := &recorder{c: c, scope: "account " + id}
	if len(c.opts.Accounts) > 0 {
		l.keep = true // named accounts always appear
		r.doPlain(ctx, "account", func(ctx context.Context) error {
			acc, err := c.src.GetAccount(ctx, id)
			if err == nil && acc != nil {
				l.inv.Account = *acc
				if l.inv.Account.ID == "" {
					l.inv.Account.ID = id
				}
			}
			return err
		})
	}
	var found []inventory.Zone
	ok := true
	for _, name := range c.sel.queries() {
		ok = r.doPlain(ctx, "zones", func(ctx context.Context) error {
			zs, err := c.src.ListZones(ctx, id, name)
			found = append(found, zs...)
			return err
		}) && ok
		if ctx.Err() != nil {
			ok = false
			break
		}
	}
	l.failed = !ok
	l.zones, l.matched = c.sel.apply(found)
	if !c.sel.active() || len(l.zones) > 0 || l.failed {
		l.keep = true
	}
	l.inv.Errors = append(l.inv.Errors, r.errors...)
	l.inv.Retired = append(l.inv.Retired, r.retired...)
	return l
}

// result is what one pool task yields.
type result struct {
	account int // index into the accounts, or -1
	zone    int // index into the zones, or -1
	acc     inventory.AccountInventory
	inv     inventory.ZoneInventory
}

// scan runs the account and zone tasks in one bounded pool and returns the zones in the
// order given, with the ones that were never started marked as interrupted. The account
// inventories are completed in place.
func (c *collector) scan(ctx context.Context, accounts []inventory.AccountInventory, zones []inventory.Zone) []inventory.ZoneInventory {
	c.progress.ZonesTotal = len(zones)
	// Each task starts with one of the Workers places, taken in order; a waiting zone lends
	// its place (see place), so more tasks than Workers may be in progress, at most
	// Workers x maxZonesPerWorker. The submission waits for that bound before it takes a
	// place, never holding a place while the zones taking theirs back wait.
	places := semaphore.NewWeighted(int64(c.opts.Workers))
	inProgress := semaphore.NewWeighted(int64(c.opts.Workers * maxZonesPerWorker))
	admit := func() bool {
		if inProgress.Acquire(ctx, 1) != nil {
			return false
		}
		if places.Acquire(ctx, 1) != nil {
			inProgress.Release(1)
			return false
		}
		return true
	}
	p := pool.NewWithResults[result]().WithContext(ctx)
	for i := range accounts {
		if !admit() {
			break
		}
		a := accounts[i]
		p.Go(func(ctx context.Context) (result, error) {
			defer inProgress.Release(1)
			defer places.Release(1)
			return result{account: i, zone: -1, acc: c.accountOrReused(ctx, a)}, nil
		})
	}
	for i := range zones {
		if !c.admitted(ctx) || !admit() {
			break
		}
		z := zones[i]
		p.Go(func(ctx context.Context) (result, error) {
			defer inProgress.Release(1)
			pl := newPlace(ctx, places)
			defer pl.leave()
			if ctx.Err() != nil {
				return result{account: -1, zone: -1}, nil
			}
			if c.opts.WaitsFor != nil {
				ctx = c.opts.WaitsFor(ctx, pl.waitHook)
			}
			return result{account: -1, zone: i, inv: c.handOver(c.zoneOrReused(ctx, z))}, nil
		})
	}
	results, _ := p.Wait() // tasks report fatal errors through abort, never by returning them

	doneAcc := make([]bool, len(accounts))
	out := make([]inventory.ZoneInventory, len(zones))
	doneZone := make([]bool, len(zones))
	for _, r := range results {
		switch {
		case r.account >= 0:
			accounts[r.account] = r.acc
			doneAcc[r.account] = true
		case r.zone >= 0:
			out[r.zone] = r.inv
			doneZone[r.zone] = true
		}
	}
	for i, done := range doneAcc {
		if !done {
			for _, part := range accountParts {
				accounts[i].Errors = append(accounts[i].Errors, inventory.CollectError{What: part, Message: NotScannedInterrupted})
			}
		}
	}
	for i, done := range doneZone {
		if !done {
			out[i] = inventory.ZoneInventory{
				Zone:   zones[i],
				Errors: []inventory.CollectError{{What: "zone", Message: NotScannedInterrupted}},
			}
		}
	}
	return out
}

// admitted asks Options.Admit whether the next zone may start.
func (c *collector) admitted(ctx context.Context) bool {
	return c.opts.Admit == nil || c.opts.Admit(ctx) == nil
}

// handOver gives a collected zone to Options.OnZone and returns what the snapshot keeps of
// it: the whole zone without OnZone, its identity and outcome with it.
func (c *collector) handOver(inv inventory.ZoneInventory) inventory.ZoneInventory {
	if c.opts.OnZone == nil {
		return inv
	}
	inv.Sort()
	c.opts.OnZone(&inv)
	return inventory.ZoneInventory{Zone: inv.Zone, Retired: inv.Retired, Errors: inv.Errors, Requests: inv.Requests}
}

// reportZone updates and reports the progress after a zone; serialised by progressMu.
func (c *collector) reportZone(z *inventory.ZoneInventory) {
	c.progressMu.Lock()
	defer c.progressMu.Unlock()
	c.progress.ZonesDone++
	if len(z.Errors) > 0 {
		c.progress.ZonesFailed++
	}
	c.progress.Requests += z.Requests
	if c.opts.Progress != nil {
		c.opts.Progress(c.progress)
	}
}

// recorder runs the calls of one zone or account and files their failures.
type recorder struct {
	c     *collector
	scope string // for fatal error messages, e.g. "zone example.com"

	mu      sync.Mutex
	calls   int
	errors  []inventory.CollectError
	retired []inventory.Retired
	// failed counts calls that failed (after the client's retries) and answered counts
	// calls that got an answer (a success or a retired endpoint); when failed reaches the
	// limit while answered is 0, the rest of the scope is skipped, so a zone whose every
	// request fails costs a few retry cycles, not one per part.
	failed      int
	answered    int
	lastFailure string
	lastWhat    string
	// rank orders the calls as they run in sequence, so that the failure named as the
	// last one does not depend on which of concurrent calls ended last; nil: as they end.
	rank func(what string) int
}

// SkippedAfterFailures prefixes the error recorded for a part that was not requested
// because every call of its zone or account before it failed (see Options.FailureLimit).
const SkippedAfterFailures = "not scanned: skipped after repeated failures"

// callKind is how run classifies a failed call's error.
type callKind int

const (
	// callRetirable: an endpoint that may be past its end of life (Options.IsRetired).
	callRetirable callKind = iota
	// callPlain: an endpoint under no deprecation notice, where a 404 is a failure.
	callPlain
	// callOptional: callPlain for a read only the plan needs, whose failure is never fatal
	// (see the package documentation, "Requests per zone").
	callOptional
)

// do runs one call of a part and classifies its error: what names the part in errors
// (its path relative to the zone or account), path is the request path recorded when the
// endpoint is retired. It reports whether the call succeeded.
func (r *recorder) do(ctx context.Context, what, path string, call func(context.Context) error) bool {
	return r.run(ctx, what, path, callRetirable, call)
}

// doPlain is do for a call whose endpoint is not under a deprecation notice (an account, a
// zone listing), so that a 404 there is a failure, never "retired".
func (r *recorder) doPlain(ctx context.Context, what string, call func(context.Context) error) bool {
	return r.run(ctx, what, "", callPlain, call)
}

// doOptional is doPlain for a read only the migration plan needs: even an error IsFatal
// calls fatal (a 403) is recorded as that part's failure, and the collection goes on.
func (r *recorder) doOptional(ctx context.Context, what string, call func(context.Context) error) bool {
	return r.run(ctx, what, "", callOptional, call)
}

func (r *recorder) run(ctx context.Context, what, path string, kind callKind, call func(context.Context) error) bool {
	if ctx.Err() != nil {
		r.fail(what, NotScannedInterrupted)
		return false
	}
	r.mu.Lock()
	if limit := r.c.opts.breakerLimit(); limit > 0 && r.answered == 0 && r.failed >= limit {
		last := r.lastFailure
		r.mu.Unlock()
		r.fail(what, SkippedAfterFailures+" (last: "+last+")")
		return false
	}
	r.calls++
	r.mu.Unlock()
	err := call(ctx)
	if err == nil {
		r.mu.Lock()
		r.answered++
		r.mu.Unlock()
		return true
	}
	switch {
	case kind != callOptional && r.c.isFatal(err):
		r.c.abort(fmt.Errorf("collect: %s: %s: %w", r.scope, what, err))
	case ctx.Err() != nil:
		r.fail(what, NotScannedInterrupted)
	case kind == callRetirable && r.c.isRetired(err):
		r.mu.Lock()
		r.answered++
		r.retired = append(r.retired, inventory.Retired{Method: "GET", Path: path, Status: r.c.statusOf(err)})
		r.mu.Unlock()
	default:
		r.fail(what, err.Error())
		r.mu.Lock()
		r.failed++
		if r.rank == nil || r.lastFailure == "" || r.rank(what) > r.rank(r.lastWhat) ||
			(r.rank(what) == r.rank(r.lastWhat) && what > r.lastWhat) {
			r.lastFailure, r.lastWhat = err.Error(), what
		}
		r.mu.Unlock()
	}
	return false
}

func (r *recorder) fail(what, msg string) {
	r.mu.Lock()
	r.errors = append(r.errors, inventory.CollectError{What: what, Message: msg})
	r.mu.Unlock()
}

// finishErrors sorts and de-duplicates errors and retired endpoints, so that their order
// does not depend on the order in which parts completed.
func finishErrors(errs *[]inventory.CollectError, retired *[]inventory.Retired) {
	sort.SliceStable(*errs, func(i, j int) bool {
		a, b := (*errs)[i], (*errs)[j]
		if a.What != b.What {
			return a.What < b.What
		}
		return a.Message < b.Message
	})
	*errs = compact(*errs)
	sort.SliceStable(*retired, func(i, j int) bool {
		a, b := (*retired)[i], (*retired)[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Method < b.Method
	})
	*retired = compact(*retired)
}

func compact[T comparable](xs []T) []T {
	if len(xs) < 2 {
		return xs
	}
	out := xs[:1]
	for _, x := range xs[1:] {
		if x != out[len(out)-1] {
			out = append(out, x)
		}
	}
	return out
}

func hasInterrupted(errs []inventory.CollectError) bool {
	for _, e := range errs {
		if e.Message == NotScannedInterrupted {
			return true
		}
	}
	return false
}
