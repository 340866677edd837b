//go:build unix

package main

import (
	"bytes"
	"fmt"
	"math/rand"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/cmd/sunset/internal/cli"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/emulatortest"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// generatedEmulator serves a generated account; tests stop a scan of it at a chosen
// request by holding that request's answer (emulatortest).
func generatedEmulator(t *testing.T, zones int) (string, *emulatortest.Watched) {
	t.Helper()
	return serveEmulator(t, emulator.Options{
		AsOf: time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC), Seed: seed.Generate(zones, 21), Token: seed.DemoToken,
	})
}

// serveEmulator serves an emulator on loopback until the test ends, watched so that tests
// can wait for a point of a run, and returns its API base URL.
func serveEmulator(t testing.TB, opts emulator.Options) (string, *emulatortest.Watched) {
	t.Helper()
	srv, err := emulator.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	w := emulatortest.Wrap(srv)
	hs := httptest.NewServer(w)
	t.Cleanup(hs.Close)
	t.Cleanup(w.Close) // before hs.Close: held answers must finish for it to return
	return hs.URL + emulator.BasePath, w
}

// startSunset starts the sunset binary with args against api.
func startSunset(t testing.TB, api string, args ...string) *scanProc {
	t.Helper()
	bin, err := exec.LookPath("sunset") // testscript.Main put the test binary there as sunset
	if err != nil {
		t.Fatal(err)
	}
	return startProcess(t, api, append([]string{bin}, args...))
}

// startProcess starts argv (a program and its arguments) with the demo credentials against
// api; the process is killed when the test ends.
func startProcess(t testing.TB, api string, argv []string) *scanProc {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "SUNSET_API_URL="+api, "CLOUDFLARE_API_TOKEN="+seed.DemoToken, "NO_COLOR=1")
	return runProcess(t, cmd)
}

// runProcess starts cmd with its stderr captured, waits for it in the background and kills
// it when the test ends.
func runProcess(t testing.TB, cmd *exec.Cmd) *scanProc {
	t.Helper()
	p := &scanProc{cmd: cmd, done: make(chan struct{})}
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(p.kill)
	return p
}

func resumeScanArgs(report string, extra ...string) []string {
	return append([]string{"scan", "--rps", "0", "--as-of", "2025-02-01", "--fail-on", "none", "--retries", "0",
		"--workers", "2", "--format", "json:" + report}, extra...)
}

// stopAt holds the emulator's answer to the nth request from now, sends sig to the scan
// while it waits for that answer, and waits for the scan to exit.
func stopAt(t *testing.T, p *scanProc, m *emulatortest.Mark, n int, sig syscall.Signal) {
	t.Helper()
	defer m.Release()
	select {
	case <-m.Reached():
	case <-p.done:
		t.Fatalf("the scan ended before request %d; stderr:\n%s", n, p.stderr.String())
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	<-p.done
}

// TestKilledScanResumes stops scans with SIGKILL, SIGTERM and SIGINT at random points
// (seeded, so a failure can be replayed), resumes each from its --snapshot-out, and
// byte-compares the resumed JSON report with an uninterrupted scan's. The stopped runs are
// independent (each has its own emulator), so they run in parallel.
func TestKilledScanResumes(t *testing.T) {
	t.Parallel()
	api, srv := generatedEmulator(t, 30)
	want := filepath.Join(t.TempDir(), "want.json")
	p := startSunset(t, api, resumeScanArgs(want)...)
	if code := p.waitExit(t); code != cli.ExitOK {
		t.Fatalf("uninterrupted scan: exit %d\n%s", code, p.stderr.String())
	}
	wantBytes, _ := os.ReadFile(want)
	full := srv.Stats().Total

	rng := rand.New(rand.NewSource(20261124))
	for i, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGKILL, syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT} {
		at := 1 + rng.Intn(full-1)
		t.Run(fmt.Sprintf("%d-%v-at-%d", i, sig, at), func(t *testing.T) {
			t.Parallel()
			resumeAfterStop(t, sig, at, full, bytes.ReplaceAll(wantBytes, []byte(api), []byte("API")))
		})
	}
}

// resumeAfterStop stops a scan of its own emulator with sig at request at (of full), resumes
// it, and compares the report with want, whose API URL reads API.
func resumeAfterStop(t *testing.T, sig syscall.Signal, at, full int, want []byte) {
	api, srv := generatedEmulator(t, 30)
	dir := t.TempDir()
	snap, got := filepath.Join(dir, "snap.jsonl"), filepath.Join(dir, "got.json")
	m := srv.HoldWhen(emulatortest.Requests(at))
	p := startSunset(t, api, resumeScanArgs(got, "--snapshot-out", snap)...)
	stopAt(t, p, m, at, sig)
	if sig != syscall.SIGKILL {
		if code := p.waitExit(t); code != cli.ExitIncomplete {
			t.Fatalf("%v: exit %d, want %d\n%s", sig, code, cli.ExitIncomplete, p.stderr.String())
		}
	}
	before := srv.Stats().Total
	r := startSunset(t, api, resumeScanArgs(got, "--resume", snap)...)
	if code := r.waitExit(t); code != cli.ExitOK {
		t.Fatalf("resume after %v at %d: exit %d\n%s", sig, at, code, r.stderr.String())
	}
	// Work lost is at most the zones in flight (2 workers, under 40 requests each) plus
	// the listing and account parts read again.
	if resumed := srv.Stats().Total - before; at+resumed > full+2*40+6 {
		t.Errorf("resume after %v at request %d sent %d requests: more than the %d left and what was in flight", sig, at, resumed, full-at)
	}
	// The reports name their API: the emulators differ in their port alone.
	if gotBytes, _ := os.ReadFile(got); !bytes.Equal(bytes.ReplaceAll(gotBytes, []byte(api), []byte("API")), want) {
		t.Errorf("resume after %v at request %d: the report differs from an uninterrupted scan's", sig, at)
	}
}

// BenchmarkResumeAfterKillAtHalf scans the 2,000-zone generated account with the sunset
// binary, unpaced: once uninterrupted, then killed (SIGKILL) when half of that many
// requests were answered and resumed with --resume. It reports the requests and wall time
// of each, and the interrupted run's total over the uninterrupted one (target within 1.05).
//
//	go test -run '^$' -bench ResumeAfterKillAtHalf -benchtime 1x ./cmd/sunset
func BenchmarkResumeAfterKillAtHalf(b *testing.B) {
	for i := 0; i < b.N; i++ {
		benchResumeAfterKill(b)
	}
}

func benchResumeAfterKill(b *testing.B) {
	api, srv := serveEmulator(b, emulator.Options{AsOf: time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC), Seed: seed.Generate(2000, 1), Token: seed.DemoToken})
	dir := b.TempDir()
	args := func(extra ...string) []string {
		return append(resumeScanArgs(filepath.Join(dir, "r.json"), extra...), "--workers", "16")
	}
	run := func(extra ...string) (*scanProc, time.Time, int) {
		return startSunset(b, api, args(extra...)...), time.Now(), srv.Stats().Total
	}
	p, start, n0 := run()
	<-p.done
	fullWall, full := time.Since(start), srv.Stats().Total-n0

	snap := filepath.Join(dir, "snap.jsonl")
	half := srv.HoldWhen(emulatortest.Requests(srv.Stats().Total + full/2))
	p, start, n0 = run("--snapshot-out", snap)
	<-half.Reached()
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
	half.Release()
	firstWall, first := time.Since(start), srv.Stats().Total-n0
	p, start, n0 = run("--resume", snap)
	<-p.done
	if p.err != nil {
		b.Fatalf("resume: %v\n%s", p.err, p.stderr.String())
	}
	resumeWall, resumed := time.Since(start), srv.Stats().Total-n0
	b.ReportMetric(float64(full), "full-requests")
	b.ReportMetric(fullWall.Seconds(), "full-wall-s")
	b.ReportMetric(float64(first), "killed-requests")
	b.ReportMetric(float64(resumed), "resume-requests")
	b.ReportMetric((firstWall + resumeWall).Seconds(), "killed+resume-wall-s")
	b.ReportMetric(float64(first+resumed)/float64(full), "ratio")
}
