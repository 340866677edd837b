package cfapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// BenchmarkListDNSRecordsPage decodes one full page of 5000 DNS records through the client
// (envelope, result, records keeping unknown members).
func BenchmarkListDNSRecordsPage(b *testing.B) {
	recs := make([]map[string]any, 5000)
	for i := range recs {
		recs[i] = map[string]any{"id": fmt.Sprintf("%032x", i), "type": "A", "name": fmt.Sprintf("h%d.example.com", i),
			"content": "192.0.2.1", "proxied": true, "ttl": 1, "comment": nil, "tags": []string{}, "meta": map[string]any{"auto_added": false},
			"created_on": "2024-01-01T00:00:00Z", "modified_on": "2024-01-01T00:00:00Z"}
	}
	body, _ := json.Marshal(map[string]any{"result": recs, "success": true, "errors": []any{}, "messages": []any{},
		"result_info": map[string]any{"page": 1, "per_page": 5000, "count": 5000, "total_count": 5000, "total_pages": 1}})
	srv := server(&testing.T{}, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(body) })
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL, Credentials: TokenCredentials(testToken)})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for range b.N {
		got, err := c.ListDNSRecords(context.Background(), "z1", "")
		if err != nil || len(got) != 5000 {
			b.Fatal(len(got), err)
		}
	}
}

// BenchmarkPacerReserve measures one slot reservation of the shared limiter.
func BenchmarkPacerReserve(b *testing.B) {
	now := t0
	p := newPacer(1e9, 1000, func() time.Time { return now }, func(context.Context, time.Duration) error { return nil })
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p.reserve()
		}
	})
}
