package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/reports"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator"
	"github.com/sunsetscan/sunset/scanner/cfapi/emulator/seed"
)

// benchZonesEnv sizes BenchmarkScanPeakRSS; benchEmulatorEnv makes the test binary an
// emulator child (see TestBenchEmulatorChild).
const (
	benchZonesEnv    = "SUNSET_BENCH_ZONES"
	benchEmulatorEnv = "SUNSET_BENCH_EMULATOR_ZONES"
	benchHeapEnv     = "SUNSET_BENCH_HEAPPROFILE"
	benchFormatsEnv  = "SUNSET_BENCH_FORMATS"
	benchURLPrefix   = "sunset-bench-emulator "
)

// BenchmarkScanPeakRSS runs a full `sunset scan` of a generated account served by an
// emulator in a child process (so its state is not counted), writing every report format,
// and reports the peak resident set of this process (VmHWM, reset before each run), the
// peak heap in use, the findings and the wall time. The size is 500 zones unless
// SUNSET_BENCH_ZONES says otherwise; issue 12's target is under 2 GB at 50,000:
//
//	SUNSET_BENCH_ZONES=50000 go test -run '^$' -bench ScanPeakRSS -benchtime 1x -timeout 2h ./cmd/sunset/internal/cli
//
// SUNSET_BENCH_FORMATS=json,sarif,... limits the files written to those formats (the
// HTML and Markdown ones make the scan build its migration plan too).
// SUNSET_BENCH_HEAPPROFILE=FILE also writes a heap profile each time the heap in use grows
// by a tenth past the last one written, so FILE holds the picture nearest the peak.
func BenchmarkScanPeakRSS(b *testing.B) {
	benchScanPeakRSS(b, false)
}

// BenchmarkScanPlanPeakRSS is BenchmarkScanPeakRSS with --plan-dir: the scan also builds,
// verifies and writes its migration plan (plan.json, plan.md, terraform/, snapshot.json).
// Issue 26's targets, every format: at most 2x the JSON-only scan at 5,000 zones, at most
// 1 GB at 50,000:
//
//	SUNSET_BENCH_ZONES=5000 go test -run '^$' -bench ScanPlanPeakRSS -benchtime 1x -timeout 2h ./cmd/sunset/internal/cli
func BenchmarkScanPlanPeakRSS(b *testing.B) {
	benchScanPeakRSS(b, true)
}

// benchScanPeakRSS measures one scan per iteration, writing a plan directory when withPlan.
func benchScanPeakRSS(b *testing.B, withPlan bool) {
	zones := 500
	if v := os.Getenv(benchZonesEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("%s=%q: want a positive number of zones", benchZonesEnv, v)
		}
		zones = n
	}
	base := startEmulatorChild(b, zones)
	args := benchScanArgs(b, base)
	if withPlan {
		args = append(args, "--plan-dir", filepath.Join(b.TempDir(), "plan"))
	}
	env := map[string]string{"CLOUDFLARE_API_TOKEN": seed.DemoToken}
	for b.Loop() {
		runtime.GC()
		debug.FreeOSMemory()
		resetPeakRSS(b)
		peak, stop := sampleHeapInuse(os.Getenv(benchHeapEnv))
		start := time.Now()
		r := (&testRun{env: env}).exec(context.Background(), args...)
		wall := time.Since(start)
		stop()
		if r.code != ExitFindings && r.code != ExitOK {
			b.Fatalf("scan: exit %d\n%s", r.code, r.stderr)
		}
		b.ReportMetric(float64(peakRSS(b))/(1<<20), "peak-RSS-MB")
		b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MB")
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(float64(benchFindings(b, r.stdout)), "findings")
	}
}

// benchScanArgs are the scan's flags: every format, each to its own discarding file (a
// link to /dev per format, since two outputs may not name the same path), but the short
// GitHub annotations to standard output for the findings count.
func benchScanArgs(b *testing.B, base string) []string {
	args := []string{"scan", "--api-url", base, "--rps", "0", "--workers", "32",
		"--as-of", "2025-02-01", "--fail-on", "error", "--color", "never", "--format", "github"}
	dir := b.TempDir()
	formats := reports.Formats()
	if v := os.Getenv(benchFormatsEnv); v != "" {
		formats = strings.Split(v, ",")
	}
	for _, format := range formats {
		if format == "github" {
			continue
		}
		dev := filepath.Join(dir, format)
		if err := os.Symlink("/dev", dev); err != nil {
			b.Fatal(err)
		}
		args = append(args, "--format", format+":"+filepath.Join(dev, "null"))
	}
	return args
}

// benchFindings counts the findings from the last line of the GitHub annotations:
// "sunset: N zones scanned, E errors, W warnings, N notices, ...".
func benchFindings(b *testing.B, out string) int {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	total := 0
	for _, part := range strings.Split(lines[len(lines)-1], ", ") {
		fields := strings.Fields(part)
		if len(fields) == 2 && strings.Contains(" errors warnings notices", " "+fields[1]) {
			n, err := strconv.Atoi(fields[0])
			if err != nil {
				b.Fatalf("findings in %q: %v", part, err)
			}
			total += n
		}
	}
	return total
}

// startEmulatorChild runs this test binary as an emulator of a generated account of n
// zones and returns its API base URL; the child ends with the benchmark.
func startEmulatorChild(b *testing.B, n int) string {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestBenchEmulatorChild$")
	cmd.Env = append(os.Environ(), benchEmulatorEnv+"="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = stdin.Close() // the child stops when its stdin closes
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if url, ok := strings.CutPrefix(sc.Text(), benchURLPrefix); ok {
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return url
		}
	}
	b.Fatalf("the emulator child ended without serving: %v", sc.Err())
	return ""
}

// TestBenchEmulatorChild is the emulator process of BenchmarkScanPeakRSS: it does nothing
// unless SUNSET_BENCH_EMULATOR_ZONES is set, then serves a generated account of that many
// zones on loopback, prints its URL and serves until its standard input closes.
func TestBenchEmulatorChild(t *testing.T) {
	v := os.Getenv(benchEmulatorEnv)
	if v == "" {
		t.Skip("the emulator process of BenchmarkScanPeakRSS")
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatal(err)
	}
	srv := newEmulator(t, emulator.Options{Seed: seed.Generate(n, 1), AsOf: fixedNow})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	fmt.Printf("%shttp://%s%s\n", benchURLPrefix, ln.Addr(), emulator.BasePath)
	if err := emulator.Serve(ctx, ln, srv); err != nil && ctx.Err() == nil {
		t.Fatal(err)
	}
}

// resetPeakRSS resets this process's VmHWM (Linux: 5 to clear_refs).
func resetPeakRSS(b *testing.B) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Logf("cannot reset the peak RSS (%v): the figure is the process's lifetime peak", err)
	}
}

// peakRSS is this process's VmHWM in bytes.
func peakRSS(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skipf("no /proc/self/status: %v", err)
	}
	for line := range bytes.Lines(data) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(string(v)), "kB")), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Skip("no VmHWM in /proc/self/status")
	return 0
}

// sampleHeapInuse polls HeapInuse every 20 ms until stopped and returns the peak seen;
// with profile set, it writes a heap profile there whenever the heap grew by a tenth past
// the last profile.
func sampleHeapInuse(profile string) (peak func() uint64, stop func()) {
	var (
		mu      sync.Mutex
		top     uint64
		written uint64
	)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			mu.Lock()
			top = max(top, m.HeapInuse)
			mu.Unlock()
			if profile != "" && m.HeapInuse > written+written/10 {
				written = m.HeapInuse
				writeHeapProfile(profile)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() uint64 {
			mu.Lock()
			defer mu.Unlock()
			return top
		}, func() {
			close(done)
			wg.Wait()
		}
}

// writeHeapProfile replaces path with the current heap profile; a failure only loses
// the picture.
func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err != nil {
		return
	}
	_ = pprof.Lookup("heap").WriteTo(f, 0)
	_ = f.Close()
}
