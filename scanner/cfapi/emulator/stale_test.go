package emulator

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/cfapi/openapi"
)

// stalePoint is a place where the 2024-08-06 description of the API disagrees with the real
// API's answers: a recorded response (shared/realworld/api) breaks the schema there the same
// way, so the emulator follows the recording, not the description. Every stale point is
// checked against its recording (see checkEvidence): a recording that stops breaking the
// schema there makes the test fail, so the list cannot go stale itself.
type stalePoint struct {
	// ops are the operations ("GET /zones/{zone_identifier}/firewall/rules") the point is
	// about; empty means every operation (a schema shared by all envelopes).
	ops []string
	// class is the status class of the response, "2XX" or "4XX".
	class string
	// pointer matches the JSON pointer of the violation.
	pointer *regexp.Regexp
	// rule is the schema keyword broken.
	rule string
	// why says what the real API does.
	why string
	// recording is the recorded response that breaks the schema the same way, served by
	// method and path with status.
	recording, method, path string
	status                  int
}

func (p stalePoint) covers(op *openapi.Operation, status int, v openapi.Violation) bool {
	if v.Rule != p.rule || !p.pointer.MatchString(v.Pointer) || statusClass(status) != p.class {
		return false
	}
	return len(p.ops) == 0 || slices.Contains(p.ops, op.String())
}

func statusClass(status int) string { return string(rune('0'+status/100)) + "XX" }

// stalePoints are the known disagreements, each with the recording that shows it.
var stalePoints = []stalePoint{
	{
		class: "4XX", pointer: regexp.MustCompile(`^/success$`), rule: "enum",
		why:       "failure envelopes carry success false; the description's 4XX schemas combine the success envelope (success: [true]) with the failure one",
		recording: "rate_limits.create.error_400.cloudflare-go.json", method: "POST", path: "/zones/z1/rate_limits", status: 400,
	},
	{
		class: "4XX", pointer: regexp.MustCompile(`^/result$`), rule: "nullable",
		why:       "failure envelopes carry result null; the description's 4XX schemas combine the success envelope (a non-null result) with the failure one",
		recording: "rate_limits.create.error_400.cloudflare-go.json", method: "POST", path: "/zones/z1/rate_limits", status: 400,
	},
	{
		ops:   []string{"GET /zones/{zone_identifier}/firewall/rules", "GET /zones/{zone_identifier}/firewall/rules/{id}", "POST /zones/{zone_identifier}/firewall/rules", "PUT /zones/{zone_identifier}/firewall/rules/{id}"},
		class: "2XX", pointer: regexp.MustCompile(`^/result(/\d+)?/priority$`), rule: "nullable",
		why:       "a firewall rule without a priority has priority null (domain-facts: integer or null); the description's priority is a non-null number",
		recording: "firewall_rules.list.cloudflare-go.json", method: "GET", path: "/zones/z1/firewall/rules", status: 200,
	},
	{
		ops:   []string{"GET /zones/{zone_id}/settings", "GET /zones/{zone_id}/settings/{setting_id}"},
		class: "2XX", pointer: regexp.MustCompile(`^/result(/\d+)?/id$`), rule: "enum",
		why:       "zones list settings the description's id enum lacks (privacy_pass, visitor_ip, filter_logs_to_cloudflare, log_to_cloudflare)",
		recording: "zone_settings.list.with_cname_flattening.cf-terraforming.json", method: "GET", path: "/zones/z1/settings", status: 200,
	},
}

// staleViolations splits the violations of a response into the ones stale points explain
// and the others.
func staleViolations(err error, status int) (explained []string, others []openapi.Violation, _ error) {
	var ve *openapi.ValidationError
	if err == nil {
		return nil, nil, nil
	}
	if !errors.As(err, &ve) {
		return nil, nil, err
	}
	for _, v := range ve.Violations {
		found := false
		for _, p := range stalePoints {
			if p.covers(ve.Operation, status, v) {
				explained = append(explained, v.String())
				found = true
				break
			}
		}
		if !found {
			others = append(others, v)
		}
	}
	return explained, others, nil
}

// checkEvidence validates every stale point's recording and fails unless the recording breaks
// the description at that point the same way.
func checkEvidence(t *testing.T, doc *openapi.Doc) {
	t.Helper()
	dir := filepath.Join(os.Getenv("SUNSET_CORPUS"), "api")
	for _, p := range stalePoints {
		body, err := os.ReadFile(filepath.Join(dir, p.recording))
		if err != nil {
			t.Errorf("stale point %s %s: its recording: %v", p.pointer, p.rule, err)
			continue
		}
		err = doc.ValidateResponse(p.method, p.path, p.status, body)
		var ve *openapi.ValidationError
		shown := false
		if errors.As(err, &ve) && statusClass(p.status) == p.class && (len(p.ops) == 0 || slices.Contains(p.ops, ve.Operation.String())) {
			for _, v := range ve.Violations {
				shown = shown || (v.Rule == p.rule && p.pointer.MatchString(v.Pointer))
			}
		}
		if !shown {
			t.Errorf("stale point %s %s (%s): recording %s does not break the description there (%v)", p.pointer, p.rule, p.why, p.recording, err)
		}
	}
}

// describe renders violations one a line, for failure messages.
func describe(vs []openapi.Violation) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString("\n\t" + v.String())
	}
	return b.String()
}
