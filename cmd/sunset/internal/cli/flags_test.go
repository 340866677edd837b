package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestScanFlagsValidatedBeforeAnyRequest: --rps NaN/+Inf meant "unpaced", --rps 1e-9 hung,
// and a malformed --zone-filter failed only after the API was contacted (issue 12, item
// 13). Each is now a usage error (exit 2) that names the flag and what it allows, and no
// request is sent.
func TestScanFlagsValidatedBeforeAnyRequest(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "unexpected", http.StatusTeapot)
	}))
	defer srv.Close()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rps", "NaN"}, "--rps NaN: want 0 (unpaced) or a rate from 0.1"},
		{[]string{"--rps", "+Inf"}, "--rps +Inf: want 0 (unpaced) or a rate from 0.1"},
		{[]string{"--rps", "-Inf"}, "--rps -Inf: want"},
		{[]string{"--rps", "1e-9"}, "--rps 1e-09: want 0 (unpaced) or a rate from 0.1"},
		{[]string{"--rps", "-1"}, "--rps -1: want"},
		{[]string{"--zone-filter", "["}, `--zone-filter "[": syntax error in pattern; want a glob`},
		{[]string{"--zone-filter", `*.example.org\`}, `--zone-filter "*.example.org\\": syntax error in pattern`},
	} {
		args := append([]string{"scan", "--api-url", srv.URL, "--format", "json:" + t.TempDir() + "/r.json"}, tc.args...)
		r := runSunset(t, demoEnv(), args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, r.code, r.stderr, ExitUsage, tc.want)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent before the flags were checked", n)
	}
	// The accepted extremes still run.
	for _, rps := range []string{"0", "0.1"} {
		if r := runSunset(t, demoEnv(), "scan", "--api-url", srv.URL, "--rps", rps, "--retries", "0", "--format", "json:"+t.TempDir()+"/r.json"); r.code == ExitUsage {
			t.Errorf("--rps %s refused: %s", rps, r.stderr)
		}
	}
}
