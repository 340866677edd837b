package seed

import (
	"strconv"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// Default values of the zone settings that the seed data varies.
const (
	minifyOff         = `{"css":"off","html":"off","js":"off"}`
	mobileRedirectOff = `{"mobile_subdomain":null,"status":"off","strip_uri":false}`
)

// planIDs are the plan ids, the same for every zone on a plan.
var planIDs = map[string]string{
	inventory.PlanFree:       ID("plan", inventory.PlanFree),
	inventory.PlanPro:        ID("plan", inventory.PlanPro),
	inventory.PlanBusiness:   ID("plan", inventory.PlanBusiness),
	inventory.PlanEnterprise: ID("plan", inventory.PlanEnterprise),
}

var planNames = map[string]string{
	inventory.PlanFree:       "Free Website",
	inventory.PlanPro:        "Pro Website",
	inventory.PlanBusiness:   "Business Website",
	inventory.PlanEnterprise: "Enterprise Website",
}

// zoneBuilder assembles one ZoneInventory; keys of its objects are prefixed with the zone
// name so ids stay unique across zones.
type zoneBuilder struct {
	ids   ids
	name  string
	zi    inventory.ZoneInventory
	bools *slab[bool]
	ints  *slab[int]
	strs  *slab[string]
	arena *arena
}

func newZone(src ids, name, plan string, account inventory.Ref) *zoneBuilder {
	b := &zoneBuilder{ids: src, name: name, bools: &slab[bool]{}, ints: &slab[int]{}, strs: &slab[string]{}, arena: &arena{}}
	b.zi.Zone = inventory.Zone{
		ID:      src.id("zone", "", name),
		Name:    name,
		Status:  "active",
		Type:    "full",
		Account: account,
		Plan: inventory.ZonePlan{
			ID:       planIDs[plan],
			Name:     planNames[plan],
			LegacyID: plan,
		},
	}
	return b
}

func (b *zoneBuilder) id(kind, key string) string { return b.ids.id(kind, b.name, key) }

func (b *zoneBuilder) bool(v bool) *bool    { return b.bools.ptr(v) }
func (b *zoneBuilder) int(v int) *int       { return b.ints.ptr(v) }
func (b *zoneBuilder) str(v string) *string { return b.strs.ptr(v) }

// cat concatenates into the builder's arena (fewer allocations for millions of names).
func (b *zoneBuilder) cat(parts ...string) string { return b.arena.cat(parts...) }

// filter adds a filter to the zone and returns it, for rules to embed.
func (b *zoneBuilder) filter(key, expression, description string) inventory.Filter {
	f := inventory.Filter{ID: b.id("filter", key), Expression: expression, Description: description}
	b.zi.Filters = append(b.zi.Filters, f)
	return f
}

// pausedFilter adds a filter whose own paused flag is set (the API ignores it for rules).
func (b *zoneBuilder) pausedFilter(key, expression, description string) inventory.Filter {
	f := b.filter(key, expression, description)
	f.Paused = true
	b.zi.Filters[len(b.zi.Filters)-1].Paused = true
	return f
}

// rule adds a firewall rule that embeds f, as the API returns it.
func (b *zoneBuilder) rule(key string, f inventory.Filter, r inventory.FirewallRule) {
	r.ID = b.id("firewall_rule", key)
	r.Filter = f
	b.zi.FirewallRules = append(b.zi.FirewallRules, r)
}

func (b *zoneBuilder) rateLimit(key string, r inventory.RateLimit) {
	r.ID = b.id("rate_limit", key)
	b.zi.RateLimits = append(b.zi.RateLimits, r)
}

// zoneSettings are the setting values that differ between zones; empty fields take the
// default.
type zoneSettings struct {
	CNAMEFlattening   string // flatten_at_root (default) or flatten_all
	Brotli            string // on or off (default)
	Minify            string // JSON object
	MobileRedirect    string // JSON object
	ServerSideExclude string
	PrivacyPass       string
	SSL               string
	SecurityLevel     string
	ModifiedOn        string
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// settings writes the zone's settings as GET /zones/:id/settings lists them (sorted by id).
// The values share one buffer, each capped so an append cannot run into its neighbour.
func (b *zoneBuilder) settings(s zoneSettings) {
	mod := or(s.ModifiedOn, "2024-01-08T09:30:00.000000Z")
	list := [...]struct {
		id, value string
		quote     bool
	}{
		{"always_use_https", "on", true},
		{"automatic_https_rewrites", "on", true},
		{"brotli", or(s.Brotli, "off"), true},
		{"cname_flattening", or(s.CNAMEFlattening, "flatten_at_root"), true},
		{"http3", "on", true},
		{"min_tls_version", "1.2", true},
		{"minify", or(s.Minify, minifyOff), false},
		{"mobile_redirect", or(s.MobileRedirect, mobileRedirectOff), false},
		{"privacy_pass", or(s.PrivacyPass, "off"), true},
		{"security_level", or(s.SecurityLevel, "medium"), true},
		{"server_side_exclude", or(s.ServerSideExclude, "off"), true},
		{"ssl", or(s.SSL, "full"), true},
	}
	size := 0
	for _, x := range list {
		size += len(x.value) + 2
	}
	buf := make([]byte, 0, size)
	b.zi.Settings = make([]inventory.Setting, len(list))
	for i, x := range list {
		start := len(buf)
		if x.quote {
			buf = append(append(append(buf, '"'), x.value...), '"')
		} else {
			buf = append(buf, x.value...)
		}
		b.zi.Settings[i] = inventory.Setting{ID: x.id, Value: buf[start:len(buf):len(buf)], Editable: b.bool(true), ModifiedOn: mod}
	}
}

// dnsSettings writes the zone's DNS settings; flatten_all_cnames reflects cname_flattening,
// as the old and new endpoints reflect each other.
func (b *zoneBuilder) dnsSettings(multiProvider, secondaryOverrides bool) {
	flat := false
	if s, ok := b.zi.Setting("cname_flattening"); ok {
		flat = s.StringValue() == "flatten_all"
	}
	b.zi.DNSSettings = &inventory.DNSSettings{
		FlattenAllCNAMEs:   b.bool(flat),
		FoundationDNS:      b.bool(false),
		MultiProvider:      b.bool(multiProvider),
		SecondaryOverrides: b.bool(secondaryOverrides),
		NSTTL:              b.int(86400),
		Nameservers:        &inventory.Nameservers{Type: "platform.standard"},
		ZoneMode:           "standard",
	}
}

// record adds a DNS record with the fields the dated changes remove (zone_id, zone_name,
// locked) still present: the emulator drops them according to its as-of date.
func (b *zoneBuilder) record(key string, r inventory.DNSRecord) {
	r.ID = b.id("dns_record", key)
	r.ZoneID = b.str(b.zi.Zone.ID)
	r.ZoneName = b.str(b.name)
	r.Locked = b.bool(false)
	if r.TTL == 0 {
		r.TTL = 1
	}
	b.zi.DNSRecords = append(b.zi.DNSRecords, r)
}

// srv adds an SRV record named _service._proto.host; with legacy set, data also carries the
// deprecated service/proto/name fields (copied from the name unless given in legacy).
func (b *zoneBuilder) srv(key, service, proto, host string, prio, weight, port int, target string, legacy *srvLegacy) {
	d := &inventory.RecordData{Priority: b.int(prio), Weight: b.int(weight), Port: b.int(port), Target: target}
	if legacy != nil {
		d.Service = b.str(or(legacy.Service, service))
		d.Proto = b.str(or(legacy.Proto, proto))
		d.Name = b.str(or(legacy.Name, host))
	}
	b.record(key, inventory.DNSRecord{
		Type:     "SRV",
		Name:     b.cat(service, ".", proto, ".", host),
		Content:  b.cat(itoa(weight), " ", itoa(port), " ", target),
		Priority: b.int(prio),
		Data:     d,
	})
}

// srvLegacy holds the deprecated SRV data fields; an empty field repeats the outer name's part.
type srvLegacy struct{ Service, Proto, Name string }

// basicRecords adds the records every zone has: apex A and AAAA, www, mail and SPF.
func (b *zoneBuilder) basicRecords(v4, v6 string) {
	b.record("a-apex", inventory.DNSRecord{Type: "A", Name: b.name, Content: v4, Proxied: b.bool(true)})
	b.record("aaaa-apex", inventory.DNSRecord{Type: "AAAA", Name: b.name, Content: v6, Proxied: b.bool(true)})
	b.record("cname-www", inventory.DNSRecord{Type: "CNAME", Name: b.cat("www.", b.name), Content: b.name, Proxied: b.bool(true)})
	b.record("mx", inventory.DNSRecord{Type: "MX", Name: b.name, Content: b.cat("mail.", b.name), Priority: b.int(10), TTL: 3600})
	b.record("a-mail", inventory.DNSRecord{Type: "A", Name: b.cat("mail.", b.name), Content: v4, Proxied: b.bool(false), TTL: 3600})
	b.record("txt-spf", inventory.DNSRecord{Type: "TXT", Name: b.name, Content: `"v=spf1 mx -all"`, TTL: 3600})
}

// ruleset adds the zone's entry point of a phase.
func (b *zoneBuilder) ruleset(phase vocab.Phase, updated string, rules ...inventory.RulesetRule) {
	for i := range rules {
		rules[i].ID = b.id("ruleset_rule", string(phase)+"/"+itoa(i))
		rules[i].Version = "1"
	}
	b.zi.Rulesets = append(b.zi.Rulesets, inventory.Ruleset{
		ID:          b.id("ruleset", string(phase)),
		Name:        "default",
		Description: "",
		Kind:        "zone",
		Phase:       phase,
		Version:     "1",
		LastUpdated: updated,
		Rules:       rules,
	})
}

// wafSpec says how a zone's previous-version WAF is configured.
type wafSpec struct {
	OWASPSensitivity string            // high, medium, low, off
	OWASPActionMode  string            // simulate, block, challenge
	OffGroups        map[string]bool   // group keys (of either package) switched off
	RuleModes        map[string]string // rule keys whose mode differs from the default
}

type wafRuleDef struct{ key, priority, description string }

type wafGroupDef struct {
	key, name, description string
	rules                  []wafRuleDef
}

// The previous-version WAF's two packages as every zone saw them (a representative subset of
// their groups and rules).
var (
	traditionalGroups = []wafGroupDef{
		{"cf-specials", "Cloudflare Specials", "Cloudflare Specials Rules", []wafRuleDef{
			{"cf-specials/null-byte", "5", "Null byte in the URI"},
			{"cf-specials/ua-missing", "10", "Anomaly:Header:User-Agent - Missing"},
			{"cf-specials/sqli-union", "15", "SQLi - UNION in the query string"},
		}},
		{"cf-wordpress", "Cloudflare WordPress", "Rules that protect WordPress sites", []wafRuleDef{
			{"cf-wordpress/xmlrpc-pingback", "5", "WordPress - XML-RPC pingback abuse"},
			{"cf-wordpress/user-enum", "10", "WordPress - user enumeration"},
		}},
		{"cf-php", "Cloudflare PHP", "Rules that protect PHP applications", []wafRuleDef{
			{"cf-php/code-injection", "5", "PHP - code injection"},
			{"cf-php/wrapper", "10", "PHP - stream wrapper in a parameter"},
		}},
		{"cf-drupal", "Cloudflare Drupal", "Rules that protect Drupal sites", []wafRuleDef{
			{"cf-drupal/drupalgeddon", "5", "Drupal - remote code execution (SA-CORE-2018-002)"},
		}},
	}
	owaspGroups = []wafGroupDef{
		{"owasp-inbound", "OWASP Inbound Blocking", "Score-based inbound blocking", []wafRuleDef{
			{"owasp-inbound/threshold", "1", "Inbound anomaly score exceeded"},
		}},
		{"owasp-xss", "OWASP Uri XSS Attacks", "Cross-site scripting attacks in the URI", []wafRuleDef{
			{"owasp-xss/script-tag", "5", "XSS: script tag vector"},
			{"owasp-xss/event-handler", "10", "XSS: event handler vector"},
		}},
		{"owasp-bad-robots", "OWASP Bad Robots", "Known malicious user agents", []wafRuleDef{
			{"owasp-bad-robots/scanner-ua", "5", "Request indicates a security scanner"},
		}},
	}
)

var (
	traditionalModes = []string{"default", "disable", "simulate", "block", "challenge"}
	onOff            = []string{"on", "off"}
)

// waf adds the two previous-version WAF packages (the traditional "CloudFlare" package and the
// OWASP anomaly package) with their groups and rules.
func (b *zoneBuilder) waf(s wafSpec) {
	zid := b.zi.Zone.ID
	trad := inventory.WAFPackageInventory{Package: inventory.WAFPackage{
		ID: b.id("waf_package", "cloudflare"), Name: "CloudFlare", DetectionMode: "traditional",
		ZoneID: zid, Status: "active",
	}}
	owasp := inventory.WAFPackageInventory{Package: inventory.WAFPackage{
		ID: b.id("waf_package", "owasp"), Name: "OWASP ModSecurity Core Rule Set",
		Description: "Covers OWASP Top 10 vulnerabilities, and more.", DetectionMode: "anomaly",
		ZoneID: zid, Status: "active", Sensitivity: s.OWASPSensitivity, ActionMode: s.OWASPActionMode,
	}}
	b.wafGroups(&trad, traditionalGroups, s, "default", traditionalModes)
	b.wafGroups(&owasp, owaspGroups, s, "on", onOff)
	b.zi.WAFPackages = append(b.zi.WAFPackages, trad, owasp)
}

func (b *zoneBuilder) wafGroups(p *inventory.WAFPackageInventory, defs []wafGroupDef, s wafSpec, defMode string, allowed []string) {
	pid := p.Package.ID
	for _, g := range defs {
		gid := b.id("waf_group", g.key)
		mode := "on"
		if s.OffGroups[g.key] {
			mode = "off"
		}
		modified := 0
		for _, r := range g.rules {
			m := or(s.RuleModes[r.key], defMode)
			if m != defMode {
				modified++
			}
			p.Rules = append(p.Rules, inventory.WAFRule{
				ID: b.id("waf_rule", r.key), Description: r.description, Priority: r.priority,
				PackageID: pid, Group: &inventory.Ref{ID: gid, Name: g.name},
				Mode: m, DefaultMode: defMode, AllowedModes: append([]string(nil), allowed...),
			})
		}
		p.Groups = append(p.Groups, inventory.WAFGroup{
			ID: gid, Name: g.name, Description: g.description, RulesCount: len(g.rules),
			ModifiedRulesCount: modified, PackageID: pid, Mode: mode,
			AllowedModes: []string{"on", "off"},
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
