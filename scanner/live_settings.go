package scanner

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/meaning"
)

// cnameFlattening reports the zone's cname_flattening setting with the flatten_all_cnames value
// it maps to.
func (s *liveScan) cnameFlattening(z *inventory.ZoneInventory) {
	r, ok := s.rule(vocab.CNAMEFlatteningSetting)
	if !ok {
		return
	}
	set, ok := z.Setting("cname_flattening")
	if !ok {
		return
	}
	val := set.StringValue()
	var b strings.Builder
	flat, known := inventory.FlattenAllCNAMEs(val)
	// The value lives on in flatten_all_cnames (old and new reflect each other): only the
	// endpoint's callers must move, a notice. A value with no mapping, or DNS settings that
	// disagree, is something in the zone to settle.
	sev := min(r.sev, SeverityNotice)
	if !known {
		sev = r.sev
	}
	if known {
		fmt.Fprintf(&b, "Zone setting cname_flattening is %q: it maps to flatten_all_cnames = %t in the zone DNS settings (off, apex, flatten_at_root -> false; on, flatten_all -> true)", val, flat)
		if d := z.DNSSettings; d != nil && d.FlattenAllCNAMEs != nil {
			if *d.FlattenAllCNAMEs == flat {
				fmt.Fprintf(&b, ", which the DNS settings already report")
			} else {
				fmt.Fprintf(&b, ", but the DNS settings report flatten_all_cnames = %t: check which one is current", *d.FlattenAllCNAMEs)
				sev = r.sev
			}
		}
	} else {
		fmt.Fprintf(&b, "Zone setting cname_flattening has value %s, which has no known flatten_all_cnames mapping (off, apex, flatten_at_root -> false; on, flatten_all -> true): set flatten_all_cnames by hand", rawValue(set.Value))
	}
	fmt.Fprintf(&b, ". The setting is %s; existing values need no migration (old and new settings reflect each other), but callers of /zones/:zone_id/settings/cname_flattening must use the DNS settings endpoints instead.", r.life(s.asOf))
	s.add(r, sev, zoneScope(z), Resource{Kind: vocab.KindZoneSetting, ID: "cname_flattening", Name: "cname_flattening"}, "", b.String())
}

// rawValue renders a setting value for messages.
func rawValue(v json.RawMessage) string {
	if len(v) == 0 {
		return "(empty)"
	}
	return string(v)
}

func legacySetting(z *inventory.ZoneInventory, id string) (inventory.Setting, bool) {
	for _, s := range z.LegacyDNSSettings {
		if s.ID == id {
			return s, true
		}
	}
	return inventory.Setting{}, false
}

// legacyDNSSettings reports zones that use multi-provider DNS or secondary overrides, the
// features the deprecated dns_settings/use_apex_ns and dns_settings/secondary_overrides
// endpoints manage. The deprecated thing is the endpoint, and only a zone using the feature
// has a reason to call it, so a zone where both the legacy value (if any) and the DNS settings
// field are off gets no finding. Either source being on is enough: the DNS settings field is
// what a scan reads; a legacy value comes only from a snapshot written when sunset still read
// the old endpoints (it no longer does: the DNS settings answer both).
func (s *liveScan) legacyDNSSettings(z *inventory.ZoneInventory) {
	type legacy struct {
		ruleID          vocab.RuleID
		endpoint, field string
		current         func(*inventory.DNSSettings) *bool
	}
	for _, l := range []legacy{
		{vocab.DNSSettingsUseApexNS, "use_apex_ns", "multi_provider", func(d *inventory.DNSSettings) *bool { return d.MultiProvider }},
		{vocab.DNSSettingsSecondaryOverrides, "secondary_overrides", "secondary_overrides", func(d *inventory.DNSSettings) *bool { return d.SecondaryOverrides }},
	} {
		r, ok := s.rule(l.ruleID)
		if !ok {
			continue
		}
		var newVal *bool
		if z.DNSSettings != nil {
			newVal = l.current(z.DNSSettings)
		}
		old, hasOld := legacySetting(z, l.endpoint)
		oldOn, oldKnown := false, false
		if hasOld {
			oldOn, oldKnown = inventory.SettingOn(old.Value)
		}
		newOn := newVal != nil && *newVal
		if !oldOn && !newOn && (!hasOld || oldKnown) {
			continue
		}
		var b strings.Builder
		switch {
		case hasOld && !oldKnown:
			fmt.Fprintf(&b, "The deprecated dns_settings/%s endpoint reports %s for this zone, a value with no known meaning", l.endpoint, rawValue(old.Value))
		case oldOn:
			fmt.Fprintf(&b, "The deprecated dns_settings/%s endpoint reports %s for this zone", l.endpoint, rawValue(old.Value))
		default:
			fmt.Fprintf(&b, "The zone DNS settings have %s = true, the feature the deprecated dns_settings/%s endpoint manages", l.field, l.endpoint)
		}
		switch {
		case newVal == nil:
			fmt.Fprintf(&b, "; its replacement is the %s field of the zone DNS settings", l.field)
		case oldOn || (hasOld && !oldKnown):
			fmt.Fprintf(&b, "; the zone DNS settings report %s = %t", l.field, *newVal)
		}
		// The value lives on in the DNS settings field: only callers must move (a notice),
		// unless the old value has no meaning or the two disagree.
		sev := min(r.sev, SeverityNotice)
		if (hasOld && !oldKnown) || (hasOld && newVal != nil && oldOn != *newVal) {
			sev = r.sev
			b.WriteString(": check which one is current and set the DNS settings field")
		}
		fmt.Fprintf(&b, ". The endpoint is %s: read and write %s through the DNS settings endpoints (/zones/:zone_id/dns_settings) instead.", r.life(s.asOf), l.field)
		s.add(r, sev, zoneScope(z), Resource{Kind: vocab.KindDNSSettings, ID: l.endpoint, Name: l.field}, "", b.String())
	}
}

// recordResponseFields reports, once per zone, DNS records whose responses still carry zone_id
// and zone_name, or locked. The fields are produced by the API, not set by the user: what has
// to change is code reading them, so one finding per zone (with a count and examples) says it
// without flooding a report with one finding per record.
func (s *liveScan) recordResponseFields(z *inventory.ZoneInventory) {
	if len(z.DNSRecords) == 0 {
		return
	}
	var zoneFields, locked []string
	for i := range z.DNSRecords {
		rec := &z.DNSRecords[i]
		label := rec.Name + " " + rec.Type
		if rec.ZoneID != nil || rec.ZoneName != nil {
			zoneFields = append(zoneFields, label)
		}
		if rec.Locked != nil {
			locked = append(locked, label)
		}
	}
	// Examples in name order, so the message does not depend on the order records were listed in.
	sort.Strings(zoneFields)
	sort.Strings(locked)
	sc := zoneScope(z)
	res := Resource{Kind: vocab.KindZone, ID: z.Zone.ID, Name: z.Zone.Name}
	// The API produces these fields; nothing in the zone changes, only code reading them:
	// notices.
	if r, ok := s.rule(vocab.DNSRecordZoneFields); ok && len(zoneFields) > 0 {
		s.add(r, min(r.sev, SeverityNotice), sc, res, "",
			fmt.Sprintf("%d of %d DNS records of zone %s still carry zone_id/zone_name in API responses (e.g. %s). The API stops producing them (%s): code that reads them must take the zone id and name from GET /zones/:zone_id instead; request bodies need no change (the fields are ignored).",
				len(zoneFields), len(z.DNSRecords), z.Zone.Name, listN(zoneFields, 3), r.life(s.asOf)))
	}
	if r, ok := s.rule(vocab.DNSRecordLocked); ok && len(locked) > 0 {
		s.add(r, min(r.sev, SeverityNotice), sc, res, "",
			fmt.Sprintf("%d of %d DNS records of zone %s still carry locked in API responses (e.g. %s). The field is always false and is omitted from responses (%s): code that reads it must stop; request bodies need no change (the field is ignored).",
				len(locked), len(z.DNSRecords), z.Zone.Name, listN(locked, 3), r.life(s.asOf)))
	}
}

// srvRecords reports each SRV record that carries data.service, data.proto or data.name, and
// whether the name they compose agrees with the record's own name.
func (s *liveScan) srvRecords(z *inventory.ZoneInventory) {
	r, ok := s.rule(vocab.SRVDataFields)
	if !ok {
		return
	}
	sc := zoneScope(z)
	for i := range z.DNSRecords {
		rec := &z.DNSRecords[i]
		if !strings.EqualFold(rec.Type, "SRV") || !rec.Data.HasDeprecatedSRVFields() {
			continue
		}
		var fields []string
		for _, f := range []struct {
			name string
			v    *string
		}{{"data.service", rec.Data.Service}, {"data.proto", rec.Data.Proto}, {"data.name", rec.Data.Name}} {
			if f.v != nil {
				fields = append(fields, fmt.Sprintf("%s %q", f.name, *f.v))
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "SRV record %s (id %s) carries %s", rec.Name, rec.ID, strings.Join(fields, ", "))
		composed, missing := rec.Data.ComposeSRVName(z.Zone.Name)
		switch {
		case len(missing) > 0:
			fmt.Fprintf(&b, "; they cannot compose a name (%s missing), so the record name %s is the only name", strings.Join(missing, ", "), rec.Name)
		case composed == inventory.NormalizeDNSName(rec.Name):
			fmt.Fprintf(&b, "; they compose %s, which agrees with the record name", composed)
		default:
			fmt.Fprintf(&b, "; they compose %s, which CONFLICTS with the record name %s: the record name is what the API keeps, so check which one is intended before the data fields are dropped", composed, rec.Name)
		}
		fmt.Fprintf(&b, ". The three data fields are %s: writers must set only the record name and leave them unset (the API returns an error for them after end of life), and readers must use only the record name.", r.life(s.asOf))
		s.add(r, r.sev, sc, Resource{Kind: vocab.KindDNSRecord, ID: rec.ID, Name: rec.Name}, "", b.String())
	}
}

// settingUse is what a deprecated zone setting's value means for the zone.
type settingUse int

const (
	settingNoop   settingUse = iota // the value the end of life leaves as it is: not a finding
	settingNotice                   // behaviour changes at end of life, nothing to do: a notice
	settingActive                   // the feature is on and goes away: something must change
)

// settingJudgement is a setting value judged: what it is (desc) and what to do before and
// after the end of life.
type settingJudgement struct {
	use           settingUse
	desc          string
	before, after string
}

// settingCheck describes one deprecated zone setting.
type settingCheck struct {
	ruleID  vocab.RuleID
	setting string
	judge   func(v json.RawMessage) settingJudgement
}

func onOff(v json.RawMessage) (on, known bool, desc string) {
	on, known = inventory.SettingOn(v)
	var s string
	if json.Unmarshal(v, &s) == nil {
		return on, known, fmt.Sprintf("%q", s)
	}
	return on, known, rawValue(v)
}

// onOffCheck judges a setting whose off value is the no-op; unknown values are active.
func onOffCheck(before, after string) func(json.RawMessage) settingJudgement {
	return func(v json.RawMessage) settingJudgement {
		on, known, desc := onOff(v)
		if known && !on {
			return settingJudgement{use: settingNoop}
		}
		return settingJudgement{use: settingActive, desc: desc, before: before, after: after}
	}
}

var zoneSettingChecks = []settingCheck{
	{vocab.ZoneSettingBrotli, "brotli", func(v json.RawMessage) settingJudgement {
		on, known, desc := onOff(v)
		if known && on {
			return settingJudgement{use: settingNoop}
		}
		if !known {
			return settingJudgement{use: settingActive, desc: desc, before: "set it to on or off", after: "compression is on by default now"}
		}
		return settingJudgement{use: settingNotice, desc: desc,
			before: "compression is enabled by default for all zones at end of life, so this zone will start serving compressed responses; Enterprise zones can keep it off with a compression rule",
			after:  "compression is enabled by default for all zones since, so this zone serves compressed responses; Enterprise zones can turn it off with a compression rule"}
	}},
	{vocab.ZoneSettingMinify, "minify", func(v json.RawMessage) settingJudgement {
		var m map[string]string
		if json.Unmarshal(v, &m) != nil {
			return settingJudgement{use: settingActive, desc: rawValue(v), before: "Auto Minify goes away: minify assets in your build instead", after: "Auto Minify is gone: minify assets in your build"}
		}
		var on []string
		for _, k := range []string{"css", "html", "js"} {
			if strings.EqualFold(m[k], "on") {
				on = append(on, k)
			}
		}
		if len(on) == 0 {
			return settingJudgement{use: settingNoop}
		}
		return settingJudgement{use: settingActive, desc: "on for " + strings.Join(on, ", "),
			before: "Auto Minify goes away, so these assets will be served unminified: minify them in your build, then turn the setting off",
			after:  "Auto Minify is gone, so these assets are served unminified since: minify them in your build (the value left in the setting does nothing)"}
	}},
	{vocab.ZoneSettingMobileRedirect, "mobile_redirect", judgeMobileRedirect},
	{vocab.ZoneSettingServerSideExclude, "server_side_exclude", onOffCheck(
		"Server-side Excludes go away, so content inside SSE tags will be served to every visitor: remove sensitive content from those pages, then turn the setting off",
		"Server-side Excludes are gone, so content inside SSE tags is served to every visitor since: check those pages (the value left in the setting does nothing)")},
	{vocab.ZoneSettingPrivacyPass, "privacy_pass", onOffCheck(
		"the legacy anonymous-token setting is removed and nothing replaces it: turn it off and stop managing it",
		"the legacy anonymous-token setting is removed: the value left in it does nothing")},
}

func judgeMobileRedirect(v json.RawMessage) settingJudgement {
	var m struct {
		Status          string `json:"status"`
		MobileSubdomain string `json:"mobile_subdomain"`
		StripURI        bool   `json:"strip_uri"`
	}
	if json.Unmarshal(v, &m) != nil {
		return settingJudgement{use: settingActive, desc: rawValue(v), before: "replace it with a single redirect rule", after: "replace it with a single redirect rule"}
	}
	if !strings.EqualFold(m.Status, "on") {
		return settingJudgement{use: settingNoop}
	}
	uri := map[bool]string{true: " without the URI path", false: " with the same URI"}[m.StripURI]
	return settingJudgement{use: settingActive,
		desc:   fmt.Sprintf("on (to subdomain %q, strip_uri %t)", m.MobileSubdomain, m.StripURI),
		before: fmt.Sprintf("replace it with a single redirect rule sending mobile visitors to the %q subdomain%s, then turn it off", m.MobileSubdomain, uri),
		after:  fmt.Sprintf("mobile visitors are no longer redirected since: create a single redirect rule sending them to the %q subdomain%s", m.MobileSubdomain, uri)}
}

// deprecatedZoneSettings reports the deprecated zone settings whose value matters. A setting
// at its no-op value (minify, mobile_redirect, server_side_exclude and privacy_pass off,
// brotli on) is not a finding: its end of life changes nothing. brotli off is a notice
// (compression comes on). A feature that is on is a warning before its end of life (it must
// be replaced or turned off) and a notice after it (the feature is gone and the value left
// does nothing), except mobile_redirect without its replacement redirect rule, which stays
// at the entry's severity: redirects stopped and the rule must be created.
func (s *liveScan) deprecatedZoneSettings(z *inventory.ZoneInventory) {
	for _, c := range zoneSettingChecks {
		r, ok := s.rule(c.ruleID)
		if !ok {
			continue
		}
		set, ok := z.Setting(c.setting)
		if !ok {
			continue
		}
		j := c.judge(set.Value)
		if j.use == settingNoop {
			continue
		}
		pastEOL := r.sev == SeverityError
		sev, advice := r.sev, j.before
		if pastEOL {
			advice = j.after
		}
		switch {
		case j.use == settingNotice:
			sev = SeverityNotice
		case c.setting == "mobile_redirect":
			if rule, ok := mobileRedirectReplaced(z, set.Value); ok {
				sev = SeverityNotice
				advice = fmt.Sprintf("the single redirect rule %s replaces it", named(rule.Description, rule.ID))
				if !pastEOL {
					advice += "; turn the setting off"
				}
			}
		case pastEOL:
			sev = SeverityNotice
		}
		s.add(r, sev, zoneScope(z), Resource{Kind: vocab.KindZoneSetting, ID: c.setting, Name: c.setting}, "",
			fmt.Sprintf("Zone setting %s is %s. The /zones/:zone_id/settings/%s endpoint is %s: %s.", c.setting, j.desc, c.setting, r.life(s.asOf), advice))
	}
}

// notificationMessage says what to do about a notification_email value. The field is one of
// load balancer pools in the real API (the spec places it on health checks, whose API and
// Terraform resource have no such field), so pools are what the scan reports.
func notificationMessage(what string, r rule, s *liveScan, email string) string {
	addrs := inventory.EmailList(email)
	return fmt.Sprintf("%s sends health notifications to notification_email %q (%s). The field is %s: create a notification policy (/accounts/:account_id/alerting/v3/policies) for these addresses, then clear the field.",
		what, email, plural(len(addrs), "address", "addresses"), r.life(s.asOf))
}

// pools reports account load balancer pools with notification_email set.
func (s *liveScan) pools(a *inventory.AccountInventory) {
	r, ok := s.rule(vocab.NotificationEmail)
	if !ok {
		return
	}
	sc := scope{accountID: a.Account.ID}
	for i := range a.LoadBalancerPools {
		p := &a.LoadBalancerPools[i]
		if !p.HasNotificationEmail() {
			continue
		}
		s.add(r, r.sev, sc, Resource{Kind: vocab.KindLoadBalancerPool, ID: p.ID, Name: p.Name}, "",
			notificationMessage("Load balancer pool "+named(p.Name, p.ID), r, s, p.NotificationEmail))
	}
}

// accountNameservers reports accounts whose settings still set default_nameservers or
// use_account_custom_ns_by_default = true, with the zone_defaults.nameservers.type they map to.
// use_account_custom_ns_by_default = false alone is the default and says nothing to carry over.
func (s *liveScan) accountNameservers(a *inventory.AccountInventory) {
	r, ok := s.rule(vocab.AccountNameserverSettings)
	st := a.Account.Settings
	if !ok || st == nil {
		return
	}
	useCustom := st.UseAccountCustomNSByDefault != nil && *st.UseAccountCustomNSByDefault
	if st.DefaultNameservers == "" && !useCustom {
		return
	}
	var set []string
	if st.DefaultNameservers != "" {
		set = append(set, fmt.Sprintf("default_nameservers = %q", st.DefaultNameservers))
	}
	if st.UseAccountCustomNSByDefault != nil {
		set = append(set, fmt.Sprintf("use_account_custom_ns_by_default = %t", *st.UseAccountCustomNSByDefault))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Account %s settings set %s; these fields are %s", named(a.Account.Name, a.Account.ID), strings.Join(set, " and "), strings.Replace(r.life(s.asOf), "past its end", "past their end", 1))
	var target string
	known := true
	switch {
	case useCustom:
		target = "custom.account"
		fmt.Fprintf(&b, ": use_account_custom_ns_by_default = true maps to zone_defaults.nameservers.type = \"custom.account\" (a derived mapping)")
		if st.DefaultNameservers != "" && inventory.NameserverType(st.DefaultNameservers) != "custom.account" {
			fmt.Fprintf(&b, ", which conflicts with default_nameservers %q: the derived mapping lets use_account_custom_ns_by_default win; check which is intended", st.DefaultNameservers)
		}
	default:
		target = inventory.NameserverType(st.DefaultNameservers)
		known = target != ""
		if known {
			fmt.Fprintf(&b, ": default_nameservers carries over unchanged to zone_defaults.nameservers.type = %q", st.DefaultNameservers)
		} else {
			fmt.Fprintf(&b, ": default_nameservers %q has no known zone_defaults.nameservers.type (cloudflare.standard, cloudflare.standard.random, custom.account, custom.tenant); set it by hand", st.DefaultNameservers)
		}
	}
	// The value lives on in zone_defaults.nameservers.type (old and new reflect each other):
	// only callers must move, a notice, unless the value has no mapping or the two disagree.
	sev := min(r.sev, SeverityNotice)
	if !known {
		sev = r.sev
	}
	if d := a.DNSSettings; known && d != nil && d.ZoneDefaults.Nameservers != nil && d.ZoneDefaults.Nameservers.Type != "" {
		cur := d.ZoneDefaults.Nameservers.Type
		if inventory.NameserverType(cur) == target {
			fmt.Fprintf(&b, ", which the account DNS settings already report (%q)", cur)
		} else {
			fmt.Fprintf(&b, ", but the account DNS settings report %q: check which one is current", cur)
			sev = r.sev
		}
	}
	b.WriteString(". Existing values need no migration (old and new settings reflect each other); callers must read and write zone_defaults.nameservers.type through /accounts/:account_id/dns_settings instead.")
	s.add(r, sev, scope{accountID: a.Account.ID}, Resource{Kind: vocab.KindAccount, ID: a.Account.ID, Name: a.Account.Name}, "", b.String())
}

// tunnels reports legacy tunnels, as notices; tunnels listed with deleted_at are gone and
// need nothing.
func (s *liveScan) tunnels(a *inventory.AccountInventory) {
	r, ok := s.rule(vocab.ArgoTunnelsAPI)
	if !ok {
		return
	}
	for i := range a.Tunnels {
		t := &a.Tunnels[i]
		if t.DeletedAt != "" {
			continue
		}
		created := ""
		if t.CreatedAt != "" {
			created = ", created " + t.CreatedAt
		}
		// The tunnel itself lives on under the tunnel API: only callers of the legacy API must
		// move, a notice.
		s.add(r, min(r.sev, SeverityNotice), scope{accountID: a.Account.ID}, Resource{Kind: vocab.KindTunnel, ID: t.ID, Name: t.Name}, "",
			fmt.Sprintf("Tunnel %q (id %s%s) is listed by the legacy /accounts/:account_id/tunnels API, which is %s; the same tunnel is served by the Cloudflare Tunnel API (/accounts/:account_id/cfd_tunnel), so nothing in the account changes: scripts and tools must use that API instead.",
				t.Name, t.ID, created, r.life(s.asOf)))
	}
}

// accessBookmarks reports Access bookmark applications of the legacy bookmarks API.
func (s *liveScan) accessBookmarks(a *inventory.AccountInventory) {
	r, ok := s.rule(vocab.AccessBookmarksAPI)
	if !ok {
		return
	}
	for i := range a.AccessBookmarks {
		bm := &a.AccessBookmarks[i]
		domain := ""
		if bm.Domain != "" {
			domain = ", domain " + bm.Domain
		}
		s.add(r, r.sev, scope{accountID: a.Account.ID}, Resource{Kind: vocab.KindAccessBookmark, ID: bm.ID, Name: bm.Name}, "",
			fmt.Sprintf("Access bookmark %q (id %s%s) is managed through the legacy bookmarks API, which is %s: manage it as an Access application of type bookmark (/accounts/:account_id/access/apps) instead.",
				bm.Name, bm.ID, domain, r.life(s.asOf)))
	}
}

// mobileRedirectReplaced is the redirect rule that replaces a zone's mobile_redirect setting
// (value v): the one a plan made (its ref), or one that does what it would (package
// meaning), whoever wrote it.
func mobileRedirectReplaced(z *inventory.ZoneInventory, v json.RawMessage) (inventory.RulesetRule, bool) {
	if rule, ok := z.RuleByRef(vocab.PhaseDynamicRedirect, inventory.MobileRedirectRef); ok {
		return rule, true
	}
	var m struct {
		MobileSubdomain string `json:"mobile_subdomain"`
		StripURI        bool   `json:"strip_uri"`
	}
	rs, ok := z.Ruleset(vocab.PhaseDynamicRedirect)
	if !ok || json.Unmarshal(v, &m) != nil || m.MobileSubdomain == "" {
		return inventory.RulesetRule{}, false
	}
	want, _ := inventory.MobileRedirectRule(z.Zone.Name, m.MobileSubdomain, m.StripURI)
	key := meaning.Rule(vocab.PhaseDynamicRedirect, want)
	for _, r := range rs.Rules {
		if meaning.Rule(vocab.PhaseDynamicRedirect, r) == key {
			return r, true
		}
	}
	return inventory.RulesetRule{}, false
}
