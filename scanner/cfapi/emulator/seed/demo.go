package seed

import (
	"github.com/sunsetscan/sunset/scanner/inventory"
	"github.com/sunsetscan/sunset/scanner/vocab"
)

// Credentials the demo emulator accepts. They are documented, not secret: anyone may use them
// against a local emulator, and they open nothing else.
const (
	// DemoToken is the API token (Authorization: Bearer) of the demo account; 40 characters
	// or more, as the Terraform provider v4 requires of a token, so it can be pointed at the
	// emulator too.
	DemoToken = "sunset-demo-token-documented-and-not-a-secret"
	// DemoEmail is the account e-mail (X-Auth-Email) of the demo account.
	DemoEmail = "demo@example.com"
	// DemoKey is the global API key (X-Auth-Key) that goes with DemoEmail.
	DemoKey = "0000000000demo0key0not0a0secret000000"
)

// Names of the demo accounts.
const (
	AccountAcme    = "Acme Retail"
	AccountGlobex  = "Globex Media"
	AccountInitech = "Initech Platform"
)

// Names of the demo zones (RFC 2606 / RFC 6761 names, so nothing real is ever addressed).
const (
	ZoneShop  = "shop.example"      // Pro, Acme Retail
	ZoneBlog  = "blog.example.org"  // Free, Acme Retail
	ZoneMedia = "media.example.net" // Business, Globex Media
	ZoneNews  = "news.example.com"  // Free, Globex Media
	ZoneAPI   = "api.example.com"   // Enterprise, Initech Platform
	ZoneDocs  = "docs.example.test" // Pro, Initech Platform
)

// DemoSource is the Snapshot.Source of the demo data.
const DemoSource = "demo"

// Demo returns the hand-built demo account (deterministic, fresh copy on every call): three
// accounts and six zones that between them hold at least one instance of every catalog entry
// a live scan can detect and every tricky migration case (see the package documentation).
func Demo() *inventory.Snapshot {
	src := namedIDs{}
	acme := account(src, AccountAcme, "custom.tenant", nil, "custom.tenant")
	globex := account(src, AccountGlobex, "", ptr(true), "custom.account")
	initech := account(src, AccountInitech, "custom.tenant", ptr(false), "custom.tenant")

	acme.AccessBookmarks = []inventory.AccessBookmark{
		{ID: ID("access_bookmark", "acme/grafana"), Name: "Grafana", Domain: "grafana.shop.example"},
		{ID: ID("access_bookmark", "acme/wiki"), Name: "Team wiki", Domain: "wiki.example.com"},
	}
	globex.LoadBalancerPools = []inventory.LoadBalancerPool{
		{
			ID: ID("load_balancer_pool", "globex/media-origins-eu"), Name: "media-origins-eu",
			Description: "EU origins of media.example.net", NotificationEmail: "noc@example.net,oncall@example.net",
			Extra: inventory.Extra{"enabled": raw(`true`), "minimum_origins": raw(`1`),
				"origins": raw(`[{"address":"192.0.2.20","enabled":true,"name":"eu-1","weight":1}]`)},
		},
		{
			ID: ID("load_balancer_pool", "globex/media-origins-us"), Name: "media-origins-us",
			Description: "US origins of media.example.net (alerts through notification policies)",
			Extra: inventory.Extra{"enabled": raw(`true`), "minimum_origins": raw(`1`),
				"origins": raw(`[{"address":"198.51.100.20","enabled":true,"name":"us-1","weight":1}]`)},
		},
	}
	initech.Tunnels = []inventory.Tunnel{
		{ID: ID("tunnel", "initech/api-origin"), Name: "api-origin", CreatedAt: "2021-11-02T14:05:09.000000Z"},
		{ID: ID("tunnel", "initech/old-bastion"), Name: "old-bastion", CreatedAt: "2020-06-17T08:00:00.000000Z",
			DeletedAt: "2023-01-30T10:12:44.000000Z"},
	}

	s := &inventory.Snapshot{
		SchemaVersion: inventory.SnapshotSchemaVersion,
		Source:        DemoSource,
		Accounts:      []inventory.AccountInventory{acme, globex, initech},
		Zones: []inventory.ZoneInventory{
			shopZone(src, ref(acme)),
			blogZone(src, ref(acme)),
			mediaZone(src, ref(globex)),
			newsZone(src, ref(globex)),
			apiZone(src, ref(initech)),
			docsZone(src, ref(initech)),
		},
	}
	s.Sort()
	return s
}

func ref(a inventory.AccountInventory) inventory.Ref {
	return inventory.Ref{ID: a.Account.ID, Name: a.Account.Name}
}

// account builds an account whose deprecated nameserver settings and DNS settings reflect
// each other (nsType is zone_defaults.nameservers.type).
func account(src ids, name, defaultNS string, useCustomNS *bool, nsType string) inventory.AccountInventory {
	return inventory.AccountInventory{
		Account: inventory.Account{
			ID:   src.id("account", "", name),
			Name: name,
			Settings: &inventory.AccountSettings{
				EnforceTwoFactor:            ptr(true),
				DefaultNameservers:          defaultNS,
				UseAccountCustomNSByDefault: useCustomNS,
			},
		},
		DNSSettings: &inventory.AccountDNSSettings{ZoneDefaults: inventory.DNSSettings{
			FlattenAllCNAMEs:   ptr(false),
			FoundationDNS:      ptr(false),
			MultiProvider:      ptr(false),
			SecondaryOverrides: ptr(false),
			NSTTL:              ptr(86400),
			Nameservers:        &inventory.Nameservers{Type: nsType},
			ZoneMode:           "standard",
		}},
	}
}

// shopZone: Pro. Wildcards where a Pro zone cannot use regex, flatten_all, minify, two rate
// limits (the new Pro quota) whose period, timeout and scheme need the Pro plan's values, the
// OWASP package in simulate/medium next to a traditional package with changed groups and
// rules, a URL override, SRV records with data fields.
func shopZone(src ids, acct inventory.Ref) inventory.ZoneInventory {
	b := newZone(src, ZoneShop, inventory.PlanPro, acct)

	login := b.filter("wp-login-regex", `http.request.uri.path eq "/wp-login.php" and http.request.method eq "POST"`, "WooCommerce login")
	xmlrpc := b.filter("xmlrpc-regex", `http.request.uri.path wildcard "*/xmlrpc.php"`, "")
	bots := b.filter("bad-bots", `(http.user_agent contains "sqlmap") or (http.user_agent contains "nikto") or (http.user_agent eq "")`, "")
	checkout := b.filter("checkout-geo", `ip.src.country in {"KP" "IR"} and starts_with(http.request.uri.path, "/checkout")`, "")
	webhooks := b.filter("payment-webhooks", `ip.src in {203.0.113.0/24 198.51.100.17} and http.request.uri.path eq "/api/webhooks/payments"`, "")
	scraper := b.filter("staging-scraper", `http.user_agent contains "PriceScraper/2.1" and ip.src in {198.51.100.128/25}`, "")

	b.rule("challenge-wp-login", login, inventory.FirewallRule{Action: vocab.ActionManagedChallenge, Priority: ptr(1), Description: "Challenge POSTs to wp-login"})
	b.rule("block-xmlrpc", xmlrpc, inventory.FirewallRule{Action: vocab.ActionBlock, Priority: ptr(2), Description: "Block xmlrpc.php anywhere"})
	b.rule("block-bad-bots", bots, inventory.FirewallRule{Action: vocab.ActionBlock, Priority: ptr(3), Description: "Block scanners and empty user agents"})
	b.rule("checkout-geo", checkout, inventory.FirewallRule{Action: vocab.ActionJSChallenge, Priority: ptr(4), Description: "Challenge checkout from high-risk countries"})
	b.rule("allow-webhooks", webhooks, inventory.FirewallRule{Action: vocab.ActionAllow, Priority: ptr(5), Description: "Allow payment provider webhooks"})
	b.rule("block-scraper", scraper, inventory.FirewallRule{Action: vocab.ActionBlock, Paused: true, Description: "Temporary: block price scraper"})

	b.rateLimit("search", inventory.RateLimit{
		Description: "Search scraping (period 900 and timeout 3000 are not allowed any more: rounded)",
		Match: inventory.RateLimitMatch{Request: &inventory.RateLimitRequest{
			Methods: []string{"_ALL_"}, Schemes: []string{"_ALL_"}, URL: "shop.example/search*"}},
		Threshold: 200, Period: 900,
		Action: inventory.RateLimitAction{Mode: "ban", Timeout: 3000},
	})
	b.rateLimit("api", inventory.RateLimit{
		Description: "Storefront API",
		Match: inventory.RateLimitMatch{Request: &inventory.RateLimitRequest{
			Methods: []string{"_ALL_"}, Schemes: []string{"HTTPS"}, URL: "shop.example/api/*"}},
		Bypass:    []inventory.RateLimitBypass{{Name: "url", Value: "shop.example/api/health"}},
		Threshold: 100, Period: 10,
		Action: inventory.RateLimitAction{Mode: "challenge"},
	})

	b.waf(wafSpec{
		OWASPSensitivity: "medium", OWASPActionMode: "simulate",
		OffGroups: map[string]bool{"cf-drupal": true, "owasp-bad-robots": true},
		RuleModes: map[string]string{
			"cf-specials/ua-missing":       "simulate",
			"cf-wordpress/user-enum":       "disable",
			"cf-php/wrapper":               "challenge",
			"owasp-xss/event-handler":      "off",
			"cf-specials/sqli-union":       "block",
			"cf-wordpress/xmlrpc-pingback": "default",
		},
	})
	b.zi.WAFOverrides = []inventory.WAFOverride{{
		ID: b.id("waf_override", "admin"), Description: "Shop admin: no XSS group, simulate the PHP wrapper rule",
		URLs: []string{"shop.example/admin/*", "shop.example/wp-admin/*"}, Priority: 1,
		Groups: map[string]string{b.id("waf_group", "owasp-xss"): "disable"},
		Rules:  map[string]string{b.id("waf_rule", "cf-php/wrapper"): "simulate"},
	}}

	b.settings(zoneSettings{CNAMEFlattening: "flatten_all", Brotli: "on", SSL: "strict",
		Minify: `{"css":"on","html":"off","js":"on"}`})
	b.dnsSettings(false, false)

	b.basicRecords("192.0.2.10", "2001:db8:10::1")
	b.record("cname-shop-assets", inventory.DNSRecord{Type: "CNAME", Name: "assets.shop.example", Content: "shop-assets.example.net", Proxied: ptr(true)})
	b.srv("srv-sip", "_sip", "_tcp", ZoneShop, 10, 60, 5060, "sip.shop.example", &srvLegacy{})
	b.srv("srv-sips", "_sips", "_tcp", ZoneShop, 10, 40, 5061, "sip.shop.example", &srvLegacy{})
	return b.zi
}

// blogZone: Free, with an orphan filter left by a rule the quota refused, and an existing
// custom rule: 4 firewall rules + 1 fill the custom rules quota of 5 exactly.
func blogZone(src ids, acct inventory.Ref) inventory.ZoneInventory {
	b := newZone(src, ZoneBlog, inventory.PlanFree, acct)

	xmlrpc := b.filter("xmlrpc", `http.request.uri.path eq "/xmlrpc.php"`, "")
	login := b.filter("wp-login", `http.request.uri.path contains "/wp-login.php" and not ip.src in {192.0.2.0/24}`, "")
	config := b.filter("wp-config", `http.request.uri.path contains "wp-config"`, "")
	monitor := b.filter("uptime-monitor", `ip.src eq 198.51.100.25 and http.user_agent contains "UptimeMonitor"`, "")
	// A rule (block user enumeration) was sent through the combined create call when the zone
	// was at its rule quota; the quota refused the rule but the filter stayed: an orphan.
	b.filter("user-enum-orphan", `http.request.uri.path contains "/wp-json/wp/v2/users"`, "Block user enumeration")

	b.rule("block-xmlrpc", xmlrpc, inventory.FirewallRule{Action: vocab.ActionBlock, Priority: ptr(1), Description: "Block xmlrpc.php"})
	b.rule("challenge-wp-login", login, inventory.FirewallRule{Action: vocab.ActionManagedChallenge, Priority: ptr(2), Description: "Challenge wp-login outside the office"})
	b.rule("block-wp-config", config, inventory.FirewallRule{Action: vocab.ActionBlock, Priority: ptr(3), Description: "Block wp-config probes"})
	b.rule("allow-uptime-monitor", monitor, inventory.FirewallRule{Action: vocab.ActionAllow, Description: "Allow the uptime monitor"})

	b.ruleset(vocab.PhaseCustomRules, "2024-09-03T16:20:00.000000Z", inventory.RulesetRule{
		Action: vocab.ActionBlock, Expression: `(http.request.uri.path contains "/.env")`,
		Description: "Block dotenv probes", Enabled: ptr(true),
	})

	b.rateLimit("wp-login", inventory.RateLimit{
		Description: "wp-login.php",
		Match: inventory.RateLimitMatch{Request: &inventory.RateLimitRequest{
			Methods: []string{"_ALL_"}, Schemes: []string{"HTTP", "HTTPS"}, URL: "*/wp-login.php*"}},
		Threshold: 5, Period: 60,
		Action: inventory.RateLimitAction{Mode: "ban", Timeout: 3600},
	})

	b.settings(zoneSettings{Brotli: "on", SSL: "flexible"})
	b.dnsSettings(false, false)

	// An apex CNAME: flattened by flatten_at_root.
	b.record("cname-apex", inventory.DNSRecord{Type: "CNAME", Name: ZoneBlog, Content: "blog-host.example.net", Proxied: ptr(true)})
	b.record("cname-www", inventory.DNSRecord{Type: "CNAME", Name: "www." + ZoneBlog, Content: ZoneBlog, Proxied: ptr(true)})
	b.record("txt-spf", inventory.DNSRecord{Type: "TXT", Name: ZoneBlog, Content: `"v=spf1 include:_spf.example.net ~all"`, TTL: 3600})
	b.record("txt-verify", inventory.DNSRecord{Type: "TXT", Name: "_verify." + ZoneBlog, Content: `"site-verification=5f2c0d9e"`, TTL: 3600,
		Comment: "search console ownership", Tags: []string{"owner:marketing"}})
	return b.zi
}

// mediaZone: Business. An allow and a bypass on the same expression at the same priority,
// equal priorities with different actions, a filter shared by two rules, rate limits with
// response status and headers (under match.response and under match), bypass urls, _ALL_
// methods, a custom response body; URL overrides; multi_provider; an SRV record whose data
// fields conflict with its name; a health check (no notification_email: the real API has
// none on health checks).
func mediaZone(src ids, acct inventory.Ref) inventory.ZoneInventory {
	b := newZone(src, ZoneMedia, inventory.PlanBusiness, acct)
	mediaFirewall(b)
	mediaRateLimits(b)
	mediaWAF(b)

	b.settings(zoneSettings{Brotli: "on", ServerSideExclude: "on", SecurityLevel: "high", SSL: "strict"})
	b.dnsSettings(true, false)

	b.basicRecords("192.0.2.20", "2001:db8:20::1")
	b.record("cname-cdn", inventory.DNSRecord{Type: "CNAME", Name: "cdn.media.example.net", Content: "media-cdn.example.com", Proxied: ptr(true)})
	b.record("ns-delegated", inventory.DNSRecord{Type: "NS", Name: "lab.media.example.net", Content: "ns1.example.org", TTL: 86400})
	b.srv("srv-xmpp-conflict", "_xmpp-client", "_tcp", "chat."+ZoneMedia, 5, 0, 5222, "xmpp.media.example.net",
		&srvLegacy{Service: "_xmpp-server", Name: ZoneMedia})
	b.srv("srv-caldav", "_caldavs", "_tcp", ZoneMedia, 0, 1, 443, "cal.media.example.net", &srvLegacy{})

	b.zi.HealthChecks = []inventory.HealthCheck{{
		ID: b.id("health_check", "origin"), Name: "origin-health", Description: "Primary origin",
		Address: "origin.media.example.net",
		Extra:   inventory.Extra{"type": raw(`"HTTPS"`), "interval": raw(`60`), "suspended": raw(`false`)},
	}}
	return b.zi
}

// mediaFirewall: the allow and the bypass on one expression at one priority, equal
// priorities with different actions, the scrapers filter shared by a paused challenge and a
// block, a regex the Business plan allows, and a rule without priority.
func mediaFirewall(b *zoneBuilder) {
	const office = `ip.src in {198.51.100.0/24 2001:db8:1::/48}`
	officeAllow := b.filter("office-allow", office, "Office network")
	officeBypass := b.filter("office-bypass", office, "Office network")
	admin := b.filter("admin-outside", `starts_with(http.request.uri.path, "/admin") and not ip.src in {198.51.100.0/24}`, "")
	tor := b.filter("tor", `ip.src.country eq "T1"`, "")
	scrapers := b.filter("api-scrapers", `http.request.uri.path contains "/api/" and not cf.client.bot and http.user_agent contains "scrapy"`, "API scrapers")
	sqli := b.filter("sqli-regex", `http.request.uri.query ~ "(?i)union.+select"`, "")
	login := b.filter("login-continents", `ip.src.continent in {"AS" "AF"} and http.request.uri.path eq "/login"`, "")

	b.rule("allow-office", officeAllow, inventory.FirewallRule{Action: vocab.ActionAllow, Priority: ptr(10), Description: "Allow office network"})
	b.rule("bypass-office", officeBypass, inventory.FirewallRule{Action: vocab.ActionBypass, Priority: ptr(10), Description: "Skip WAF and security level for the office",
		Products: []string{"waf", "securityLevel"}})
	b.rule("block-admin", admin, inventory.FirewallRule{Action: vocab.ActionBlock, Priority: ptr(20), Description: "Block /admin from outside the office"})
	b.rule("challenge-tor", tor, inventory.FirewallRule{Action: vocab.ActionChallenge, Priority: ptr(20), Description: "Challenge Tor exit nodes"})
	b.rule("challenge-scrapers", scrapers, inventory.FirewallRule{Action: vocab.ActionChallenge, Priority: ptr(30), Paused: true, Description: "Challenge API scrapers (draft)"})
	b.rule("block-scrapers", scrapers, inventory.FirewallRule{Action: vocab.ActionBlock, Priority: ptr(40), Description: "Block API scrapers"})
	b.rule("block-sqli", sqli, inventory.FirewallRule{Action: vocab.ActionBlock, Priority: ptr(50), Description: "Block UNION SELECT in the query"})
	b.rule("challenge-login", login, inventory.FirewallRule{Action: vocab.ActionJSChallenge, Description: "Challenge logins from far away"})
}

// mediaRateLimits: response status and headers under match.response (login) and under
// match (segments), bypass urls and _ALL_ methods and schemes with a custom response body
// (api), and a disabled one (search).
func mediaRateLimits(b *zoneBuilder) {
	b.rateLimit("login", inventory.RateLimit{
		Description: "Login failures",
		Match: inventory.RateLimitMatch{
			Request: &inventory.RateLimitRequest{Methods: []string{"POST"}, Schemes: []string{"HTTPS"}, URL: "media.example.net/login*"},
			Response: &inventory.RateLimitResponse{Status: []int{401, 403}, OriginTraffic: ptr(true),
				Headers: []inventory.HeaderMatch{{Name: "Cf-Cache-Status", Op: "ne", Value: "HIT"}}},
		},
		Threshold: 10, Period: 60,
		Action: inventory.RateLimitAction{Mode: "ban", Timeout: 600},
	})
	b.rateLimit("api", inventory.RateLimit{
		Description: "API with a custom response",
		Match: inventory.RateLimitMatch{Request: &inventory.RateLimitRequest{
			Methods: []string{"_ALL_"}, Schemes: []string{"_ALL_"}, URL: "*.media.example.net/api/*"}},
		Bypass: []inventory.RateLimitBypass{
			{Name: "url", Value: "media.example.net/api/health"},
			{Name: "url", Value: "media.example.net/api/status"},
		},
		Threshold: 300, Period: 120,
		Action: inventory.RateLimitAction{Mode: "ban", Timeout: 3600,
			Response: &inventory.RateLimitResponseBody{ContentType: "application/json", Body: `{"error":"rate limited","retry_after":3600}`}},
	})
	b.rateLimit("segments", inventory.RateLimit{
		Description: "Video segments (headers under match)",
		Match: inventory.RateLimitMatch{
			Request:  &inventory.RateLimitRequest{Methods: []string{"GET", "HEAD"}, Schemes: []string{"HTTPS"}, URL: "media.example.net/video/*"},
			Response: &inventory.RateLimitResponse{Status: []int{200, 206}},
			Headers:  []inventory.HeaderMatch{{Name: "Content-Type", Op: "eq", Value: "video/mp2t"}},
		},
		Threshold: 1200, Period: 900,
		Action: inventory.RateLimitAction{Mode: "ban", Timeout: 3000},
	})
	b.rateLimit("search", inventory.RateLimit{
		Disabled:    true,
		Description: "Legacy search throttle",
		Match: inventory.RateLimitMatch{Request: &inventory.RateLimitRequest{
			Methods: []string{"GET"}, Schemes: []string{"HTTP", "HTTPS"}, URL: "media.example.net/search*"}},
		Threshold: 50, Period: 10,
		Action: inventory.RateLimitAction{Mode: "js_challenge"},
	})
}

// mediaWAF: the package's groups and rule modes, and URL overrides (one of them paused).
func mediaWAF(b *zoneBuilder) {
	b.waf(wafSpec{
		OWASPSensitivity: "low", OWASPActionMode: "challenge",
		OffGroups: map[string]bool{"cf-wordpress": true, "cf-drupal": true},
		RuleModes: map[string]string{"cf-specials/null-byte": "challenge", "owasp-inbound/threshold": "off"},
	})
	b.zi.WAFOverrides = []inventory.WAFOverride{
		{
			ID: b.id("waf_override", "uploads"), Description: "Uploads and the CMS editor",
			URLs: []string{"media.example.net/upload/*", "media.example.net/cms/editor*"}, Priority: 1,
			Groups: map[string]string{b.id("waf_group", "cf-php"): "disable", b.id("waf_group", "owasp-xss"): "disable"},
			Rules:  map[string]string{b.id("waf_rule", "cf-specials/sqli-union"): "simulate", b.id("waf_rule", "cf-specials/null-byte"): "disable"},
		},
		{
			ID: b.id("waf_override", "api-upload"), Description: "API upload (paused)",
			URLs: []string{"media.example.net/api/upload"}, Priority: 2, Paused: true,
			Rules: map[string]string{b.id("waf_rule", "cf-php/code-injection"): "block"},
		},
	}
}

// newsZone: Free. Null priorities only, a paused rule, and a paused filter behind an active
// rule (a filter's own paused flag is ignored); privacy_pass on.
func newsZone(src ids, acct inventory.Ref) inventory.ZoneInventory {
	b := newZone(src, ZoneNews, inventory.PlanFree, acct)

	asn := b.filter("bad-asn", `ip.src.asnum in {64496 64497}`, "")
	ua := b.filter("non-browser", `http.user_agent contains "python-requests" or http.user_agent contains "curl/"`, "")
	office := b.pausedFilter("newsroom", `ip.src in {192.0.2.0/28}`, "")

	b.rule("block-asn", asn, inventory.FirewallRule{Action: vocab.ActionBlock, Description: "Block known bad networks"})
	b.rule("challenge-non-browser", ua, inventory.FirewallRule{Action: vocab.ActionManagedChallenge, Paused: true, Description: "Challenge scripts"})
	b.rule("allow-newsroom", office, inventory.FirewallRule{Action: vocab.ActionAllow, Description: "Allow the newsroom"})

	b.settings(zoneSettings{PrivacyPass: "on"})
	b.dnsSettings(false, false)

	b.basicRecords("192.0.2.30", "2001:db8:30::1")
	b.srv("srv-imaps", "_imaps", "_tcp", ZoneNews, 0, 1, 993, "mail.news.example.com", &srvLegacy{})
	b.srv("srv-submission", "_submission", "_tcp", ZoneNews, 0, 1, 587, "mail.news.example.com", nil)
	return b.zi
}

// apiZone: Enterprise. The log action, equal priorities (log and block), bypass with products
// [waf, rateLimit, securityLevel], cf.threat_score, ip.geoip.* names, an IP list, an orphan
// filter that does not parse, descriptions that need escaping, secondary_overrides, a rate
// limit counted per visitor behind NAT, existing rate limiting and managed entry points, an
// SRV record without the deprecated fields.
func apiZone(src ids, acct inventory.Ref) inventory.ZoneInventory {
	b := newZone(src, ZoneAPI, inventory.PlanEnterprise, acct)

	writes := b.filter("api-writes", `http.request.method in {"POST" "PUT" "PATCH" "DELETE"} and starts_with(http.request.uri.path, "/v2/")`, "")
	v1 := b.filter("v1-non-partner", `starts_with(http.request.uri.path, "/v1/") and not ip.src in $partner_ips`, "")
	health := b.filter("internal-health", `ip.src in {10.0.0.0/8 192.0.2.10} and http.request.uri.path eq "/healthz"`, "")
	threat := b.filter("threat-score", `cf.threat_score gt 14 and not cf.client.bot`, "")
	xss := b.filter("xss-query", `http.request.uri.query contains "<script" or url_decode(http.request.uri.query) contains "<script"`, "")
	geo := b.filter("geoip", `ip.geoip.country in {"KP" "SY" "CU"} or ip.geoip.asnum eq 64500`, "")
	// Unbalanced parenthesis: an API can hand back an expression that does not parse. No rule
	// uses it any more (its rule was deleted; the filter stayed).
	b.filter("broken-admin", `(http.request.uri.path contains "/admin" and not ip.src in {192.0.2.0/24 198.51.100.0/24}`, "Legacy admin lockdown")
	partners := b.filter("partners", `ip.src in $partner_ips and http.request.uri.path matches "^/v2/partners/"`, "")

	b.rule("log-writes", writes, inventory.FirewallRule{Action: vocab.ActionLog, Priority: ptr(1), Description: "Log all API writes"})
	b.rule("block-v1", v1, inventory.FirewallRule{Action: vocab.ActionBlock, Priority: ptr(1), Description: "Block API v1 for non-partners"})
	b.rule("bypass-health", health, inventory.FirewallRule{Action: vocab.ActionBypass, Priority: ptr(2), Description: "Internal health checks skip WAF, rate limiting and security level",
		Products: []string{"waf", "rateLimit", "securityLevel"}})
	b.rule("block-threat", threat, inventory.FirewallRule{Action: vocab.ActionBlock, Priority: ptr(3), Description: "Block high threat score"})
	b.rule("block-xss", xss, inventory.FirewallRule{Action: vocab.ActionBlock, Priority: ptr(4),
		Description: "Block <script>alert(1)</script> probes | XSS in the query | see `SEC-42`"})
	b.rule("challenge-geo", geo, inventory.FirewallRule{Action: vocab.ActionManagedChallenge, Priority: ptr(5),
		Description: "Geo | sanctioned regions & ASN 64500 (`ip.geoip.*`)", Ref: "GEO-1"})
	b.rule("allow-partners", partners, inventory.FirewallRule{Action: vocab.ActionAllow, Priority: ptr(6), Description: "Allow partner API clients"})

	b.rateLimit("token-burst", inventory.RateLimit{
		Description: "Token endpoint burst",
		Match: inventory.RateLimitMatch{Request: &inventory.RateLimitRequest{
			Methods: []string{"POST"}, Schemes: []string{"HTTPS"}, URL: "api.example.com/oauth/token"}},
		Threshold: 20, Period: 10,
		Action: inventory.RateLimitAction{Mode: "ban", Timeout: 86400,
			Response: &inventory.RateLimitResponseBody{ContentType: "text/xml", Body: "<error>slow down</error>"}},
		Correlate: &inventory.RateLimitCorrelate{By: "nat"},
	})
	b.rateLimit("reads", inventory.RateLimit{
		Description: "Read API",
		Match: inventory.RateLimitMatch{Request: &inventory.RateLimitRequest{
			Methods: []string{"GET"}, Schemes: []string{"HTTPS"}, URL: "api.example.com/v2/*"}},
		Threshold: 1000, Period: 60,
		Action: inventory.RateLimitAction{Mode: "managed_challenge"},
	})

	b.ruleset(vocab.PhaseRateLimiting, "2024-10-14T08:00:00.000000Z", inventory.RulesetRule{
		Action: vocab.ActionBlock, Expression: `(http.request.uri.path eq "/v2/search")`, Description: "Search", Enabled: ptr(true),
		RateLimit: raw(`{"characteristics":["cf.colo.id","ip.src"],"period":60,"requests_per_period":100,"mitigation_timeout":600}`),
	})
	b.ruleset(vocab.PhaseManaged, "2024-10-14T08:00:00.000000Z", inventory.RulesetRule{
		Action: vocab.ActionExecute, Expression: "true", Description: "Cloudflare Managed Ruleset", Enabled: ptr(true),
		ActionParameters: raw(`{"id":"` + inventory.RulesetCloudflareManaged + `"}`),
	})

	b.settings(zoneSettings{SSL: "strict", SecurityLevel: "high"})
	b.dnsSettings(false, true)

	b.basicRecords("203.0.113.40", "2001:db8:40::1")
	b.record("a-origin", inventory.DNSRecord{Type: "A", Name: "origin.api.example.com", Content: "203.0.113.41", Proxied: ptr(false), TTL: 300})
	b.srv("srv-ldap-modern", "_ldap", "_tcp", ZoneAPI, 0, 100, 389, "ldap.api.example.com", nil)
	b.srv("srv-ldap-legacy", "_ldaps", "_tcp", ZoneAPI, 0, 100, 636, "ldap.api.example.com", &srvLegacy{})
	return b.zi
}

// docsZone: Pro. mobile_redirect and server_side_exclude on, privacy_pass on; OWASP at high
// sensitivity in block mode.
func docsZone(src ids, acct inventory.Ref) inventory.ZoneInventory {
	b := newZone(src, ZoneDocs, inventory.PlanPro, acct)

	ai := b.filter("ai-crawlers", `http.user_agent contains "GPTBot" or http.user_agent contains "CCBot"`, "")
	search := b.filter("search-abuse", `http.request.uri.path eq "/search" and http.request.uri.query contains "q="`, "")
	b.rule("block-ai-crawlers", ai, inventory.FirewallRule{Action: vocab.ActionBlock, Priority: ptr(100), Description: "Block AI crawlers"})
	b.rule("challenge-search", search, inventory.FirewallRule{Action: vocab.ActionManagedChallenge, Priority: ptr(200), Description: "Challenge search abuse"})

	b.rateLimit("search", inventory.RateLimit{
		Description: "Docs search",
		Match: inventory.RateLimitMatch{Request: &inventory.RateLimitRequest{
			Methods: []string{"_ALL_"}, Schemes: []string{"HTTPS"}, URL: "docs.example.test/search*"}},
		Threshold: 60, Period: 60,
		Action: inventory.RateLimitAction{Mode: "challenge"},
	})

	b.waf(wafSpec{OWASPSensitivity: "high", OWASPActionMode: "block"})

	b.settings(zoneSettings{Brotli: "on", ServerSideExclude: "on", PrivacyPass: "on",
		MobileRedirect: `{"mobile_subdomain":"m","status":"on","strip_uri":false}`})
	b.dnsSettings(false, false)

	b.basicRecords("198.51.100.50", "2001:db8:50::1")
	b.record("cname-m", inventory.DNSRecord{Type: "CNAME", Name: "m.docs.example.test", Content: ZoneDocs, Proxied: ptr(true)})
	return b.zi
}
