package emulator

import (
	"net/http"
	"strings"
	"testing"
)

// TestLostAnswerCarriesTheWriteOut: with lost=1 a write changes the state and its
// connection closes without an answer; reads are answered.
func TestLostAnswerCarriesTheWriteOut(t *testing.T) {
	f, err := ParseFaults("lost=1")
	if err != nil || f.Lost != 1 {
		t.Fatalf("ParseFaults: %+v %v", f, err)
	}
	h := newHarness(t, Options{Faults: f})
	path := "/zones/" + proZone + "/rulesets/phases/http_request_firewall_custom/entrypoint"
	req, err := http.NewRequest("PUT", h.ts.URL+BasePath+path, strings.NewReader(`{"rules":[{"action":"block","expression":"ip.src eq 192.0.2.1"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	if resp, err := h.ts.Client().Do(req); err == nil {
		_ = resp.Body.Close()
		t.Fatalf("the write was answered %d; its answer should be lost", resp.StatusCode)
	}
	var rs struct {
		Rules []struct{ Expression string } `json:"rules"`
	}
	h.mustOK("GET", path, nil).into(t, &rs)
	if len(rs.Rules) != 1 || rs.Rules[0].Expression != "ip.src eq 192.0.2.1" {
		t.Fatalf("the write whose answer was lost did not happen: %+v", rs)
	}
	if st := h.srv.Stats(); st.Dropped != 1 || st.FaultsInjected != 1 {
		t.Fatalf("stats: dropped %d, faults %d; want 1 and 1", st.Dropped, st.FaultsInjected)
	}
}
