package emulator

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"
)

// auditLogMembers are the properties of the API description's aaa_audit-logs.
var auditLogMembers = []string{"action", "actor", "id", "interface", "metadata", "newValue", "oldValue", "owner", "resource", "when"}

func TestAuditLogRecordsWrites(t *testing.T) {
	h := newHarness(t, Options{})
	before := h.clock.Now()
	h.clock.Advance(time.Minute)
	h.mustOK("PATCH", "/zones/"+proZone+"/settings/minify", map[string]any{"value": map[string]string{"css": "on", "html": "off", "js": "off"}})
	h.clock.Advance(time.Minute)
	mid := h.clock.Now()
	h.clock.Advance(time.Minute)
	h.mustOK("PATCH", "/zones/"+freeZone+"/settings/cname_flattening", map[string]any{"value": "flatten_at_root"})
	h.mustOK("GET", "/zones/"+freeZone+"/settings/cname_flattening", nil) // reads are not recorded
	h.do("PATCH", "/zones/"+freeZone+"/settings/not_a_setting", map[string]any{"value": "on"})

	base := "/accounts/" + accountID + "/audit_logs"
	var raw []map[string]json.RawMessage
	h.mustOK("GET", base+"?since="+before.Format(time.RFC3339), nil).into(t, &raw)
	if len(raw) != 2 {
		t.Fatalf("%d entries, want the 2 writes that succeeded", len(raw))
	}
	for _, e := range raw {
		for k := range e {
			if !slices.Contains(auditLogMembers, k) {
				t.Errorf("member %q is not in aaa_audit-logs", k)
			}
		}
	}
	var logs []AuditLog
	h.mustOK("GET", base+"?since="+before.Format(time.RFC3339), nil).into(t, &logs)
	// direction defaults to desc: newest first.
	if logs[0].Metadata["zone_name"] != "free.example" || logs[1].Metadata["zone_name"] != "pro.example" ||
		logs[1].Action.Type != "change_setting" || logs[1].Owner.ID != accountID || logs[1].Interface != "API" {
		t.Errorf("entries: %+v", logs)
	}
	h.mustOK("GET", base+"?direction=asc&since="+mid.Format(time.RFC3339), nil).into(t, &logs)
	if len(logs) != 1 || logs[0].Metadata["zone_name"] != "free.example" {
		t.Errorf("since %s: %+v", mid, logs)
	}
	h.mustOK("GET", base+"?before="+mid.Format(time.RFC3339), nil).into(t, &logs)
	if len(logs) != 1 || logs[0].Metadata["zone_name"] != "pro.example" {
		t.Errorf("before %s: %+v", mid, logs)
	}
	var ids []string
	for page := 1; page <= 3; page++ {
		var p []AuditLog
		r := h.mustOK("GET", base+"?direction=asc&per_page=1&page="+string(rune('0'+page)), nil)
		if r.env.ResultInfo != nil {
			t.Error("the description's collection carries no result_info")
		}
		r.into(t, &p)
		for _, l := range p {
			ids = append(ids, l.ID)
		}
	}
	if len(ids) != 2 || ids[0] == ids[1] {
		t.Errorf("paged ids %v", ids)
	}
	for _, bad := range []string{"?since=yesterday", "?direction=up", "?per_page=1001", "?page=0"} {
		if r := h.do("GET", base+bad, nil); r.status != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400", bad, r.status)
		}
	}
}

func TestAuditLogForbidden(t *testing.T) {
	h := newHarness(t, Options{AuditLogs: AuditLogForbidden})
	if r := h.do("GET", "/accounts/"+accountID+"/audit_logs", nil); r.status != http.StatusForbidden || r.code() != CodeAuth {
		t.Errorf("status %d code %d, want 403 %d", r.status, r.code(), CodeAuth)
	}
}
