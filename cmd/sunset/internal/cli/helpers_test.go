package cli

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// fixedNow is the wall clock of every in-process run: the date flags are explicit, so it
// only feeds the progress line and the default --as-of.
var fixedNow = time.Date(2025, 2, 1, 12, 0, 0, 0, time.UTC)

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a cancelled run and the
// reads of a test that watches it; next lets the test wait for the next write instead of
// polling.
type syncBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{} // closed by the next Write; nil when nobody waits
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wrote != nil {
		close(s.wrote)
		s.wrote = nil
	}
	return s.b.Write(p)
}

// next returns what was written so far and a channel closed by the next write.
func (s *syncBuffer) next() (string, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wrote == nil {
		s.wrote = make(chan struct{})
	}
	return s.b.String(), s.wrote
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testRun is one in-process invocation of sunset: its streams, and what came out.
type testRun struct {
	env    map[string]string
	outTTY bool
	errTTY bool
	width  int

	code   int
	stdout string
	stderr string
}

// streams builds the Streams of a run on buffers, with the fixed clock and a map-backed
// environment (nothing is read from the process environment).
func (r *testRun) streams(out, errOut *syncBuffer) *Streams {
	env := r.env
	return &Streams{
		In:     strings.NewReader(""),
		Out:    out,
		Err:    errOut,
		OutTTY: r.outTTY,
		ErrTTY: r.errTTY,
		Width:  r.width,
		Getenv: func(k string) string { return env[k] },
		Now:    func() time.Time { return fixedNow },
	}
}

// exec runs sunset with args (without the program name) under ctx and records the outcome.
func (r *testRun) exec(ctx context.Context, args ...string) *testRun {
	var out, errOut syncBuffer
	r.code = Run(ctx, append([]string{"sunset"}, args...), r.streams(&out, &errOut))
	r.stdout, r.stderr = out.String(), errOut.String()
	return r
}

// runSunset runs sunset with the given environment and returns the finished run.
func runSunset(t *testing.T, env map[string]string, args ...string) *testRun {
	t.Helper()
	return (&testRun{env: env}).exec(context.Background(), args...)
}

// demoEnv is the environment of a scan of an emulator serving the demo credentials.
func demoEnv() map[string]string {
	return map[string]string{"CLOUDFLARE_API_TOKEN": seed.DemoToken}
}

// demoSeed is the demo account, built once: an emulator copies its seed, so they share it.
var demoSeed = sync.OnceValue(seed.Demo)

// newEmulator builds an emulator; the seed defaults to the demo account and the credentials
// to the demo's.
func newEmulator(t *testing.T, opts emulator.Options) *emulator.Server {
	t.Helper()
	if opts.Seed == nil {
		opts.Seed = demoSeed()
	}
	if opts.Token == "" && opts.Email == "" {
		opts.Token, opts.Email, opts.Key = seed.DemoToken, seed.DemoEmail, seed.DemoKey
	}
	srv, err := emulator.New(opts)
	if err != nil {
		t.Fatalf("emulator.New: %v", err)
	}
	return srv
}

// startEmulator serves a new emulator (see newEmulator) over httptest for the duration of
// the test and returns it with its API base URL.
func startEmulator(t *testing.T, opts emulator.Options) (*emulator.Server, string) {
	t.Helper()
	srv := newEmulator(t, opts)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return srv, hs.URL + emulator.BasePath
}

// shared is the clean demo emulator (as of 2025-02-01) of the tests that only read from it.
// Building an emulator deep-copies its seed, which is slow under -race, so they share one;
// the tests of this package do not run in parallel (see TestMain).
var shared struct {
	mu    sync.Mutex
	srv   *emulator.Server
	hs    *httptest.Server
	clean *reports.Report // a full scan as of 2025-02-01, once made
	code  int
}

// sharedEmulator returns the shared clean demo emulator and its API base URL.
func sharedEmulator(t *testing.T) (*emulator.Server, string) {
	t.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.srv == nil {
		shared.srv = newEmulator(t, emulator.Options{AsOf: time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)})
		shared.hs = httptest.NewServer(shared.srv)
	}
	return shared.srv, shared.hs.URL + emulator.BasePath
}

// cleanDemo returns the exit code and report of a full scan of the shared emulator as of
// 2025-02-01 with --fail-on none, made once.
func cleanDemo(t *testing.T) (int, *reports.Report) {
	t.Helper()
	_, base := sharedEmulator(t)
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.clean == nil {
		r, rep := scanReport(t, base, "2025-02-01")
		if r.code != ExitOK || rep.Summary.Incomplete {
			t.Fatalf("clean scan: exit %d, incomplete %v; stderr:\n%s", r.code, rep.Summary.Incomplete, r.stderr)
		}
		shared.clean, shared.code = rep, r.code
	}
	return shared.code, shared.clean
}

// TestMain runs the tests and closes the shared emulator. No test calls t.Parallel: Run is
// not safe for concurrent use within one process, because urfave/cli/v2 sets fields of its
// global HelpFlag when it parses flags (a data race under -race); the binary runs it once.
func TestMain(m *testing.M) {
	code := m.Run()
	if shared.hs != nil {
		shared.hs.Close()
	}
	os.Exit(code)
}

// day parses a YYYY-MM-DD date or fails the test.
func day(t *testing.T, s string) time.Time {
	t.Helper()
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		t.Fatalf("bad test date %q: %v", s, err)
	}
	return d
}

// readReportFile reads a JSON report written by a run.
func readReportFile(t *testing.T, path string) *reports.Report {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("report not written: %v", err)
	}
	defer func() { _ = f.Close() }()
	rep, err := reports.ReadReport(f)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return rep
}

// scanReport scans the emulator at base with the demo token and returns the run and its
// JSON report; extra flags are appended to the scan's.
func scanReport(t *testing.T, base, asOf string, extra ...string) (*testRun, *reports.Report) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.json")
	args := append([]string{"scan", "--api-url", base, "--rps", "0", "--as-of", asOf, "--fail-on", "none",
		"--format", "json:" + path}, extra...)
	r := runSunset(t, demoEnv(), args...)
	if r.code == ExitUsage || r.code == ExitFatal {
		t.Fatalf("sunset %s: exit %d\nstderr:\n%s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r, readReportFile(t, path)
}

// fingerprints returns the sorted fingerprints of findings.
func fingerprints(fs []scanner.Finding) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		out = append(out, f.Fingerprint)
	}
	sort.Strings(out)
	return out
}

// zonesOf returns the sorted distinct zone names findings are about (account findings have none).
func zonesOf(fs []scanner.Finding) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range fs {
		if f.ZoneName != "" && !seen[f.ZoneName] {
			seen[f.ZoneName] = true
			out = append(out, f.ZoneName)
		}
	}
	sort.Strings(out)
	return out
}

// copyFile copies src to dst, creating dst's directory.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
