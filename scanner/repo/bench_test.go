package repo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sunsetscan/sunset/scanner/catalog"
)

// genRepo writes a synthetic configuration repository: files spread over directories of 100,
// 40% Terraform, 30% JSON, 10% shell, 10% Python, 10% TypeScript, each about size bytes; one
// in 32 holds a deprecated usage (about 3%). It returns the number of bytes written.
func genRepo(tb testing.TB, dir string, files, size int) int64 {
	tb.Helper()
	var total int64
	for i := 0; i < files; i++ {
		sub := filepath.Join(dir, fmt.Sprintf("d%03d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				tb.Fatal(err)
			}
		}
		bad := i%32 == 7
		var b strings.Builder
		var name string
		switch i % 10 {
		case 0, 1, 2, 3:
			name = fmt.Sprintf("f%05d.tf", i)
			if bad {
				b.WriteString("resource \"cloudflare_filter\" \"old\" {\n  zone_id = var.zone_id\n  expression = \"ip.geoip.country eq \\\"XX\\\"\"\n}\n")
			}
			for n := 0; b.Len() < size; n++ {
				fmt.Fprintf(&b, "resource \"cloudflare_record\" \"r%d\" {\n  zone_id = var.zone_id\n  name    = \"host%d\"\n  type    = \"A\"\n  content = \"192.0.2.%d\"\n  proxied = true\n  tags    = [\"team:web\", \"env:prod\"]\n}\n\n", n, n, n%250)
				fmt.Fprintf(&b, "resource \"cloudflare_ruleset\" \"rs%d\" {\n  zone_id = var.zone_id\n  phase   = \"http_request_firewall_custom\"\n  rules {\n    action     = \"block\"\n    expression = \"(http.request.uri.path eq \\\"/admin%d\\\" and ip.src.country ne \\\"GB\\\")\"\n  }\n}\n\n", n, n)
			}
		case 4, 5, 6:
			name = fmt.Sprintf("f%05d.json", i)
			b.WriteString("{\"result\": [\n")
			if bad {
				b.WriteString("{\"id\": \"1\", \"action\": \"block\", \"paused\": false, \"filter\": {\"id\": \"2\", \"expression\": \"ip.src eq 192.0.2.1\"}},\n")
			}
			for n := 0; b.Len() < size; n++ {
				fmt.Fprintf(&b, "{\"id\": \"%032d\", \"type\": \"A\", \"name\": \"host%d.example.com\", \"content\": \"192.0.2.%d\", \"proxied\": true, \"ttl\": 1, \"tags\": [], \"meta\": {\"source\": \"primary\"}},\n", n, n, n%250)
			}
			b.WriteString("{\"id\": \"last\"}\n], \"success\": true, \"errors\": [], \"messages\": []}\n")
		case 7:
			name = fmt.Sprintf("f%05d.py", i)
			genPython(&b, bad, size)
		case 8:
			name = fmt.Sprintf("f%05d.ts", i)
			genTypeScript(&b, bad, size)
		default:
			name = fmt.Sprintf("f%05d.sh", i)
			b.WriteString("#!/bin/sh\nAPI=https://api.example.com/client/v4\n")
			if bad {
				b.WriteString("curl -s -X GET \"$API/zones/$ZONE_ID/firewall/rules\"\n")
			}
			for n := 0; b.Len() < size; n++ {
				fmt.Fprintf(&b, "curl -s -X GET \"$API/zones/$ZONE_ID/dns_records?page=%d&per_page=100\" -H \"Authorization: Bearer $TOKEN\" | jq '.result[] | .name'\n", n)
			}
		}
		if err := os.WriteFile(filepath.Join(sub, name), []byte(b.String()), 0o644); err != nil {
			tb.Fatal(err)
		}
		total += int64(b.Len())
	}
	return total
}

// genPython writes a Python module of about size bytes: an HTTP client of the API's current
// endpoints, and when bad a call of the firewall rules API.
func genPython(b *strings.Builder, bad bool, size int) {
	b.WriteString("import os\n\nimport requests\n\nBASE = \"https://api.cloudflare.com/client/v4\"\n\n\n")
	if bad {
		b.WriteString("def rules(zone_id):\n    return requests.get(f\"{BASE}/zones/{zone_id}/firewall/rules\")\n\n\n")
	}
	for n := 0; b.Len() < size; n++ {
		fmt.Fprintf(b, "def records_%d(zone_id, page=1):\n    \"\"\"List page %d of the zone's records.\"\"\"\n    url = f\"{BASE}/zones/{zone_id}/dns_records\"\n    r = requests.get(url, params={\"page\": page, \"per_page\": 100}, headers={\"Authorization\": \"Bearer \" + os.environ[\"TOKEN\"]})\n    return [x[\"name\"] for x in r.json()[\"result\"] if x.get(\"type\") == \"A\"]\n\n\n", n, n)
	}
}

// genTypeScript writes a TypeScript module of about size bytes, plain application code, and
// when bad a Pulumi firewall rule.
func genTypeScript(b *strings.Builder, bad bool, size int) {
	b.WriteString("import { readFile } from \"node:fs/promises\";\n\n")
	if bad {
		b.WriteString("import * as cloudflare from \"@pulumi/cloudflare\";\n\nexport const rule = new cloudflare.FirewallRule(\"block\", { zoneId: \"z\", filterId: \"f\", action: \"block\" });\n\n")
	}
	for n := 0; b.Len() < size; n++ {
		fmt.Fprintf(b, "export async function load%d(path: string): Promise<Record<string, number>> {\n  const text = await readFile(`${path}/item-%d.json`, \"utf8\");\n  const out: Record<string, number> = {};\n  for (const [k, v] of Object.entries(JSON.parse(text))) {\n    if (typeof v === \"number\" && v / 2 > 1) out[k] = v;\n  }\n  return out;\n}\n\n", n, n)
	}
}

// grepPattern is the catalog's endpoint paths as one extended regular expression, parameters
// matching any one segment: what `grep -rE` needs to find the same calls.
func grepPattern() string {
	var alts []string
	seen := map[string]bool{}
	for _, e := range catalog.Default().Entries() {
		for _, ep := range e.Match.Endpoints {
			if ep.Affected {
				continue
			}
			segs := strings.Split(strings.Trim(ep.Path, "/"), "/")
			for i, s := range segs {
				if isPatternParam(s) {
					segs[i] = `[^/"[:space:]]+`
				}
			}
			p := strings.Join(segs, "/")
			if !seen[p] {
				seen[p] = true
				alts = append(alts, p)
			}
		}
	}
	return "(" + strings.Join(alts, "|") + ")"
}

// peakHeap samples the heap in use until stop is closed and returns the maximum.
func peakHeap(stop <-chan struct{}) func() uint64 {
	var peak atomic.Uint64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { wg.Wait(); return peak.Load() }
}

// BenchmarkCheckRepo checks a generated repository (SUNSET_BENCH_FILES files, default 20,000,
// of about 10 KB: 200 MB) and, in the same run, times `grep -rE` with the catalog's endpoint
// patterns over the same tree. Metrics: files/s, MB/s, grep_x (our time / grep's), and the
// peak heap in use. parse_all=true parses every Terraform file with hcl/v2 (the prefilter off);
// parse_all=false is what `sunset check` does. Run it with
//
//	go test ./scanner/repo -run '^$' -bench CheckRepo -benchtime 1x
func BenchmarkCheckRepo(b *testing.B) {
	files := 20000
	if v := os.Getenv("SUNSET_BENCH_FILES"); v != "" {
		if _, err := fmt.Sscan(v, &files); err != nil {
			b.Fatalf("SUNSET_BENCH_FILES=%q: %v", v, err)
		}
	}
	for _, n := range []int{files / 4, files} {
		dir := b.TempDir()
		total := genRepo(b, dir, n, 10<<10)
		for _, parseAll := range []bool{false, true} {
			b.Run(fmt.Sprintf("files=%d/parse_all=%v", n, parseAll), func(b *testing.B) {
				c := NewChecker(nil, asOf)
				c.tf.parseAll = parseAll
				runtime.GC()
				b.SetBytes(total)
				b.ResetTimer()
				stop := make(chan struct{})
				peak := peakHeap(stop)
				var res *Result
				var ours time.Duration // the best run, as for the tools compared
				for i := 0; i < b.N; i++ {
					start := time.Now()
					var err error
					if res, err = c.Check(context.Background(), Options{Paths: []string{dir}}); err != nil {
						b.Fatal(err)
					}
					if d := time.Since(start); ours == 0 || d < ours {
						ours = d
					}
				}
				close(stop)
				b.StopTimer()
				if want := (n + 31) / 32; len(res.Findings) < want || res.FilesScanned != n {
					b.Fatalf("%d findings in %d files, want at least %d in %d", len(res.Findings), res.FilesScanned, want, n)
				}
				b.ReportMetric(float64(n)/ours.Seconds(), "files/s")
				b.ReportMetric(float64(peak())/(1<<20), "peak_heap_MB")
				reportAgainst(b, ours, "grep", "-rEc", grepPattern(), dir)
				reportAgainst(b, ours, "rg", "-c", "--no-ignore", "--hidden", grepPattern(), dir)
				if !parseAll {
					cli := timeCommand(b, sunsetBinary(b), "check", "--fail-on", "none", "--as-of", "2026-01-01", "--format", "json:"+filepath.Join(b.TempDir(), "out.json"), dir)
					b.ReportMetric(cli.Seconds()*1000, "cli_ms")
					if rg, err := exec.LookPath("rg"); err == nil {
						b.ReportMetric(cli.Seconds()/timeCommand(b, rg, "-c", "--no-ignore", "--hidden", grepPattern(), dir).Seconds(), "cli_rg_x")
					}
				}
			})
		}
	}
}

// BenchmarkCheckFile measures one file of each kind, without I/O.
func BenchmarkCheckFile(b *testing.B) {
	dir := b.TempDir()
	genRepo(b, dir, 10, 10<<10)
	c := NewChecker(nil, asOf)
	for _, name := range []string{"f00000.tf", "f00004.json", "f00007.sh"} {
		data, err := os.ReadFile(filepath.Join(dir, "d000", name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Ext(name), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				c.CheckFile(name, KindOf(name), data)
			}
		})
	}
}

// sunsetBinDir is the directory sunsetBinary built the command in, "" before it did;
// TestMain removes it.
var sunsetBinDir string

// TestMain removes the command a benchmark built (sunsetBinary), 45 MB per run.
func TestMain(m *testing.M) {
	code := m.Run()
	if sunsetBinDir != "" {
		_ = os.RemoveAll(sunsetBinDir)
	}
	os.Exit(code)
}

// sunsetBinary builds the sunset command once per benchmark run, so the comparison with the
// search tools is process against process: `sunset check` as users run it (start-up, the
// catalog, the collector's setting for checks, the report written).
var sunsetBinary = func() func(testing.TB) string {
	var once sync.Once
	var path string
	var err error
	return func(tb testing.TB) string {
		once.Do(func() {
			dir, derr := os.MkdirTemp("", "sunset-bench-")
			if derr != nil {
				err = derr
				return
			}
			sunsetBinDir = dir
			path = filepath.Join(dir, "sunset")
			out, berr := exec.Command("go", "build", "-o", path, "../../cmd/sunset").CombinedOutput()
			if berr != nil {
				err = fmt.Errorf("%w: %s", berr, out)
			}
		})
		if err != nil {
			tb.Fatalf("building sunset: %v", err)
		}
		return path
	}
}()

// timeCommand runs a command three times and returns its best time.
func timeCommand(b *testing.B, path string, args ...string) time.Duration {
	best := time.Duration(0)
	for range 3 {
		start := time.Now()
		cmd := exec.Command(path, args...)
		cmd.Env = append(os.Environ(), "NO_COLOR=1")
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				b.Fatalf("%s: %v", path, err)
			}
		}
		if d := time.Since(start); best == 0 || d < best {
			best = d
		}
	}
	return best
}

// reportAgainst times a search tool over the same tree with an equivalent pattern, in the same
// run (the best of three, as its page cache is warm as ours), and reports our time over its:
// NAME_x, and its time in NAME_ms. A tool that is not installed is left out.
func reportAgainst(b *testing.B, ours time.Duration, tool string, args ...string) {
	path, err := exec.LookPath(tool)
	if err != nil {
		b.Logf("%s not installed: no %s_x", tool, tool)
		return
	}
	best := time.Duration(0)
	for range 3 {
		start := time.Now()
		_ = exec.Command(path, args...).Run() // exit 1 means no match
		if d := time.Since(start); best == 0 || d < best {
			best = d
		}
	}
	b.ReportMetric(ours.Seconds()/best.Seconds(), tool+"_x")
	b.ReportMetric(best.Seconds()*1000, tool+"_ms")
}
