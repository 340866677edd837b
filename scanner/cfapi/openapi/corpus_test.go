package openapi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The real-world corpus (shared/realworld) is read at test time from $SUNSET_CORPUS and never
// copied into the project.
func corpusDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SUNSET_CORPUS")
	if dir == "" {
		t.Skip("SUNSET_CORPUS is not set: the OpenAPI description and the recordings (shared/realworld) are read at test time only")
	}
	return dir
}

func loadCorpusDoc(t *testing.T, name string, patched bool) *Doc {
	t.Helper()
	d, err := load(filepath.Join(corpusDir(t), name), patched)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// recordedRequest is a request body the corpus recorded, with where it was sent.
type recordedRequest struct {
	file, method, path string
	body               []byte
}

// recordedRequests reads every *.request.json of the corpus with the method and path its
// SOURCES entry names.
func recordedRequests(t *testing.T) []recordedRequest {
	t.Helper()
	dir := filepath.Join(corpusDir(t), "api")
	raw, err := os.ReadFile(filepath.Join(dir, "SOURCES.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sources []struct{ File, Source string }
	if err := json.Unmarshal(raw, &sources); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`REQUEST body sent by the client for (GET|POST|PUT|PATCH|DELETE) (/[^ )?]+)`)
	var out []recordedRequest
	for _, s := range sources {
		if !strings.HasSuffix(s.File, ".request.json") {
			continue
		}
		m := re.FindStringSubmatch(s.Source)
		if m == nil {
			t.Fatalf("%s: SOURCES names no method and path: %s", s.File, s.Source)
		}
		body, err := os.ReadFile(filepath.Join(dir, s.File))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, recordedRequest{file: s.File, method: m[1], path: m[2], body: body})
	}
	if len(out) == 0 {
		t.Fatal("the corpus holds no recorded request bodies")
	}
	return out
}

// TestCorpusRecordedRequests checks every request body the corpus recorded against the plan
// operations' description: the API accepted all of them but one, and the description agrees.
func TestCorpusRecordedRequests(t *testing.T) {
	d := loadCorpusDoc(t, "openapi_plan_ops.json", true)
	for _, r := range recordedRequests(t) {
		err := d.ValidateRequest(r.method, r.path, r.body)
		if r.file == "rate_limits.create.error_400.cloudflare-go.request.json" {
			// The API answered 400 "threshold is too low ... sample_rate is too low": the
			// description refuses the same two members.
			got := strings.Join(violationsOf(t, err), ",")
			if !strings.Contains(got, "/threshold minimum") || !strings.Contains(got, "/period minimum") {
				t.Errorf("%s: the API refused this body; want threshold and period refused, got %q", r.file, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s (%s %s): the API accepted this body, the description refuses it: %v", r.file, r.method, r.path, err)
		}
	}
}

// TestCorpusPatches shows each stale point of the 2024-08-06 snapshot: the unpatched
// description decides one way, the current API (domain-facts, recordings) the other.
func TestCorpusPatches(t *testing.T) {
	raw := loadCorpusDoc(t, "openapi_plan_ops.json", false)
	d := loadCorpusDoc(t, "openapi_plan_ops.json", true)
	if len(raw.Patches()) != 0 || len(d.Patches()) != len(patches) {
		t.Fatalf("patches listed: unpatched %d, patched %d; want 0 and %d", len(raw.Patches()), len(d.Patches()), len(patches))
	}
	for _, p := range d.Patches() {
		t.Log("stale point patched:", p)
	}
	const entry = "/zones/z1/rulesets/phases/http_request_firewall_custom/entrypoint"
	challenges := `{"rules":[{"action":"managed_challenge","expression":"ip.src eq 192.0.2.1"},{"action":"js_challenge","expression":"ip.src eq 192.0.2.2"}]}`
	if err := raw.ValidateRequest("PUT", entry, []byte(challenges)); err == nil {
		t.Error("the snapshot's rulesets_RuleAction pattern should refuse managed_challenge and js_challenge")
	}
	if err := d.ValidateRequest("PUT", entry, []byte(challenges)); err != nil {
		t.Errorf("patched: managed_challenge and js_challenge refused: %v", err)
	}

	const rlEntry = "/zones/z1/rulesets/phases/http_ratelimit/entrypoint"
	rule := func(rl string) []byte {
		return []byte(`{"rules":[{"action":"block","expression":"http.request.uri.path eq \"/login\"","ratelimit":` + rl + `}]}`)
	}
	good := `{"characteristics":["cf.colo.id","ip.src"],"period":60,"requests_per_period":100,"mitigation_timeout":600,"counting_expression":"","requests_to_origin":true}`
	if err := d.ValidateRequest("PUT", rlEntry, rule(good)); err != nil {
		t.Errorf("a rate limiting rule in the domain-facts shape is refused: %v", err)
	}
	bad := `{"characteristics":["cf.colo.id"],"period":61,"requests_per_period":"100","mitigation_timeout":7}`
	if err := raw.ValidateRequest("PUT", rlEntry, rule(bad)); err != nil {
		t.Errorf("the snapshot has no ratelimit, so it cannot refuse one: %v", err)
	}
	got := strings.Join(violationsOf(t, d.ValidateRequest("PUT", rlEntry, rule(bad))), ",")
	want := "/rules/0/ratelimit/mitigation_timeout enum,/rules/0/ratelimit/period enum,/rules/0/ratelimit/requests_per_period type"
	if got != want {
		t.Errorf("patched ratelimit violations:\n got %s\nwant %s", got, want)
	}

	for _, r := range recordedRequests(t) {
		if !strings.HasPrefix(r.file, "firewall_rules.") && !strings.HasPrefix(r.file, "filters.") {
			continue
		}
		if err := raw.ValidateRequest(r.method, r.path, r.body); err == nil {
			t.Errorf("%s: the unpatched snapshot should refuse this recorded body", r.file)
		}
	}
}

// TestCorpusExcerptPatches: the excerpt of the deprecated endpoints has the firewall, DNS
// record and nameserver stale points but no rulesets schemas, so those patches do not apply.
func TestCorpusExcerptPatches(t *testing.T) {
	d := loadCorpusDoc(t, "openapi_excerpt.json", true)
	got := d.Patches()
	if len(got) != len(patches)-3 {
		t.Errorf("excerpt patches: want %d, got %q", len(patches)-3, got)
	}
	for _, p := range got {
		if strings.Contains(p, "rulesets") {
			t.Errorf("a rulesets patch applied to the excerpt, which has no rulesets: %s", p)
		}
	}
	t.Logf("excerpt: %d operations, plan operations: %d", len(d.Operations()), len(loadCorpusDoc(t, "openapi_plan_ops.json", true).Operations()))
}

// TestCorpusMorePatches shows the stale points found while checking the emulator's writes:
// rule positions, nameserver types, DNS record ids and oneOf alternatives a value can fit
// together.
func TestCorpusMorePatches(t *testing.T) {
	raw := loadCorpusDoc(t, "openapi_plan_ops.json", false)
	d := loadCorpusDoc(t, "openapi_plan_ops.json", true)
	rule := `{"action":"block","expression":"ip.src eq 192.0.2.1","position":%s}`
	for _, pos := range []string{`{"before":""}`, `{"after":"da5e8e506c8e7877fe06cdf4c41add54"}`, `{"index":1}`} {
		body := []byte(strings.Replace(rule, "%s", pos, 1))
		if raw.ValidateRequest("POST", "/zones/z/rulesets/r/rules", body) == nil {
			t.Errorf("position %s: the snapshot should refuse it (it matches every alternative)", pos)
		}
		if err := d.ValidateRequest("POST", "/zones/z/rulesets/r/rules", body); err != nil {
			t.Errorf("position %s refused: %v", pos, err)
		}
	}
	if d.ValidateRequest("POST", "/zones/z/rulesets/r/rules", []byte(strings.Replace(rule, "%s", `{"index":0}`, 1))) == nil {
		t.Error("position index 0 should be refused (minimum 1)")
	}

	for _, typ := range []string{"cloudflare.standard.random", "custom.account", "custom.tenant", "platform.standard"} {
		body := []byte(`{"zone_defaults":{"nameservers":{"type":"` + typ + `"}}}`)
		if raw.ValidateRequest("PATCH", "/accounts/a/dns_settings", body) == nil {
			t.Errorf("%s: the snapshot allows only cloudflare.standard", typ)
		}
		if err := d.ValidateRequest("PATCH", "/accounts/a/dns_settings", body); err != nil {
			t.Errorf("%s refused: %v", typ, err)
		}
	}
	if d.ValidateRequest("PATCH", "/zones/z/dns_settings", []byte(`{"nameservers":{"type":"cloudflare.fancy"}}`)) == nil {
		t.Error("an unknown nameserver type should be refused")
	}

	create := []byte(`{"type":"A","name":"www.example.com","content":"192.0.2.1","ttl":1,"proxied":true}`)
	got := strings.Join(violationsOf(t, raw.ValidateRequest("POST", "/zones/z/dns_records", create)), ",")
	if got != "/id required" {
		t.Errorf("the snapshot should require only the id of a new record (read-only members are not required); got %q", got)
	}
	if err := d.ValidateRequest("POST", "/zones/z/dns_records", create); err != nil {
		t.Errorf("a new record refused: %v", err)
	}
	srv := []byte(`{"type":"SRV","name":"_sip._tcp.example.com","ttl":3600,"data":{"priority":10,"weight":5,"port":5060,"target":"sip.example.com"}}`)
	if err := d.ValidateRequest("PATCH", "/zones/z/dns_records/r", srv); err != nil {
		t.Errorf("an SRV record without content (read-only for SRV) refused: %v", err)
	}
	if d.ValidateRequest("POST", "/zones/z/dns_records", []byte(`{"type":"A","name":"www.example.com"}`)) == nil {
		t.Error("an A record without content should be refused")
	}
	// Responses still require the id.
	resp := []byte(`{"success":true,"errors":[],"messages":[],"result":{"type":"A","name":"www.example.com","content":"192.0.2.1","proxiable":true,"proxied":true,"ttl":1,"created_on":"2024-01-01T00:00:00Z","modified_on":"2024-01-01T00:00:00Z"}}`)
	if got := strings.Join(violationsOf(t, d.ValidateResponse("GET", "/zones/z/dns_records/r", 200, resp)), ","); got != "/result/id required" {
		t.Errorf("a response record without id: got %q", got)
	}
}

// TestCorpusOneOfAsAnyOf: values that fit several alternatives of a oneOf are accepted, as the
// real API's answers and the snapshot's own examples show.
func TestCorpusOneOfAsAnyOf(t *testing.T) {
	raw := loadCorpusDoc(t, "openapi_plan_ops.json", false)
	d := loadCorpusDoc(t, "openapi_plan_ops.json", true)
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/accounts/a/alerting/v3/policies", `{"name":"Pool health","alert_type":"load_balancing_health_alert","enabled":true,"mechanisms":{"email":[{"id":"test@example.com"}]}}`},
		{"PUT", "/zones/z/rulesets/phases/http_request_dynamic_redirect/entrypoint", `{"rules":[{"action":"redirect","expression":"http.host eq \"m.example.com\"","action_parameters":{"from_value":{"status_code":301,"target_url":{"value":"https://example.com"}}}}]}`},
	} {
		if raw.ValidateRequest(c.method, c.path, []byte(c.body)) == nil {
			t.Errorf("%s %s: the snapshot should refuse a value fitting two oneOf alternatives", c.method, c.path)
		}
		if err := d.ValidateRequest(c.method, c.path, []byte(c.body)); err != nil {
			t.Errorf("%s %s: %v", c.method, c.path, err)
		}
	}
	body, err := os.ReadFile(filepath.Join(corpusDir(t), "api", "waf_packages.get.cloudflare-go.json"))
	if err != nil {
		t.Fatal(err)
	}
	const pkg = "/zones/z/firewall/waf/packages/a25a9a7e9c00afc1fb2e0245519d725b"
	if raw.ValidateResponse("GET", pkg, 200, body) == nil {
		t.Error("the recorded WAF package should fit both alternatives of the snapshot's oneOf")
	}
	if err := d.ValidateResponse("GET", pkg, 200, body); err != nil {
		t.Errorf("the recorded WAF package: %v", err)
	}
	// A discriminated anyOf still checks the alternative its tag names.
	bad := `{"rules":[{"action":"redirect","expression":"true","action_parameters":{"from_value":{"status_code":404}}}]}`
	if d.ValidateRequest("PUT", "/zones/z/rulesets/phases/http_request_dynamic_redirect/entrypoint", []byte(bad)) == nil {
		t.Error("a redirect with status 404 should be refused")
	}
}
