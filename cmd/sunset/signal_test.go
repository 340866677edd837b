//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/cmd/sunset/internal/cli"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/emulatortest"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// demoEmulator serves the demo account; tests signal a scan of it while it waits for a
// held answer (emulatortest), so it is still collecting whatever the machine's speed.
func demoEmulator(t *testing.T) (string, *emulatortest.Watched) {
	t.Helper()
	return serveEmulator(t, emulator.Options{
		AsOf: time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC), Seed: seed.Demo(), Token: seed.DemoToken,
	})
}

// scanProc is a running sunset scan.
type scanProc struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer // read only after done
	done   chan struct{}
	err    error // of Wait, set before done closes
	held   *emulatortest.Mark
}

// startScan starts the real sunset binary scanning api with the given report formats and
// waits until it has sent its third request, whose answer is held until the test ends.
func startScan(t *testing.T, api string, srv *emulatortest.Watched, formats ...string) *scanProc {
	t.Helper()
	return startScanUnder(t, nil, api, srv, formats...)
}

// startScanUnder is startScan with the scan run by a wrapper command (such as nohup) that
// execs it.
func startScanUnder(t *testing.T, wrapper []string, api string, srv *emulatortest.Watched, formats ...string) *scanProc {
	t.Helper()
	bin, err := exec.LookPath("sunset") // testscript.Main put the test binary there as sunset
	if err != nil {
		t.Fatal(err)
	}
	args := append(append([]string(nil), wrapper...), bin, "scan", "--rps", "0", "--as-of", "2025-02-01", "--fail-on", "none", "--retries", "0")
	for _, f := range formats {
		args = append(args, "--format", f)
	}
	held := srv.HoldWhen(emulatortest.Requests(srv.Stats().Total + 3))
	t.Cleanup(held.Release)
	p := startProcess(t, api, args)
	p.held = held
	select {
	case <-held.Reached():
	case <-p.done:
		t.Fatalf("the scan ended before its third request; stderr:\n%s", p.stderr.String())
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

// waitExit waits for the scan to exit and returns its exit code. It waits on the exit
// alone: a scan that never exits is the test binary's timeout to report.
func (p *scanProc) waitExit(t *testing.T) int {
	t.Helper()
	<-p.done
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
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			api, srv := demoEmulator(t)
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
			// Without --snapshot-out there is nothing to continue from: the last line says how
			// to make the next run resumable.
			lines := strings.Split(strings.TrimRight(p.stderr.String(), "\n"), "\n")
			if last := lines[len(lines)-1]; !strings.Contains(last, "run it again with --snapshot-out FILE to make it resumable") {
				t.Errorf("the last stderr line %q does not say how to make the scan resumable", last)
			}
		})
	}
}

// TestSecondSignalExitsAtOnce interrupts a scan whose report goes to a FIFO nobody reads, so
// that after the first signal it is stuck writing its report; a second signal ends it with
// 130.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	t.Parallel()
	for _, second := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(second.String(), func(t *testing.T) {
			api, srv := demoEmulator(t)
			fifo := filepath.Join(t.TempDir(), "report.fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("no FIFO: %v", err)
			}
			p := startScan(t, api, srv, "json:"+fifo)
			if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			// The event: the scan cancelled its run, abandoning the held request; it then
			// opens its report, a FIFO with no reader, and waits there.
			<-p.held.Abandoned()
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

// TestIgnoredSignalStaysIgnored starts a scan under nohup and sends it SIGHUP, ignored from
// the start, then SIGTERM: SIGTERM is the first signal it acts on (exit 4, incomplete); had
// SIGHUP stopped the run, SIGTERM would be a second signal and the exit 130. The kernel
// drops a signal its process ignores, and a process handles pending signals in order of
// number (SIGHUP is 1, SIGTERM 15), so no wait is needed between the two.
func TestIgnoredSignalStaysIgnored(t *testing.T) {
	t.Parallel()
	nohup, err := exec.LookPath("nohup")
	if err != nil {
		t.Skip("no nohup")
	}
	api, srv := demoEmulator(t)
	out := filepath.Join(t.TempDir(), "report.json")
	// nohup execs sunset in its own process; startScanUnder waited until sunset itself had
	// sent requests (its signal handlers are set up) before signalling.
	p := startScanUnder(t, []string{nohup}, api, srv, "json:"+out)
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM} {
		if err := p.cmd.Process.Signal(sig); err != nil {
			t.Fatalf("%v: %v; stderr:\n%s", sig, err, p.stderr.String())
		}
	}
	if code := p.waitExit(t); code != cli.ExitIncomplete {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, cli.ExitIncomplete, p.stderr.String())
	}
}

// TestEmulatorStopsOnTerm sends SIGTERM to `sunset emulator` once it says it listens: it
// stops as on Ctrl-C, saying so, with exit 0.
func TestEmulatorStopsOnTerm(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("sunset")
	if err != nil {
		t.Fatal(err)
	}
	stdout, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "emulator", "--listen", "127.0.0.1:0")
	cmd.Stdout = w
	p := runProcess(t, cmd)
	_ = w.Close() // the emulator holds the write end; reads end when it exits
	lines := make(chan string)
	go func() {
		defer close(lines)
		for sc := bufio.NewScanner(stdout); sc.Scan(); {
			lines <- sc.Text()
		}
	}()
	var out strings.Builder
	for line := range lines { // the event: the start-up line
		out.WriteString(line + "\n")
		if strings.Contains(line, "listening on http://") {
			break
		}
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("%v; stdout:\n%s", err, out.String())
	}
	for line := range lines {
		out.WriteString(line + "\n")
	}
	if code := p.waitExit(t); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, p.stderr.String())
	}
	if !strings.Contains(out.String(), "sunset emulator stopped after") {
		t.Errorf("stdout:\n%s", out.String())
	}
}
