package seed

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// ZonesPerAccount is how many zones Generate puts in each account (the last one may hold fewer).
const ZonesPerAccount = 100

// GeneratedSource is the Snapshot.Source of generated data.
const GeneratedSource = "generated"

// maxExistingCustomRules is the most custom rules a generated zone already has.
const maxExistingCustomRules = 3

// firewallQuota is the previous-version firewall rule quota of each plan.
var firewallQuota = map[string]int{
	inventory.PlanFree:       5,
	inventory.PlanPro:        20,
	inventory.PlanBusiness:   100,
	inventory.PlanEnterprise: 1000,
}

// ruleSkew shapes the number of firewall rules per plan: count = (quota+1) * u^skew, so most
// zones have few rules and some sit near their quota.
var ruleSkew = map[string]int{
	inventory.PlanFree:       1,
	inventory.PlanPro:        2,
	inventory.PlanBusiness:   4,
	inventory.PlanEnterprise: 8,
}

// rateLimitMax is one more than the most previous-version rate limits Generate gives a plan
// (kept within the old quota: Free 1, Pro 10, Business 15, Enterprise 100).
var rateLimitMax = map[string]int{
	inventory.PlanFree:       2,
	inventory.PlanPro:        5,
	inventory.PlanBusiness:   7,
	inventory.PlanEnterprise: 9,
}

// exprTemplate is a realistic filter expression and the description a rule on it gets.
type exprTemplate struct{ expr, desc string }

var exprTemplates = []exprTemplate{
	{`http.request.uri.path eq "/xmlrpc.php"`, "Block xmlrpc.php"},
	{`http.request.uri.path contains "/wp-login.php" and not ip.src in {192.0.2.0/24}`, "Protect wp-login"},
	{`http.request.uri.path ~ "^.*/wp-login.php$"`, "Protect wp-login (regex)"},
	{`(http.request.uri.path matches "^/(wp-admin|wp-includes)/.*\\.php$") and not ip.src in $office`, "Lock down wp-admin"},
	{`http.request.uri.path contains "wp-config"`, "Block wp-config probes"},
	{`ip.src.country in {"KP" "IR" "SY"}`, "Block sanctioned countries"},
	{`ip.src.country in {"CN" "RU"} and http.request.uri.path contains "/login"`, "Challenge logins from selected countries"},
	{`ip.src.asnum in {64496 64497 64498}`, "Block abusive networks"},
	{`http.user_agent contains "sqlmap" or http.user_agent contains "nikto" or http.user_agent eq ""`, "Block scanners"},
	{`http.user_agent contains "GPTBot" or http.user_agent contains "CCBot"`, "Block AI crawlers"},
	{`http.user_agent contains "python-requests" and not cf.client.bot`, "Challenge scripts"},
	{`ip.src in {198.51.100.0/24 2001:db8:1::/48}`, "Office network"},
	{`ip.src in {203.0.113.0/24} and http.request.uri.path eq "/api/webhooks"`, "Allow webhooks"},
	{`starts_with(http.request.uri.path, "/api/") and http.request.method in {"POST" "PUT" "DELETE"}`, "API writes"},
	{`http.request.uri.path eq "/graphql" and http.request.method eq "POST" and not ssl`, "GraphQL over plain HTTP"},
	{`http.request.uri.query contains "union select" or http.request.uri.query contains "<script"`, "Block obvious SQLi and XSS"},
	{`http.host eq "admin.example.com" and not ip.src in $admins`, "Admin host lockdown"},
	{`http.referer contains "spam.example" and http.request.method eq "POST"`, "Referrer spam"},
	{`cf.threat_score gt 14`, "Block high threat score"},
	{`cf.threat_score ge 10 and http.request.uri.path contains "/checkout"`, "Challenge risky checkout"},
	{`ip.geoip.country in {"KP" "CU"} or ip.geoip.asnum eq 64500`, "Geo block (old field names)"},
	{`ip.src.continent eq "T1"`, "Challenge Tor"},
	{`http.request.uri.path.extension in {"env" "git" "bak" "sql"}`, "Block sensitive file extensions"},
	{`http.cookie contains "session=" and http.request.uri.path eq "/account/delete"`, "Confirm account deletion"},
}

// isRegex reports whether a template uses the regex operator.
func isRegex(expr string) bool {
	return strings.Contains(expr, " matches ") || strings.Contains(expr, " ~ ")
}

// invalidExpr is the occasional filter a generated zone holds that does not parse.
const invalidExpr = `(http.request.uri.path contains "/admin" and not ip.src in {192.0.2.0/24}`

var (
	// Actions weighted towards what accounts use; "log" only survives on Enterprise.
	genActions  = []vocab.Action{vocab.ActionBlock, vocab.ActionBlock, vocab.ActionBlock, vocab.ActionManagedChallenge, vocab.ActionManagedChallenge, vocab.ActionChallenge, vocab.ActionJSChallenge, vocab.ActionAllow, vocab.ActionAllow, vocab.ActionBypass, vocab.ActionLog}
	genProducts = []string{"waf", "rateLimit", "securityLevel", "uaBlock", "zoneLockdown", "bic", "hot"}
	genPeriods  = []int{10, 60, 60, 60, 120, 300, 600, 900, 3600, 86400}
	genTimeouts = []int{10, 60, 600, 600, 3000, 3600, 86400}
	genModes    = []string{"ban", "ban", "ban", "simulate", "challenge", "js_challenge", "managed_challenge"}
	genPrefixes = []string{"shop", "blog", "api", "www", "news", "media", "docs", "status", "cdn", "app", "store", "portal"}
	genTLDs     = []string{"example", "example.com", "example.net", "example.org", "test"}
	genNSTypes  = []string{"cloudflare.standard", "cloudflare.standard", "cloudflare.standard", "custom.account", "custom.tenant"}
)

// generator carries the random source, id source and pointer slabs of one Generate call.
type generator struct {
	// migratable keeps every zone within what a migration plan carries out by API calls
	// alone (GenerateMigratable).
	migratable bool
	r          *rand.Rand
	ids        *counterIDs
	bools      slab[bool]
	ints       slab[int]
	strs       slab[string]
}

// chance reports true with probability p percent.
func (g *generator) chance(p int) bool { return g.r.IntN(100) < p }

func (g *generator) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

// expr draws an expression template; without regexOK (Free and Pro) a regex one is replaced
// by the first template, since those plans cannot use regex.
func (g *generator) expr(regexOK bool) exprTemplate {
	t := exprTemplates[g.r.IntN(len(exprTemplates))]
	if !regexOK && isRegex(t.expr) {
		return exprTemplates[0]
	}
	return t
}

// Generate returns a deterministic synthetic account of n zones for tests and benchmarks:
// accounts of ZonesPerAccount zones, plans drawn 60/25/10/5 (Free/Pro/Business/Enterprise),
// each zone with firewall rules (0 to its plan's quota), filters, rate limits, WAF packages on
// some paid zones, settings, DNS settings and 10 to 50 DNS records. The same (n, seed) always
// yields the same snapshot; n < 0 counts as 0. The snapshot comes out sorted (as by
// Snapshot.Sort) by construction: zones are built in name order and ids increase within
// every list.
func Generate(zones int, seed int64) *inventory.Snapshot {
	return generate(zones, seed, false)
}

// GenerateMigratable is Generate for an account whose every zone a migration plan carries
// out by API calls alone, on every plan: firewall rules within the custom rules quota,
// expressions that parse, regular expressions only where the plan allows them, rate limits
// within the new quota and within what the plan's rate limiting rules can express
// (inventory.RateLimitRulesFor), WAF overrides that exceptions can express, no deprecated
// setting whose feature must be replaced by hand (minify, server-side excludes, privacy
// pass), no SRV record whose data fields conflict with its name. Its accounts are named
// "Migratable Account NNNN".
func GenerateMigratable(zones int, seed int64) *inventory.Snapshot {
	return generate(zones, seed, true)
}

func generate(zones int, seed int64, migratable bool) *inventory.Snapshot {
	zones = max(zones, 0)
	g := &generator{
		migratable: migratable,
		r:          rand.New(rand.NewPCG(uint64(seed), 0x73756e736574)),
		ids:        &counterIDs{salt: mix64(uint64(seed) ^ 0x5eed), arena: arena{chunk: largeChunk}},
	}
	s := &inventory.Snapshot{
		SchemaVersion: inventory.SnapshotSchemaVersion,
		Source:        GeneratedSource,
		Accounts:      make([]inventory.AccountInventory, 0, (zones+ZonesPerAccount-1)/ZonesPerAccount),
		Zones:         make([]inventory.ZoneInventory, 0, zones),
	}
	width := len(itoa(max(zones-1, 0)))
	names := make([]string, zones)
	for i := range names {
		names[i] = genPrefixes[i%len(genPrefixes)] + "-" + pad(i, width) + "." + genTLDs[(i/len(genPrefixes))%len(genTLDs)]
	}
	slices.Sort(names)
	for i, name := range names {
		if i%ZonesPerAccount == 0 {
			s.Accounts = append(s.Accounts, g.account(len(s.Accounts)+1))
		}
		acct := ref(s.Accounts[len(s.Accounts)-1])
		g.ids.enter(uint64(i) + 1<<32)
		s.Zones = append(s.Zones, g.zone(i, name, acct))
	}
	return s
}

func pad(n, width int) string {
	s := itoa(n)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

func (g *generator) account(n int) inventory.AccountInventory {
	name := "Synthetic Account " + pad(n, 4)
	if g.migratable {
		name = "Migratable Account " + pad(n, 4)
	}
	nsType := g.pick(genNSTypes)
	var useCustom *bool
	if g.chance(10) {
		useCustom = ptr(true)
		nsType = "custom.account"
	}
	g.ids.enter(0) // account ids share one scope, so accounts come out in id order
	a := account(g.ids, name, nsType, useCustom, nsType)
	g.ids.enter(uint64(n))
	short := "acct" + itoa(n)
	if g.chance(20) {
		for k := range 1 + g.r.IntN(2) {
			t := inventory.Tunnel{ID: g.ids.id("tunnel", short, ""), Name: "tunnel-" + itoa(k+1), CreatedAt: "2021-05-04T10:00:00.000000Z"}
			if g.chance(30) {
				t.DeletedAt = "2023-02-01T12:00:00.000000Z"
			}
			a.Tunnels = append(a.Tunnels, t)
		}
	}
	if g.chance(15) {
		a.AccessBookmarks = append(a.AccessBookmarks, inventory.AccessBookmark{
			ID: g.ids.id("access_bookmark", short, ""), Name: "Dashboard", Domain: "dash-" + itoa(n) + ".example.com"})
	}
	if g.chance(30) {
		p := inventory.LoadBalancerPool{ID: g.ids.id("load_balancer_pool", short, ""), Name: "origins-" + itoa(n)}
		if g.chance(50) {
			p.NotificationEmail = "noc@example.com"
		}
		a.LoadBalancerPools = append(a.LoadBalancerPools, p)
	}
	return a
}

func (g *generator) plan() string {
	switch r := g.r.IntN(100); {
	case r < 60:
		return inventory.PlanFree
	case r < 85:
		return inventory.PlanPro
	case r < 95:
		return inventory.PlanBusiness
	default:
		return inventory.PlanEnterprise
	}
}

func (g *generator) zone(i int, name string, acct inventory.Ref) inventory.ZoneInventory {
	plan := g.plan()
	b := newZone(g.ids, name, plan, acct)
	b.bools, b.ints, b.strs, b.arena = &g.bools, &g.ints, &g.strs, &g.ids.arena
	paid := plan != inventory.PlanFree
	g.firewall(b, plan)
	g.rateLimits(b, plan)
	if paid && g.chance(50) {
		g.waf(b)
	}
	g.rulesets(b, paid)
	g.settings(b, paid)
	b.dnsSettings(g.chance(3), g.chance(2))
	g.records(b, i)
	if plan == inventory.PlanBusiness || plan == inventory.PlanEnterprise {
		if g.chance(30) {
			h := inventory.HealthCheck{ID: b.id("health_check", ""), Name: "origin-health", Address: "origin." + name}
			if g.chance(50) {
				h.NotificationEmail = "alerts@example.com"
			}
			b.zi.HealthChecks = append(b.zi.HealthChecks, h)
		}
	}
	return b.zi
}

// firewall adds 0..quota rules with their filters; some rules share a filter, some zones keep
// an orphan filter or one that does not parse.
func (g *generator) firewall(b *zoneBuilder, plan string) {
	q := firewallQuota[plan]
	regexPlan := plan == inventory.PlanBusiness || plan == inventory.PlanEnterprise
	u := g.r.Float64()
	f := u
	for range ruleSkew[plan] - 1 {
		f *= u
	}
	n := int(float64(q+1) * f)
	if g.migratable {
		n = min(n, q-maxExistingCustomRules) // room for the custom rules a zone may have
	}
	if n <= 0 {
		return
	}
	b.zi.Filters = make([]inventory.Filter, 0, n+1)
	b.zi.FirewallRules = make([]inventory.FirewallRule, 0, n)
	prio := 0
	var last inventory.Filter
	desc := ""
	for k := range n {
		var flt inventory.Filter
		if k > 0 && g.chance(5) {
			flt = last // shared with the previous rule
		} else {
			t := g.expr(regexPlan)
			if g.chance(1) && !g.migratable {
				t = exprTemplate{invalidExpr, "Admin lockdown"}
			}
			flt = b.filter("", t.expr, "")
			desc = t.desc
		}
		last = flt
		r := inventory.FirewallRule{Action: genActions[g.r.IntN(len(genActions))], Description: desc, Paused: g.chance(8)}
		if r.Action == vocab.ActionLog && plan != inventory.PlanEnterprise {
			r.Action = vocab.ActionBlock
		}
		if r.Action == vocab.ActionBypass {
			start := g.r.IntN(len(genProducts))
			r.Products = append([]string(nil), genProducts[start:min(start+1+g.r.IntN(3), len(genProducts))]...)
		}
		if !g.chance(30) {
			if !g.chance(10) { // else equal to the previous priority: ties broken by action
				prio += 1 + g.r.IntN(10)
			}
			r.Priority = b.int(prio)
		}
		b.rule("", flt, r)
	}
	if g.chance(8) {
		b.filter("", g.expr(regexPlan).expr, "left by a refused rule")
	}
}

// fitRateLimit narrows a generated rate limit to what rate limiting rules on the plan can
// express: no method, host, bypass or response condition the plan's fields cannot hold, no
// counting by NAT or simulate mode below Enterprise.
func fitRateLimit(rl *inventory.RateLimit, zone string, avail inventory.RateLimitRules) {
	req := rl.Match.Request
	if !avail.AllowsField("http.request.method") {
		req.Methods = []string{"_ALL_"}
	}
	if !avail.AllowsField("ssl") && !avail.AllowsField("http.request.full_uri") {
		req.Schemes = []string{"_ALL_"}
	}
	if !avail.AllowsField("http.host") {
		req.URL = "*" + strings.TrimPrefix(req.URL, zone)
		rl.Bypass = nil
	}
	if !avail.CountingExpression {
		rl.Match.Response = nil
	}
	if !avail.AllowsCharacteristic("cf.unique_visitor_id") {
		rl.Correlate = nil
	}
	if rl.Action.Mode == "simulate" && avail.Fields != nil {
		rl.Action.Mode = "ban"
	}
}

func (g *generator) rateLimits(b *zoneBuilder, plan string) {
	n := g.r.IntN(rateLimitMax[plan])
	if g.migratable {
		n = min(n, inventory.RateLimitingRulesQuota(plan))
	}
	for k := range n {
		mode := g.pick(genModes)
		rl := inventory.RateLimit{
			Disabled:    g.chance(10),
			Description: "rate limit " + itoa(k+1),
			Match: inventory.RateLimitMatch{Request: &inventory.RateLimitRequest{
				Methods: []string{"GET", "POST"}, Schemes: []string{"HTTP", "HTTPS"}, URL: b.cat(b.name, "/", g.pick(genPrefixes), "*")}},
			Threshold: 10 * (1 + g.r.IntN(100)),
			Period:    genPeriods[g.r.IntN(len(genPeriods))],
			Action:    inventory.RateLimitAction{Mode: mode},
		}
		if mode == "ban" || mode == "simulate" {
			rl.Action.Timeout = genTimeouts[g.r.IntN(len(genTimeouts))]
		}
		if g.chance(15) {
			rl.Match.Request.Methods = []string{"_ALL_"}
			rl.Match.Request.Schemes = []string{"_ALL_"}
		}
		if g.chance(20) {
			rl.Bypass = []inventory.RateLimitBypass{{Name: "url", Value: b.name + "/health"}}
		}
		if g.chance(20) {
			rl.Match.Response = &inventory.RateLimitResponse{Status: []int{401, 403}, OriginTraffic: b.bool(true)}
		}
		if plan != inventory.PlanFree && g.chance(10) {
			rl.Correlate = &inventory.RateLimitCorrelate{By: "nat"}
		}
		if g.chance(10) {
			rl.Action.Response = &inventory.RateLimitResponseBody{ContentType: "application/json", Body: `{"error":"too many requests"}`}
		}
		if g.migratable {
			fitRateLimit(&rl, b.name, inventory.RateLimitRulesFor(plan))
		}
		b.rateLimit("", rl)
	}
}

var (
	sensitivities = []string{"high", "medium", "low", "off"}
	actionModes   = []string{"simulate", "block", "challenge"}
	wafGroupKeys  = []string{"cf-specials", "cf-wordpress", "cf-php", "cf-drupal", "owasp-inbound", "owasp-xss", "owasp-bad-robots"}
	wafRuleKeys   = []string{"cf-specials/ua-missing", "cf-wordpress/user-enum", "cf-php/wrapper", "cf-specials/null-byte"}
)

func (g *generator) waf(b *zoneBuilder) {
	s := wafSpec{OWASPSensitivity: g.pick(sensitivities), OWASPActionMode: g.pick(actionModes)}
	if g.chance(50) {
		s.OffGroups = map[string]bool{g.pick(wafGroupKeys): true}
	}
	if g.chance(40) {
		s.RuleModes = map[string]string{g.pick(wafRuleKeys): g.pick(traditionalModes[1:])}
	}
	b.waf(s)
	if g.chance(15) {
		trad := b.zi.WAFPackages[0]
		grp := trad.Groups[g.r.IntN(len(trad.Groups))]
		rule := trad.Rules[g.r.IntN(len(trad.Rules))]
		b.zi.WAFOverrides = append(b.zi.WAFOverrides, inventory.WAFOverride{
			ID: b.id("waf_override", ""), Description: "admin area", URLs: []string{b.name + "/admin/*"}, Priority: 1,
			Groups: map[string]string{grp.ID: "disable"},
			Rules:  map[string]string{rule.ID: "simulate"},
		})
	}
}

func (g *generator) rulesets(b *zoneBuilder, paid bool) {
	if g.chance(10) {
		regexPlan := b.zi.Zone.Plan.LegacyID == inventory.PlanBusiness || b.zi.Zone.Plan.LegacyID == inventory.PlanEnterprise
		rules := make([]inventory.RulesetRule, 1+g.r.IntN(maxExistingCustomRules))
		for k := range rules {
			t := g.expr(regexPlan)
			rules[k] = inventory.RulesetRule{Action: vocab.ActionBlock, Expression: t.expr, Description: t.desc, Enabled: b.bool(true)}
		}
		b.ruleset(vocab.PhaseCustomRules, "2024-06-01T00:00:00.000000Z", rules...)
	}
	if paid && len(b.zi.WAFPackages) == 0 && g.chance(20) {
		b.ruleset(vocab.PhaseManaged, "2024-06-01T00:00:00.000000Z", inventory.RulesetRule{
			Action: vocab.ActionExecute, Expression: "true", Enabled: b.bool(true),
			ActionParameters: raw(`{"id":"` + inventory.RulesetCloudflareManaged + `"}`),
		})
	}
}

func (g *generator) settings(b *zoneBuilder, paid bool) {
	s := zoneSettings{}
	if paid && g.chance(15) {
		s.CNAMEFlattening = "flatten_all"
	}
	if g.chance(60) {
		s.Brotli = "on"
	}
	if g.chance(20) && !g.migratable {
		s.Minify = `{"css":"on","html":"off","js":"on"}`
	}
	if g.chance(5) {
		s.MobileRedirect = `{"mobile_subdomain":"m","status":"on","strip_uri":false}`
	}
	if g.chance(40) && !g.migratable {
		s.ServerSideExclude = "on"
	}
	if g.chance(25) && !g.migratable {
		s.PrivacyPass = "on"
	}
	b.settings(s)
}

// records adds 10..50 DNS records: the basic six, SRV records (mostly with the deprecated data
// fields, a few conflicting with the name) and filler A/CNAME/TXT records.
func (g *generator) records(b *zoneBuilder, i int) {
	n := 10 + g.r.IntN(41)
	b.zi.DNSRecords = make([]inventory.DNSRecord, 0, n)
	v4 := b.cat("192.0.2.", itoa(1+i%254))
	b.basicRecords(v4, b.cat("2001:db8::", itoa(1+i%9999)))
	srv := g.r.IntN(4)
	for k := range srv {
		var legacy *srvLegacy
		if g.chance(70) {
			legacy = &srvLegacy{}
			if g.chance(10) && !g.migratable {
				legacy.Service = "_conflict"
			}
		}
		service := []string{"_sip", "_xmpp-client", "_imaps", "_ldap"}[k]
		b.srv("", service, "_tcp", b.name, 10, 5, 5000+k, "srv."+b.name, legacy)
	}
	for k := len(b.zi.DNSRecords); k < n; k++ {
		label := b.cat("host", itoa(k))
		switch k % 3 {
		case 0:
			b.record("", inventory.DNSRecord{Type: "A", Name: b.cat(label, ".", b.name), Content: v4, Proxied: b.bool(g.chance(70))})
		case 1:
			b.record("", inventory.DNSRecord{Type: "CNAME", Name: b.cat(label, ".", b.name), Content: b.name, Proxied: b.bool(true)})
		default:
			b.record("", inventory.DNSRecord{Type: "TXT", Name: b.cat(label, ".", b.name), Content: b.cat(`"v=verification `, label, `"`), TTL: 3600})
		}
	}
}

// MissingVariety says what an account lacks of what makes it worth migrating in a test: zones
// of every plan level, some rate limits, some WAF packages; "" when it has them all. Tests
// that migrate a small generated account assert it, so a smaller account keeps the coverage.
func MissingVariety(s *inventory.Snapshot) string {
	levels := map[string]bool{}
	rateLimits, packages := 0, 0
	for _, z := range s.Zones {
		levels[z.Zone.Plan.LegacyID] = true
		rateLimits += len(z.RateLimits)
		packages += len(z.WAFPackages)
	}
	if len(levels) < 4 || rateLimits == 0 || packages == 0 {
		return fmt.Sprintf("plan levels %v, %d rate limits, %d WAF packages: want all four levels and some of each", levels, rateLimits, packages)
	}
	return ""
}
