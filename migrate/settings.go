package migrate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sunsetscan/sunset/migrate/expr"
	"github.com/sunsetscan/sunset/scanner/inventory"
)

// zoneSettingGuide says what a deprecated zone setting's value means for the migration: the
// advice, and whether the end of life changes traffic (risk).
type zoneSettingGuide func(v json.RawMessage) (advice string, changesTraffic bool)

func onOffValue(v json.RawMessage) (on, known bool) { return inventory.SettingOn(v) }

// zoneSettingGuides follow the catalog's replacements: brotli -> compression by default
// (compression rules on Enterprise), minify -> none (minify in the build), server-side
// excludes -> none, privacy pass -> none; mobile_redirect is planned separately (a single
// redirect rule).
var zoneSettingGuides = map[string]zoneSettingGuide{
	"brotli": func(v json.RawMessage) (string, bool) {
		if on, known := onOffValue(v); known && on {
			return "Brotli is on; compression is on by default for every zone after the end of life, so traffic does not change. Stop calling the endpoint.", false
		}
		return "Brotli is off; after the end of life compression is on by default, so this zone starts serving compressed responses. Enterprise zones can keep it off with a compression rule (phase http_response_compression). Stop calling the endpoint.", true
	},
	"minify": func(v json.RawMessage) (string, bool) {
		var m map[string]string
		if json.Unmarshal(v, &m) != nil {
			return "Auto Minify goes away: minify assets in the build, then stop calling the endpoint.", true
		}
		var on []string
		for _, k := range []string{"css", "html", "js"} {
			if strings.EqualFold(m[k], "on") {
				on = append(on, k)
			}
		}
		if len(on) == 0 {
			return "Auto Minify is off for css, html and js: nothing changes for traffic. Stop calling the endpoint.", false
		}
		return "Auto Minify is on for " + strings.Join(on, ", ") + " and goes away, so these assets will be served unminified: minify them in the build (then turn the setting off), and stop calling the endpoint.", true
	},
	"server_side_exclude": func(v json.RawMessage) (string, bool) {
		if on, known := onOffValue(v); known && !on {
			return "Server-side Excludes are off: nothing changes for traffic. Stop calling the endpoint.", false
		}
		return "Server-side Excludes go away, so content inside SSE tags will be served to every visitor: remove sensitive content from those pages, then stop calling the endpoint.", true
	},
	"privacy_pass": func(v json.RawMessage) (string, bool) {
		if on, known := onOffValue(v); known && !on {
			return "Privacy Pass is off: nothing changes. Stop calling the endpoint.", false
		}
		return "The legacy anonymous-token setting is removed and nothing replaces it: stop managing it.", false
	},
}

// zoneSettings plans the deprecated single zone settings. Their values cannot be migrated by
// a call (the features go away, or their replacement is configured differently): each gets a
// manual step with what to do, and mobile_redirect a single redirect rule to create.
func (b *builder) zoneSettings() {
	z := b.z
	zid := z.Zone.ID
	for _, name := range []string{"brotli", "minify", "mobile_redirect", "server_side_exclude", "privacy_pass"} {
		fps := b.findings("zone-setting-"+strings.ReplaceAll(name, "_", "-"), kindZoneSetting, name)
		if len(fps) == 0 {
			continue
		}
		set, _ := z.Setting(name)
		if name == "mobile_redirect" {
			b.mobileRedirect(set.Value, fps)
			continue
		}
		advice, changes := zoneSettingGuides[name](set.Value)
		risk := RiskLow
		if changes {
			risk = RiskMedium
		}
		b.add(phaseManual, Step{
			ID: "zone-setting.stop:" + name, Kind: "zone-setting.stop", Manual: true,
			Resolves: fps, Risk: risk,
			Title:  fmt.Sprintf("Stop using /zones/:zone_id/settings/%s (value %s)", name, compactJSON(set.Value)),
			Reason: fmt.Sprintf("The %s setting is deprecated; no call migrates it.", name),
			Note:   advice,
		})
		_ = zid
	}
}

// mobileRedirect plans mobile_redirect -> a single redirect rule (phase
// http_request_dynamic_redirect). Derived: the old feature recognised mobile browsers by their
// user agent; the rule matches "Mobi" or "Android" in it on the zone's own host, and sends
// them to the mobile subdomain with a 302, keeping the path and query unless strip_uri.
// The step is manual: the scan does not read that phase's entry point, so the PUT body holds
// only the new rule and must be merged with any redirect rules the zone already has.
func (b *builder) mobileRedirect(v json.RawMessage, fps []string) {
	zid := b.z.Zone.ID
	zone := inventory.NormalizeDNSName(b.z.Zone.Name)
	var m struct {
		Status          string  `json:"status"`
		MobileSubdomain *string `json:"mobile_subdomain"`
		StripURI        bool    `json:"strip_uri"`
	}
	_ = json.Unmarshal(v, &m)
	stop := Step{
		ID: "zone-setting.stop:mobile_redirect", Kind: "zone-setting.stop", Manual: true,
		Resolves: fps, Risk: RiskLow,
		Title:  "Stop using /zones/:zone_id/settings/mobile_redirect",
		Reason: "The mobile_redirect setting is deprecated; its replacement is a single redirect rule.",
		Note:   "Mobile redirect is off: nothing changes for traffic.",
	}
	if !strings.EqualFold(m.Status, "on") || m.MobileSubdomain == nil || strings.TrimSpace(*m.MobileSubdomain) == "" {
		if strings.EqualFold(m.Status, "on") {
			stop.Note = "Mobile redirect is on without a mobile subdomain: it redirects nowhere; turn it off."
		}
		b.add(phaseManual, stop)
		return
	}
	target := "https://" + inventory.NormalizeDNSName(*m.MobileSubdomain) + "." + zone
	fromValue := map[string]any{"status_code": 302, "preserve_query_string": !m.StripURI}
	if m.StripURI {
		fromValue["target_url"] = map[string]string{"value": target + "/"}
	} else {
		fromValue["target_url"] = map[string]string{"expression": "concat(" + expr.Quote(target) + ", http.request.uri.path)"}
	}
	rule := map[string]any{
		"action":            "redirect",
		"expression":        fmt.Sprintf("http.host eq %s and (http.user_agent contains \"Mobi\" or http.user_agent contains \"Android\")", expr.Quote(zone)),
		"description":       "Mobile redirect to " + target + " (migrated from the mobile_redirect setting)",
		"enabled":           true,
		"action_parameters": map[string]any{"from_value": fromValue},
	}
	b.add(phaseCreate, Step{
		ID: "redirect-rules.create:mobile_redirect", Kind: "redirect-rules.create", Change: ChangeCreate,
		Manual: true, Derived: true,
		Method: "PUT", Path: entrypointPath(zid, PhaseRedirect), Body: mustJSON(map[string]any{"rules": []any{rule}}),
		Risk:   RiskMedium,
		Title:  "Create a single redirect rule sending mobile visitors to " + target,
		Reason: "mobile_redirect is deprecated; single redirects replace it.",
		Note:   "Manual: the scan does not read the http_request_dynamic_redirect entry point, so add this rule to it (POST .../rules when it exists; the PUT shown replaces every redirect rule). Derived: mobile browsers are told by \"Mobi\" or \"Android\" in the user agent.",
	})
	stop.DependsOn = []string{"redirect-rules.create:mobile_redirect"}
	stop.Method, stop.Path = "PATCH", zonePath(zid, "settings", "mobile_redirect")
	stop.Body = mustJSON(map[string]any{"value": map[string]any{"status": "off", "mobile_subdomain": *m.MobileSubdomain, "strip_uri": m.StripURI}})
	stop.Title = "Turn mobile_redirect off once the redirect rule is live, and stop using the endpoint"
	stop.Note = "Both redirecting at once is harmless (same target), so turn the setting off after checking the rule."
	stop.Risk = RiskMedium
	b.add(phaseManual, stop)
}

// notificationPolicy is the policy body for a set of addresses (derived alert types).
func notificationPolicy(name, alertType string, emails []string, filters map[string][]string) json.RawMessage {
	mech := make([]map[string]string, len(emails))
	for i, e := range emails {
		mech[i] = map[string]string{"id": e}
	}
	body := map[string]any{
		"name": name, "alert_type": alertType, "enabled": true,
		"mechanisms": map[string]any{"email": mech},
	}
	if len(filters) > 0 {
		body["filters"] = filters
	}
	return mustJSON(body)
}

func emailList(v string) []string {
	var out []string
	for _, a := range strings.Split(v, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// healthChecks plans notification_email on zone health checks -> notification policies:
// create the policy, then clear the field. Both are manual: the policies API is account-wide
// and the alert type is derived (health_check_status_notification).
func (b *builder) healthChecks() {
	z := b.z
	for _, h := range z.HealthChecks {
		fps := b.findings(idNotificationEmail, kindHealthCheck, h.ID)
		if len(fps) == 0 {
			continue
		}
		emails := emailList(h.NotificationEmail)
		create := "notification-policy.create:" + h.ID
		b.add(phaseManual, Step{
			ID: create, Kind: "notification-policy.create", Change: ChangeCreate, Manual: true, Derived: true,
			Method: "POST", Path: "/accounts/" + z.Zone.Account.ID + "/alerting/v3/policies",
			Body:     notificationPolicy("Health check "+h.Name+" ("+z.Zone.Name+")", "health_check_status_notification", emails, map[string][]string{"health_check_id": {h.ID}}),
			Resolves: fps, Risk: RiskLow,
			Title:  "Create a notification policy for health check " + named(h.Name, h.ID),
			Reason: "notification_email is deprecated in favour of the centralised notification service.",
			Note:   "Derived: alert type health_check_status_notification with an email mechanism per address (" + strings.Join(emails, ", ") + ").",
		})
		b.add(phaseManual, Step{
			ID: "health-check.clear-email:" + h.ID, Kind: "health-check.clear-email", Change: ChangeUpdate, Manual: true,
			Method: "PATCH", Path: zonePath(z.Zone.ID, "healthchecks", h.ID), Body: mustJSON(map[string]string{"notification_email": ""}),
			DependsOn: []string{create}, Resolves: fps, Risk: RiskLow,
			Title:  "Clear notification_email of health check " + named(h.Name, h.ID),
			Reason: "Once the policy sends the notifications, the deprecated field would send them twice.",
		})
	}
}
