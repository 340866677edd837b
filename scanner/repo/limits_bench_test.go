package repo

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
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
