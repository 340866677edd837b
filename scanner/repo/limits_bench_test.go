package repo

import (
	"bufio"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// suppressionFile is about size bytes of sunset:ignore comment lines, all stacked over the
// one deprecated call at the end (the shape of the report: a file of nothing else).
func suppressionFile(size int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "# sunset:ignore filters,firewall-rules until=2030-01-01 reviewed in change %d\n", i)
	}
	b.WriteString("curl \"$API/zones/$Z/filters\"\n")
	return []byte(b.String())
}

// BenchmarkSuppressionComments checks files of suppression comments at two sizes, 4x apart.
// Linear cost shows as the same MB/s (and ns_per_byte) at both sizes; the quadratic scan it
// replaces fell 4x in MB/s from one size to the next. Run it with
//
//	go test ./scanner/repo -run '^$' -bench SuppressionComments
func BenchmarkSuppressionComments(b *testing.B) {
	c := NewChecker(nil, asOf)
	for _, size := range []int{256 << 10, 1 << 20} {
		data := suppressionFile(size)
		b.Run(fmt.Sprintf("size=%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			var n int
			for i := 0; i < b.N; i++ {
				n = len(c.CheckFile("s.sh", KindText, data).Findings)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(data)), "ns_per_byte")
			b.ReportMetric(float64(n), "findings")
		})
	}
}

// manyFindingsFile is about size bytes of Transfer-Encoding/Content-Length header pairs, each
// pair a finding of transfer-encoding-with-content-length.
func manyFindingsFile(size int) []byte {
	var b strings.Builder
	for b.Len() < size {
		b.WriteString("Transfer-Encoding: chunked\nContent-Length: 42\n")
	}
	return []byte(b.String())
}

// BenchmarkManyFindings checks one file holding a finding every other line, at 1 MB and
// 5 MB (the default size limit): bytes allocated per check (B/op), the heap still held by
// its findings (retained_MB) and their number. Run it with
//
//	go test ./scanner/repo -run '^$' -bench ManyFindings -benchmem
func BenchmarkManyFindings(b *testing.B) {
	c := NewChecker(nil, asOf)
	for _, size := range []int{1 << 20, 5 << 20} {
		data := manyFindingsFile(size)
		b.Run(fmt.Sprintf("size=%dMiB", size>>20), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			var fr FileResult
			for i := 0; i < b.N; i++ {
				fr = c.CheckFile("h.txt", KindText, data)
			}
			b.StopTimer()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			fr = c.CheckFile("h.txt", KindText, data)
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/(1<<20), "retained_MB")
			b.ReportMetric(float64(len(fr.Findings)), "findings")
			runtime.KeepAlive(fr)
		})
	}
}

// minifiedChunks are one statement group per language as minifiers and bundlers write them
// (no newline anywhere), each holding strings, calls, objects and nesting, and a path a
// reader folds. minifiedFile repeats one to the size asked, numbering the names; the
// first chunk calls a deprecated endpoint, so every reader reads the file.
var minifiedChunks = map[string]struct{ name, head, chunk, tail string }{
	"php":    {"m.php", `<?php $c->post("https://api.cloudflare.com/client/v4/zones/".$z."/filters");`, `$a%[1]d=['k'=>"v%[1]d",'u'=>"https://h.example/items/".$id."/x?p=%[1]d",'n'=>[1,2,[3,(4+5)*6]]];function f%[1]d($x,$y=null){return $x->get("/settings/ssl",['q'=>$y]);}f%[1]d($a%[1]d,"s");`, ""},
	"ruby":   {"m.rb", `c.post("https://api.cloudflare.com/client/v4/zones/#{z}/filters");`, `a%[1]d={k: "v%[1]d", "u" => "https://h.example/items/#{id}/x?p=%[1]d", n: [1,2,[3,(4+5)*6]]};def f%[1]d(x,y=nil) x.get("/settings/ssl", q: y) end;f%[1]d(a%[1]d,:s);`, ""},
	"js":     {"m.js", `c.post("https://api.cloudflare.com/client/v4/zones/"+z+"/filters");`, `var a%[1]d={k:"v%[1]d",u:"https://h.example/items/"+id+"/x?p=%[1]d",n:[1,2,[3,(4+5)*6]]};function f%[1]d(e,t){return e.get(` + "`/settings/ssl/${t}`" + `,{q:t})}f%[1]d(a%[1]d,"s");`, ""},
	"python": {"m.py", `c.post("https://api.cloudflare.com/client/v4/zones/"+z+"/filters");`, `a%[1]d={"k":"v%[1]d","u":"https://h.example/items/"+id+"/x?p=%[1]d","n":[1,2,[3,(4+5)*6]]};f%[1]d=lambda x,y=None:x.get(f"/settings/ssl/{y}",q=y);f%[1]d(a%[1]d,"s");`, ""},
	"elixir": {"m.ex", `HTTPoison.post("https://api.cloudflare.com/client/v4/zones/#{z}/filters");`, `a%[1]d=%%{k: "v%[1]d", u: "https://h.example/items/#{id}/x?p=%[1]d", n: [1,2,[3,(4+5)*6]]};f%[1]d=fn x, y -> Req.get(x, url: "/settings/ssl/#{y}", q: y) end;f%[1]d.(a%[1]d,:s);`, ""},
	"go":     {"m.go", `package p;import "fmt";var _=c.Post("https://api.cloudflare.com/client/v4/zones/"+z+"/filters");`, `var a%[1]d=map[string]any{"k":"v%[1]d","u":"https://h.example/items/"+id+"/x?p=%[1]d","n":[]any{1,2,[]int{3,(4+5)*6}}};func f%[1]d(x C,y string)error{return x.Get(fmt.Sprintf("/settings/ssl/%%s",y),Q{y})};`, ""},
	"shell":  {"m.sh", `curl -X POST "https://api.cloudflare.com/client/v4/zones/$Z/filters";`, `a%[1]d="v%[1]d";u%[1]d="https://h.example/items/$id/x?p=%[1]d";f%[1]d(){ curl -s "$1/settings/ssl" -H "Q: ${2:-x}" | jq '.result[] | {k: .v%[1]d}'; };f%[1]d "$a%[1]d" s;`, ""},
	"json":   {"m.json", `{"result":[{"id":"r","action":"block","filter":{"expression":"ip.src eq 192.0.2.1"}}`, `,{"id":"%[1]d","type":"A","name":"h%[1]d.example","content":"192.0.2.1","tags":["a","b"],"meta":{"k":"v%[1]d","n":[1,2,[3,{"x":null}]]},"expression":"http.host eq \"h%[1]d\"","action":"log"}`, `]}`},
	"yaml":   {"m.yaml", `{result: [{id: r, action: block, filter: {expression: "ip.src eq 192.0.2.1"}}`, `, {id: "%[1]d", type: A, name: h%[1]d.example, content: 192.0.2.1, tags: [a, b], meta: {k: v%[1]d, n: [1, 2, [3, {x: null}]]}, expression: "http.host eq \"h%[1]d\"", action: log}`, `]}`},
	"hcl":    {"m.tf", `locals { rules = [{expression = "ip.geoip.country eq \"XX\"", action = "block"}`, `, {id = "%[1]d", type = "A", name = "h%[1]d.example", content = "192.0.2.1", tags = ["a", "b"], meta = {k = "v%[1]d", n = [1, 2, [3, {x = null}]]}, expression = "http.host eq \"h%[1]d\"", action = "log"}`, `] }`},
}

// writeMinified writes about size bytes of lang's minified code on one line
// (minifiedChunks) to path, through a small buffer: the benchmark's own memory stays small.
func writeMinified(tb testing.TB, lang, path string, size int) {
	tb.Helper()
	m := minifiedChunks[lang]
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	n, _ := w.WriteString(m.head)
	for i := 0; n < size-len(m.tail); i++ {
		k, _ := fmt.Fprintf(w, m.chunk, i)
		n += k
	}
	_, _ = w.WriteString(m.tail)
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		tb.Fatal(err)
	}
}

// minifiedSizes are the sizes of the minified files: the default --max-file-size, and four
// times it, as a repository raising the limit for its bundles would let through.
var minifiedSizes = []int{DefaultMaxFileSize, 20 << 20}

// BenchmarkMinifiedFile checks a minified file on one line in each language the readers
// know (minifiedChunks), of 5 MiB (read whole) and 20 MiB (past structureBounds: its text is
// searched, its structure is not, and the run says so): first as the command, `sunset check
// --max-file-size 21MB FILE` (cmd/...: cli_s, its wall time; cli_peak_MB, its peak resident
// memory as the kernel counts it, getrusage's ru_maxrss of the child, the figure a memory
// limit on a CI job is held to; unread, 1 when the run said the file was not fully read).
// These run first, while this process is small, as a child's count starts from its
// parent's. Then in this process (check/...: ns/op and B/op, the time and allocations of one
// check). The bound is 10 s and 300 MB each. Run it with
//
//	go test ./scanner/repo -run '^$' -bench MinifiedFile -benchtime 1x
func BenchmarkMinifiedFile(b *testing.B) {
	dir := b.TempDir()
	langs := slices.Sorted(maps.Keys(minifiedChunks))
	for _, size := range minifiedSizes {
		for _, lang := range langs {
			file := filepath.Join(dir, fmt.Sprintf("%d-%s", size>>20, minifiedChunks[lang].name))
			writeMinified(b, lang, file, size)
			b.Run(fmt.Sprintf("cmd/size=%dMiB/lang=%s", size>>20, lang), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					benchCommandPeak(b, file)
				}
			})
		}
	}
	c := NewChecker(nil, asOf)
	for _, size := range minifiedSizes {
		for _, lang := range langs {
			name := fmt.Sprintf("%d-%s", size>>20, minifiedChunks[lang].name)
			b.Run(fmt.Sprintf("check/size=%dMiB/lang=%s", size>>20, lang), func(b *testing.B) {
				data, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.SetBytes(int64(len(data)))
				runtime.GC()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					c.CheckFile(name, KindOf(name), data)
				}
			})
		}
	}
}

// benchCommandPeak runs `sunset check` on file and reports its wall time, peak resident
// memory and whether it read the file whole.
func benchCommandPeak(b *testing.B, file string) {
	cmd := exec.Command(sunsetBinary(b), "check", "--fail-on", "none", "--max-file-size", "21MB", "--format", "json:"+file+".json", file)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	unread := 0.0
	switch {
	case cmd.ProcessState != nil && cmd.ProcessState.ExitCode() == 4:
		unread = 1
	case err != nil:
		b.Fatalf("sunset check: %v: %s", err, out)
	}
	b.ReportMetric(time.Since(start).Seconds(), "cli_s")
	b.ReportMetric(unread, "unread")
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		b.ReportMetric(float64(ru.Maxrss)/1024, "cli_peak_MB") // Linux counts KiB
	}
}
