package inventory

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"

	"github.com/sunsetscan/sunset/scanner/expr"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// SnapshotSchemaVersion is the version of the snapshot file format written by this build.
const SnapshotSchemaVersion = 1

// Snapshot is everything a live collection fetched, sorted, with the errors met on the way.
// It is saved and loaded as JSON so a scan or a plan can be rebuilt offline, and it is also
// the seed format of the emulator.
type Snapshot struct {
	SchemaVersion int                `json:"schema_version"`
	Source        string             `json:"source,omitempty"`
	Accounts      []AccountInventory `json:"accounts"`
	Zones         []ZoneInventory    `json:"zones"`
	// Incomplete is set when the collection was interrupted or some parts failed.
	Incomplete bool `json:"incomplete,omitempty"`
}

// AccountInventory is one account and the account-scoped objects the scan reads.
type AccountInventory struct {
	Account         Account             `json:"account"`
	DNSSettings     *AccountDNSSettings `json:"dns_settings,omitempty"`
	Tunnels         []Tunnel            `json:"tunnels,omitempty"`
	AccessBookmarks []AccessBookmark    `json:"access_bookmarks,omitempty"`
	// AccessApps and NotificationPolicies are read only where the plan may create one of
	// them (an account with bookmarks; a pool with a notification_email), so that a plan
	// knows one that does the same already exists.
	AccessApps           []AccessApp          `json:"access_apps,omitempty"`
	NotificationPolicies []NotificationPolicy `json:"notification_policies,omitempty"`
	LoadBalancerPools    []LoadBalancerPool   `json:"load_balancer_pools,omitempty"`
	Retired              []Retired            `json:"retired,omitempty"`
	Errors               []CollectError       `json:"errors,omitempty"`
}

// The parts an AccountInventory's Errors name for the reads of its AccessApps and
// NotificationPolicies (paths relative to the account, like its other parts): an error
// there means the plan could not check whether an object that does the same exists.
const (
	PartAccessApps           = "access/apps"
	PartNotificationPolicies = "alerting/v3/policies"
)

// NeedsAccessApps reports whether a collection reads the account's Access applications: it
// has an Access bookmark, whose replacement (an application of type bookmark) a plan may
// create. The collection, the emulator's expected state and the scan's cost estimate ask
// this one question, so they cannot disagree on when the list is read.
func (a *AccountInventory) NeedsAccessApps() bool { return len(a.AccessBookmarks) > 0 }

// NeedsNotificationPolicies reports whether a collection reads the account's notification
// policies: a load balancer pool has a notification_email, whose replacement (a policy) a
// plan may create. See NeedsAccessApps.
func (a *AccountInventory) NeedsNotificationPolicies() bool {
	return slices.ContainsFunc(a.LoadBalancerPools, LoadBalancerPool.HasNotificationEmail)
}

// WAFPackageInventory is a previous-version WAF package with its groups and rules (only
// fetched for active packages).
type WAFPackageInventory struct {
	Package WAFPackage `json:"package"`
	Groups  []WAFGroup `json:"groups,omitempty"`
	Rules   []WAFRule  `json:"rules,omitempty"`
}

// ZoneInventory is one zone and the zone-scoped objects the scan reads.
type ZoneInventory struct {
	Zone          Zone                  `json:"zone"`
	FirewallRules []FirewallRule        `json:"firewall_rules,omitempty"`
	Filters       []Filter              `json:"filters,omitempty"`
	RateLimits    []RateLimit           `json:"rate_limits,omitempty"`
	WAFPackages   []WAFPackageInventory `json:"waf_packages,omitempty"`
	WAFOverrides  []WAFOverride         `json:"waf_overrides,omitempty"`
	// Settings holds the single zone settings read (cname_flattening and the deprecated ones).
	Settings []Setting `json:"settings,omitempty"`
	// LegacyDNSSettings holds the values of the deprecated dns_settings/use_apex_ns and
	// dns_settings/secondary_overrides endpoints, as settings named after the endpoint.
	LegacyDNSSettings []Setting     `json:"legacy_dns_settings,omitempty"`
	DNSSettings       *DNSSettings  `json:"dns_settings,omitempty"`
	DNSRecords        []DNSRecord   `json:"dns_records,omitempty"`
	HealthChecks      []HealthCheck `json:"health_checks,omitempty"`
	// Rulesets holds the zone's phase entry points that exist (custom rules, rate limiting, managed).
	Rulesets []Ruleset      `json:"rulesets,omitempty"`
	Retired  []Retired      `json:"retired,omitempty"`
	Errors   []CollectError `json:"errors,omitempty"`
	// Requests is how many API requests collecting this zone took.
	Requests int `json:"requests,omitempty"`
}

// Retired records an endpoint that answered as past its end of life (404/410/4xx), which is
// information, not a scan failure.
type Retired struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Status int    `json:"status"`
}

// CollectError is a part of an account or zone that could not be read.
type CollectError struct {
	What    string `json:"what"`
	Message string `json:"message"`
}

// Setting returns the zone setting with the given id, if it was read.
func (z *ZoneInventory) Setting(id string) (Setting, bool) {
	for _, s := range z.Settings {
		if s.ID == id {
			return s, true
		}
	}
	return Setting{}, false
}

// Ruleset returns the zone's entry point of a phase, if it exists.
func (z *ZoneInventory) Ruleset(phase vocab.Phase) (Ruleset, bool) {
	for _, r := range z.Rulesets {
		if r.Phase == phase {
			return r, true
		}
	}
	return Ruleset{}, false
}

// MobileRedirectRef is the ref of the single redirect rule a migration plan creates for the
// mobile_redirect zone setting, so that scans and later plans recognise it.
const MobileRedirectRef = "zone_setting:mobile_redirect"

// MobileRedirectRule is the single redirect rule (phase http_request_dynamic_redirect) that
// replaces the mobile_redirect setting of zone (the zone's host name) with the setting's
// mobile subdomain and strip_uri, and the URL it redirects to. Derived: the old feature
// recognised mobile browsers by their user agent; the rule matches "Mobi" or "Android" in it
// on the zone's own host, and sends them to the mobile subdomain with a 302, keeping the path
// and query unless strip_uri. Plans create it; scans recognise it (by what it does).
func MobileRedirectRule(zone, mobileSubdomain string, stripURI bool) (RulesetRule, string) {
	zone = NormalizeDNSName(zone)
	target := "https://" + NormalizeDNSName(mobileSubdomain) + "." + zone
	fromValue := map[string]any{"status_code": 302, "preserve_query_string": !stripURI}
	if stripURI {
		fromValue["target_url"] = map[string]string{"value": target + "/"}
	} else {
		fromValue["target_url"] = map[string]string{"expression": "concat(" + expr.Quote(target) + ", http.request.uri.path)"}
	}
	params, _ := json.Marshal(map[string]any{"from_value": fromValue}) // maps of strings, bools and ints
	enabled := true
	return RulesetRule{
		Action:           vocab.ActionRedirect,
		Expression:       fmt.Sprintf("http.host eq %s and (http.user_agent contains \"Mobi\" or http.user_agent contains \"Android\")", expr.Quote(zone)),
		Description:      "Mobile redirect to " + target + " (migrated from the mobile_redirect setting)",
		Enabled:          &enabled,
		Ref:              MobileRedirectRef,
		ActionParameters: params,
	}, target
}

// RuleByRef returns the rule with the given ref in the zone's entry point of phase.
func (z *ZoneInventory) RuleByRef(phase vocab.Phase, ref string) (RulesetRule, bool) {
	rs, ok := z.Ruleset(phase)
	if !ok {
		return RulesetRule{}, false
	}
	for _, r := range rs.Rules {
		if r.Ref == ref {
			return r, true
		}
	}
	return RulesetRule{}, false
}

// FirewallRulesWithFilters returns copies of the zone's firewall rules whose filter is the
// whole filter: a rule listed with only its filter's id takes it from the filters list.
func (z *ZoneInventory) FirewallRulesWithFilters() []FirewallRule {
	byID := make(map[string]Filter, len(z.Filters))
	for _, f := range z.Filters {
		byID[f.ID] = f
	}
	out := make([]FirewallRule, len(z.FirewallRules))
	for i, r := range z.FirewallRules {
		if f, ok := byID[r.Filter.ID]; ok && r.Filter.Expression == "" && r.Filter.ID != "" {
			r.Filter = f
		}
		out[i] = r
	}
	return out
}

// Sort orders accounts and zones by id and every list inside them by id, so that the same
// account always yields the same bytes.
func (s *Snapshot) Sort() {
	sort.Slice(s.Accounts, func(i, j int) bool { return s.Accounts[i].Account.ID < s.Accounts[j].Account.ID })
	sort.Slice(s.Zones, func(i, j int) bool {
		if s.Zones[i].Zone.Name != s.Zones[j].Zone.Name {
			return s.Zones[i].Zone.Name < s.Zones[j].Zone.Name
		}
		return s.Zones[i].Zone.ID < s.Zones[j].Zone.ID
	})
	for i := range s.Accounts {
		s.Accounts[i].Sort()
	}
	for i := range s.Zones {
		s.Zones[i].Sort()
	}
}

// Sort orders every list of the account by id.
func (a *AccountInventory) Sort() {
	sortBy(a.Tunnels, func(t Tunnel) string { return t.ID })
	sortBy(a.AccessBookmarks, func(b AccessBookmark) string { return b.ID })
	sortBy(a.AccessApps, func(x AccessApp) string { return x.ID })
	sortBy(a.NotificationPolicies, func(x NotificationPolicy) string { return x.ID })
	sortBy(a.LoadBalancerPools, func(p LoadBalancerPool) string { return p.ID })
}

// Sort orders every list of the zone by id (rulesets by phase, then id).
func (z *ZoneInventory) Sort() {
	sortBy(z.FirewallRules, func(r FirewallRule) string { return r.ID })
	sortBy(z.Filters, func(f Filter) string { return f.ID })
	sortBy(z.RateLimits, func(r RateLimit) string { return r.ID })
	sortBy(z.WAFPackages, func(p WAFPackageInventory) string { return p.Package.ID })
	for j := range z.WAFPackages {
		sortBy(z.WAFPackages[j].Groups, func(g WAFGroup) string { return g.ID })
		sortBy(z.WAFPackages[j].Rules, func(r WAFRule) string { return r.ID })
	}
	sortBy(z.WAFOverrides, func(o WAFOverride) string { return o.ID })
	sortBy(z.Settings, func(s Setting) string { return s.ID })
	sortBy(z.LegacyDNSSettings, func(s Setting) string { return s.ID })
	sortBy(z.DNSRecords, func(r DNSRecord) string { return r.ID })
	sortBy(z.HealthChecks, func(h HealthCheck) string { return h.ID })
	sortBy(z.Rulesets, func(r Ruleset) string { return string(r.Phase) + "\x00" + r.ID })
}

func sortBy[T any](xs []T, key func(T) string) {
	sort.SliceStable(xs, func(i, j int) bool { return key(xs[i]) < key(xs[j]) })
}

// Write saves the snapshot as indented JSON.
func (s *Snapshot) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// ReadSnapshot loads a snapshot written by Write or as a stream (see ReadStream); a newer
// schema version is refused.
func ReadSnapshot(r io.Reader) (*Snapshot, error) {
	st, err := ReadStream(r)
	if err != nil {
		return nil, err
	}
	return st.Snapshot, nil
}

// readDocument loads the single JSON document Write produces.
func readDocument(r io.Reader) (*Snapshot, error) {
	var s Snapshot
	dec := json.NewDecoder(r)
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("snapshot: not valid JSON: %w", err)
	}
	if s.SchemaVersion > SnapshotSchemaVersion {
		return nil, fmt.Errorf("snapshot: schema_version %d is newer than this sunset understands (%d); upgrade sunset", s.SchemaVersion, SnapshotSchemaVersion)
	}
	if s.SchemaVersion == 0 {
		return nil, fmt.Errorf("snapshot: schema_version missing; is this a file written by sunset scan --snapshot-out?")
	}
	return &s, nil
}
