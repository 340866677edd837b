package emulator

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkListZones measures one GET /zones page through ServeHTTP (no network), over a seed
// of 1,000 zones.
func BenchmarkListZones(b *testing.B) {
	srv, err := New(Options{Token: testToken, Seed: manyZones(1000)})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		req := httptest.NewRequest("GET", fmt.Sprintf("%s/zones?per_page=50&page=%d", BasePath, i%20+1), nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d", w.Code)
		}
	}
}

// BenchmarkCombinedCreate measures POST /firewall/rules with an inline filter.
func BenchmarkCombinedCreate(b *testing.B) {
	seed := manyZones(1)
	seed.Zones[0].Zone.Plan.LegacyID = "enterprise"
	srv, err := New(Options{Token: testToken, Seed: seed})
	if err != nil {
		b.Fatal(err)
	}
	zone := seed.Zones[0].Zone.ID
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%900 == 0 {
			// Stay under the enterprise quota of 1,000 rules.
			srv, _ = New(Options{Token: testToken, Seed: seed})
		}
		body := fmt.Sprintf(`[{"filter":{"expression":"ip.src eq 10.%d.%d.%d"},"action":"block"}]`, i>>16&255, i>>8&255, i&255)
		req := httptest.NewRequest("POST", BasePath+"/zones/"+zone+"/firewall/rules", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}
