package catalog

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/vocab"
)

// designIDs are the catalog ids of the design page, the public names users suppress by.
var designIDs = []string{
	"firewall-rules", "filters", "waf-managed-rules-v1", "rate-limiting-v1", "cname-flattening-setting",
	"zone-settings-bulk", "account-nameserver-settings", "dns-settings-use-apex-ns",
	"dns-settings-secondary-overrides", "dns-record-zone-fields", "dns-record-locked", "dns-error-chain",
	"srv-data-fields", "zone-setting-brotli", "zone-setting-minify", "zone-setting-mobile-redirect",
	"zone-setting-server-side-exclude", "zone-setting-privacy-pass", "argo-tunnels-api",
	"billing-profile-api", "access-bookmarks-api", "images-v1-direct-upload", "analytics-dashboard-api",
	"organizations-api", "page-shield-script-monitor", "notification-email",
	"transfer-encoding-with-content-length", "chacha20-draft-ciphers", "threat-score-field",
	"geoip-field-names",
}

func TestEmbeddedCatalogIsValid(t *testing.T) {
	c, err := defaultCatalog()
	if err != nil {
		t.Fatalf("embedded catalog: %v", err)
	}
	// Default reads the embedded file without its strict decoding and validation: what Parse
	// and New make of it must be the same catalog.
	entries, err := Parse(embeddedDeprecations, embeddedName)
	if err != nil {
		t.Fatalf("Parse(embedded): %v", err)
	}
	strict, err := New(entries)
	if err != nil {
		t.Fatalf("New(Parse(embedded)): %v", err)
	}
	if !reflect.DeepEqual(c, strict) {
		t.Error("Default() differs from New(Parse(deprecations.yaml))")
	}
	if err := Validate(c.Entries()); err != nil {
		t.Fatalf("Validate(Default().Entries()): %v", err)
	}
	if got := c.Dates(); got != DatesSpec {
		t.Errorf("Default().Dates() = %q, want spec", got)
	}
}

func TestEveryDesignIDExactlyOnce(t *testing.T) {
	entries, err := Parse(embeddedDeprecations, embeddedName)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, e := range entries {
		count[string(e.ID)]++
	}
	for _, id := range designIDs {
		if count[id] != 1 {
			t.Errorf("id %q appears %d times in deprecations.yaml, want 1", id, count[id])
		}
	}
	if len(entries) != len(designIDs) {
		var extra []string
		for id := range count {
			if !slices.Contains(designIDs, id) {
				extra = append(extra, id)
			}
		}
		t.Errorf("deprecations.yaml has %d entries, want %d; not on the design page: %v", len(entries), len(designIDs), extra)
	}
}

func TestEntriesSortedAndLookup(t *testing.T) {
	c := Default()
	es := c.Entries()
	if !slices.IsSortedFunc(es, func(a, b Entry) int { return strings.Compare(string(a.ID), string(b.ID)) }) {
		t.Error("Entries() not sorted by id")
	}
	for _, e := range es {
		got, ok := c.Lookup(e.ID)
		if !ok || got.ID != e.ID || got.Title != e.Title {
			t.Errorf("Lookup(%q) = %v, %v", e.ID, got.ID, ok)
		}
		if !strings.HasPrefix(e.Origin, "deprecations.yaml:") {
			t.Errorf("%s: Origin = %q, want deprecations.yaml:LINE", e.ID, e.Origin)
		}
	}
	if _, ok := c.Lookup("no-such-id"); ok {
		t.Error("Lookup of an unknown id succeeded")
	}
}

func TestCatalogIsImmutable(t *testing.T) {
	c := Default()
	e, _ := c.Lookup("firewall-rules")
	e.Title = "changed"
	e.Match.Endpoints[0].Methods[0] = "XXX"
	e.Match.Objects[0] = "changed"
	e.Notice.EndOfLife = NewDate(2000, 1, 1)
	es := c.Entries()
	es[0].Notes = append(es[0].Notes[:0], "changed")
	again, _ := c.Lookup("firewall-rules")
	if again.Title == "changed" || again.Match.Endpoints[0].Methods[0] == "XXX" ||
		again.Match.Objects[0] == "changed" || again.Notice.EndOfLife.String() != "2025-06-15" {
		t.Fatalf("a returned entry shares memory with the catalog: %+v", again)
	}
	if first := c.Entries()[0]; len(first.Notes) > 0 && first.Notes[0] == "changed" {
		t.Fatal("Entries() shares Notes with the catalog")
	}
	if len(c.MatchEndpoint("GET", "/zones/z/firewall/rules")) != 1 {
		t.Fatal("matching changed after mutating a returned entry")
	}
}

// TestEntryContents checks the data the brief fixes, entry by entry.
func TestEntryContents(t *testing.T) {
	c := Default()
	get := func(id string) Entry {
		t.Helper()
		e, ok := c.Lookup(vocab.RuleID(id))
		if !ok {
			t.Fatalf("missing entry %q", id)
		}
		return e
	}
	for _, e := range c.Entries() {
		if e.Description == "" {
			t.Errorf("%s: no description", e.ID)
		}
		if !strings.HasPrefix(e.DocURL, "https://developers.cloudflare.com/") {
			t.Errorf("%s: doc_url %q is not on developers.cloudflare.com", e.ID, e.DocURL)
		}
		if e.Advisory && len(e.Notes) == 0 {
			t.Errorf("%s: advisory entries document the reason in notes", e.ID)
		}
	}
	advisories := []string{}
	for _, e := range c.Entries() {
		if e.Advisory {
			advisories = append(advisories, string(e.ID))
		}
	}
	if want := []string{"dns-error-chain", "geoip-field-names", "threat-score-field"}; !slices.Equal(advisories, want) {
		t.Errorf("advisory entries = %v, want %v", advisories, want)
	}

	bulk := get("zone-settings-bulk")
	if bulk.DateSource != DatesNotice || bulk.DeprecatedOn.String() != "2025-04-23" || bulk.EndOfLife.String() != "2026-09-15" {
		t.Errorf("zone-settings-bulk dates = %s/%s/%s, want notice 2025-04-23/2026-09-15", bulk.DateSource, bulk.DeprecatedOn, bulk.EndOfLife)
	}
	for _, ep := range bulk.Match.Endpoints {
		if ep.Affected {
			t.Errorf("zone-settings-bulk: the bulk endpoint itself is deprecated, not only affected: %+v", ep)
		}
	}
	affected := map[string][]string{
		"cname-flattening-setting":    {"/zones/:zone_id/settings"},
		"account-nameserver-settings": {"/accounts", "/accounts/:account_id"},
		"dns-record-zone-fields":      {"/zones/:zone_id/dns_records", "/zones/:zone_id/dns_records/:dns_record_id"},
		"dns-record-locked":           {"/zones/:zone_id/dns_records", "/zones/:zone_id/dns_records/:dns_record_id"},
		"srv-data-fields":             {"/zones/:zone_id/dns_records", "/zones/:zone_id/dns_records/:dns_record_id"},
		"dns-error-chain":             {"/zones/:zone_id/dns_records"},
	}
	for _, e := range c.Entries() {
		var got []string
		for _, ep := range e.Match.Endpoints {
			if ep.Affected {
				got = append(got, ep.Path)
			}
		}
		if !slices.Equal(got, affected[string(e.ID)]) {
			t.Errorf("%s: affected routes %v, want %v", e.ID, got, affected[string(e.ID)])
		}
	}

	wantFields := map[string][]FieldRef{
		"srv-data-fields":             {{"dns_record", "data.service", "type=SRV"}, {"dns_record", "data.proto", "type=SRV"}, {"dns_record", "data.name", "type=SRV"}},
		"dns-record-zone-fields":      {{"dns_record", "zone_id", ""}, {"dns_record", "zone_name", ""}},
		"dns-record-locked":           {{"dns_record", "locked", ""}},
		"account-nameserver-settings": {{"account", "settings.default_nameservers", ""}, {"account", "settings.use_account_custom_ns_by_default", ""}},
		"notification-email":          {{"load_balancer_pool", "notification_email", ""}, {"health_check", "notification_email", ""}},
	}
	for id, want := range wantFields {
		if got := get(id).Match.Fields; !slices.Equal(got, want) {
			t.Errorf("%s: fields %v, want %v", id, got, want)
		}
	}
	wantSettings := map[string]string{
		"cname-flattening-setting": "cname_flattening", "zone-setting-brotli": "brotli",
		"zone-setting-minify": "minify", "zone-setting-mobile-redirect": "mobile_redirect",
		"zone-setting-server-side-exclude": "server_side_exclude", "zone-setting-privacy-pass": "privacy_pass",
		"waf-managed-rules-v1": "waf",
	}
	for id, s := range wantSettings {
		e := get(id)
		if !slices.Equal(e.Match.Settings, []string{s}) {
			t.Errorf("%s: settings %v, want [%s]", id, e.Match.Settings, s)
		}
		want := []FieldRef{{Kind: "cloudflare_zone_settings_override", Field: "settings." + s}}
		if !slices.Equal(e.Match.Terraform.Attributes, want) {
			t.Errorf("%s: terraform attributes %v, want %v", id, e.Match.Terraform.Attributes, want)
		}
	}
	wantResources := map[string][]string{
		"firewall-rules":       {"cloudflare_firewall_rule"},
		"filters":              {"cloudflare_filter"},
		"rate-limiting-v1":     {"cloudflare_rate_limit"},
		"waf-managed-rules-v1": {"cloudflare_waf_package", "cloudflare_waf_group", "cloudflare_waf_rule", "cloudflare_waf_override"},
		"argo-tunnels-api":     {"cloudflare_argo_tunnel"},
		"access-bookmarks-api": {"cloudflare_access_bookmark"},
		"zone-settings-bulk":   {"cloudflare_zone_settings_override"},
	}
	for _, e := range c.Entries() {
		if got := e.Match.Terraform.Resources; !slices.Equal(got, wantResources[string(e.ID)]) {
			t.Errorf("%s: terraform resources %v, want %v", e.ID, got, wantResources[string(e.ID)])
		}
	}
	if got := get("srv-data-fields").Match.Terraform.Attributes; len(got) != 6 || got[0].Kind != "cloudflare_record" || got[3].Kind != "cloudflare_dns_record" {
		t.Errorf("srv-data-fields terraform attributes = %v", got)
	}
	if got := get("notification-email").Match.Terraform.Attributes; !slices.Equal(got, []FieldRef{
		{Kind: "cloudflare_load_balancer_pool", Field: "notification_email"}, {Kind: "cloudflare_healthcheck", Field: "notification_email"},
	}) {
		t.Errorf("notification-email terraform attributes = %v", got)
	}
	if got := get("threat-score-field").Match.ExpressionFields; !slices.Equal(got, []string{"cf.threat_score"}) {
		t.Errorf("threat-score-field expression fields = %v", got)
	}
	if got := get("geoip-field-names").Match.ExpressionFields; len(got) != 6 {
		t.Errorf("geoip-field-names expression fields = %v, want the 6 ip.geoip.* names", got)
	}
}

// TestExpressionFieldsAreCatalogued ties the two embedded files together: every field a
// deprecation matches is in fields.yaml and marked deprecated there.
func TestExpressionFieldsAreCatalogued(t *testing.T) {
	for _, e := range Default().Entries() {
		for _, name := range e.Match.ExpressionFields {
			f, ok := Fields().Field(name)
			if !ok {
				t.Errorf("%s: expression field %q is not in fields.yaml", e.ID, name)
				continue
			}
			if !f.Deprecated {
				t.Errorf("%s: %q is not marked deprecated in fields.yaml", e.ID, name)
			}
		}
	}
}

func TestTextPatterns(t *testing.T) {
	c := Default()
	cases := []struct {
		id    string
		text  string
		match bool
	}{
		{"transfer-encoding-with-content-length", `curl -H "Transfer-Encoding: chunked" -H "Content-Length: 42" https://api`, true},
		{"transfer-encoding-with-content-length", "headers = {\"Content-Length\": \"5\",\n \"Transfer-Encoding\": \"chunked\"}", true},
		{"transfer-encoding-with-content-length", `curl -H "Content-Length: 42" https://api`, false},
		{"transfer-encoding-with-content-length", `curl -H "Transfer-Encoding: chunked" https://api`, false},
		{"chacha20-draft-ciphers", `ssl_ciphers ECDHE-ECDSA-CHACHA20-POLY1305-OLD:ECDHE-RSA-AES128-GCM-SHA256;`, true},
		{"chacha20-draft-ciphers", `ciphers = ["ECDHE-RSA-CHACHA20-POLY1305-D"]`, true},
		{"chacha20-draft-ciphers", `TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_OLD`, true},
		{"chacha20-draft-ciphers", `ciphers = ["ECDHE-ECDSA-CHACHA20-POLY1305"]`, false},
		{"chacha20-draft-ciphers", `TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256`, false},
		{"dns-error-chain", `if err["error_chain"]: print(err["error_chain"][0])`, true},
		{"page-shield-script-monitor", `curl "$API/zones/$ZONE_ID/script_monitor/scripts"`, true},
		{"page-shield-script-monitor", `curl "$API/zones/$ZONE_ID/page_shield/scripts"`, false},
	}
	for _, tc := range cases {
		e, ok := c.Lookup(vocab.RuleID(tc.id))
		if !ok {
			t.Fatalf("no entry %q", tc.id)
		}
		got := false
		for _, p := range e.Match.Text {
			if mustCompile(t, p).MatchString(tc.text) {
				got = true
			}
		}
		if got != tc.match {
			t.Errorf("%s on %q: matched %v, want %v", tc.id, tc.text, got, tc.match)
		}
	}
}

func TestWithDatesNotice(t *testing.T) {
	spec := Default()
	notice, err := spec.WithDates("notice")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"firewall-rules": "2025-06-15", "filters": "2025-06-15", "waf-managed-rules-v1": "2025-06-15",
		"rate-limiting-v1": "2025-06-15", "cname-flattening-setting": "2025-06-08",
	}
	for _, e := range notice.Entries() {
		s, _ := spec.Lookup(e.ID)
		if w, moved := want[string(e.ID)]; moved {
			if e.EndOfLife.String() != w || e.DateSource != DatesNotice {
				t.Errorf("%s with notice dates: end of life %s (%s), want %s (notice)", e.ID, e.EndOfLife, e.DateSource, w)
			}
			if s.EndOfLife.String() == w {
				t.Errorf("%s: spec catalog already has the notice date", e.ID)
			}
			continue
		}
		if !e.EndOfLife.Equal(s.EndOfLife.Time) || !e.DeprecatedOn.Equal(s.DeprecatedOn.Time) {
			t.Errorf("%s: notice dates changed an entry without a dated notice: %s -> %s", e.ID, s.EndOfLife, e.EndOfLife)
		}
	}
	fw, _ := notice.Lookup("firewall-rules")
	day := NewDate(2025, 3, 1).Time
	if got := fw.SeverityAt(day); got != SeverityWarning {
		t.Errorf("firewall-rules on 2025-03-01 with notice dates = %v, want warning", got)
	}
	if got := mustLookup(t, Default(), "firewall-rules").SeverityAt(day); got != SeverityError {
		t.Errorf("firewall-rules on 2025-03-01 with spec dates = %v, want error", got)
	}
	back, err := notice.WithDates("")
	if err != nil {
		t.Fatal(err)
	}
	if fw, _ := back.Lookup("firewall-rules"); fw.EndOfLife.String() != "2025-01-15" || fw.DateSource != DatesSpec {
		t.Errorf("WithDates(\"\") after notice: %s (%s), want 2025-01-15 (spec)", fw.EndOfLife, fw.DateSource)
	}
	if len(notice.MatchEndpoint("GET", "/zones/z/rate_limits")) != 1 {
		t.Error("a catalog with notice dates lost its routes")
	}
	if _, err := spec.WithDates("rumour"); err == nil || !strings.Contains(err.Error(), "spec") {
		t.Errorf("WithDates(\"rumour\") error = %v, want one naming the allowed values", err)
	}
}
