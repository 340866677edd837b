package migrate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sunsetscan/sunset/scanner/vocab"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// zoneSettingGuide says what a deprecated zone setting's value means for the migration: the
// advice, and whether the feature is on (so something must be done before its end of life).
type zoneSettingGuide func(v json.RawMessage) (advice string, active bool)

// zoneSettingGuides follow the catalog's replacements: brotli -> compression by default
// (compression rules on Enterprise), minify -> none (minify in the build), server-side
// excludes -> none, privacy pass -> none; mobile_redirect is planned separately (a single
// redirect rule). The scan reports these settings only at values whose end of life matters.
var zoneSettingGuides = map[string]zoneSettingGuide{
	"brotli": func(v json.RawMessage) (string, bool) {
		return "Brotli is off; compression is on by default for every zone after the end of life, so this zone serves compressed responses. Enterprise zones can keep it off with a compression rule (phase " + string(vocab.PhaseCompression) + "). Stop calling the endpoint.", false
	},
	"minify": func(v json.RawMessage) (string, bool) {
		return "Auto Minify goes away at the end of life, so the assets it minifies are served unminified: minify them in the build, then turn the setting off (before the end of life; after it the value does nothing), and stop calling the endpoint.", true
	},
	"server_side_exclude": func(v json.RawMessage) (string, bool) {
		return "Server-side Excludes go away at the end of life, so content inside SSE tags is served to every visitor: remove sensitive content from those pages, then turn the setting off (before the end of life; after it the value does nothing), and stop calling the endpoint.", true
	},
	"privacy_pass": func(v json.RawMessage) (string, bool) {
		return "The legacy anonymous-token setting is removed and nothing replaces it: stop managing it.", false
	},
}

// settingBody is the body of PATCH /zones/:id/settings/NAME. The id is sent with the value:
// the API's schema of the operation requires both (the SDKs send only the value, which the
// API accepts too).
func settingBody(name string, value any) json.RawMessage {
	return mustJSON(map[string]any{"id": name, "value": value})
}

// offValues are the no-op values a manual step sets a deprecated setting to.
var offValues = map[string]any{
	"minify":              map[string]string{"css": "off", "html": "off", "js": "off"},
	"server_side_exclude": "off",
}

// zoneSettingsTranslator plans the deprecated single zone settings. Their values cannot be
// migrated by a call (the features go away, or their replacement is configured
// differently): each gets a manual step with what to do, with the call that turns the
// feature off while the endpoint still takes writes; mobile_redirect gets a single redirect
// rule (mobileRedirect).
type zoneSettingsTranslator struct{}

func (zoneSettingsTranslator) translate(b *builder) {
	for _, name := range []string{"brotli", "minify", "mobile_redirect", "server_side_exclude", "privacy_pass"} {
		ruleID, _ := vocab.ZoneSettingRule(name)
		fps := b.findings(ruleID, vocab.KindZoneSetting, name)
		if len(fps) == 0 {
			continue
		}
		set, _ := b.z.Setting(name)
		if name == "mobile_redirect" {
			mobileRedirect(b, set.Value, fps)
			continue
		}
		stopSetting(b, name, ruleID, set, fps)
	}
}

// stopSetting is the manual step of a deprecated setting no call migrates, with the PATCH
// that turns the feature off while the endpoint still takes writes, if it is on.
func stopSetting(b *builder, name string, ruleID vocab.RuleID, set inventory.Setting, fps []string) {
	advice, active := zoneSettingGuides[name](set.Value)
	st := Step{
		ID: "zone-setting.stop:" + name, Kind: KindZoneSettingStop, Manual: true,
		Resolves: fps, Risk: RiskLow,
		Title:  fmt.Sprintf("Stop using /zones/:zone_id/settings/%s (value %s)", name, compactJSON(set.Value)),
		Reason: fmt.Sprintf("The %s setting is deprecated; no call migrates it.", name),
		Note:   advice,
	}
	if off, ok := offValues[name]; ok && active && b.writable(ruleID) {
		st.Risk = RiskMedium
		st.Method, st.Path = "PATCH", zonePath(b.z.Zone.ID, "settings", name)
		st.Body = settingBody(name, off)
	}
	b.add(phaseManual, st)
}

// mobileRedirectSetting is the value of the mobile_redirect zone setting.
type mobileRedirectSetting struct {
	Status          string  `json:"status"`
	MobileSubdomain *string `json:"mobile_subdomain"`
	StripURI        bool    `json:"strip_uri"`
}

// mobileRedirectOffBody is the PATCH that turns mobile_redirect off, keeping its subdomain
// and strip_uri; false when it redirects nothing (off, or on without a subdomain).
func mobileRedirectOffBody(v json.RawMessage) (json.RawMessage, bool) {
	var m mobileRedirectSetting
	_ = json.Unmarshal(v, &m)
	if !strings.EqualFold(m.Status, "on") || m.MobileSubdomain == nil || strings.TrimSpace(*m.MobileSubdomain) == "" {
		return nil, false
	}
	return settingBody("mobile_redirect", map[string]any{"status": "off", "mobile_subdomain": *m.MobileSubdomain, "strip_uri": m.StripURI}), true
}

// MobileRedirectRule is the single redirect rule that replaces the mobile_redirect setting
// of zone (the zone's host name), for callers outside the plan (sunset fix).
func MobileRedirectRule(zone, mobileSubdomain string, stripURI bool) inventory.RulesetRule {
	rule, _ := inventory.MobileRedirectRule(zone, mobileSubdomain, stripURI)
	return rule
}

// mobileRedirect plans mobile_redirect -> a single redirect rule, merged into the zone's
// redirect entry point (read by the scan), then, while the endpoint still takes writes, the
// setting turned off. Past its end of life the setting redirects nothing: the rule restores
// the redirects, and the value left in the setting does nothing.
func mobileRedirect(b *builder, v json.RawMessage, fps []string) {
	zone := inventory.NormalizeDNSName(b.z.Zone.Name)
	var m mobileRedirectSetting
	_ = json.Unmarshal(v, &m)
	stop := Step{
		ID: "zone-setting.stop:mobile_redirect", Kind: KindZoneSettingStop, Manual: true,
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
	rule, target := inventory.MobileRedirectRule(zone, *m.MobileSubdomain, m.StripURI)
	verify := ""
	if !b.ruleThere(vocab.PhaseDynamicRedirect, rule) {
		verify = b.changeRuleset(rulesetChange{
			kinds: redirectRuleKinds, existing: entrypoint(b.z, vocab.PhaseDynamicRedirect),
			back: []inventory.RulesetRule{rule}, what: "redirect rule", whats: "redirect rules",
			resolves: fps, risk: RiskMedium, derived: true,
			reason: "mobile_redirect is deprecated; a single redirect rule sending mobile visitors to " + target + " replaces it.",
			note:   "Derived: mobile browsers are told by \"Mobi\" or \"Android\" in the user agent, as the old feature did by user agent.",
		})
	}
	stop.Title = "Stop using /zones/:zone_id/settings/mobile_redirect: the redirect rule replaces it"
	stop.Note = "Past the end of life the setting redirects nothing and the value left in it does nothing."
	if body, on := mobileRedirectOffBody(v); on && b.writable(vocab.ZoneSettingMobileRedirect) {
		off := Step{
			ID: "zone-setting.off:mobile_redirect", Kind: KindZoneSettingOff, Change: ChangeUpdate,
			Method: "PATCH", Path: zonePath(b.z.Zone.ID, "settings", "mobile_redirect"),
			Body:     body,
			Resolves: fps, Risk: RiskLow,
			Title:  "Turn mobile_redirect off: the redirect rule is live",
			Reason: "Both redirecting at once is harmless (same target), so the setting goes off once the rule is checked, before the endpoint's end of life.",
		}
		if verify != "" {
			off.DependsOn = []string{verify}
		}
		b.add(phaseOldDelete, off)
		stop.DependsOn = []string{off.ID}
		stop.Note = "The setting is off; scripts and tools must stop calling the endpoint."
	}
	b.add(phaseManual, stop)
}
