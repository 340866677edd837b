package emulator

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// state is everything the emulator holds; it is guarded by Server.mu.
type state struct {
	seed        int64
	seq         uint64
	accounts    []*accountState
	accountByID map[string]*accountState
	zones       []*zoneState
	zoneByID    map[string]*zoneState
}

// accountState is one account. The nameserver default is held once, in dnsSettings
// (zone_defaults.nameservers.type); the deprecated account settings fields are derived from it.
type accountState struct {
	account     inventory.Account
	dnsSettings inventory.AccountDNSSettings
	tunnels     []*inventory.Tunnel
	bookmarks   []*inventory.AccessBookmark
	pools       []*inventory.LoadBalancerPool
	invites     []*object
	relays      []*object
	// apps and policies are the replacements of bookmarks and notification_email (Access
	// applications, notification policies), kept as the API answers them: every member,
	// also those inventory.AccessApp and NotificationPolicy do not model.
	apps     []*object
	policies []*object
}

// zoneState is one zone. DNS settings are the stored truth for the reflected settings:
// cname_flattening is derived from flatten_all_cnames, use_apex_ns from multi_provider and the
// secondary_overrides endpoint from the field.
type zoneState struct {
	zone      inventory.Zone
	rules     []*inventory.FirewallRule // Filter holds only the id; rendering embeds the filter
	filters   []*filterState
	rateLimit []*inventory.RateLimit
	waf       []*inventory.WAFPackageInventory
	overrides []*inventory.WAFOverride
	// settings holds zone settings other than cname_flattening that were seeded or written.
	settings    map[string]*inventory.Setting
	dnsSettings inventory.DNSSettings
	// modified holds modified_on of the reflected settings, by setting id.
	modified map[string]string
	records  []*inventory.DNSRecord
	health   []*inventory.HealthCheck
	rulesets []*inventory.Ruleset
	// pageShield is the page shield setting, served under both its old (script_monitor) and
	// new (page_shield) path.
	pageShield pageShieldSettings
}

// pageShieldSettings are a zone's page shield settings.
type pageShieldSettings struct {
	Enabled                        bool   `json:"enabled"`
	UpdatedAt                      string `json:"updated_at,omitempty"`
	UseCloudflareReportingEndpoint bool   `json:"use_cloudflare_reporting_endpoint"`
	UseConnectionURLPath           bool   `json:"use_connection_url_path"`
}

// filterState is a filter and whether it was created by the combined firewall rule call,
// which protects it from PUT on the filters endpoints.
type filterState struct {
	f        inventory.Filter
	combined bool
}

// object is a free-form API object (organization invites and relays).
type object map[string]any

// newID returns a deterministic 32-hex-character id.
func (st *state) newID(kind string) string {
	st.seq++
	sum := sha256.Sum256([]byte(fmt.Sprintf("sunset-emulator/%d/%s/%d", st.seed, kind, st.seq)))
	return hex.EncodeToString(sum[:16])
}

// fixedID derives an id without advancing the counter, for objects that exist implicitly.
func (st *state) fixedID(kind string) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("sunset-emulator/%d/%s", st.seed, kind)))
	return hex.EncodeToString(sum[:16])
}

// plan returns the zone's plan level (free, pro, business, enterprise); an unknown or missing
// plan is read from the plan name, and failing that treated as free.
func (z *zoneState) plan() string {
	for _, v := range []string{z.zone.Plan.LegacyID, z.zone.Plan.ID, z.zone.Plan.Name} {
		v = strings.ToLower(v)
		for _, p := range []string{inventory.PlanEnterprise, inventory.PlanBusiness, inventory.PlanPro, inventory.PlanFree} {
			if strings.Contains(v, p) {
				return p
			}
		}
	}
	return inventory.PlanFree
}

// planRank orders plans so that a feature's minimum plan can be compared; zone.plan() has
// already turned an unknown plan into free.
func planRank(p string) int { return max(0, inventory.PlanRank(p)) }

// deepCopy copies a JSON-shaped value through its encoding, which keeps Extra members.
func deepCopy[T any](v T) T { return convert[T](v) }

func boolPtr(b bool) *bool { return &b }
func intPtr(n int) *int    { return &n }
func strPtr(s string) *string {
	return &s
}

// defaultDNSSettings are the values a zone (or an account's zone_defaults) has when nothing
// was set; they follow the API reference example.
func defaultDNSSettings() inventory.DNSSettings {
	return inventory.DNSSettings{
		FlattenAllCNAMEs:   boolPtr(false),
		FoundationDNS:      boolPtr(false),
		MultiProvider:      boolPtr(false),
		SecondaryOverrides: boolPtr(false),
		NSTTL:              intPtr(86400),
		Nameservers:        &inventory.Nameservers{Type: "cloudflare.standard"},
		ZoneMode:           "standard",
	}
}

// fillDNSDefaults sets every missing member of d to its default.
func fillDNSDefaults(d *inventory.DNSSettings) {
	def := defaultDNSSettings()
	if d.FlattenAllCNAMEs == nil {
		d.FlattenAllCNAMEs = def.FlattenAllCNAMEs
	}
	if d.FoundationDNS == nil {
		d.FoundationDNS = def.FoundationDNS
	}
	if d.MultiProvider == nil {
		d.MultiProvider = def.MultiProvider
	}
	if d.SecondaryOverrides == nil {
		d.SecondaryOverrides = def.SecondaryOverrides
	}
	if d.NSTTL == nil {
		d.NSTTL = def.NSTTL
	}
	if d.Nameservers == nil || d.Nameservers.Type == "" {
		d.Nameservers = def.Nameservers
	}
	d.Nameservers.Type = canonicalNameservers(d.Nameservers.Type)
	if d.ZoneMode == "" {
		d.ZoneMode = def.ZoneMode
	}
}

// newState copies a seed into emulator state; the deprecated form of a reflected setting wins
// over its replacement when a seed holds both (see the package documentation).
func newState(seed *inventory.Snapshot, rnd int64) (*state, error) {
	st := &state{seed: rnd, accountByID: map[string]*accountState{}, zoneByID: map[string]*zoneState{}}
	if seed == nil {
		return st, nil
	}
	snap := deepCopy(*seed)
	for _, ai := range snap.Accounts {
		if ai.Account.ID == "" {
			return nil, fmt.Errorf("seed: an account has no id")
		}
		if st.accountByID[ai.Account.ID] != nil {
			return nil, fmt.Errorf("seed: account id %s appears twice", ai.Account.ID)
		}
		a := &accountState{account: ai.Account}
		if ai.DNSSettings != nil {
			a.dnsSettings = *ai.DNSSettings
		}
		fillDNSDefaults(&a.dnsSettings.ZoneDefaults)
		if set := a.account.Settings; set != nil {
			switch {
			case set.UseAccountCustomNSByDefault != nil && *set.UseAccountCustomNSByDefault:
				a.dnsSettings.ZoneDefaults.Nameservers.Type = "custom.account"
			case set.DefaultNameservers != "":
				if !validAccountNameservers(set.DefaultNameservers) {
					return nil, fmt.Errorf("seed: account %s: default_nameservers %q is not one of cloudflare.standard, custom.account, custom.tenant", ai.Account.ID, set.DefaultNameservers)
				}
				a.dnsSettings.ZoneDefaults.Nameservers.Type = canonicalNameservers(set.DefaultNameservers)
			}
		}
		for i := range ai.Tunnels {
			a.tunnels = append(a.tunnels, &ai.Tunnels[i])
		}
		for i := range ai.AccessBookmarks {
			a.bookmarks = append(a.bookmarks, &ai.AccessBookmarks[i])
		}
		for i := range ai.LoadBalancerPools {
			a.pools = append(a.pools, &ai.LoadBalancerPools[i])
		}
		a.apps = seedObjects(st, "access_app", ai.AccessApps)
		a.policies = seedObjects(st, "notification_policy", ai.NotificationPolicies)
		st.accounts = append(st.accounts, a)
		st.accountByID[a.account.ID] = a
	}
	for _, zi := range snap.Zones {
		z, err := st.loadZone(zi)
		if err != nil {
			return nil, err
		}
		st.zones = append(st.zones, z)
		st.zoneByID[z.zone.ID] = z
	}
	return st, nil
}

// loadZone builds a zone's state from its seed inventory. Objects without an id get one from
// the state's sequence, in a fixed order (filters, firewall rules, rate limits, WAF overrides,
// DNS records, health checks, rulesets), so a seed always yields the same ids.
func (st *state) loadZone(zi inventory.ZoneInventory) (*zoneState, error) {
	if zi.Zone.ID == "" {
		return nil, fmt.Errorf("seed: zone %q has no id", zi.Zone.Name)
	}
	if st.zoneByID[zi.Zone.ID] != nil {
		return nil, fmt.Errorf("seed: zone id %s appears twice", zi.Zone.ID)
	}
	z := &zoneState{zone: zi.Zone, settings: map[string]*inventory.Setting{}, modified: map[string]string{},
		pageShield: pageShieldSettings{UseCloudflareReportingEndpoint: true}}
	if z.zone.Status == "" {
		z.zone.Status = "active"
	}
	if zi.DNSSettings != nil {
		z.dnsSettings = *zi.DNSSettings
	}
	fillDNSDefaults(&z.dnsSettings)
	if err := z.loadSettings(zi); err != nil {
		return nil, err
	}
	if err := z.loadLegacyDNSSettings(zi); err != nil {
		return nil, err
	}
	st.loadFilterRules(z, zi)
	st.loadZoneObjects(z, zi)
	if err := st.loadRulesets(z, zi); err != nil {
		return nil, err
	}
	return z, nil
}

// loadSettings stores the zone's settings. cname_flattening is no setting of its own in the
// API the emulator serves: it becomes the DNS settings' flatten_all_cnames.
func (z *zoneState) loadSettings(zi inventory.ZoneInventory) error {
	for i := range zi.Settings {
		s := zi.Settings[i]
		if s.ID == "cname_flattening" {
			flat, okv := cnameToFlattenAll(s.StringValue())
			if !okv {
				return fmt.Errorf("seed: zone %s: cname_flattening value %s is not flatten_at_root, flatten_all, off, apex or on", zi.Zone.Name, s.Value)
			}
			z.dnsSettings.FlattenAllCNAMEs = boolPtr(flat)
			z.modified[s.ID] = s.ModifiedOn
			continue
		}
		z.settings[s.ID] = &s
	}
	return nil
}

// loadLegacyDNSSettings folds the zone's legacy dns_settings/* booleans into its DNS
// settings, remembering when each was modified.
func (z *zoneState) loadLegacyDNSSettings(zi inventory.ZoneInventory) error {
	for _, s := range zi.LegacyDNSSettings {
		v, okv := settingBool(s.Value)
		if !okv {
			return fmt.Errorf("seed: zone %s: dns_settings/%s value %s is not a boolean", zi.Zone.Name, s.ID, s.Value)
		}
		switch s.ID {
		case "use_apex_ns":
			z.dnsSettings.MultiProvider = boolPtr(v)
		case "secondary_overrides":
			z.dnsSettings.SecondaryOverrides = boolPtr(v)
		default:
			return fmt.Errorf("seed: zone %s: unknown legacy DNS setting %q", zi.Zone.Name, s.ID)
		}
		z.modified["dns_settings/"+s.ID] = s.ModifiedOn
	}
	return nil
}

// loadFilterRules stores the zone's filters and firewall rules. A rule's inline filter joins
// the filters unless one with its id is already there, and the rule keeps only a reference to
// it, as the API stores them.
func (st *state) loadFilterRules(z *zoneState, zi inventory.ZoneInventory) {
	filterIdx := map[string]*filterState{}
	for i := range zi.Filters {
		f := zi.Filters[i]
		if f.ID == "" {
			f.ID = st.newID("filter")
		}
		fs := &filterState{f: f}
		z.filters = append(z.filters, fs)
		filterIdx[f.ID] = fs
	}
	for i := range zi.FirewallRules {
		r := zi.FirewallRules[i]
		if r.ID == "" {
			r.ID = st.newID("firewall_rule")
		}
		f := r.Filter
		if f.ID == "" {
			f.ID = st.newID("filter")
		}
		if filterIdx[f.ID] == nil {
			fs := &filterState{f: f}
			z.filters = append(z.filters, fs)
			filterIdx[f.ID] = fs
		}
		r.Filter = inventory.Filter{ID: f.ID}
		z.rules = append(z.rules, &r)
	}
}

// loadZoneObjects stores the zone's rate limits, WAF packages and overrides, DNS records and
// health checks, each a copy the API can change without touching the seed.
func (st *state) loadZoneObjects(z *zoneState, zi inventory.ZoneInventory) {
	for i := range zi.RateLimits {
		r := zi.RateLimits[i]
		if r.ID == "" {
			r.ID = st.newID("rate_limit")
		}
		z.rateLimit = append(z.rateLimit, &r)
	}
	for i := range zi.WAFPackages {
		p := zi.WAFPackages[i]
		z.waf = append(z.waf, &p)
	}
	for i := range zi.WAFOverrides {
		o := zi.WAFOverrides[i]
		if o.ID == "" {
			o.ID = st.newID("waf_override")
		}
		z.overrides = append(z.overrides, &o)
	}
	for i := range zi.DNSRecords {
		r := zi.DNSRecords[i]
		if r.ID == "" {
			r.ID = st.newID("dns_record")
		}
		// Zone fields and locked are computed on output from the clock.
		r.ZoneID, r.ZoneName, r.Locked = nil, nil, nil
		z.records = append(z.records, &r)
	}
	for i := range zi.HealthChecks {
		h := zi.HealthChecks[i]
		if h.ID == "" {
			h.ID = st.newID("healthcheck")
		}
		z.health = append(z.health, &h)
	}
}

// loadRulesets stores the zone's rulesets with what the API fills in when a seed leaves it
// out: ids, kind "zone", version "1" on the ruleset and its rules. A ruleset needs a phase.
func (st *state) loadRulesets(z *zoneState, zi inventory.ZoneInventory) error {
	for i := range zi.Rulesets {
		rs := zi.Rulesets[i]
		if rs.Phase == "" {
			return fmt.Errorf("seed: zone %s: a ruleset has no phase", zi.Zone.Name)
		}
		if rs.ID == "" {
			rs.ID = st.newID("ruleset")
		}
		if rs.Kind == "" {
			rs.Kind = "zone"
		}
		if rs.Version == "" {
			rs.Version = "1"
		}
		for j := range rs.Rules {
			if rs.Rules[j].ID == "" {
				rs.Rules[j].ID = st.newID("ruleset_rule")
			}
			if rs.Rules[j].Version == "" {
				rs.Rules[j].Version = "1"
			}
		}
		rulesetDefaults(&rs)
		z.rulesets = append(z.rulesets, &rs)
	}
	return nil
}

// settingBool reads a boolean-like setting value: true/false or "on"/"off".
func settingBool(raw json.RawMessage) (bool, bool) {
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return b, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch strings.ToLower(s) {
		case "on", "true":
			return true, true
		case "off", "false":
			return false, true
		}
	}
	return false, false
}

// cnameToFlattenAll maps a cname_flattening value (wire or notice vocabulary) to
// flatten_all_cnames: off, apex and flatten_at_root are false; on and flatten_all are true.
func cnameToFlattenAll(v string) (bool, bool) {
	switch v {
	case "flatten_at_root", "off", "apex":
		return false, true
	case "flatten_all", "on":
		return true, true
	}
	return false, false
}

// cnameValue is the wire value of cname_flattening for a flatten_all_cnames value.
func cnameValue(flattenAll bool) string {
	if flattenAll {
		return "flatten_all"
	}
	return "flatten_at_root"
}

// Nameserver types. The spec spells the standard ones platform.*, the API cloudflare.*; both
// are accepted and stored (and so answered) as cloudflare.* (domain-facts).
var nameserverTypes = map[string]bool{
	"cloudflare.standard": true, "cloudflare.standard.random": true,
	"platform.standard": true, "platform.standard.random": true,
	"custom.account": true, "custom.tenant": true, "custom.zone": true,
}

// validAccountNameservers reports whether v is a value of the deprecated default_nameservers.
func validAccountNameservers(v string) bool {
	switch v {
	case "cloudflare.standard", "platform.standard", "custom.account", "custom.tenant":
		return true
	}
	return false
}

// legacyNameservers derives the deprecated account settings from zone_defaults.nameservers.type:
// the standard types (either spelling, random or not, since the old field had no random
// variant) give cloudflare.standard; use_account_custom_ns_by_default is true exactly for
// custom.account (derived mapping, see domain-facts).
func legacyNameservers(nsType string) (string, bool) {
	switch nsType {
	case "custom.account":
		return "custom.account", true
	case "custom.tenant":
		return "custom.tenant", false
	}
	return "cloudflare.standard", false
}

// renderAccount returns the account with its deprecated settings derived from DNS settings.
func (a *accountState) renderAccount() inventory.Account {
	acc := deepCopy(a.account)
	if acc.Settings == nil {
		acc.Settings = &inventory.AccountSettings{}
	}
	def, custom := legacyNameservers(a.dnsSettings.ZoneDefaults.Nameservers.Type)
	acc.Settings.DefaultNameservers = def
	acc.Settings.UseAccountCustomNSByDefault = boolPtr(custom)
	if acc.Settings.EnforceTwoFactor == nil {
		acc.Settings.EnforceTwoFactor = boolPtr(false)
	}
	return acc
}

// filter returns the filter with the given id.
func (z *zoneState) filter(id string) *filterState {
	for _, f := range z.filters {
		if f.f.ID == id {
			return f
		}
	}
	return nil
}

// renderRule returns a firewall rule with its current filter embedded; the copy is shallow
// (callers outside the lock deep-copy it).
func (z *zoneState) renderRule(r *inventory.FirewallRule) inventory.FirewallRule {
	out := *r
	if f := z.filter(r.Filter.ID); f != nil {
		out.Filter = f.f
	}
	return out
}

// cnameSetting is the cname_flattening setting derived from flatten_all_cnames.
func (z *zoneState) cnameSetting() inventory.Setting {
	v, _ := json.Marshal(cnameValue(*z.dnsSettings.FlattenAllCNAMEs))
	return inventory.Setting{ID: "cname_flattening", Value: v, Editable: boolPtr(true), ModifiedOn: z.modified["cname_flattening"]}
}

// legacyDNSSetting is the value of a deprecated dns_settings endpoint derived from its field.
func (z *zoneState) legacyDNSSetting(id string) inventory.Setting {
	var v bool
	switch id {
	case "use_apex_ns":
		v = *z.dnsSettings.MultiProvider
	case "secondary_overrides":
		v = *z.dnsSettings.SecondaryOverrides
	}
	raw, _ := json.Marshal(v)
	return inventory.Setting{ID: id, Value: raw, Editable: boolPtr(true), ModifiedOn: z.modified["dns_settings/"+id]}
}

// snapshot renders the state as an inventory snapshot (unsorted; the caller sorts).
func (st *state) snapshot(asOf time.Time) *inventory.Snapshot {
	snap := &inventory.Snapshot{SchemaVersion: inventory.SnapshotSchemaVersion, Source: "emulator", Accounts: []inventory.AccountInventory{}, Zones: []inventory.ZoneInventory{}}
	for _, a := range st.accounts {
		ai := inventory.AccountInventory{Account: a.renderAccount()}
		ds := deepCopy(a.dnsSettings)
		ai.DNSSettings = &ds
		ai.Tunnels = derefAll(a.tunnels)
		for i := range ai.Tunnels {
			ai.Tunnels[i] = renderTunnel(ai.Tunnels[i], asOf)
		}
		ai.AccessBookmarks = derefAll(a.bookmarks)
		ai.LoadBalancerPools = derefAll(a.pools)
		// A collection reads the replacements only where a plan may create one.
		if ai.NeedsAccessApps() {
			ai.AccessApps = objectsAs[inventory.AccessApp](a.apps)
		}
		if ai.NeedsNotificationPolicies() {
			ai.NotificationPolicies = objectsAs[inventory.NotificationPolicy](a.policies)
		}
		snap.Accounts = append(snap.Accounts, ai)
	}
	for _, z := range st.zones {
		zi := inventory.ZoneInventory{Zone: deepCopy(st.renderZone(z, asOf))}
		for _, r := range z.rules {
			zi.FirewallRules = append(zi.FirewallRules, deepCopy(z.renderRule(r)))
		}
		for _, f := range z.filters {
			zi.Filters = append(zi.Filters, deepCopy(f.f))
		}
		zi.RateLimits = derefAll(z.rateLimit)
		zi.WAFPackages = derefAll(z.waf)
		for i := range zi.WAFPackages {
			p := &zi.WAFPackages[i]
			p.Package = renderWAFPackage(p.Package)
			for j := range p.Rules {
				p.Rules[j] = renderWAFRule(p.Rules[j])
			}
		}
		zi.WAFOverrides = derefAll(z.overrides)
		for _, s := range z.settings {
			zi.Settings = append(zi.Settings, deepCopy(*s))
		}
		zi.Settings = append(zi.Settings, z.cnameSetting())
		zi.LegacyDNSSettings = []inventory.Setting{z.legacyDNSSetting("secondary_overrides"), z.legacyDNSSetting("use_apex_ns")}
		ds := deepCopy(z.dnsSettings)
		zi.DNSSettings = &ds
		for _, r := range z.records {
			zi.DNSRecords = append(zi.DNSRecords, deepCopy(st.renderRecord(z, r, asOf)))
		}
		zi.HealthChecks = derefAll(z.health)
		for i := range zi.HealthChecks {
			zi.HealthChecks[i] = renderHealthCheck(nil, zi.HealthChecks[i])
		}
		zi.Rulesets = derefAll(z.rulesets)
		snap.Zones = append(snap.Zones, zi)
	}
	return snap
}

// seedObjects are seeded Access applications or notification policies as the free-form
// objects the emulator keeps; one without an id gets one, as a creation gives it.
func seedObjects[T any](st *state, kind string, xs []T) []*object {
	var out []*object
	for _, x := range xs {
		o := convert[object](x)
		if objectID(&o) == "" {
			setObjectID(&o, st.newUUID(kind))
		}
		out = append(out, &o)
	}
	return out
}

// objectsAs are free-form objects as a client decodes them from a list (nil for none).
func objectsAs[T any](objs []*object) []T {
	var out []T
	for _, o := range objs {
		out = append(out, convert[T](*o))
	}
	return out
}

// convert re-decodes a JSON-shaped value as another type, through its encoding.
func convert[T any](v any) T {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("emulator: encode %T: %v", v, err))
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		panic(fmt.Sprintf("emulator: decode %T as %T: %v", v, out, err))
	}
	return out
}

// derefAll copies the pointed-to values.
func derefAll[T any](xs []*T) []T {
	if len(xs) == 0 {
		return nil
	}
	out := make([]T, 0, len(xs))
	for _, x := range xs {
		out = append(out, deepCopy(*x))
	}
	return out
}
