package cli

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
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

// TestNullZoneListIsIncomplete: a zone list answered `success: true, result: null` was read
// as "0 zones, complete, exit 0" (issue 12, item 10); it is a failed read: exit 4, and the
// report says which listing read nothing.
func TestNullZoneListIsIncomplete(t *testing.T) {
	emu := newEmulator(t, emulator.Options{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/zones") {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"success":true,"errors":[],"messages":[],"result":null}`)
			return
		}
		emu.ServeHTTP(w, r)
	}))
	defer hs.Close()
	report := filepath.Join(t.TempDir(), "r.json")
	r := runSunset(t, demoEnv(), "scan", "--api-url", hs.URL+emulator.BasePath, "--rps", "0", "--retries", "0",
		"--as-of", "2025-02-01", "--fail-on", "none", "--format", "json:"+report)
	if r.code != ExitIncomplete {
		t.Fatalf("exit %d, want %d (incomplete); stderr %s", r.code, ExitIncomplete, r.stderr)
	}
	rep := readReportFile(t, report)
	found := false
	for _, e := range rep.Errors {
		found = found || strings.Contains(e.Message, "result is null or missing: nothing was read")
	}
	if !found || !rep.Summary.Incomplete {
		t.Errorf("report errors %+v (incomplete %v); want the null zone list named", rep.Errors, rep.Summary.Incomplete)
	}
}

// TestConnectionRefusedRetried: the README says network failures are retried; a refused
// connection was not (issue 12, item 13). With --retries 1 the scan tries twice, then
// stops as a fatal network failure (exit 3) that says so.
func TestConnectionRefusedRetried(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	r := runSunset(t, demoEnv(), "scan", "--api-url", "http://"+addr+"/client/v4", "--retries", "1",
		"--format", "json:"+filepath.Join(t.TempDir(), "r.json"))
	if r.code != ExitFatal || !strings.Contains(r.stderr, "refused") || !strings.Contains(r.stderr, "(after 2 attempts)") {
		t.Errorf("exit %d, stderr %q; want exit %d naming the refused connection after 2 attempts", r.code, r.stderr, ExitFatal)
	}
}
