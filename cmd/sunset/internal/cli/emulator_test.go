package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// recordsDoc is a small OpenAPI description written for this test: DNS record creation with
// the record type as an enum.
const recordsDoc = `{
  "openapi": "3.0.3", "info": {"title": "records", "version": "1"},
  "paths": {"/zones/{zone_id}/dns_records": {"post": {
    "requestBody": {"required": true, "content": {"application/json": {"schema": {
      "type": "object", "required": ["type", "name"],
      "properties": {"type": {"enum": ["A", "AAAA", "CNAME"]}, "name": {"type": "string"}, "content": {"type": "string"}}}}}},
    "responses": {"200": {"description": "ok"}}}}}
}`

func TestEmulatorOpenAPIFlagErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.json")
	garbage := filepath.Join(dir, "garbage.json")
	if err := os.WriteFile(garbage, []byte("{ not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{missing, garbage} {
		r := runSunset(t, nil, "emulator", "--listen", "127.0.0.1:0", "--openapi", file)
		if r.code != ExitUsage || !strings.Contains(r.stderr, "--openapi") || !strings.Contains(r.stderr, file) {
			t.Errorf("--openapi %s: want exit %d and an error naming the file, got %d: %s", file, ExitUsage, r.code, r.stderr)
		}
	}
}

// TestEmulatorOpenAPIRefusesBadBodies runs `sunset emulator --openapi FILE` and sends it a
// body the description refuses and one it accepts.
func TestEmulatorOpenAPIRefusesBadBodies(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "records.json")
	if err := os.WriteFile(doc, []byte(recordsDoc), 0o600); err != nil {
		t.Fatal(err)
	}
	emu := startEmulatorRun(t, "--as-of", "2025-02-01", "--openapi", doc)
	base, out := emu.base, &emu.out
	if !strings.Contains(out.String(), "write bodies checked against "+doc+" (1 operations, 0 stale points patched)") {
		t.Errorf("start-up lines do not name the description: %s", out.String())
	}
	records := base + "/zones/" + seed.Demo().Zones[0].Zone.ID + "/dns_records"
	status, env := post(t, records, `{"type":"MX","name":"mail"}`)
	if status != http.StatusBadRequest || env.Success || len(env.Errors) == 0 || !strings.Contains(env.Errors[0].Message, "/type:") {
		t.Errorf("a record type outside the enum: want 400 naming /type, got %d %+v", status, env.Errors)
	}
	if status, env := post(t, records, `{"type":"A","name":"api","content":"192.0.2.44"}`); status != http.StatusOK {
		t.Errorf("a valid record was refused: %d %+v", status, env.Errors)
	}
	emu.stop()
}

// emulatorRun is `sunset emulator` running in the test, on a loopback port.
type emulatorRun struct {
	t         *testing.T
	base      string
	out, errs syncBuffer
	cancel    context.CancelFunc
	done      chan int
}

// startEmulatorRun runs `sunset emulator --listen 127.0.0.1:0 ARGS...` until stop, and
// waits for its URL.
func startEmulatorRun(t *testing.T, args ...string) *emulatorRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e := &emulatorRun{t: t, cancel: cancel, done: make(chan int, 1)}
	run := &testRun{}
	argv := append([]string{"sunset", "emulator", "--listen", "127.0.0.1:0"}, args...)
	go func() { e.done <- Run(ctx, argv, run.streams(&e.out, &e.errs)) }()
	t.Cleanup(cancel)
	e.base = waitForURL(t, &e.out, e.done)
	return e
}

// stop interrupts the emulator and checks that it exits 0.
func (e *emulatorRun) stop() {
	e.t.Helper()
	e.cancel()
	if code := <-e.done; code != ExitOK {
		e.t.Errorf("exit %d: %s", code, e.errs.String())
	}
}

// waitForURL waits for the emulator's start-up lines and returns its API base URL. It waits
// for the last of them ("try: ..."), which comes after the lines tests read (a check made
// right after "listening on" once missed the next line on a busy machine).
func waitForURL(t *testing.T, out *syncBuffer, done <-chan int) string {
	t.Helper()
	m := waitForOutput(t, out, done, regexp.MustCompile(`listening on (http://\S+)(?s:.*)\n  try: `))
	return m[1]
}

// waitForOutput waits until out matches re and returns the submatches; it fails the test
// when the run ends first. It waits on writes, not on a clock: a run that hangs is the
// test binary's timeout to report.
func waitForOutput(t *testing.T, out *syncBuffer, done <-chan int, re *regexp.Regexp) []string {
	t.Helper()
	for {
		text, wrote := out.next()
		if m := re.FindStringSubmatch(text); m != nil {
			return m
		}
		select {
		case <-wrote:
		case code := <-done:
			t.Fatalf("the run ended with exit %d before writing %s:\n%s", code, re, out.String())
		}
	}
}

// envelope is the part of a response envelope this test reads.
type envelope struct {
	Success bool `json:"success"`
	Errors  []struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"errors"`
}

func post(t *testing.T, url, body string) (int, envelope) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+seed.DemoToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var env envelope
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, env
}

// TestEmulatorTryLineScansUnpaced: the start-up's "try:" line gives --rps 0 (the default
// pace, the public API's budget, would make a newcomer wait minutes for a scan of a local
// emulator), and under --rate-limit the pace that fits it.
func TestEmulatorTryLineScansUnpaced(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, " sunset scan --rps 0\n"},
		{[]string{"--rate-limit", "1200/5m"}, " sunset scan --rps 4\n"},
	} {
		emu := startEmulatorRun(t, c.args...)
		if out := emu.out.String(); !strings.Contains(out, c.want) {
			t.Errorf("emulator %v: the try: line does not end %q:\n%s", c.args, c.want, out)
		}
		emu.stop()
	}
}
