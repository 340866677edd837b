package cfapi

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// TestListAuditLogsPagesWithoutResultInfo pages a log of 2,500 entries answered without
// result_info (as the description's collection has none): three pages of up to 1,000,
// since and direction=asc on each, and the zone named by metadata or resource.
func TestListAuditLogsPagesWithoutResultInfo(t *testing.T) {
	since := time.Date(2026, 11, 24, 22, 0, 0, 0, time.UTC)
	requests := 0
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		requests++
		q := r.URL.Query()
		if r.URL.Path != "/accounts/acc/audit_logs" || q.Get("since") != "2026-11-24T22:00:00Z" || q.Get("direction") != "asc" || q.Get("per_page") != "1000" {
			t.Errorf("request %s", r.URL)
		}
		page, _ := strconv.Atoi(q.Get("page"))
		var out []map[string]any
		for i := (page - 1) * 1000; i < min(page*1000, 2500); i++ {
			out = append(out, map[string]any{"id": fmt.Sprint(i), "metadata": map[string]any{"zone_name": fmt.Sprintf("z%d.example", i)},
				"resource": map[string]any{"type": "zone", "id": fmt.Sprintf("zid%d", i)}})
		}
		okEnvelope(w, out, nil)
	})
	c, _ := testClient(t, srv.URL)
	logs, err := c.ListAuditLogs(context.Background(), "acc", since)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 2500 || requests != 3 {
		t.Fatalf("%d entries in %d requests, want 2500 in 3", len(logs), requests)
	}
	if logs[7].ZoneName() != "z7.example" || logs[7].ZoneID() != "zid7" {
		t.Errorf("entry 7 names zone %q (%q)", logs[7].ZoneName(), logs[7].ZoneID())
	}
}

func TestListAuditLogsRefusesARepeatedPage(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		out := make([]map[string]any, 1000)
		for i := range out {
			out[i] = map[string]any{"id": fmt.Sprint(i)}
		}
		okEnvelope(w, out, nil)
	})
	c, _ := testClient(t, srv.URL)
	if _, err := c.ListAuditLogs(context.Background(), "acc", time.Now()); err == nil {
		t.Fatal("a server repeating its page was followed")
	}
}
