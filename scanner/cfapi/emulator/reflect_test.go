package emulator

import (
	"testing"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

func (h *harness) zoneDNS(zoneID string) inventory.DNSSettings {
	h.t.Helper()
	var d inventory.DNSSettings
	h.mustOK("GET", "/zones/"+zoneID+"/dns_settings", nil).into(h.t, &d)
	return d
}

func (h *harness) setting(zoneID, path string) inventory.Setting {
	h.t.Helper()
	var s inventory.Setting
	h.mustOK("GET", "/zones/"+zoneID+path, nil).into(h.t, &s)
	return s
}

// TestReflectCNAMEFlattening: cname_flattening <-> dns_settings.flatten_all_cnames, through the
// single and the bulk settings endpoints, with the notice's off/apex/on vocabulary accepted.
func TestReflectCNAMEFlattening(t *testing.T) {
	h := newHarness(t, Options{})
	// The seed holds flatten_all in the old setting only: the new field follows it.
	if d := h.zoneDNS(freeZone); !*d.FlattenAllCNAMEs {
		t.Fatalf("seeded flatten_all not reflected: %+v", d)
	}
	tests := []struct {
		value      string
		flattenAll bool
		wire       string
	}{
		{"off", false, "flatten_at_root"},
		{"on", true, "flatten_all"},
		{"apex", false, "flatten_at_root"},
		{"flatten_all", true, "flatten_all"},
		{"flatten_at_root", false, "flatten_at_root"},
	}
	for _, tc := range tests {
		h.mustOK("PATCH", "/zones/"+freeZone+"/settings/cname_flattening", map[string]any{"value": tc.value})
		if d := h.zoneDNS(freeZone); *d.FlattenAllCNAMEs != tc.flattenAll {
			t.Errorf("old %q -> flatten_all_cnames %v, want %v", tc.value, *d.FlattenAllCNAMEs, tc.flattenAll)
		}
		if s := h.setting(freeZone, "/settings/cname_flattening"); s.StringValue() != tc.wire {
			t.Errorf("old %q reads back as %q, want %q", tc.value, s.StringValue(), tc.wire)
		}
	}
	// New -> old.
	h.mustOK("PATCH", "/zones/"+freeZone+"/dns_settings", map[string]any{"flatten_all_cnames": true})
	if s := h.setting(freeZone, "/settings/cname_flattening"); s.StringValue() != "flatten_all" || s.ModifiedOn == "" {
		t.Errorf("new true -> old %+v", s)
	}
	// The bulk list carries the entry, and the bulk PATCH writes through.
	var all []inventory.Setting
	h.mustOK("GET", "/zones/"+freeZone+"/settings", nil).into(t, &all)
	found := false
	for _, s := range all {
		if s.ID == "cname_flattening" {
			found = s.StringValue() == "flatten_all"
		}
	}
	if !found {
		t.Errorf("bulk settings lack cname_flattening=flatten_all: %+v", all)
	}
	h.mustOK("PATCH", "/zones/"+freeZone+"/settings", map[string]any{"items": []map[string]any{{"id": "cname_flattening", "value": "apex"}, {"id": "brotli", "value": "off"}}})
	if d := h.zoneDNS(freeZone); *d.FlattenAllCNAMEs {
		t.Errorf("bulk PATCH apex did not reach flatten_all_cnames")
	}
	if r := h.do("PATCH", "/zones/"+freeZone+"/settings/cname_flattening", map[string]any{"value": "sometimes"}); r.code() != CodeInvalidSettingValue {
		t.Errorf("bad value: %+v", r.env.Errors)
	}
	// A bulk PATCH with one bad item changes nothing.
	if r := h.do("PATCH", "/zones/"+freeZone+"/settings", map[string]any{"items": []map[string]any{{"id": "cname_flattening", "value": "on"}, {"id": "brotli", "value": "maybe"}}}); r.status != 400 {
		t.Errorf("bulk PATCH with a bad item: %d", r.status)
	}
	if d := h.zoneDNS(freeZone); *d.FlattenAllCNAMEs {
		t.Errorf("a failed bulk PATCH changed flatten_all_cnames")
	}
}

// TestReflectLegacyDNSSettings: use_apex_ns <-> multi_provider and the secondary_overrides
// endpoint <-> field, both ways.
func TestReflectLegacyDNSSettings(t *testing.T) {
	tests := []struct {
		endpoint, field string
		get             func(inventory.DNSSettings) bool
	}{
		{"use_apex_ns", "multi_provider", func(d inventory.DNSSettings) bool { return *d.MultiProvider }},
		{"secondary_overrides", "secondary_overrides", func(d inventory.DNSSettings) bool { return *d.SecondaryOverrides }},
	}
	for _, tc := range tests {
		t.Run(tc.endpoint, func(t *testing.T) {
			h := newHarness(t, Options{})
			for _, v := range []bool{true, false, true} {
				h.mustOK("PATCH", "/zones/"+proZone+"/dns_settings/"+tc.endpoint, map[string]any{"value": v})
				if got := tc.get(h.zoneDNS(proZone)); got != v {
					t.Errorf("old %v -> %s %v", v, tc.field, got)
				}
			}
			h.mustOK("PATCH", "/zones/"+proZone+"/dns_settings", map[string]any{tc.field: false})
			s := h.setting(proZone, "/dns_settings/"+tc.endpoint)
			if b, _ := settingBool(s.Value); b || s.ID != tc.endpoint {
				t.Errorf("new false -> old %+v", s)
			}
		})
	}
	h := newHarness(t, Options{})
	if d := h.zoneDNS(freeZone); !*d.MultiProvider {
		t.Errorf("seeded use_apex_ns=true not reflected in multi_provider")
	}
}

// TestReflectAccountNameservers: account settings.default_nameservers and
// use_account_custom_ns_by_default <-> dns_settings zone_defaults.nameservers.type.
func TestReflectAccountNameservers(t *testing.T) {
	h := newHarness(t, Options{})
	acct := func() inventory.Account {
		var a inventory.Account
		h.mustOK("GET", "/accounts/"+accountID, nil).into(t, &a)
		return a
	}
	nsType := func() string {
		var d inventory.AccountDNSSettings
		h.mustOK("GET", "/accounts/"+accountID+"/dns_settings", nil).into(t, &d)
		return d.ZoneDefaults.Nameservers.Type
	}
	if got := nsType(); got != "custom.tenant" {
		t.Errorf("seeded default_nameservers custom.tenant -> type %q", got)
	}
	put := func(settings map[string]any) {
		h.mustOK("PUT", "/accounts/"+accountID, map[string]any{"name": "Acme", "settings": settings})
	}
	tests := []struct {
		name        string
		old         map[string]any
		new         string // nameservers.type to PATCH instead, when old is nil
		wantType    string
		wantDefault string
		wantCustom  bool
	}{
		{name: "old flag true means custom.account", old: map[string]any{"use_account_custom_ns_by_default": true}, wantType: "custom.account", wantDefault: "custom.account", wantCustom: true},
		{name: "old flag false goes back to standard", old: map[string]any{"use_account_custom_ns_by_default": false}, wantType: "cloudflare.standard", wantDefault: "cloudflare.standard"},
		{name: "old default carries over", old: map[string]any{"default_nameservers": "custom.tenant"}, wantType: "custom.tenant", wantDefault: "custom.tenant"},
		{name: "flag wins over default sent with it", old: map[string]any{"default_nameservers": "custom.tenant", "use_account_custom_ns_by_default": true}, wantType: "custom.account", wantDefault: "custom.account", wantCustom: true},
		// The spec's spelling is accepted on input and answered as the wire value.
		{name: "new platform spelling", new: "platform.standard", wantType: "cloudflare.standard", wantDefault: "cloudflare.standard"},
		{name: "new platform random spelling", new: "platform.standard.random", wantType: "cloudflare.standard.random", wantDefault: "cloudflare.standard"},
		{name: "new random type", new: "cloudflare.standard.random", wantType: "cloudflare.standard.random", wantDefault: "cloudflare.standard"},
		{name: "round trip of the derived old value keeps random", old: map[string]any{"default_nameservers": "cloudflare.standard", "use_account_custom_ns_by_default": false}, wantType: "cloudflare.standard.random", wantDefault: "cloudflare.standard"},
		{name: "new custom.account sets the old flag", new: "custom.account", wantType: "custom.account", wantDefault: "custom.account", wantCustom: true},
	}
	for _, tc := range tests {
		if tc.old != nil {
			put(tc.old)
		} else {
			h.mustOK("PATCH", "/accounts/"+accountID+"/dns_settings", map[string]any{"zone_defaults": map[string]any{"nameservers": map[string]any{"type": tc.new}}})
		}
		a := acct()
		if got := nsType(); got != tc.wantType {
			t.Errorf("%s: type %q, want %q", tc.name, got, tc.wantType)
		}
		if a.Settings.DefaultNameservers != tc.wantDefault || *a.Settings.UseAccountCustomNSByDefault != tc.wantCustom {
			t.Errorf("%s: old fields %q/%v, want %q/%v", tc.name, a.Settings.DefaultNameservers, *a.Settings.UseAccountCustomNSByDefault, tc.wantDefault, tc.wantCustom)
		}
	}
	if r := h.do("PATCH", "/accounts/"+accountID+"/dns_settings", map[string]any{"zone_defaults": map[string]any{"nameservers": map[string]any{"type": "custom.nonsense"}}}); r.code() != CodeInvalidSettingValue {
		t.Errorf("bad type: %+v", r.env.Errors)
	}
	if r := h.do("PUT", "/accounts/"+accountID, map[string]any{"name": "Acme", "settings": map[string]any{"default_nameservers": "nope"}}); r.code() != CodeInvalidSettingValue {
		t.Errorf("bad default_nameservers: %+v", r.env.Errors)
	}
	// A new account starts with the standard nameservers.
	var created inventory.Account
	h.mustOK("POST", "/accounts", map[string]any{"name": "New"}).into(t, &created)
	if len(created.ID) != 32 || created.Settings.DefaultNameservers != "cloudflare.standard" {
		t.Errorf("created account %+v", created)
	}
}
