//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/sunsetscan/sunset/cmd/sunset/internal/cli"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/emulatortest"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// spillingSunset is the sunset binary with scans that spill their findings after every
// zone (TestMain registers it).
const spillingSunset = "sunset-spill-early"

// startSpilling starts a spilling sunset with args against api, its temporary directory
// tmp.
func startSpilling(t *testing.T, api, tmp string, args ...string) *scanProc {
	t.Helper()
	bin, err := exec.LookPath(spillingSunset)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "SUNSET_API_URL="+api, "CLOUDFLARE_API_TOKEN="+seed.DemoToken, "NO_COLOR=1", "TMPDIR="+tmp)
	return runProcess(t, cmd)
}

// openIn lists the files process pid has open in dir, as /proc shows them (a file without
// a name in dir ends with "(deleted)"); nil where there is no /proc.
func openIn(pid int, dir string) []string {
	fds := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	es, err := os.ReadDir(fds)
	if err != nil {
		return nil
	}
	var open []string
	for _, e := range es {
		if to, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && strings.HasPrefix(to, dir+string(filepath.Separator)) {
			open = append(open, to)
		}
	}
	return open
}

// TestKilledSpillingScanLeavesNoTemporaryFile: a scan with --plan-dir whose findings spill
// after every zone, killed (SIGKILL) while it spills, leaves nothing in its $TMPDIR. The
// kill lands while the emulator holds the answer to a request three quarters into the
// scan, when (as /proc shows, where there is one) its three temporary files are open:
// findings, plan, and the zones for snapshot.json. An uninterrupted scan leaves none either.
func TestKilledSpillingScanLeavesNoTemporaryFile(t *testing.T) {
	t.Parallel()
	api, srv := generatedEmulator(t, 30)
	dir := t.TempDir()
	args := func(name string) []string {
		return resumeScanArgs(filepath.Join(dir, name+".json"), "--plan-dir", filepath.Join(dir, name))
	}
	tmp := t.TempDir()
	p := startSpilling(t, api, tmp, args("full")...)
	if code := p.waitExit(t); code != cli.ExitOK {
		t.Fatalf("uninterrupted scan: exit %d\n%s", code, p.stderr.String())
	}
	full := srv.Stats().Total
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Fatalf("an uninterrupted scan left %v", left)
	}

	tmp = t.TempDir()
	at := full + full*3/4
	m := srv.HoldWhen(emulatortest.Requests(at))
	p = startSpilling(t, api, tmp, args("killed")...)
	defer m.Release()
	select {
	case <-m.Reached():
	case <-p.done:
		t.Fatalf("the scan ended before request %d; stderr:\n%s", at, p.stderr.String())
	}
	if _, err := os.Stat("/proc/self/fd"); err == nil {
		if open := openIn(p.cmd.Process.Pid, tmp); len(open) < 3 {
			t.Fatalf("the scan holds %v open in its TMPDIR: want its three temporary files", open)
		}
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Errorf("a scan killed while it spilled left %s in its TMPDIR", strings.Join(names, ", "))
	}
}
