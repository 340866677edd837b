// Package seed holds the emulator's initial state: a hand-built demo account (Demo) and a
// synthetic account of any size (Generate), both as an *inventory.Snapshot.
//
// The snapshot is the state of the world, not what a collection would read: DNS records keep
// zone_id, zone_name and locked (the emulator drops them according to its as-of date), and
// LegacyDNSSettings stays empty because the emulator derives the values of the deprecated
// dns_settings/use_apex_ns and dns_settings/secondary_overrides endpoints from
// DNSSettings.MultiProvider and DNSSettings.SecondaryOverrides. Old and new interfaces that
// reflect each other are kept consistent: the cname_flattening setting and
// dns_settings.flatten_all_cnames; an account's default_nameservers /
// use_account_custom_ns_by_default and its zone_defaults.nameservers.type.
//
// Ids are 32 lowercase hex digits. Demo derives them from names with ID(kind, key), where key
// is "zone/short-name" for zone objects (e.g. ID("firewall_rule", "shop.example/block-xmlrpc")),
// the zone or account name for zones and accounts, and "account-short/name" for account objects.
// Generate derives them from a seeded counter, so they are unique by construction.
//
// # The demo account
//
// Credentials: DemoToken, or DemoEmail with DemoKey. Accounts:
//
//   - Acme Retail: default_nameservers custom.tenant; two Access bookmarks (access-bookmarks-api).
//   - Globex Media: use_account_custom_ns_by_default true (zone_defaults custom.account); two
//     load balancer pools, one with a comma-separated notification_email (notification-email).
//
// Every zone can be migrated by the plan's API calls alone: the property the migrate tests
// check (plan, apply, rescan: nothing at warning or above, past the end of life of the
// settings). What a plan cannot carry over (regex below Business, quotas, a rule behind an
// expression that does not parse, what a plan's rate limiting rules cannot express) is shown
// by the generated accounts and the unit tests instead.
//   - Initech Platform: default_nameservers custom.tenant, use_account_custom_ns_by_default false;
//     two legacy tunnels, one of them deleted (argo-tunnels-api).
//
// Zones, and the cases each holds:
//
//	shop.example (Pro, Acme Retail)
//	  - wildcards where a Pro zone cannot use regex (custom rules allow it from Business only)
//	  - ascending priorities 1..5 and a paused rule with a null priority
//	  - 2 previous-version rate limits, the new Pro quota: period 900 and timeout 3000
//	    (rounded to the Pro plan's values, 60 and 3600), `_ALL_` methods and schemes, an HTTPS
//	    scheme (a full URI wildcard: Pro rate limiting rules have no ssl field), a bypass url,
//	    a challenge one without timeout
//	  - WAF: the OWASP package (detection_mode anomaly) in action_mode simulate at sensitivity
//	    medium, next to the traditional "CloudFlare" package with groups switched off
//	    (Drupal, OWASP Bad Robots) and rules whose mode differs from the default
//	  - a URL override with urls, groups {id: mode} and rules {id: action}
//	  - cname_flattening flatten_all (flatten_all_cnames true); brotli on;
//	    minify {css:on, html:off, js:on}
//	  - SRV records carrying data.service/proto/name that agree with the name
//	blog.example.org (Free, Acme Retail)
//	  - 4 firewall rules
//	  - an orphan filter (no rule refers to it): the quota refused a rule of a combined
//	    create but the filter stayed
//	  - an existing custom rules entry point (http_request_firewall_custom) with one rule, so
//	    4 migrated rules + 1 fill the Free custom rule quota of 5 exactly
//	  - a null-priority allow rule; one previous-version rate limit (the Free quota) on a path
//	    of any host (Free rate limiting rules match the path only), its period and timeout
//	    rounded to the Free plan's 10 s
//	  - cname_flattening flatten_at_root with an apex CNAME; brotli on
//	media.example.net (Business, Globex Media)
//	  - an allow and a bypass (products waf, securityLevel) on the same expression (two
//	    filters) at the same priority 10
//	  - equal priority 20 with block and challenge (action precedence decides)
//	  - one filter shared by two rules (a paused challenge and an active block)
//	  - regex where it is allowed (Business); a null-priority js_challenge rule
//	  - rate limits: response status [401, 403] with origin_traffic and headers under
//	    match.response; headers directly under match; `_ALL_` methods with two bypass urls and
//	    a custom JSON response body; period 900/timeout 3000 (rounded to 600 and 3600); a
//	    disabled js_challenge one (4 in all, within the new Business quota of 5)
//	  - WAF: OWASP at sensitivity low in challenge mode, traditional groups off, changed
//	    rules; two URL overrides (one switching groups and rules off, one paused)
//	  - multi_provider true (dns-settings-use-apex-ns); server_side_exclude on; brotli on
//	  - an SRV record whose data.service and data.name CONFLICT with its outer name
//	    (_xmpp-client._tcp.chat.media.example.net vs _xmpp-server / media.example.net)
//	news.example.com (Free, Globex Media)
//	  - null priorities only (order comes from action precedence alone)
//	  - a paused rule; a paused filter behind an active rule (the filter's flag is ignored)
//	  - privacy_pass on; one SRV record with the data fields, one without
//	api.example.com (Enterprise, Initech Platform)
//	  - the log action, at the same priority 1 as a block rule
//	  - bypass with products [waf, rateLimit, securityLevel]
//	  - cf.threat_score (threat-score-field); ip.geoip.country and ip.geoip.asnum
//	    (geoip-field-names); an IP list ($partner_ips); regex
//	  - an orphan filter whose expression does not parse (unbalanced parenthesis)
//	  - descriptions that need escaping in HTML and Markdown: `<script>alert(1)</script>`,
//	    pipes and backticks; a rule with a ref
//	  - rate limits with a custom XML response body counted per visitor behind NAT
//	    (cf.unique_visitor_id, Enterprise only) and a managed_challenge mode
//	  - existing entry points: http_ratelimit (one rule) and http_request_firewall_managed
//	    (executes the Cloudflare Managed Ruleset): no previous-version WAF packages
//	  - secondary_overrides true (dns-settings-secondary-overrides)
//	  - SRV records with and without the deprecated data fields
//	docs.example.test (Pro, Initech Platform)
//	  - mobile_redirect {status:on, mobile_subdomain:m, strip_uri:false};
//	    server_side_exclude on; privacy_pass on; brotli on
//	  - WAF: OWASP at sensitivity high in block mode, every rule at its default
//	  - two firewall rules with sparse ascending priorities (100, 200), one rate limit
//
// Every zone has the full list of zone settings (zone-settings-bulk, cname-flattening-setting),
// DNS settings, and DNS records with zone_id, zone_name and locked (dns-record-zone-fields,
// dns-record-locked).
//
// # Generated accounts
//
// Generate(n, seed) spreads n zones over accounts of about 100 zones, on plans drawn as 60%
// Free, 25% Pro, 10% Business and 5% Enterprise, each with 0 to plan-quota firewall rules
// (skewed towards few; the log action only on Enterprise, regex only on Business and
// Enterprise), their filters (a few shared, a few orphans, rarely one that does not parse),
// null, ascending and tied priorities, previous-version rate
// limits, WAF packages on some paid zones, the full settings list with deprecated values on
// some zones, DNS settings, and 10 to 50 DNS records including SRV records with data fields.
// The same (n, seed) always yields the same snapshot. GenerateMigratable(n, seed) draws the
// same way within what a migration plan carries out by API calls alone, in accounts named
// "Migratable Account NNNN" (`sunset emulator --zones N --migratable`).
package seed
