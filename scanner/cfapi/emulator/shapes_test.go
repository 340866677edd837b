package emulator

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/inventory"
)

// zoneMembers are the members the API's description requires of a zone.
var zoneMembers = []string{"id", "name", "development_mode", "owner", "account", "meta", "name_servers", "original_name_servers",
	"original_registrar", "original_dnshost", "created_on", "modified_on", "activated_on"}

// TestZonesCarryTheRequiredMembers: every zone answers with the members the description
// requires, the same ones for the same options, and a member the seed holds is kept.
func TestZonesCarryTheRequiredMembers(t *testing.T) {
	seedWith := testSeed()
	seedWith.Zones[1].Zone.Extra = inventory.Extra{"created_on": json.RawMessage(`"2019-04-17T21:48:02.958654Z"`)}
	h := newHarness(t, Options{Seed: seedWith, Rand: 7})
	var zones []map[string]any
	h.mustOK("GET", "/zones", nil).into(t, &zones)
	for _, z := range zones {
		for _, k := range zoneMembers {
			if _, has := z[k]; !has {
				t.Errorf("zone %s lacks %s", z["name"], k)
			}
		}
		created, _ := time.Parse(stampLayout, z["created_on"].(string))
		if z["id"] != proZone && (created.After(day("2025-01-01")) || z["activated_on"] == nil) {
			t.Errorf("zone %s: created %v, activated %v", z["name"], z["created_on"], z["activated_on"])
		}
	}
	var single map[string]any
	h.mustOK("GET", "/zones/"+proZone, nil).into(t, &single)
	if single["created_on"] != "2019-04-17T21:48:02.958654Z" {
		t.Errorf("the seed's created_on was not kept: %v", single["created_on"])
	}
	again := newHarness(t, Options{Seed: seedWith, Rand: 7})
	var zones2 []map[string]any
	again.mustOK("GET", "/zones", nil).into(t, &zones2)
	if !sameJSON(t, zones, zones2) {
		t.Error("two emulators with the same options answer different zones")
	}
	other := newHarness(t, Options{Seed: seedWith, Rand: 8})
	var zones3 []map[string]any
	other.mustOK("GET", "/zones", nil).into(t, &zones3)
	if sameJSON(t, zones[0]["created_on"], zones3[0]["created_on"]) {
		t.Error("the synthesized creation time does not follow Options.Rand")
	}
}

// TestRecordsCarryTheRequiredMembers: proxiable follows the type, timestamps and meta are
// there for seeded records, and a PATCH keeps created_on.
func TestRecordsCarryTheRequiredMembers(t *testing.T) {
	h := newHarness(t, Options{})
	path := "/zones/" + freeZone + "/dns_records/" + id(0xd1)
	var rec map[string]any
	h.mustOK("GET", path, nil).into(t, &rec)
	if rec["proxiable"] != true || rec["created_on"] == nil || rec["modified_on"] == nil || rec["meta"] == nil {
		t.Errorf("seeded A record: %v", rec)
	}
	var srv map[string]any
	h.mustOK("GET", "/zones/"+freeZone+"/dns_records/"+srvRecord, nil).into(t, &srv)
	if srv["proxiable"] != false {
		t.Errorf("an SRV record is not proxiable: %v", srv["proxiable"])
	}
	h.clock.Advance(time.Hour)
	var patched map[string]any
	h.mustOK("PATCH", path, map[string]any{"type": "TXT", "name": "www", "content": "hello", "proxied": false}).into(t, &patched)
	if patched["proxiable"] != false || patched["created_on"] != rec["created_on"] || patched["modified_on"] == rec["modified_on"] {
		t.Errorf("after PATCH to TXT: proxiable %v, created_on %v (was %v), modified_on %v (was %v)",
			patched["proxiable"], patched["created_on"], rec["created_on"], patched["modified_on"], rec["modified_on"])
	}
}

// TestWAFShapes: packages carry a description; a traditional rule's default_mode is within
// its enum and a changed rule stays changed; anomaly rules carry none.
func TestWAFShapes(t *testing.T) {
	seedWAF := testSeed()
	seedWAF.Zones[2].WAFPackages = append(seedWAF.Zones[2].WAFPackages, inventory.WAFPackageInventory{
		Package: inventory.WAFPackage{ID: id(0x81), Name: "CloudFlare", DetectionMode: "traditional"},
		Rules: []inventory.WAFRule{
			{ID: id(0x82), Mode: "default", DefaultMode: "default", AllowedModes: []string{"default", "disable", "simulate", "block", "challenge"}},
			{ID: id(0x83), Mode: "block", DefaultMode: "default", AllowedModes: []string{"default", "disable", "simulate", "block", "challenge"}},
			{ID: id(0x84), Mode: "simulate", DefaultMode: "challenge", AllowedModes: []string{"default", "disable", "simulate", "block", "challenge"}},
		},
	})
	h := newHarness(t, Options{Seed: seedWAF})
	var pkg map[string]any
	h.mustOK("GET", "/zones/"+bizZone+"/firewall/waf/packages/"+id(0x81), nil).into(t, &pkg)
	if d, has := pkg["description"]; !has || d != "" {
		t.Errorf("a package without a description in the seed answers description \"\": %v", pkg)
	}
	rules := map[string]map[string]any{}
	for _, p := range []string{id(0x71), id(0x81)} {
		var list []map[string]any
		h.mustOK("GET", "/zones/"+bizZone+"/firewall/waf/packages/"+p+"/rules", nil).into(t, &list)
		for _, r := range list {
			rules[r["id"].(string)] = r
		}
	}
	for rid, want := range map[string]any{id(0x73): nil, id(0x82): "block", id(0x83): "challenge", id(0x84): "challenge"} {
		if got := rules[rid]["default_mode"]; got != want {
			t.Errorf("rule %s (mode %v): default_mode %v, want %v", rid, rules[rid]["mode"], got, want)
		}
	}
}
