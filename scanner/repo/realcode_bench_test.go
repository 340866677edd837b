package repo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// realCodeModules are the modules of real code the speed benchmark reads: the API's Go SDK
// in its last v0 (the calls sunset knows) and v4 (generated services), and a Terraform
// provider framework (much Go that holds nothing sunset looks for).
var realCodeModules = []string{
	"github.com/cloudflare/cloudflare-go@v0.116.0",
	"github.com/cloudflare/cloudflare-go/v4@v4.6.0",
	"github.com/hashicorp/terraform-plugin-framework@v1.19.0",
}

// realCodeTree downloads realCodeModules from the module proxy into a temporary module cache
// and returns their directories, with the corpus's repos/ and repos2/ when SUNSET_CORPUS is
// set. It skips when ripgrep is not installed or the proxy cannot be reached.
func realCodeTree(b *testing.B) []string {
	b.Helper()
	if _, err := exec.LookPath("rg"); err != nil {
		b.Skip("ripgrep (rg) is not installed: nothing to compare with (apt-get install ripgrep)")
	}
	cache := b.TempDir()
	cmd := exec.Command("go", append([]string{"mod", "download", "-json"}, realCodeModules...)...)
	cmd.Dir = cache // outside any module: nothing of this repository's go.mod is touched
	cmd.Env = append(os.Environ(), "GOMODCACHE="+filepath.Join(cache, "mod"), "GOFLAGS=-modcacherw", "GOWORK=off")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		b.Skipf("modules not downloaded from the module proxy (network or GOPROXY): %v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	var roots []string
	dec := json.NewDecoder(&out)
	for {
		var m struct{ Dir, Error string }
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			b.Fatal(err)
		}
		if m.Error != "" || m.Dir == "" {
			b.Skipf("module not downloaded from the module proxy: %s", m.Error)
		}
		roots = append(roots, m.Dir)
	}
	if dir := os.Getenv("SUNSET_CORPUS"); dir != "" {
		roots = append(roots, filepath.Join(dir, "repos"), filepath.Join(dir, "repos2"))
	}
	return roots
}

// BenchmarkCheckRealCode checks a tree of real code (realCodeTree: about 4,000 files and
// 55 MB with the corpus) and times ripgrep searching the same tree for the catalog's
// endpoint paths. Metrics: rg_x, the library's best time over ripgrep's best; cli_rg_x, the
// same for the `sunset check` command (start-up and report included; the two commands timed
// by turns, five rounds), the figure the issue bounds at 3; files and MB checked. Run it with
//
//	SUNSET_CORPUS=/path/to/realworld go test ./scanner/repo -run '^$' -bench CheckRealCode -benchtime 3x
//
// and add -cpuprofile cpu.out to see where the time goes (go tool pprof -top cpu.out).
func BenchmarkCheckRealCode(b *testing.B) {
	roots := realCodeTree(b)
	c := NewChecker(nil, asOf)
	runtime.GC()
	b.ResetTimer()
	var res *Result
	var ours time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		var err error
		if res, err = c.Check(context.Background(), Options{Paths: roots}); err != nil {
			b.Fatal(err)
		}
		if d := time.Since(start); ours == 0 || d < ours {
			ours = d
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(res.FilesScanned), "files")
	b.ReportMetric(float64(res.Bytes)/(1<<20), "MB")
	b.ReportMetric(float64(len(res.Findings)), "findings")
	rgArgs := append([]string{"-c", "--no-ignore", "--hidden", grepPattern()}, roots...)
	reportAgainst(b, ours, "rg", rgArgs...)
	cliArgs := append([]string{"check", "--fail-on", "none", "--as-of", "2026-01-01", "--format", "json:" + filepath.Join(b.TempDir(), "out.json")}, roots...)
	rg, _ := exec.LookPath("rg")
	best := bestAlternating(b, 5, append([]string{sunsetBinary(b)}, cliArgs...), append([]string{rg}, rgArgs...))
	b.ReportMetric(best[0].Seconds()*1000, "cli_ms")
	b.ReportMetric(best[0].Seconds()/best[1].Seconds(), "cli_rg_x")
}

// bestAlternating runs the commands one after the other, n rounds, and returns the best
// time of each: on a machine other work shares, each is timed in the same moments as the
// others, so that their ratio says more than one time alone.
func bestAlternating(b *testing.B, n int, cmds ...[]string) []time.Duration {
	best := make([]time.Duration, len(cmds))
	for range n {
		for i, c := range cmds {
			start := time.Now()
			cmd := exec.Command(c[0], c[1:]...)
			cmd.Env = append(os.Environ(), "NO_COLOR=1")
			if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
				b.Fatalf("%s: %v", c[0], err)
			}
			if d := time.Since(start); best[i] == 0 || d < best[i] {
				best[i] = d
			}
		}
	}
	return best
}
