package emulator

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// zoneRoutes registers zones, accounts and DNS settings.
func (s *Server) zoneRoutes() {
	s.handle("GET", "/zones", func(c *call) *reply {
		q := c.query
		var out []*zoneState
		for _, z := range c.st.zones {
			if v := q.Get("name"); v != "" && !strings.EqualFold(z.zone.Name, v) {
				continue
			}
			if v := q.Get("account.id"); v != "" && z.zone.Account.ID != v {
				continue
			}
			if v := q.Get("account.name"); v != "" && z.zone.Account.Name != v {
				continue
			}
			if v := q.Get("status"); v != "" && z.zone.Status != v {
				continue
			}
			out = append(out, z)
		}
		// Results are encoded before the state lock is released, so a shallow copy is enough.
		return renderPage(c, out, pageZones, func(z *zoneState) inventory.Zone { return c.st.renderZone(z, c.asOf) })
	})
	s.handle("GET", "/zones/:zone_id", func(c *call) *reply { return ok(c.st.renderZone(c.zone, c.asOf)) })
	s.handle("GET", "/zones/:zone_id/dns_settings", func(c *call) *reply { return ok(deepCopy(c.zone.dnsSettings)) })
	s.handle("PATCH", "/zones/:zone_id/dns_settings", func(c *call) *reply {
		z := c.zone
		before := deepCopy(z.dnsSettings)
		if rep := c.patchDNSSettings(&z.dnsSettings); rep != nil {
			return rep
		}
		// The deprecated endpoints read these fields; their modified_on follows a change here.
		if *before.FlattenAllCNAMEs != *z.dnsSettings.FlattenAllCNAMEs {
			z.modified["cname_flattening"] = c.stamp()
		}
		if *before.MultiProvider != *z.dnsSettings.MultiProvider {
			z.modified["dns_settings/use_apex_ns"] = c.stamp()
		}
		if *before.SecondaryOverrides != *z.dnsSettings.SecondaryOverrides {
			z.modified["dns_settings/secondary_overrides"] = c.stamp()
		}
		return ok(deepCopy(z.dnsSettings))
	})
	for _, name := range []string{"use_apex_ns", "secondary_overrides"} {
		name := name
		s.handle("GET", "/zones/:zone_id/dns_settings/"+name, func(c *call) *reply { return ok(c.zone.legacyDNSSetting(name)) })
		s.handle("PATCH", "/zones/:zone_id/dns_settings/"+name, func(c *call) *reply {
			var in struct {
				Value json.RawMessage `json:"value"`
			}
			if rep := c.decode(&in); rep != nil {
				return rep
			}
			v, okv := settingBool(in.Value)
			if !okv {
				return fail(http.StatusBadRequest, CodeInvalidSettingValue, "value of %s must be true or false (or \"on\"/\"off\")", name)
			}
			z := c.zone
			if name == "use_apex_ns" {
				z.dnsSettings.MultiProvider = boolPtr(v)
			} else {
				z.dnsSettings.SecondaryOverrides = boolPtr(v)
			}
			z.modified["dns_settings/"+name] = c.stamp()
			return ok(z.legacyDNSSetting(name))
		})
	}
	s.accountRoutes()
}

// accountRoutes registers the accounts list and creation; accountItemRoutes the rest.
func (s *Server) accountRoutes() {
	s.handle("GET", "/accounts", func(c *call) *reply {
		out := []inventory.Account{}
		for _, a := range c.st.accounts {
			if v := c.query.Get("name"); v != "" && !strings.Contains(strings.ToLower(a.account.Name), strings.ToLower(v)) {
				continue
			}
			out = append(out, a.renderAccount())
		}
		return listReply(c, out, pageAccounts)
	})
	s.handle("POST", "/accounts", func(c *call) *reply {
		var in inventory.Account
		if rep := c.decode(&in); rep != nil {
			return rep
		}
		if strings.TrimSpace(in.Name) == "" {
			return invalid("account name is required")
		}
		a := &accountState{account: inventory.Account{Name: in.Name, Extra: in.Extra}}
		a.account.ID = c.st.newID("account")
		fillDNSDefaults(&a.dnsSettings.ZoneDefaults)
		if rep := a.applyLegacySettings(in.Settings); rep != nil {
			return rep
		}
		if in.Settings != nil {
			a.account.Settings = &inventory.AccountSettings{EnforceTwoFactor: in.Settings.EnforceTwoFactor, Extra: in.Settings.Extra}
		}
		c.st.accounts = append(c.st.accounts, a)
		c.st.accountByID[a.account.ID] = a
		return ok(a.renderAccount())
	})
	s.accountItemRoutes()
}

// accountItemRoutes registers one account, its update and its DNS settings.
func (s *Server) accountItemRoutes() {
	s.handle("GET", "/accounts/:account_id", func(c *call) *reply { return ok(c.account.renderAccount()) })
	s.handle("PUT", "/accounts/:account_id", func(c *call) *reply {
		var in inventory.Account
		if rep := c.decode(&in); rep != nil {
			return rep
		}
		if strings.TrimSpace(in.Name) == "" {
			return invalid("account name is required")
		}
		a := c.account
		if rep := a.applyLegacySettings(in.Settings); rep != nil {
			return rep
		}
		a.account.Name = in.Name
		for k, v := range in.Extra {
			if k == "id" {
				continue
			}
			if a.account.Extra == nil {
				a.account.Extra = inventory.Extra{}
			}
			a.account.Extra[k] = v
		}
		if in.Settings != nil {
			if a.account.Settings == nil {
				a.account.Settings = &inventory.AccountSettings{}
			}
			if in.Settings.EnforceTwoFactor != nil {
				a.account.Settings.EnforceTwoFactor = in.Settings.EnforceTwoFactor
			}
			for k, v := range in.Settings.Extra {
				if a.account.Settings.Extra == nil {
					a.account.Settings.Extra = inventory.Extra{}
				}
				a.account.Settings.Extra[k] = v
			}
		}
		return ok(a.renderAccount())
	})
	s.handle("GET", "/accounts/:account_id/dns_settings", func(c *call) *reply { return ok(deepCopy(c.account.dnsSettings)) })
	s.handle("PATCH", "/accounts/:account_id/dns_settings", func(c *call) *reply {
		var in map[string]json.RawMessage
		if rep := c.decode(&in); rep != nil {
			return rep
		}
		a := c.account
		raw, found := in["zone_defaults"]
		if !found {
			return invalid("zone_defaults is required")
		}
		next := deepCopy(a.dnsSettings)
		sub := &call{s: c.s, st: c.st, body: raw, query: c.query, asOf: c.asOf, now: c.now}
		if rep := sub.patchDNSSettings(&next.ZoneDefaults); rep != nil {
			return rep
		}
		a.dnsSettings = next
		return ok(deepCopy(a.dnsSettings))
	})
}

// applyLegacySettings reflects the deprecated account settings into
// zone_defaults.nameservers.type: use_account_custom_ns_by_default true means custom.account
// (derived) and wins over a default_nameservers sent with it; default_nameservers carries over
// unchanged; the flag set to false moves custom.account back to cloudflare.standard. A value
// equal to what is derived from the current type changes nothing, so a GET-then-PUT round trip
// keeps, say, cloudflare.standard.random.
func (a *accountState) applyLegacySettings(in *inventory.AccountSettings) *reply {
	if in == nil {
		return nil
	}
	nsType := a.dnsSettings.ZoneDefaults.Nameservers.Type
	curDefault, _ := legacyNameservers(nsType)
	if in.DefaultNameservers != "" {
		if !validAccountNameservers(in.DefaultNameservers) {
			return fail(http.StatusBadRequest, CodeInvalidSettingValue, "default_nameservers %q is not one of cloudflare.standard, custom.account, custom.tenant", in.DefaultNameservers)
		}
		if canonicalNameservers(in.DefaultNameservers) != curDefault {
			nsType = canonicalNameservers(in.DefaultNameservers)
		}
	}
	if flag := in.UseAccountCustomNSByDefault; flag != nil {
		if *flag {
			nsType = "custom.account"
		} else if nsType == "custom.account" {
			nsType = "cloudflare.standard"
		}
	}
	a.dnsSettings.ZoneDefaults.Nameservers = &inventory.Nameservers{Type: nsType, NSSet: a.dnsSettings.ZoneDefaults.Nameservers.NSSet, Extra: a.dnsSettings.ZoneDefaults.Nameservers.Extra}
	return nil
}

// patchDNSSettings applies the members of the request body to d, all or none.
func (c *call) patchDNSSettings(d *inventory.DNSSettings) *reply {
	var in map[string]json.RawMessage
	if rep := c.decode(&in); rep != nil {
		return rep
	}
	next := deepCopy(*d)
	bad := func(key, want string) *reply {
		return fail(http.StatusBadRequest, CodeInvalidSettingValue, "%s must be %s", key, want)
	}
	for key, raw := range in {
		switch key {
		case "flatten_all_cnames", "foundation_dns", "multi_provider", "secondary_overrides":
			var b bool
			if json.Unmarshal(raw, &b) != nil {
				return bad(key, "a boolean")
			}
			switch key {
			case "flatten_all_cnames":
				next.FlattenAllCNAMEs = boolPtr(b)
			case "foundation_dns":
				next.FoundationDNS = boolPtr(b)
			case "multi_provider":
				next.MultiProvider = boolPtr(b)
			case "secondary_overrides":
				next.SecondaryOverrides = boolPtr(b)
			}
		case "ns_ttl":
			var n int
			if json.Unmarshal(raw, &n) != nil || n < 30 || n > 86400 {
				return bad(key, "an integer between 30 and 86400")
			}
			next.NSTTL = intPtr(n)
		case "nameservers":
			var ns inventory.Nameservers
			if json.Unmarshal(raw, &ns) != nil || !nameserverTypes[ns.Type] {
				return bad("nameservers.type", "one of cloudflare.standard, cloudflare.standard.random, custom.account, custom.tenant, custom.zone (platform.* spellings accepted)")
			}
			ns.Type = canonicalNameservers(ns.Type)
			next.Nameservers = &ns
		case "zone_mode":
			var m string
			if json.Unmarshal(raw, &m) != nil || (m != "standard" && m != "cdn_only" && m != "dns_only") {
				return bad(key, "one of standard, cdn_only, dns_only")
			}
			next.ZoneMode = m
		case "soa":
			var obj map[string]json.RawMessage
			if json.Unmarshal(raw, &obj) != nil {
				return bad(key, "an object")
			}
			next.SOA = raw
		default:
			if next.Extra == nil {
				next.Extra = inventory.Extra{}
			}
			next.Extra[key] = raw
		}
	}
	*d = next
	return nil
}
