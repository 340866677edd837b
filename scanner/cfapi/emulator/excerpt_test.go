package emulator

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
	"github.com/sunsetscan/sunset/scanner/cfapi/openapi"
	"github.com/sunsetscan/sunset/scanner/cfapi/openapi/openapitest"
)

// excerptDoc returns the excerpt of the API's description that covers the deprecated
// endpoints, or skips.
func excerptDoc(t *testing.T) *openapi.Doc {
	t.Helper()
	return openapitest.Require(t, openapitest.ExcerptFile)
}

// expand turns a path template into the concrete paths of the demo account: each templated
// segment takes the ids of the collection before it ("/zones" gives the zone ids, and so on).
func expand(t *testing.T, h *harness, template string) []string {
	t.Helper()
	paths := []string{""}
	for _, seg := range strings.Split(strings.Trim(template, "/"), "/") {
		var next []string
		for _, p := range paths {
			if !strings.HasPrefix(seg, "{") {
				next = append(next, p+"/"+seg)
				continue
			}
			for _, id := range h.ids(p) {
				next = append(next, p+"/"+id)
			}
		}
		paths = next
	}
	return paths
}

// ids lists the ids of the items of a collection path, sorted.
func (h *harness) ids(collection string) []string {
	h.t.Helper()
	status, body := h.raw("GET", collection+"?per_page=50", nil)
	if status != http.StatusOK {
		h.t.Fatalf("GET %s: %d %s", collection, status, body)
	}
	var env struct {
		Result []struct {
			ID string `json:"id"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		h.t.Fatalf("GET %s: %v", collection, err)
	}
	var out []string
	for _, r := range env.Result {
		out = append(out, r.ID)
	}
	sort.Strings(out)
	return out
}

// TestDemoAnswersFitTheExcerpt calls every GET operation of the excerpt that the emulator
// serves, on every object of the demo account, and validates each answer against its
// response schema. Violations are allowed only where a stale point (stale_test.go) shows,
// with a recording, that the real API answers the same way.
func TestDemoAnswersFitTheExcerpt(t *testing.T) {
	doc := excerptDoc(t)
	checkEvidence(t, doc)
	h := newHarness(t, Options{Seed: seed.Demo(), AsOf: time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)})
	ops, requests, stale, bad := 0, 0, map[string]int{}, map[string]int{}
	general := regexp.MustCompile(`/\d+(/|:)`)
	for _, op := range doc.Operations() {
		if op.Method != "GET" {
			continue
		}
		if h.srv.routeFor(op.Path) == nil {
			t.Logf("not served: %s", op)
			continue
		}
		ops++
		for _, path := range expand(t, h, op.Path) {
			requests++
			status, body := h.raw("GET", path, nil)
			if status != http.StatusOK {
				t.Errorf("GET %s: status %d: %s", path, status, body)
			}
			if strings.Contains(string(body), `"platform.`) {
				t.Errorf("GET %s: the spec's platform.* nameserver spelling is served; the API serves cloudflare.*", path)
			}
			explained, others, err := staleViolations(doc.ValidateResponse("GET", path, status, body), status)
			if err != nil {
				t.Fatalf("GET %s: %v", path, err)
			}
			for _, e := range explained {
				stale[op.String()+": "+general.ReplaceAllString(e, "/N$1")]++
			}
			for _, v := range others {
				bad[op.String()+": "+general.ReplaceAllString(v.String(), "/N$1")]++
			}
		}
	}
	for _, k := range sortedKeys(stale) {
		t.Logf("stale point followed: %s (%d times)", k, stale[k])
	}
	for _, k := range sortedKeys(bad) {
		t.Errorf("does not fit the excerpt: %s (%d times)", k, bad[k])
	}
	t.Logf("validated %d answers of %d GET operations of the excerpt", requests, ops)
	if ops == 0 || requests < ops {
		t.Errorf("validated %d answers of %d operations: every served operation needs at least one", requests, ops)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// routeFor finds the emulator's route of a description path template ("{zone_id}" and
// ":zone_id" segments match any segment).
func (s *Server) routeFor(template string) *route {
	segs := splitPath(template)
	for _, rt := range s.routes {
		if rt.method != "GET" || len(rt.segs) != len(segs) {
			continue
		}
		same := true
		for i, seg := range segs {
			param := strings.HasPrefix(seg, "{")
			same = same && (param == strings.HasPrefix(rt.segs[i], ":")) && (param || seg == rt.segs[i])
		}
		if same {
			return rt
		}
	}
	return nil
}

// recordingRoute says where a recorded response was served: from its SOURCES entry, or for
// fixtures whose source names no request, from the kind of call the file name says.
func recordingRoute(file, source string) (method, path string, status int) {
	status = http.StatusOK
	if strings.Contains(file, "error_400") {
		status = http.StatusBadRequest
	}
	re := regexp.MustCompile(`(GET|POST|PUT|PATCH|DELETE) (?:https://api\.cloudflare\.com/client/v4)?(/[^ )?,]+)`)
	if m := re.FindStringSubmatch(source); m != nil {
		return m[1], m[2], status
	}
	parts := strings.SplitN(file, ".", 3)
	byName := map[string][2]string{
		"zones.list":                     {"GET", "/zones"},
		"accounts.list":                  {"GET", "/accounts"},
		"dns_records.list":               {"GET", "/zones/z1/dns_records"},
		"dns_records.get":                {"GET", "/zones/z1/dns_records/r1"},
		"firewall_rules.list":            {"GET", "/zones/z1/firewall/rules"},
		"firewall_rules.create_multiple": {"POST", "/zones/z1/firewall/rules"},
		"firewall_rules.update":          {"PUT", "/zones/z1/firewall/rules/x1"},
		"zone_settings.get_single":       {"GET", "/zones/z1/settings/ssl"},
		"zone_settings.list":             {"GET", "/zones/z1/settings"},
		"dns_settings.zone":              {"GET", "/zones/z1/dns_settings"},
	}
	if r, found := byName[parts[0]+"."+parts[1]]; found {
		return r[0], r[1], status
	}
	return "", "", 0
}

// TestRecordingsAgainstTheExcerpt validates every recorded response of the corpus against
// its operation's schema in the excerpt and reports where they disagree; it fails when a
// recording cannot be placed or read.
func TestRecordingsAgainstTheExcerpt(t *testing.T) {
	doc := excerptDoc(t)
	dir := filepath.Join(os.Getenv("SUNSET_CORPUS"), "api")
	raw, err := os.ReadFile(filepath.Join(dir, "SOURCES.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sources []struct{ File, Source string }
	if err := json.Unmarshal(raw, &sources); err != nil {
		t.Fatal(err)
	}
	validated, agree, outside := 0, 0, 0
	for _, s := range sources {
		if !strings.HasSuffix(s.File, ".json") || strings.HasSuffix(s.File, ".request.json") {
			continue
		}
		method, path, status := recordingRoute(s.File, s.Source)
		if method == "" {
			t.Errorf("%s: no method and path for this recording", s.File)
			continue
		}
		body, err := os.ReadFile(filepath.Join(dir, s.File))
		if err != nil {
			t.Fatal(err)
		}
		err = doc.ValidateResponse(method, path, status, body)
		var ve *openapi.ValidationError
		switch {
		case errors.Is(err, openapi.ErrNoOperation):
			outside++
			t.Logf("%s: %s %s is not in the excerpt", s.File, method, path)
			continue
		case err == nil:
			agree++
		case errors.As(err, &ve):
			t.Logf("%s disagrees with the excerpt (%s):%s", s.File, ve.Operation, condense(ve.Violations))
		default:
			t.Errorf("%s: %v", s.File, err)
		}
		validated++
	}
	t.Logf("recordings: %d validated against the excerpt (%d fit it, %d disagree), %d of operations outside it", validated, agree, validated-agree, outside)
	if validated == 0 {
		t.Error("no recording was validated")
	}
}

// condense renders violations one a line, array indexes folded into N with a count.
func condense(vs []openapi.Violation) string {
	general := regexp.MustCompile(`/\d+(/|:)`)
	counts := map[string]int{}
	for _, v := range vs {
		counts[general.ReplaceAllString(v.String(), "/N$1")]++
	}
	var b strings.Builder
	for _, k := range sortedKeys(counts) {
		b.WriteString("\n\t" + k)
		if counts[k] > 1 {
			b.WriteString(" (" + strconv.Itoa(counts[k]) + " times)")
		}
	}
	return b.String()
}
