package emulator

import (
	"encoding/json"
	"testing"
)

// recordJSON fetches a DNS record as raw members, so presence of a member is visible.
func recordJSON(t *testing.T, h *harness, recordID string) map[string]json.RawMessage {
	t.Helper()
	res := h.mustOK("GET", "/zones/"+freeZone+"/dns_records/"+recordID, nil)
	var m map[string]json.RawMessage
	res.into(t, &m)
	return m
}

// TestDNSRecordDatedFields covers zone_id/zone_name (removed from 2024-11-30), locked
// (omitted from 2024-07-14) and the SRV data fields (not produced from 2024-05-31), one day
// before and on each date.
func TestDNSRecordDatedFields(t *testing.T) {
	tests := []struct {
		asOf               string
		zoneFields, locked bool
		srvFields          bool
	}{
		{"2024-05-30", true, true, true},
		{"2024-05-31", true, true, false},
		{"2024-07-13", true, true, false},
		{"2024-07-14", true, false, false},
		{"2024-11-29", true, false, false},
		{"2024-11-30", false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.asOf, func(t *testing.T) {
			h := newHarness(t, Options{AsOf: day(tc.asOf)})
			rec := recordJSON(t, h, srvRecord)
			_, hasZoneID := rec["zone_id"]
			_, hasZoneName := rec["zone_name"]
			if hasZoneID != tc.zoneFields || hasZoneName != tc.zoneFields {
				t.Errorf("zone_id present %v, zone_name present %v; want %v", hasZoneID, hasZoneName, tc.zoneFields)
			}
			if tc.zoneFields && string(rec["zone_id"]) != `"`+freeZone+`"` {
				t.Errorf("zone_id = %s", rec["zone_id"])
			}
			locked, hasLocked := rec["locked"]
			if hasLocked != tc.locked || (hasLocked && string(locked) != "false") {
				t.Errorf("locked = %s (present %v), want present %v and false", locked, hasLocked, tc.locked)
			}
			var data map[string]json.RawMessage
			if err := json.Unmarshal(rec["data"], &data); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"service", "proto", "name"} {
				if _, has := data[f]; has != tc.srvFields {
					t.Errorf("data.%s present %v, want %v", f, has, tc.srvFields)
				}
			}
			if _, has := data["port"]; !has {
				t.Errorf("data.port must stay")
			}
			// The same in lists.
			list := h.mustOK("GET", "/zones/"+freeZone+"/dns_records?type=SRV", nil)
			var recs []map[string]json.RawMessage
			list.into(t, &recs)
			if _, has := recs[0]["zone_name"]; len(recs) != 1 || has != tc.zoneFields {
				t.Errorf("list: %d records, zone_name present %v", len(recs), has)
			}
		})
	}
}

// TestSRVDataFieldsOnWrite covers SRV records sent with data.service/proto/name: stored and
// returned before 2024-05-31, refused from it on.
func TestSRVDataFieldsOnWrite(t *testing.T) {
	body := map[string]any{"type": "SRV", "data": map[string]any{"service": "_xmpp", "proto": "_tcp", "name": "free.example",
		"priority": 1, "weight": 2, "port": 5222, "target": "chat.free.example"}}
	t.Run("before end of life", func(t *testing.T) {
		h := newHarness(t, Options{AsOf: day("2024-05-30")})
		res := h.mustOK("POST", "/zones/"+freeZone+"/dns_records", body)
		var m struct {
			Name string         `json:"name"`
			Data map[string]any `json:"data"`
		}
		res.into(t, &m)
		if m.Name != "_xmpp._tcp.free.example" || m.Data["service"] != "_xmpp" {
			t.Errorf("record %+v: the name is built from the data fields, which are returned", m)
		}
	})
	t.Run("from end of life", func(t *testing.T) {
		h := newHarness(t, Options{AsOf: day("2024-05-31")})
		res := h.do("POST", "/zones/"+freeZone+"/dns_records", body)
		// 2024-05-31 is before 2024-10-01, so the root cause is wrapped in error 1004.
		if res.status != 400 || res.code() != CodeDNSValidation || len(res.env.Errors[0].ErrorChain) != 1 ||
			res.env.Errors[0].ErrorChain[0].Code != CodeDNSSRVDeprecatedFields {
			t.Errorf("status %d errors %+v", res.status, res.env.Errors)
		}
		// Writers set the outer name and leave the fields unset.
		ok := map[string]any{"type": "SRV", "name": "_xmpp._tcp", "data": map[string]any{"priority": 1, "weight": 2, "port": 5222, "target": "chat.free.example"}}
		res = h.mustOK("POST", "/zones/"+freeZone+"/dns_records", ok)
		var m struct {
			Name    string `json:"name"`
			Content string `json:"content"`
		}
		res.into(t, &m)
		if m.Name != "_xmpp._tcp.free.example" || m.Content != "2 5222 chat.free.example" {
			t.Errorf("record %+v", m)
		}
		// A PATCH of a seeded record that still stores the fields does not trip over them.
		h.mustOK("PATCH", "/zones/"+freeZone+"/dns_records/"+srvRecord, map[string]any{"ttl": 7200})
		if r := h.do("PATCH", "/zones/"+freeZone+"/dns_records/"+srvRecord, map[string]any{"data": map[string]any{"service": "_sip", "priority": 1, "weight": 1, "port": 1, "target": "x.free.example"}}); r.code() != CodeDNSSRVDeprecatedFields {
			t.Errorf("PATCH with data.service after end of life: %+v", r.env.Errors)
		}
	})
}

// TestDNSErrorChain covers the error representation of invalid record creation: code 1004
// with error_chain before 2024-10-01, the root cause itself from then on.
func TestDNSErrorChain(t *testing.T) {
	bad := map[string]any{"type": "A", "name": "bad", "content": "not-an-ip"}
	for _, tc := range []struct {
		asOf    string
		wrapped bool
	}{{"2024-09-30", true}, {"2024-10-01", false}} {
		t.Run(tc.asOf, func(t *testing.T) {
			h := newHarness(t, Options{AsOf: day(tc.asOf)})
			res := h.do("POST", "/zones/"+freeZone+"/dns_records", bad)
			if res.status != 400 || len(res.env.Errors) != 1 {
				t.Fatalf("status %d errors %+v", res.status, res.env.Errors)
			}
			e := res.env.Errors[0]
			if tc.wrapped {
				if e.Code != CodeDNSValidation || e.Message != "DNS Validation Error" || len(e.ErrorChain) != 1 || e.ErrorChain[0].Code != CodeDNSBadContent {
					t.Errorf("want 1004 with the root cause in error_chain, got %+v", e)
				}
			} else if e.Code != CodeDNSBadContent || e.ErrorChain != nil {
				t.Errorf("want the root cause directly, got %+v", e)
			}
		})
	}
}

// TestDNSRecordValidation covers the root causes the emulator knows.
func TestDNSRecordValidation(t *testing.T) {
	h := newHarness(t, Options{})
	tests := []struct {
		body map[string]any
		code int
	}{
		{map[string]any{"type": "BOGUS", "name": "x", "content": "1"}, CodeDNSBadType},
		{map[string]any{"type": "A", "name": "", "content": "192.0.2.9"}, CodeDNSBadName},
		{map[string]any{"type": "AAAA", "name": "v6", "content": "192.0.2.9"}, CodeDNSBadContent},
		{map[string]any{"type": "A", "name": "t", "content": "192.0.2.9", "ttl": 5}, CodeDNSBadTTL},
		{map[string]any{"type": "TXT", "name": "t", "content": "x", "proxied": true}, CodeDNSNotProxiable},
		{map[string]any{"type": "A", "name": "www", "content": "192.0.2.1"}, CodeDNSDuplicate},
		{map[string]any{"type": "CNAME", "name": "www", "content": "elsewhere.example"}, CodeDNSConflict},
		{map[string]any{"type": "SRV", "name": "_a._tcp", "data": map[string]any{"port": 1}}, CodeDNSBadSRV},
	}
	for _, tc := range tests {
		if r := h.do("POST", "/zones/"+freeZone+"/dns_records", tc.body); r.code() != tc.code {
			t.Errorf("%v: code %d, want %d (%+v)", tc.body, r.code(), tc.code, r.env.Errors)
		}
	}
	res := h.mustOK("POST", "/zones/"+freeZone+"/dns_records", map[string]any{"type": "A", "name": "@", "content": "192.0.2.50", "zone_id": "ignored", "locked": true})
	var m map[string]any
	res.into(t, &m)
	if m["name"] != "free.example" || m["zone_id"] != nil || m["locked"] != nil || m["proxied"] != false {
		t.Errorf("created %+v", m)
	}
	h.mustOK("DELETE", "/zones/"+freeZone+"/dns_records/"+m["id"].(string), nil)
}
