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
// reads of a test that watches it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
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

// startEmulator serves an emulator over httptest and returns it with its API base URL. The
// seed defaults to the demo account and the credentials to the demo's.
func startEmulator(t *testing.T, opts emulator.Options) (*emulator.Server, string) {
	t.Helper()
	if opts.Seed == nil {
		opts.Seed = seed.Demo()
	}
	if opts.Token == "" && opts.Email == "" {
		opts.Token, opts.Email, opts.Key = seed.DemoToken, seed.DemoEmail, seed.DemoKey
	}
	srv, err := emulator.New(opts)
	if err != nil {
		t.Fatalf("emulator.New: %v", err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return srv, hs.URL + emulator.BasePath
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
	defer f.Close()
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
