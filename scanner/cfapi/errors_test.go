package cfapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/vocab"
)

func TestEnvelopeVariants(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		// wantErr false: the call succeeds and returns zone wantID.
		wantErr    bool
		wantID     string
		wantStatus int
		wantCodes  []int
		wantMsg    string // substring of err.Error()
		retired    bool
		auth       bool
	}{
		{name: "errors and messages null", status: 200,
			body:   `{"result":{"id":"z1","name":"a.example"},"success":true,"errors":null,"messages":null}`,
			wantID: "z1"},
		{name: "only result, no success member", status: 200,
			body:   `{"result":{"id":"z1","name":"a.example"}}`,
			wantID: "z1"},
		{name: "messages as strings", status: 200,
			body:   `{"result":{"id":"z1","name":"a.example"},"success":true,"errors":[],"messages":["deprecated endpoint"]}`,
			wantID: "z1"},
		{name: "success true with placeholder errors (reconstructed docs example)", status: 200,
			body:   `{"result":{"id":"z1","name":"a.example"},"success":true,"errors":[{"code":1000,"message":"message","documentation_url":"documentation_url","source":{"pointer":"pointer"}}],"messages":[]}`,
			wantID: "z1"},
		{name: "success false with 200", status: 200,
			body:    `{"result":null,"success":false,"errors":[{"code":7003,"message":"Could not route"}],"messages":[]}`,
			wantErr: true, wantStatus: 200, wantCodes: []int{7003}, wantMsg: "[7003] Could not route"},
		{name: "success false with 200 and no errors", status: 200,
			body:    `{"result":null,"success":false,"errors":null,"messages":null}`,
			wantErr: true, wantStatus: 200, wantMsg: "success is false"},
		{name: "error without code", status: 400,
			body:    `{"result":null,"success":false,"errors":[{"message":"ratelimit.api.validation_error:threshold is too low"}],"messages":null}`,
			wantErr: true, wantStatus: 400, wantMsg: ": ratelimit.api.validation_error:threshold is too low"},
		{name: "code as a string", status: 400,
			body:    `{"result":null,"success":false,"errors":[{"code":"9109","message":"bad"}]}`,
			wantErr: true, wantStatus: 400, wantCodes: []int{9109}, wantMsg: "[9109] bad"},
		{name: "newer error with documentation_url and source", status: 400,
			body:    `{"result":null,"success":false,"errors":[{"code":1001,"message":"invalid","documentation_url":"https://developers.example/x","source":{"pointer":"/name"}}],"messages":[]}`,
			wantErr: true, wantStatus: 400, wantCodes: []int{1001}, wantMsg: "[1001] invalid"},
		{name: "non-JSON 404 body", status: 404, body: "404 page not found\n",
			wantErr: true, wantStatus: 404, wantMsg: `HTTP 404 Not Found: "404 page not found"`, retired: true},
		{name: "HTML 502 body", status: 502, body: "<html><body>Bad gateway</body></html>",
			wantErr: true, wantStatus: 502, wantMsg: "HTTP 502"},
		{name: "200 that is not JSON", status: 200, body: "<html>maintenance</html>",
			wantErr: true, wantStatus: 200, wantMsg: "not a JSON envelope"},
		{name: "JSON that is not an envelope", status: 200, body: `{"hello":"world"}`,
			wantErr: true, wantStatus: 200, wantMsg: "not a JSON envelope"},
		{name: "authentication error 10000 at 400", status: 400,
			body:    `{"success":false,"errors":[{"code":10000,"message":"Authentication error"}],"messages":[],"result":null}`,
			wantErr: true, wantStatus: 400, wantCodes: []int{10000}, auth: true},
		{name: "403", status: 403,
			body:    `{"success":false,"errors":[{"code":9109,"message":"Unauthorized to access requested resource"}],"messages":[],"result":null}`,
			wantErr: true, wantStatus: 403, wantCodes: []int{9109}, auth: true},
		{name: "410 gone", status: 410, body: `{"success":false,"errors":[{"code":1,"message":"gone"}],"result":null}`,
			wantErr: true, wantStatus: 410, wantCodes: []int{1}, retired: true},
		{name: "result of the wrong shape", status: 200, body: `{"result":[1,2],"success":true,"errors":[]}`,
			wantErr: true, wantStatus: 200, wantMsg: "decoding result"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := server(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, tc.status, tc.body) })
			c, _ := testClient(t, srv.URL, func(c *Config) { c.MaxRetries = -1 })
			z, err := c.GetZone(context.Background(), "z1")
			if !tc.wantErr {
				if err != nil {
					t.Fatal(err)
				}
				if z.ID != tc.wantID {
					t.Fatalf("id %q", z.ID)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is not an *Error", err, err)
			}
			if e.Status != tc.wantStatus || e.Method != "GET" || e.Path != "/zones/z1" {
				t.Errorf("status/method/path = %d %s %s", e.Status, e.Method, e.Path)
			}
			if !reflect.DeepEqual(e.Codes(), tc.wantCodes) {
				t.Errorf("codes %v, want %v", e.Codes(), tc.wantCodes)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error %q lacks %q", err, tc.wantMsg)
			}
			if IsRetired(err) != tc.retired || IsAuth(err) != tc.auth {
				t.Errorf("retired %v auth %v, want %v %v", IsRetired(err), IsAuth(err), tc.retired, tc.auth)
			}
		})
	}
}

// TestDNSValidationErrorRepresentations: before 2024-10-01 the cause sits in error_chain of
// a 1004 error, after it stands directly in errors; both surface the same root cause.
func TestDNSValidationErrorRepresentations(t *testing.T) {
	before := `{"result":null,"success":false,"errors":[{"code":1004,"message":"DNS Validation Error","error_chain":[{"code":9005,"message":"Content for A record is invalid. Must be a valid IPv4 address"}]}],"messages":[]}`
	after := `{"result":null,"success":false,"errors":[{"code":9005,"message":"Content for A record is invalid. Must be a valid IPv4 address"}],"messages":[]}`
	want := ErrorDetail{Code: 9005, Message: "Content for A record is invalid. Must be a valid IPv4 address"}
	for _, tc := range []struct {
		name  string
		body  string
		chain bool
		codes []int
	}{
		{"before 2024-10-01 (error_chain)", before, true, []int{1004, 9005}},
		{"after 2024-10-01 (root cause directly)", after, false, []int{9005}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := server(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 400, tc.body) })
			c, _ := testClient(t, srv.URL)
			_, err := c.PatchDNSRecord(context.Background(), "z1", "r1", map[string]any{"content": "x"})
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%v", err)
			}
			root, ok := e.RootCause()
			if !ok || !reflect.DeepEqual(root, want) {
				t.Errorf("root cause %+v, want %+v", root, want)
			}
			if e.UsesErrorChain() != tc.chain {
				t.Errorf("UsesErrorChain %v", e.UsesErrorChain())
			}
			if !reflect.DeepEqual(e.Codes(), tc.codes) || !e.HasCode(9005) {
				t.Errorf("codes %v", e.Codes())
			}
			if !strings.Contains(err.Error(), "[9005] Content for A record is invalid") {
				t.Errorf("message %q lacks the root cause", err)
			}
			if e.Retired() {
				t.Error("a 400 on a live route is not retirement")
			}
		})
	}
}

func TestRetiredRule(t *testing.T) {
	tests := []struct {
		status     int
		deprecated bool
		want       bool
	}{
		{404, false, true}, {410, false, true}, {404, true, true}, {410, true, true},
		{400, true, true}, {405, true, true}, {409, true, true}, {422, true, true},
		{400, false, false}, {405, false, false},
		{401, true, false}, {403, true, false}, {429, true, false},
		{500, true, false}, {503, true, false}, {200, true, false}, {0, true, false},
	}
	for _, tc := range tests {
		e := &Error{Status: tc.status, Deprecated: tc.deprecated}
		if got := e.Retired(); got != tc.want {
			t.Errorf("status %d deprecated %v: Retired %v, want %v", tc.status, tc.deprecated, got, tc.want)
		}
	}
	wrapped := fmt.Errorf("zone z1: %w", &Error{Status: 410})
	if !IsRetired(wrapped) || StatusOf(wrapped) != 410 || IsNotFound(wrapped) {
		t.Error("wrapped *Error not seen by errors.As")
	}
	if IsRetired(io.EOF) || IsAuth(io.EOF) || StatusOf(io.EOF) != 0 {
		t.Error("a non-API error is neither retired nor auth")
	}
}

// TestDeprecatedRoutesMarkRetirement: a 400 from a deprecated route is retirement, the same
// 400 from a live route is a failure.
func TestDeprecatedRoutesMarkRetirement(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 400, `{"success":false,"errors":[{"code":10500,"message":"this API is no longer available"}],"result":null}`)
	})
	c, _ := testClient(t, srv.URL)
	ctx := context.Background()
	calls := map[string]struct {
		call    func() error
		retired bool
	}{
		"firewall rules":          {func() error { _, err := c.ListFirewallRules(ctx, "z"); return err }, true},
		"filters":                 {func() error { _, err := c.ListFilters(ctx, "z"); return err }, true},
		"waf packages":            {func() error { _, err := c.ListWAFPackages(ctx, "z"); return err }, true},
		"rate limits":             {func() error { _, err := c.ListRateLimits(ctx, "z"); return err }, true},
		"cname_flattening":        {func() error { _, err := c.GetZoneSetting(ctx, "z", "cname_flattening"); return err }, true},
		"bulk settings":           {func() error { _, err := c.ListZoneSettings(ctx, "z"); return err }, true},
		"tunnels":                 {func() error { _, err := c.ListTunnels(ctx, "a"); return err }, true},
		"bookmarks":               {func() error { _, err := c.ListAccessBookmarks(ctx, "a"); return err }, true},
		"access apps (live)":      {func() error { _, err := c.ListAccessApps(ctx, "a"); return err }, false},
		"policies (live)":         {func() error { _, err := c.ListNotificationPolicies(ctx, "a"); return err }, false},
		"ssl setting (live)":      {func() error { _, err := c.GetZoneSetting(ctx, "z", "ssl"); return err }, false},
		"dns settings (live)":     {func() error { _, err := c.GetDNSSettings(ctx, "z"); return err }, false},
		"dns records (live)":      {func() error { _, err := c.ListDNSRecords(ctx, "z", ""); return err }, false},
		"zones (live)":            {func() error { _, err := c.ListZones(ctx, ZoneFilter{}); return err }, false},
		"delete filter (depr.)":   {func() error { return c.DeleteFilter(ctx, "z", "f") }, true},
		"patch dns record (live)": {func() error { _, err := c.PatchDNSRecord(ctx, "z", "r", map[string]any{}); return err }, false},
	}
	for name, tc := range calls {
		err := tc.call()
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if IsRetired(err) != tc.retired {
			t.Errorf("%s: IsRetired = %v, want %v (%v)", name, IsRetired(err), tc.retired, err)
		}
	}
}

func TestGetEntrypointRulesetNone(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
	}{
		{"404 plain", 404, "404 page not found"},
		{"404 envelope 10003", 404, `{"success":false,"errors":[{"code":10003,"message":"could not find entrypoint ruleset in the http_request_firewall_custom phase"}],"result":null}`},
		{"10003 at another status", 400, `{"success":false,"errors":[{"code":10003,"message":"no entrypoint"}],"result":null}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := server(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/zones/z1/rulesets/phases/http_request_firewall_custom/entrypoint" {
					t.Errorf("path %s", r.URL.Path)
				}
				writeJSON(w, tc.status, tc.body)
			})
			c, _ := testClient(t, srv.URL)
			rs, err := c.GetEntrypointRuleset(context.Background(), "z1", vocab.PhaseCustomRules)
			if rs != nil || err != nil {
				t.Fatalf("got %v, %v; want nil, nil", rs, err)
			}
		})
	}
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		okEnvelope(w, map[string]any{"id": "rs1", "phase": vocab.PhaseCustomRules, "rules": []any{map[string]any{"id": "r1", "action": "block", "expression": "ssl"}}}, nil)
	})
	c, _ := testClient(t, srv.URL)
	rs, err := c.GetEntrypointRuleset(context.Background(), "z1", vocab.PhaseCustomRules)
	if err != nil || rs == nil || rs.ID != "rs1" || len(rs.Rules) != 1 {
		t.Fatalf("got %+v, %v", rs, err)
	}
	srv500 := server(t, func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 500, "oops") })
	c, _ = testClient(t, srv500.URL, func(c *Config) { c.MaxRetries = -1 })
	if rs, err := c.GetEntrypointRuleset(context.Background(), "z1", vocab.PhaseCustomRules); err == nil || rs != nil {
		t.Fatalf("a 500 must stay an error, got %v, %v", rs, err)
	}
}

func TestErrorDetailDecoding(t *testing.T) {
	var d ErrorDetail
	if err := d.UnmarshalJSON([]byte(`{"code":"x","message":"m"}`)); err == nil {
		t.Error("a non-numeric code must be refused")
	}
	if err := d.UnmarshalJSON([]byte(`{"code":null,"message":"m"}`)); err != nil || d.Code != 0 || d.Message != "m" {
		t.Errorf("null code: %+v %v", d, err)
	}
	if got := (ErrorDetail{Code: 1004, Message: "DNS Validation Error", Chain: []ErrorDetail{{Code: 9005, Message: "bad"}}}).String(); got != "[1004] DNS Validation Error (caused by: [9005] bad)" {
		t.Errorf("String %q", got)
	}
}

// TestErrorBodyRedactedBeforeCut: a token straddling the 200-character cut of a plain text
// error body is redacted whole; cutting first left 29 of its 31 characters in the report
// (issue 12, item 2). Every cut position around the token is tried.
func TestErrorBodyRedactedBeforeCut(t *testing.T) {
	const token = "tok_SECRET_0123456789abcdefghij" // 31 characters
	for at := maxExcerpt - len(token) - 2; at <= maxExcerpt+2; at++ {
		body := strings.Repeat("x", at) + token + strings.Repeat("y", 50)
		srv := server(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, body)
		})
		c, _ := testClient(t, srv.URL, func(c *Config) { c.Credentials = TokenCredentials(token); c.MaxRetries = -1 })
		_, err := c.GetZone(context.Background(), "z1")
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("at %d: %v", at, err)
		}
		for _, s := range []string{e.Body, e.Error()} {
			for k := 4; k <= len(token); k++ {
				if strings.Contains(s, token[:k]) {
					t.Fatalf("token at %d: %d of its characters leak in %q", at, k, s)
				}
			}
		}
	}
}
