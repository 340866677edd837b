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

// TestCorpusExcerptPatches: the excerpt of the deprecated endpoints has the firewall stale
// points but no rulesets schemas, so only those patches apply.
func TestCorpusExcerptPatches(t *testing.T) {
	d := loadCorpusDoc(t, "openapi_excerpt.json", true)
	got := d.Patches()
	if len(got) != 2 || !strings.Contains(got[0], "firewall/rules") || !strings.Contains(got[1], "firewall/rules") {
		t.Errorf("excerpt patches: %q", got)
	}
	t.Logf("excerpt: %d operations, plan operations: %d", len(d.Operations()), len(loadCorpusDoc(t, "openapi_plan_ops.json", true).Operations()))
}
