package emulator

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// The API's description requires members the seed need not hold (a seed written by hand, or
// read from an account through a client that drops them). The emulator answers with them
// all the same, synthesized deterministically from the object, Options.Rand and the
// emulator's date; a member the seed holds is kept as it is.

// stampLayout is the API's timestamp form.
const stampLayout = "2006-01-02T15:04:05.000000Z"

// draw is a deterministic number for an object, from the emulator's seed.
func (st *state) draw(kind, id string) uint64 {
	sum := sha256.Sum256([]byte(fmt.Sprintf("sunset-emulator/%d/shape/%s/%s", st.seed, kind, id)))
	return binary.BigEndian.Uint64(sum[:8])
}

// withExtra returns a copy of extra with the members of add it lacks.
func withExtra(extra inventory.Extra, add map[string]any) inventory.Extra {
	out := make(inventory.Extra, len(extra)+len(add))
	for k, v := range extra {
		out[k] = v
	}
	for k, v := range add {
		if _, set := out[k]; !set {
			b, _ := json.Marshal(v)
			out[k] = b
		}
	}
	return out
}

// zoneCreated is when a zone was created: 400 to 1,900 days before the emulator's date.
func (st *state) zoneCreated(zoneID string, asOf time.Time) time.Time {
	n := st.draw("zone", zoneID)
	days := 400 + int(n%1500)
	return asOf.UTC().Truncate(24*time.Hour).AddDate(0, 0, -days).Add(time.Duration(n>>16%86400) * time.Second)
}

// pageRuleQuota is a plan's page rule quota, shown in a zone's meta.
var pageRuleQuota = map[string]int{inventory.PlanFree: 3, inventory.PlanPro: 20, inventory.PlanBusiness: 50, inventory.PlanEnterprise: 125}

// renderZone is a zone as the API answers it: with development_mode, owner (its account),
// meta, the name servers Cloudflare assigned, the original registrar, DNS host and name
// servers (unknown: null), and its creation, modification and activation times.
func (st *state) renderZone(z *zoneState, asOf time.Time) inventory.Zone {
	out := z.zone
	created := st.zoneCreated(z.zone.ID, asOf)
	n := st.draw("zone-ns", z.zone.ID)
	var activated any
	if z.zone.Status == "active" {
		activated = created.Add(13 * time.Minute).Format(stampLayout)
	}
	out.Extra = withExtra(z.zone.Extra, map[string]any{
		"development_mode": 0,
		"owner":            map[string]any{"id": z.zone.Account.ID, "type": "organization", "name": z.zone.Account.Name},
		"meta":             map[string]any{"step": 2, "page_rule_quota": pageRuleQuota[z.plan()], "phishing_detected": false},
		"name_servers": []string{
			nameserverNames[n%uint64(len(nameserverNames))] + ".ns.cloudflare.com",
			nameserverNames[(n>>8)%uint64(len(nameserverNames))] + "2.ns.cloudflare.com",
		},
		"original_name_servers": nil,
		"original_registrar":    nil,
		"original_dnshost":      nil,
		"created_on":            created.Format(stampLayout),
		"activated_on":          activated,
		"modified_on":           asOf.UTC().Truncate(24*time.Hour).AddDate(0, 0, -1-int(n>>24%30)).Format(stampLayout),
	})
	return out
}

// nameserverNames are first labels of the name servers the emulator assigns.
var nameserverNames = []string{"ada", "bob", "cruz", "dana", "elle", "finn", "gina", "hugo", "iris", "jack", "kara", "leo"}

// proxiable reports whether records of a type can be proxied.
func proxiable(typ string) bool { return typ == "A" || typ == "AAAA" || typ == "CNAME" }

// recordShape adds to a rendered DNS record what the API's description requires: proxiable
// (from the type), created_on and modified_on (after the zone's creation when the seed has
// none) and meta.
func (st *state) recordShape(z *zoneState, r *inventory.DNSRecord, asOf time.Time) {
	created := st.zoneCreated(z.zone.ID, asOf).AddDate(0, 0, int(st.draw("record", r.ID)%300)).Format(stampLayout)
	r.Extra = withExtra(r.Extra, map[string]any{
		"created_on":  created,
		"modified_on": created,
		"meta":        map[string]any{"auto_added": false, "source": "primary"},
	})
	b, _ := json.Marshal(proxiable(r.Type))
	r.Extra["proxiable"] = b // follows the type, whatever was stored
}

// wafDefaultModes are the values of a traditional WAF rule's default_mode, in the order the
// emulator picks them.
var wafDefaultModes = []string{"block", "challenge", "simulate", "disable"}

// renderWAFRule is a WAF rule as the API answers it. Anomaly (OWASP) rules, whose modes are
// on and off, carry no default_mode, as the recorded rules show; a traditional rule's
// default_mode is the seed's when it is one of block, challenge, simulate and disable, and
// otherwise the first of those the rule allows that differs from its mode, so that a rule
// the seed marks as changed stays changed.
func renderWAFRule(r inventory.WAFRule) inventory.WAFRule {
	if contains(wafDefaultModes, r.DefaultMode) {
		return r
	}
	if len(r.AllowedModes) > 0 && !containsAny(r.AllowedModes, wafDefaultModes) {
		r.DefaultMode = ""
		return r
	}
	for _, m := range wafDefaultModes {
		if m != r.Mode && (len(r.AllowedModes) == 0 || contains(r.AllowedModes, m)) {
			r.DefaultMode = m
			return r
		}
	}
	r.DefaultMode = wafDefaultModes[0]
	return r
}

func containsAny(list, values []string) bool {
	for _, v := range values {
		if contains(list, v) {
			return true
		}
	}
	return false
}

// renderWAFPackage is a WAF package as the API answers it: with its description (empty when
// the seed has none).
func renderWAFPackage(p inventory.WAFPackage) inventory.WAFPackage {
	if p.Description == "" {
		p.Extra = withExtra(p.Extra, map[string]any{"description": ""})
	}
	return p
}

// renderHealthCheck is a health check as the API answers it: the API has no
// notification_email on health checks (the field is the load balancer pools'); addresses a
// seed gives there are its notification.email_addresses.
func renderHealthCheck(_ *call, h inventory.HealthCheck) inventory.HealthCheck {
	if h.NotificationEmail == "" {
		return h
	}
	var addrs []string
	for _, a := range strings.Split(h.NotificationEmail, ",") {
		if a = strings.TrimSpace(a); a != "" {
			addrs = append(addrs, a)
		}
	}
	h.NotificationEmail = ""
	h.Extra = withExtra(h.Extra, map[string]any{"notification": map[string]any{"suspended": false, "email_addresses": addrs, "trigger": "FAIL"}})
	return h
}

// canonicalNameservers spells a nameserver type as the API answers it: the spec's platform.*
// spellings are accepted on input and stored as cloudflare.* (domain-facts).
func canonicalNameservers(t string) string {
	if rest, found := strings.CutPrefix(t, "platform."); found {
		return "cloudflare." + rest
	}
	return t
}
