//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/cmd/sunset/internal/cli"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// exitDeadline bounds how long a signalled sunset may take to exit. It is generous: the tests
// check that it exits, and how, not how fast.
const exitDeadline = 60 * time.Second

// slowEmulator serves the demo account with 300 ms per request, so that a scan of it is
// still collecting when a test signals it, and returns its API base URL.
func slowEmulator(t *testing.T) (string, *emulator.Server) {
	t.Helper()
	return serveEmulator(t, emulator.Options{
		AsOf: time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC), Seed: seed.Demo(), Token: seed.DemoToken,
		Latency: emulator.LatencySpec{Min: 300 * time.Millisecond, Max: 300 * time.Millisecond},
	})
}

// scanProc is a running sunset scan.
type scanProc struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer // read only after done
	done   chan struct{}
	err    error // of Wait, set before done closes
}

// startScan starts the real sunset binary scanning api with the given report formats and
// waits until it has sent its first requests.
func startScan(t *testing.T, api string, srv *emulator.Server, formats ...string) *scanProc {
	t.Helper()
	return startScanUnder(t, nil, api, srv, formats...)
}

// startScanUnder is startScan with the scan run by a wrapper command (such as nohup) that
// execs it.
func startScanUnder(t *testing.T, wrapper []string, api string, srv *emulator.Server, formats ...string) *scanProc {
	t.Helper()
	bin, err := exec.LookPath("sunset") // testscript.Main put the test binary there as sunset
	if err != nil {
		t.Fatal(err)
	}
	args := append(append([]string(nil), wrapper...), bin, "scan", "--rps", "0", "--as-of", "2025-02-01", "--fail-on", "none", "--retries", "0")
	for _, f := range formats {
		args = append(args, "--format", f)
	}
	p := startProcess(t, api, args)
	deadline := time.Now().Add(exitDeadline)
	for srv.Stats().Total < 3 {
		if time.Now().After(deadline) {
			p.kill()
			t.Fatalf("the scan sent no requests; stderr:\n%s", p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return p
}

// kill ends the scan if it still runs, and waits for it.
func (p *scanProc) kill() {
	select {
	case <-p.done:
	default:
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// exited reports whether the scan has exited.
func (p *scanProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// waitExit waits for the scan to exit and returns its exit code.
func (p *scanProc) waitExit(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(exitDeadline):
		p.kill()
		t.Fatalf("sunset did not exit within %s of the signal; stderr:\n%s", exitDeadline, p.stderr.String())
	}
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		return 0
	case !errors.As(p.err, &ee):
		t.Fatal(p.err)
	case ee.ExitCode() < 0:
		t.Fatalf("killed by a signal (%v); stderr:\n%s", p.err, p.stderr.String())
	}
	return ee.ExitCode()
}

// TestStopSignalWritesIncompleteReports sends each stop signal to a scan in the middle of
// collecting: it exits 4 (incomplete) after writing its report, marked incomplete.
func TestStopSignalWritesIncompleteReports(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			api, srv := slowEmulator(t)
			out := filepath.Join(t.TempDir(), "report.json")
			p := startScan(t, api, srv, "json:"+out)
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := p.waitExit(t); code != cli.ExitIncomplete {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, cli.ExitIncomplete, p.stderr.String())
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("no report: %v", err)
			}
			var rep struct {
				Summary struct {
					Incomplete bool `json:"incomplete"`
				} `json:"summary"`
			}
			if err := json.Unmarshal(data, &rep); err != nil {
				t.Fatalf("report: %v", err)
			}
			if !rep.Summary.Incomplete {
				t.Errorf("the report of an interrupted scan is not marked incomplete")
			}
		})
	}
}

// TestSecondSignalExitsAtOnce interrupts a scan whose report goes to a FIFO nobody reads, so
// that after the first signal it is stuck writing its report; a second signal ends it with
// 130.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	for _, second := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(second.String(), func(t *testing.T) {
			api, srv := slowEmulator(t)
			fifo := filepath.Join(t.TempDir(), "report.fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("no FIFO: %v", err)
			}
			p := startScan(t, api, srv, "json:"+fifo)
			if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
			if p.exited() {
				t.Fatalf("exited (%v) after one signal while its report could not be written; stderr:\n%s", p.err, p.stderr.String())
			}
			if err := p.cmd.Process.Signal(second); err != nil {
				t.Fatal(err)
			}
			if code := p.waitExit(t); code != cli.ExitInterrupted {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, cli.ExitInterrupted, p.stderr.String())
			}
			if !strings.Contains(p.stderr.String(), "interrupted again") {
				t.Errorf("no word of the second signal; stderr:\n%s", p.stderr.String())
			}
		})
	}
}

// TestIgnoredSignalStaysIgnored starts a scan under nohup: SIGHUP, ignored from the start,
// does not stop it; SIGTERM then does (exit 4).
func TestIgnoredSignalStaysIgnored(t *testing.T) {
	nohup, err := exec.LookPath("nohup")
	if err != nil {
		t.Skip("no nohup")
	}
	api, srv := slowEmulator(t)
	out := filepath.Join(t.TempDir(), "report.json")
	p := startScanUnder(t, []string{nohup}, api, srv, "json:"+out)
	// nohup execs sunset in its own process; wait until sunset itself has sent requests
	// (startScanUnder did) before signalling.
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if p.exited() {
		t.Fatalf("SIGHUP under nohup stopped the scan (%v); stderr:\n%s", p.err, p.stderr.String())
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.waitExit(t); code != cli.ExitIncomplete {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, cli.ExitIncomplete, p.stderr.String())
	}
}

// TestEmulatorStopsOnTerm sends SIGTERM to `sunset emulator`: it stops as on Ctrl-C, saying
// so, with exit 0.
func TestEmulatorStopsOnTerm(t *testing.T) {
	bin, err := exec.LookPath("sunset")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "emulator", "--listen", addr)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	p := runProcess(t, cmd)
	deadline := time.Now().Add(exitDeadline)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = conn.Close()
			break
		}
		if time.Now().After(deadline) || p.exited() {
			p.kill()
			t.Fatalf("the emulator does not listen; stderr:\n%s", p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.waitExit(t); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, p.stderr.String())
	}
	if !strings.Contains(stdout.String(), "sunset emulator stopped after") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
}
